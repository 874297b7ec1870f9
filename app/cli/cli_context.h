#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <iostream>
#include <string>

namespace lathe::cli {

// Shared by every verb: output mode and the action the parsed command line selected.
struct CliContext
{
    bool json = false;
    std::function<int()> action;

    // Machine-readable output goes to stdout as one JSON document; human text otherwise.
    void print(const nlohmann::json &document, const std::string &text) const
    {
        if (json)
            std::cout << document.dump(2) << '\n';
        else
            std::cout << text;
    }
};

} // namespace lathe::cli
