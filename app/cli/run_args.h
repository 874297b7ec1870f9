#pragma once

// What the verbs that work on a run config share (train, lr-find, batch-find): the config from
// --config and the overrides of the flags, and Ctrl+C turned into a cancel.

#include "engine/base/cancel_token.h"
#include "engine/run/run_config.h"

#include <CLI/App.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <string>
#include <vector>
#include <thread>

namespace lathe::cli {

// --config FILE (the defaults without one) with the flags' overrides on top (run-config paths,
// --set's included: engine::runConfigOverrides), as `train --config FILE --set ...` reads it.
engine::RunConfig runConfigFromArgs(const std::string &configFile, const nlohmann::json &overrides);

// --data, --config and --set, as `train` takes them (lr-find, batch-find, tune).
struct RunArgs
{
    std::string data;
    std::string config;
    std::vector<std::string> set;

    void add(CLI::App *cmd);
    // The config as runConfigFromArgs reads it, --data as data.shards.
    engine::RunConfig runConfig() const;
};

// While alive, SIGINT and SIGTERM cancel `cancel` (polled every 100 ms on a thread of its own:
// a signal handler may only set a flag) instead of ending the process.
class InterruptWatch
{
public:
    explicit InterruptWatch(engine::CancelToken cancel);
    ~InterruptWatch();
    InterruptWatch(const InterruptWatch &) = delete;
    InterruptWatch &operator=(const InterruptWatch &) = delete;

private:
    std::atomic<bool> m_done{false};
    std::thread m_thread;
};

} // namespace lathe::cli
