#pragma once

// Engine-internal: includes LibTorch and libonnx's protobuf classes. Used by engine .cpp files
// and engine tests only (compile with ONNX_NAMESPACE=onnx and ONNX_ML=1, as the engine does).
//
// Lathe writes ONNX itself, per architecture family, from the built model's modules: the C++
// modules cannot be traced into a graph, and writing the graph directly lets BatchNorm be
// folded and every node be chosen for the runtimes that read it (OpenCV DNN 4.6, ONNX Runtime).
//
// Graph contract (also in the metadata props):
//   input  "input"  float32 [N, C, H, W], normalised ((pixel / 255 - mean) / std), N dynamic;
//          with preprocessing inside: uint8 [N, H, W, C] pixels instead.
//   output "logits" float32 [N, K]; with softmax inside: "probabilities".

#include "engine/models/backbone_registry.h"
#include "engine/models/networks/classifier.h"

#include <onnx/onnx_pb.h>

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

constexpr int kOnnxOpset = 13;

struct OnnxGraphOptions
{
    int imageSize = 224;
    int inChannels = 3;
    bool preprocessing = false; // uint8 NHWC input, normalised inside the graph
    bool softmax = false;       // output probabilities instead of logits
    bool sigmoid = false;       // with softmax: a multi-label model's per-class sigmoid instead
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
    std::map<std::string, std::string> metadata; // metadata_props of the model
};

// The classifier (any mode; evaluation semantics are written) as an ONNX model of opset
// kOnnxOpset: BatchNorm folded into the convolutions, dropout and stochastic depth left out.
// Throws EngineError for an architecture family it does not know.
onnx::ModelProto buildOnnxModel(models::Classifier &model, const BackboneInfo &info, const OnnxGraphOptions &options);

// onnx::checker (full check) and strict shape inference; throws EngineError with the checker's
// message, prefixed with what (e.g. the file).
void checkOnnxModel(const onnx::ModelProto &model, const std::string &what);

// Serialises to bytes / parses bytes (EngineError naming what for malformed data).
std::string serializeOnnx(const onnx::ModelProto &model);
onnx::ModelProto parseOnnx(const std::string &bytes, const std::string &what);
onnx::ModelProto readOnnxFile(const std::string &path); // bounded read, EngineError naming the file

// A copy whose graph input and output have a fixed batch size instead of the symbolic one:
// OpenCV DNN 4.6 computes squeeze-excitation blocks (GlobalAveragePool ... Mul) wrongly or
// fails on them when the batch dimension is symbolic, and gets them right when it is fixed.
onnx::ModelProto withFixedBatch(const onnx::ModelProto &model, std::int64_t batch);

// FP16: initializers and every computation in float16; the float32 graph input and output are
// kept with Cast nodes at both ends.
onnx::ModelProto convertOnnxToFloat16(const onnx::ModelProto &model);

// INT8 post-training static quantisation in QDQ form.
struct QuantizeOptions
{
    std::string method = "minmax"; // "minmax", "percentile", "entropy"
    double percentile = 99.99;     // percentile: the kept fraction of |x|, in percent
};

struct QuantizeReport
{
    int quantizedNodes = 0;                  // Conv / Gemm / MatMul / Add with QDQ around them
    std::map<std::string, int> quantizedOps; // op type -> count
    std::map<std::string, int> floatOps;     // op types left in float -> count
    int calibrationImages = 0;
    int quantizedTensors = 0;                // activations with a QuantizeLinear
};

// Calibrates activation ranges by running model (float32) on the calibration batches with the
// reference runtime, then writes: weights of Conv/Gemm as per-output-channel symmetric int8
// (MatMul weights per tensor), biases int32 (scale input x weight), activations per-tensor
// uint8 asymmetric; Relu after a quantised op is absorbed by its QuantizeLinear (zero point at
// the lower end), as ONNX Runtime's quantiser does.
onnx::ModelProto quantizeOnnxQdq(const onnx::ModelProto &model, const std::vector<torch::Tensor> &calibration,
                                 const QuantizeOptions &options, QuantizeReport *report);

// Evaluates an ONNX graph with LibTorch ops that follow the ONNX operator definitions, for the
// ops Lathe writes (float32, float16 storage and QDQ int8). For checking files in-process
// where OpenCV DNN cannot read them. Throws EngineError for an op it does not implement.
class OnnxReferenceRuntime
{
public:
    explicit OnnxReferenceRuntime(const onnx::ModelProto &model);
    ~OnnxReferenceRuntime();
    // The graph's first input -> its first output. observer, when set, sees every node output.
    torch::Tensor run(const torch::Tensor &input,
                      const std::function<void(const std::string &name, const torch::Tensor &value)> &observer = {}) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// TorchScript source for the graph (a module whose forward follows the ONNX operators) with
// its initializers as buffers, saved with torch::jit::Module::save: loads with torch.jit.load
// in Python and torch::jit::load in LibTorch. Float32 graphs without QDQ only.
void writeTorchScriptFromOnnx(const onnx::ModelProto &model, const std::string &path);

} // namespace lathe::engine
