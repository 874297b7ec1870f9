#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `serve`: a TensorFlow-Serving-compatible HTTP prediction server for exports (engine/serve/serve.h).
void addServeVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
