#pragma once

// Torch-free: which API a request of `lathe-cli serve` asks for, from its method and path
// (serve.h lists the paths). Its own file so that the fuzz build can compile it alone.

#include <cstdint>
#include <optional>
#include <string>

namespace lathe::engine::serve {

struct Route
{
    std::string api = "other"; // predict, classify, regress, status, metadata, health, metrics, other
    std::string model;
    std::optional<std::int64_t> version;
    std::string error;         // a malformed API path: the 4xx reason (errorStatus > 0)
    int errorStatus = 0;
};

// Never throws: a path that names no API gives errorStatus 400/404/405 and the reason.
Route parseApiPath(const std::string &method, const std::string &path);

} // namespace lathe::engine::serve
