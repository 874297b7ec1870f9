#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `models` (the backbone registry) and `forward` (one batch through a backbone, with weights
// read from safetensors or torch.save files: the torchvision parity checks use it).
void addModelVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
