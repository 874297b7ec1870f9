#pragma once

#include "engine/base/task_control.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace lathe::engine {

// What `lathe-cli export` and the GUI's export job ask for. The model comes from a run folder
// and one of its checkpoints, or (bare model) from an architecture and a weights file.
struct ExportOptions
{
    std::string runDir;
    std::string checkpoint = "best";  // "best", "last", "step-<n>" or a file (resolveCheckpoint)

    std::string arch;                 // bare model: a registry name (instead of runDir)
    std::string weightsPath;          // bare model: safetensors / .pth; empty = random initialisation
    int numClasses = 0;               // bare model: 0 = from the weights' head (1000 without weights)
    int inChannels = 3;               // bare model
    std::vector<std::string> labels;  // bare model: class names (default class_0, class_1, ...)
    int imageSize = 0;                // 0: the run's data.image_size, else the backbone's input size

    // "onnx", "onnx-fp16", "onnx-int8", "tflite", "tflite-fp16", "tflite-int8", "torchscript",
    // "safetensors"
    std::vector<std::string> formats{"onnx"};
    std::string outDir;
    bool preprocessing = false;       // ONNX/TorchScript/TFLite input uint8 NHWC, normalised inside
    bool softmax = false;             // ONNX/TorchScript/TFLite output probabilities
    std::string int8Io = "uint8";     // TFLite INT8 input (pixels) and output: "uint8" or "int8"

    // INT8 calibration: a shard folder (dataset.json) or a folder of images; empty: the run's
    // data.shards. Images of calibSplit, shuffled with a fixed seed.
    std::string calibData;
    std::string calibSplit = "train";
    int calibImages = 64;
    std::string calibMethod = "minmax"; // "minmax", "percentile", "entropy"

    // Verification: a fixed batch of real images (shard folder or image folder; empty: the run's
    // data.shards, validation split) run through every artifact and through LibTorch.
    std::string verifyData;
    std::string verifySplit;          // empty: the run's data.val_split, else val / test / train
    int verifyImages = 8;
    int accuracyImages = 256;         // labelled validation images for the accuracy of FP16/INT8 (0: off)
    double int8MaxAccuracyDrop = 1.0; // top-1 points; more fails the INT8 artifact
    bool benchmark = true;            // CPU latency per image at batch 1 and 32
};

// Exports every requested format into outDir and verifies each (report.json beside them):
// file size; max / mean absolute difference of the logits against the LibTorch model on the
// verification batch, and top-1 agreement (FP32 ONNX through OpenCV DNN; FP16/INT8 ONNX and
// every TFLite file through the in-process reference runtimes; TorchScript through
// torch::jit::load; safetensors by loading it back strictly); validation accuracy of FP16/INT8
// against the original; CPU latency. An artifact whose check fails is renamed to <file>.failed and reported with the
// reason; a passed one with its SHA-256. report.json is removed before the first file is
// written and written last, so a folder with a report holds a finished export (kill -9
// included). Returns the report. Throws EngineError (bad options, unreadable model) or Cancelled.
nlohmann::json exportModel(const ExportOptions &options, const TaskControl &control = {});

// Runs images through an exported float ONNX file with OpenCV DNN, or a .tflite file (FP32,
// FP16, INT8) with the TFLite reference runtime, preprocessing them as the file's metadata says
// (input size, mean, std). Returns {model, labels?, predictions: [{image,
// top: [{index, label, probability}]}]}. Throws EngineError naming the file and the reason.
struct OnnxPredictOptions
{
    std::string modelPath;
    std::vector<std::string> images;
    int top = 5;
};
nlohmann::json predictWithOnnx(const OnnxPredictOptions &options);

// An exported float ONNX file (Lathe's FP32 graph, no QDQ) as a TorchScript archive at ptPath
// (writeTorchScriptFromOnnx): how `lathe-cli serve` runs an export that holds only model.onnx.
// Throws EngineError naming the file and the operator it cannot translate.
void onnxFileToTorchScript(const std::string &onnxPath, const std::string &ptPath);

} // namespace lathe::engine
