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

#include "engine/serve/model_registry.h"

#include <cstddef>
#include <string>
#include <vector>

namespace lathe::engine::serve {

struct ServeOptions
{
    std::vector<ModelSource> models;
    std::string bind = "127.0.0.1";
    int port = 8501;                    // 0: any free port (the "listening" log line names it)
    int threads = 32;                   // HTTP worker threads (one per connection being served)
    std::size_t maxBodyBytes = std::size_t(16) << 20;
    std::string tokenFile;              // non-empty: every endpoint but /healthz needs "Authorization: Bearer <token>"
    bool accessLog = true;
    RegistryOptions registry;
};

// Serves until SIGTERM or SIGINT, then stops accepting, lets the requests in flight finish and
// returns 0. Throws EngineError when a model cannot be loaded or the address cannot be bound.
// Handles SIGTERM and SIGINT while it runs (the previous handlers come back after) and blocks
// SIGPIPE in the calling thread (and so in every thread it starts).
int runServer(const ServeOptions &options);

} // namespace lathe::engine::serve
