#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `lr-find` (the learning-rate range test of a run config) and `batch-find` (the largest batch
// that fits the device's memory).
void addFinderVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
