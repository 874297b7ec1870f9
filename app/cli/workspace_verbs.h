#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// Verbs that need the workspace (projects): only in builds with Qt.
void addWorkspaceVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
