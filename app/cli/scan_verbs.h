#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `scan` and `bench scan`: engine-only verbs over an image folder.
void addScanVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
