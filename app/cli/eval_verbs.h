#pragma once

#include "cli_context.h"

#include <CLI/App.hpp>

namespace lathe::cli {

// `eval` (a checkpoint over a split: metrics, confusion matrix, calibration, PR curves),
// `predict` (classify image files with an exported ONNX file, a run's checkpoint or a weights
// file) and `gradcam` (an image's Grad-CAM heat map as a PNG overlay).
void addEvalVerbs(CLI::App &app, CliContext &context);

} // namespace lathe::cli
