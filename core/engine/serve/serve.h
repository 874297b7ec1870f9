#pragma once

// Torch-free: `lathe-cli serve`, an HTTP prediction server for Lathe's exports whose REST API is
// TensorFlow Serving's (so its clients work unchanged):
//   GET  /v1/models/NAME[/versions/V]                  model_version_status
//   GET  /v1/models/NAME[/versions/V]/metadata         signature_def (+ labels, preprocessing)
//   POST /v1/models/NAME[/versions/V]:predict          {"instances": [...]} or {"inputs": ...}
//   POST /v1/models/NAME[/versions/V]:classify         {"examples": [...]}
//   GET  /monitoring/prometheus/metrics                 Prometheus text
//   GET  /healthz                                       {"status": "ok", "models": {NAME: version}}
// Errors are {"error": "..."} with TF Serving's HTTP status. Each request is logged on stderr as
// one JSON line, and so are the server's events (listening, model_loaded, model_refused, ...).

#include "engine/base/cancel_token.h"
#include "engine/serve/model_registry.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lathe::engine::serve {

// What a server has answered so far (ServeOptions::onStats).
struct ServeStats
{
    std::uint64_t requests = 0;  // requests answered, every endpoint
    std::uint64_t errors = 0;    // of those, answered with an HTTP status of 400 or more
    double lastLatencyMs = 0;    // the last answered request's, from its parsing to its answer
    std::int64_t inFlight = 0;   // requests being handled now
};

struct ServeOptions
{
    std::vector<ModelSource> models;
    std::string bind = "127.0.0.1";
    int port = 8501;                    // 0: any free port (the "listening" log line names it)
    int threads = 32;                   // HTTP worker threads (one per connection being served)
    std::size_t maxBodyBytes = std::size_t(parse_limits::kServeBodyBytes.value);
    std::string tokenFile;              // non-empty: every endpoint but /healthz needs "Authorization: Bearer <token>"
    bool accessLog = true;
    RegistryOptions registry;

    // For a program that runs the server inside itself (the workbench's serve job):
    bool handleSignals = true;  // false: SIGTERM and SIGINT are left alone; `stop` ends the server
    CancelToken stop;           // once cancelled: stops as on SIGTERM (checked every 100 ms)
    // Called once the address is bound, with the port (the one chosen when port is 0).
    std::function<void(int port)> onListening;
    // Called from a thread of the server's at most every 100 ms while the counts change, and
    // once more after the last request has been answered.
    std::function<void(const ServeStats &)> onStats;
};

// Serves until SIGTERM or SIGINT (or `stop`), then stops accepting, lets the requests in flight
// finish and returns 0. Throws EngineError when a model cannot be loaded or the address cannot be
// bound. With handleSignals (the default) it handles SIGTERM and SIGINT while it runs (the
// previous handlers come back after; one such server per process at a time). It blocks SIGPIPE
// in the calling thread (and so in every thread it starts); without handleSignals the calling
// thread's signal mask is restored when it returns.
int runServer(const ServeOptions &options);

} // namespace lathe::engine::serve
