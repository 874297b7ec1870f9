#pragma once

// Torch-free: the server's failures, each with the HTTP status TF Serving answers it with
// (its gRPC code mapped as tensorflow_serving/model_servers/http_server.cc does).

#include "engine/base/engine_error.h"

#include <string>

namespace lathe::engine::serve {

class ServeError : public EngineError
{
public:
    ServeError(int httpStatus, const std::string &message, int retryAfterSeconds = 0)
        : EngineError(message)
        , m_status(httpStatus)
        , m_retryAfter(retryAfterSeconds)
    {
    }
    int status() const { return m_status; }
    int retryAfter() const { return m_retryAfter; } // > 0: a Retry-After header
private:
    int m_status;
    int m_retryAfter;
};

// INVALID_ARGUMENT
inline ServeError invalidArgument(const std::string &message) { return ServeError(400, message); }
// NOT_FOUND
inline ServeError notFound(const std::string &message) { return ServeError(404, message); }

} // namespace lathe::engine::serve
