#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `tune` (a hyperparameter study: many runs of one run config with fields of a search space
// varied, searched by TPE/random/grid, pruned by ASHA/Hyperband/median stopping, resumable) and
// `study` (a study folder's trials, best first).
void addTuneVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
