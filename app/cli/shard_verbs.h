#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `convert` (image folder -> TFRecord shards) and `verify` (check a converted dataset).
void addShardVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
