#pragma once

// Engine-internal, private to export/ (includes LibTorch and libonnx's protobuf classes): what
// exportModel (model_export.cpp) prepares once and hands to the writer of each format
// (export_onnx.cpp, export_tflite.cpp, export_torchscript.cpp, export_safetensors.cpp), which write their files
// and check them (export_verify.h).

#include "engine/base/file_io.h"
#include "engine/export/export_images.h"
#include "engine/export/export_job.h"
#include "engine/export/onnx_export.h"
#include "engine/models/model_builder.h"
#include "engine/models/model_spec.h"
#include "engine/pipeline/sample_transform.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <string>
#include <vector>

namespace lathe::engine::export_internal {

// The model, its FP32 graph and the batches every artifact is checked with, as exportModel
// prepared them.
struct ExportContext
{
    ExportContext(const ExportOptions &options, const TaskControl &control)
        : options(options)
        , control(control)
    {
    }

    const ExportOptions &options;
    const TaskControl &control;

    // The model in evaluation mode, and what it was built from.
    ModelSpec spec;
    BuiltModel built;
    std::vector<std::string> labels;
    int imageSize = 0;
    int resizeSize = 0;
    TransformOptions transform;       // evaluation transform of every image batch
    std::string dataDir;              // the run's data.shards (default verification and calibration images)
    std::string valSplit;             // the run's data.val_split
    std::string checkpointFile;       // the weights the model was loaded from
    std::string checkpointSidecar;
    nlohmann::json source;            // the report's "source"; model.json starts from it
    // A multi-label run's model (checkpoint sidecar "task"): probabilities are per-class
    // sigmoids, and the thresholds (the sidecar's F1-tuned ones) go into the metadata.
    bool multiLabel = false;
    std::vector<double> thresholds;
    // The model's outputs as the artifacts give them: logits, or probabilities (softmax, or a
    // multi-label model's sigmoid) with ExportOptions::softmax.
    torch::Tensor outputs(const torch::Tensor &logits) const
    {
        if (!options.softmax)
            return logits;
        return multiLabel ? torch::sigmoid(logits) : torch::softmax(logits, 1);
    }

    // The FP32 graph (checked) that every ONNX, TorchScript and TFLite artifact starts from,
    // and the options it was built with.
    onnx::ModelProto fp32;
    OnnxGraphOptions graphOptions;

    // The verification batch, its input as the artifacts take it (pixels with preprocessing
    // inside the graph) and the LibTorch model's outputs on it.
    ImageBatch verify;
    torch::Tensor verifyInput;
    torch::Tensor reference;
    // Labelled validation images for the accuracy of FP16 / INT8; referenceAccuracy < 0: none.
    ImageBatch validation;
    double referenceAccuracy = -1;

    // Latency inputs of batch 1 and 32 in the artifacts' input layout.
    torch::Tensor latencyOne;
    torch::Tensor latencyMany;

    models::Classifier &model() const { return *built.classifier; }
    const BackboneInfo &info() const { return built.info; }
};

// One requested format while it is written and checked.
struct Artifact
{
    explicit Artifact(const std::string &format)
        : format(format)
        , entry{{"format", format}}
    {
    }

    std::string format;
    nlohmann::json entry;              // its entry in report.json
    std::string path;                  // the file written; empty until the writer names it
    std::vector<std::string> failures; // why it fails; none: it passed
};

// The writers: each writes its file(s) into options.outDir, sets artifact.path as soon as it
// knows the file, records what it wrote in artifact.entry and checks the file. A check that
// fails adds to artifact.failures; an error that stops the artifact is thrown (EngineError,
// or Cancelled). exportModel names the outcome and renames the file of a failed artifact.

// "onnx", "onnx-fp16" and "onnx-int8" (export_onnx.cpp); progress: the job's progress while
// this artifact is made, for the INT8 calibration's status.
void exportOnnx(const ExportContext &ctx, double progress, Artifact &artifact);
// "tflite", "tflite-fp16" and "tflite-int8" (export_tflite.cpp), with labels.txt beside them.
void exportTflite(const ExportContext &ctx, double progress, Artifact &artifact);
// "torchscript" (export_torchscript.cpp): the FP32 graph as a TorchScript archive.
void exportTorchScript(const ExportContext &ctx, Artifact &artifact);
// "safetensors" (export_safetensors.cpp): the weights, with model.json describing the model.
void exportSafetensors(const ExportContext &ctx, Artifact &artifact);

// The INT8 calibration images: options.calibData, else the run's shards (calibSplit, shuffled
// with a fixed seed); pixels too when asked. Throws EngineError when there are none.
ImageBatch loadCalibration(const ExportContext &ctx, double progress, bool pixels);

// report.json and model.json: indented, written atomically.
inline void writeJsonFile(const std::string &path, const nlohmann::json &doc)
{
    writeFileAtomically(path, doc.dump(2) + "\n");
}

} // namespace lathe::engine::export_internal
