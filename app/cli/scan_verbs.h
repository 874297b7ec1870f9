#pragma once

#include "engine/dataset/folder_scan.h"
#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `scan`: validate an image folder (engine only).
void addScanVerb(CLI::App &app, CliContext &context);

// The options every verb that scans a folder shares (IMAGE_DIR, --max-pixels, --val, ...).
void addScanOptions(CLI::App *cmd, engine::ScanOptions &options);

} // namespace lathe::cli
