#pragma once

// Engine-internal, private to export/ (includes LibTorch, OpenCV DNN and libonnx's protobuf
// classes): how every written file is checked against the LibTorch model. Each file is read
// back and run on the verification batch by a runtime independent of the writer where there is
// one: FP32 ONNX through OpenCV DNN (the reference runtime where OpenCV cannot), FP16 / INT8
// ONNX through the reference runtime (with their validation accuracy), TorchScript through
// torch::jit::load, safetensors by loading it strictly into a fresh model. The CPU latency is
// measured with the same runtime where it is one to deploy with.

#include "engine/export/export_internal.h"
#include "engine/export/tflite_model.h"

#include <nlohmann/json.hpp>
#include <opencv2/dnn.hpp>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace lathe::engine::export_internal {

// OpenCV DNN on a copy of the file with the batch size pinned (see withFixedBatch); one
// network per batch size.
class OpenCvRunner
{
public:
    explicit OpenCvRunner(const onnx::ModelProto &model)
        : m_model(model)
    {
    }

    // The graph's output for input. Throws cv::Exception where OpenCV cannot read or run the
    // graph, EngineError for a non-float output.
    torch::Tensor run(const torch::Tensor &input);

private:
    onnx::ModelProto m_model;
    std::map<std::int64_t, cv::dnn::Net> m_nets;
};

// The LibTorch model's outputs on the verification batch (ctx.verify, with softmax when the
// artifacts have it inside). With preprocessing inside the graph, the model runs on the batch's
// pixels normalised as the graph does it.
torch::Tensor referenceOutputs(const ExportContext &ctx);
// The LibTorch model's outputs on uint8 NHWC pixels, normalised as the graphs do it.
torch::Tensor referenceOnPixels(const ExportContext &ctx, const torch::Tensor &pixels);

// Top-1 accuracy in percent of logits [N, K] against labels.
double accuracy(const torch::Tensor &logits, const std::vector<std::int64_t> &labels);

// run on x in slices of batch rows, concatenated; checks for cancellation before each slice.
torch::Tensor batched(const std::function<torch::Tensor(const torch::Tensor &)> &run, const torch::Tensor &x,
                      const TaskControl &control, int batch = 32);

// The checks of the written files, one per kind; each records its results in artifact.entry
// ("runtime", "verification", ...) and its failures in artifact.failures.
// FP32 ONNX, as read back from its file (written).
void verifyOnnxFp32(const ExportContext &ctx, const onnx::ModelProto &written, Artifact &artifact);
// FP16 or INT8 ONNX (artifact.format), as read back from its file (written).
void verifyOnnxReduced(const ExportContext &ctx, const onnx::ModelProto &written, Artifact &artifact);
// TFLite, as read back from its file (written); pixels: the file takes pixels (uint8, or int8
// pixel - 128), else normalised NHWC floats. Run by TfliteReferenceRuntime; LiteRT runs the files
// in the tests (tests/integration/export_litert.sh).
void verifyTflite(const ExportContext &ctx, const TfliteModel &written, bool pixels, Artifact &artifact);
// TorchScript: loads artifact.path.
void verifyTorchScript(const ExportContext &ctx, Artifact &artifact);
// safetensors: loads artifact.path into a fresh model.
void verifySafetensors(const ExportContext &ctx, Artifact &artifact);

} // namespace lathe::engine::export_internal
