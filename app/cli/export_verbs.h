#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `export` (ONNX FP32/FP16/INT8, TorchScript, safetensors + model.json, each verified, with
// report.json) and `predict` (images through an exported float ONNX file with OpenCV DNN).
void addExportVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
