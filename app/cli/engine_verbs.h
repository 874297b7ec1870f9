#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// Verbs that need only the engine: present in every build, LATHE_ENGINE_ONLY included.
void addEngineVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
