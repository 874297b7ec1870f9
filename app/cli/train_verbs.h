#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `train` (a run from shards and a run config, or --resume of a run folder) and `bench train`
// (training throughput on synthetic data). Call after addBenchVerbs: `bench train` joins `bench`.
void addTrainVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
