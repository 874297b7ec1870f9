#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `lathe-cli config schema|defaults|check`: the run config's reference, its defaults, and a
// check of a config file (with the --set overrides `train` takes).
void addConfigVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
