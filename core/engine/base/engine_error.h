#pragma once

#include <stdexcept>
#include <string>

namespace lathe::engine {

// Every failure that crosses the engine boundary is an EngineError carrying a message that
// names the file (or field) and the reason. Jobs turn it into failed(message).
class EngineError : public std::runtime_error
{
public:
    explicit EngineError(const std::string &message)
        : std::runtime_error(message)
    {
    }
};

// Thrown by TaskControl::checkCancel(); Jobs turn it into cancelled(), not failed().
class Cancelled : public EngineError
{
public:
    Cancelled()
        : EngineError("cancelled")
    {
    }
};

} // namespace lathe::engine
