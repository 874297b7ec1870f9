// parseApiPath: the REST paths of `lathe-cli serve` (TF Serving's) into model, version and API.

#include "engine/serve/serve_route.h"

#include <sstream>
#include <vector>

namespace lathe::engine::serve {

Route parseApiPath(const std::string &method, const std::string &path)
{
    Route r;
    if (path == "/healthz" || path == "/monitoring/prometheus/metrics") {
        // Read-only endpoints: a POST is refused as the model APIs refuse a wrong method (found
        // by fuzz_serve_route: it was answered as if it were a GET). HEAD is a GET without body.
        if (method != "GET" && method != "HEAD") {
            r.errorStatus = method == "POST" ? 405 : 404;
            r.error = "Malformed request: " + method + " " + path + " (GET it)";
            return r;
        }
        r.api = path == "/healthz" ? "health" : "metrics";
        return r;
    }
    const std::string prefix = "/v1/models/";
    if (path.rfind(prefix, 0) != 0) {
        r.errorStatus = 404;
        r.error = "Malformed request: " + method + " " + path;
        return r;
    }
    std::string rest = path.substr(prefix.size()), verb;
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
        verb = rest.substr(colon + 1);
        rest = rest.substr(0, colon);
    }
    std::vector<std::string> segs;
    std::stringstream s(rest);
    for (std::string seg; std::getline(s, seg, '/');)
        segs.push_back(seg);
    if (segs.empty() || segs[0].empty()) {
        r.errorStatus = 404;
        r.error = "Malformed request: " + method + " " + path + " (no model name)";
        return r;
    }
    r.model = segs[0];
    std::size_t i = 1;
    if (i < segs.size() && segs[i] == "versions") {
        if (i + 1 >= segs.size() || segs[i + 1].empty() || segs[i + 1].size() > 18 ||
            segs[i + 1].find_first_not_of("0123456789") != std::string::npos) {
            r.errorStatus = 400;
            r.error = "Malformed request: " + path + " (a version is a non-negative integer)";
            return r;
        }
        r.version = std::stoll(segs[i + 1]);
        i += 2;
    } else if (i < segs.size() && segs[i] == "labels") {
        r.errorStatus = 404;
        r.error = "Unrecognized servable version label: " + (i + 1 < segs.size() ? segs[i + 1] : std::string()) +
                  " (this server has no version labels; use /versions/N)";
        return r;
    }
    bool metadata = false;
    if (i < segs.size() && segs[i] == "metadata" && i + 1 == segs.size()) {
        metadata = true;
        ++i;
    }
    if (i != segs.size()) {
        r.errorStatus = 404;
        r.error = "Malformed request: " + method + " " + path;
        return r;
    }
    if (method == "GET" && verb.empty()) {
        r.api = metadata ? "metadata" : "status";
    } else if (method == "POST" && !metadata && (verb == "predict" || verb == "classify" || verb == "regress")) {
        r.api = verb;
    } else {
        r.errorStatus = method == "GET" || method == "POST" ? 405 : 404;
        r.error = "Malformed request: " + method + " " + path +
                  (method == "GET" ? " (predict and classify are POST)" : " (GET the status and metadata)");
    }
    return r;
}

} // namespace lathe::engine::serve
