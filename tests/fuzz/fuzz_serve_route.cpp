// `lathe-cli serve`'s routing: an HTTP request line's method and path ("POST /v1/models/NAME/
// versions/3:predict") into the API, model and version, or the 4xx status and reason. The
// input is "METHOD PATH" (the path as cpp-httplib hands it over, already percent-decoded).
// It never throws; what it accepts must be one of the APIs, with a model where one is needed.
#include "engine/serve/serve_route.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string line(reinterpret_cast<const char *>(data), size);
    const std::size_t space = line.find(' ');
    const std::string method = line.substr(0, space);
    const std::string path = space == std::string::npos ? std::string() : line.substr(space + 1);
    const lathe::engine::serve::Route route = lathe::engine::serve::parseApiPath(method, path);
    if (route.errorStatus != 0) {
        if (route.error.empty() || (route.errorStatus != 400 && route.errorStatus != 404 && route.errorStatus != 405))
            std::abort();
        return 0;
    }
    const std::string &api = route.api;
    const bool modelApi = api == "predict" || api == "classify" || api == "regress" || api == "status" || api == "metadata";
    if (!modelApi && api != "health" && api != "metrics")
        std::abort();
    if (modelApi && (route.model.empty() || route.model.find('/') != std::string::npos ||
                     route.model.find(':') != std::string::npos || (route.version && *route.version < 0)))
        std::abort();
    // Each API answers its own method only: POST for inference, GET (or HEAD) for the rest.
    if ((api == "predict" || api == "classify" || api == "regress") != (method == "POST"))
        std::abort();
    if ((api == "health" || api == "metrics") && method != "GET" && method != "HEAD")
        std::abort();
    return 0;
}
