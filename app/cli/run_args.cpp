#include "run_args.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>

namespace lathe::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void onSignal(int)
{
    g_interrupted = 1;
}

} // namespace

engine::RunConfig runConfigFromArgs(const std::string &configFile, const nlohmann::json &overrides)
{
    engine::RunConfig config = configFile.empty() ? engine::RunConfig{} : engine::readRunConfig(configFile);
    if (!overrides.empty())
        config = engine::applyRunConfigOverrides(config, overrides);
    return config;
}

void RunArgs::add(CLI::App *cmd)
{
    cmd->add_option("--data", data, "Converted dataset folder (with dataset.json); overrides data.shards");
    cmd->add_option("--config", config, "Run config file (JSON), as `train --config` takes it");
    cmd->add_option("--set", set, "Any run-config field, PATH=VALUE (e.g. optimizer.name=adamw); repeatable");
}

engine::RunConfig RunArgs::runConfig() const
{
    nlohmann::json overrides = engine::runConfigOverrides(set);
    if (!data.empty())
        overrides["data.shards"] = data;
    return runConfigFromArgs(config, overrides);
}

InterruptWatch::InterruptWatch(engine::CancelToken cancel)
{
    g_interrupted = 0;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    m_thread = std::thread([this, cancel] {
        while (!m_done) {
            if (g_interrupted)
                cancel.cancel();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
}

InterruptWatch::~InterruptWatch()
{
    m_done = true;
    m_thread.join();
}

} // namespace lathe::cli
