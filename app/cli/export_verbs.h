#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `export` (ONNX FP32/FP16/INT8, TorchScript, safetensors + model.json, each verified, with
// report.json). `predict --model FILE.onnx` is registered with the other predict modes (eval_verbs.h).
void addExportVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
