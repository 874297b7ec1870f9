#pragma once

// Engine-internal (LibTorch): TensorFlow Lite models in memory, as Lathe writes them and reads
// them back, and what it does with them.
//
// Lathe writes .tflite files itself (no TensorFlow converter): tfliteFromOnnx translates the
// FP32 ONNX graph that the ONNX exporter builds from the model's modules (BatchNorm already
// folded) into TFLite's operators in NHWC, quantizeTflite makes the FP16 and full-integer INT8
// variants of that graph, and serializeTflite writes the FlatBuffer (tflite_schema.fbs, a subset
// of the published schema). parseTflite reads a file back (verified FlatBuffer, bounded) and
// TfliteReferenceRuntime evaluates it with LibTorch ops that follow TFLite's kernels, INT8
// included, for checking files in-process.
//
// Layout contract: batch 1 (TFLite's convention for image classifiers); FP32 / FP16 take float32
// [1, H, W, C] normalised ((pixel / 255 - mean) / std), or uint8 [1, H, W, C] pixels with
// preprocessing inside; INT8 takes uint8 (or int8, pixel - 128) [1, H, W, C] pixels. The output
// is [1, K]: logits, or probabilities with softmax inside; INT8: quantised, in the output tensor's
// scale and zero point.

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace lathe::engine {

// Builtin operator codes and tensor types, by their published values (tflite_schema.fbs).
enum class TfliteOp : std::int32_t {
    Add = 0,
    AveragePool2D = 1,
    Concatenation = 2,
    Conv2D = 3,
    DepthwiseConv2D = 4,
    Dequantize = 6,
    FullyConnected = 9,
    Logistic = 14,
    MaxPool2D = 17,
    Mul = 18,
    Relu = 19,
    Relu6 = 21,
    Reshape = 22,
    Softmax = 25,
    Pad = 34,
    Gather = 36,
    Transpose = 39,
    Mean = 40,
    Sub = 41,
    Div = 42,
    PadV2 = 60,
    Sqrt = 75,
    Rsqrt = 76,
    Quantize = 114,
    HardSwish = 117,
    BatchMatMul = 126,
    Gelu = 150,
};

enum class TfliteType : std::int8_t { Float32 = 0, Float16 = 1, Int32 = 2, UInt8 = 3, Int64 = 4, Int8 = 9 };

enum class TfliteActivation : std::int8_t { None = 0, Relu = 1, Relu6 = 3 };

// The LibTorch type a tensor of this type is stored in (float16 as kHalf, int8 as kChar...).
torch::ScalarType tfliteStorageType(TfliteType type);

// The operator's name as TFLite spells it ("CONV_2D"), or "code N".
std::string tfliteOpName(TfliteOp op);
std::string tfliteTypeName(TfliteType type);

// f = scale * (q - zeroPoint); one entry per tensor, or one per index of `dimension`.
struct TfliteQuantization
{
    std::vector<float> scale;
    std::vector<std::int64_t> zeroPoint;
    int dimension = 0;

    bool empty() const { return scale.empty(); }
};

struct TfliteTensor
{
    std::string name;
    std::vector<std::int32_t> shape;
    TfliteType type = TfliteType::Float32;
    // Constant data (weights, biases, shapes), CPU, contiguous, of the tensor's type
    // (float16 stored as torch::kHalf, int8 as kChar, uint8 as kByte, int32 as kInt); undefined
    // for activations.
    torch::Tensor data;
    TfliteQuantization quantization;

    bool isConstant() const { return data.defined(); }
};

// The options of the operators Lathe writes; each operator reads the fields that its
// BuiltinOptions table has and ignores the others.
struct TfliteOptions
{
    bool padSame = false;          // Padding: SAME (true) or VALID
    int strideW = 1, strideH = 1;
    int dilationW = 1, dilationH = 1;
    int filterW = 1, filterH = 1;  // Pool2D
    int depthMultiplier = 1;       // DepthwiseConv2D
    TfliteActivation activation = TfliteActivation::None;
    int axis = 0;                  // Concatenation, Gather
    bool keepDims = false;         // Mean; FullyConnected keep_num_dims
    float beta = 1.0f;             // Softmax
    bool adjX = false, adjY = false; // BatchMatMul
    bool approximate = false;      // Gelu
    std::vector<std::int32_t> newShape; // Reshape without a shape input (ReshapeOptions.new_shape)
};

struct TfliteOperator
{
    TfliteOp op = TfliteOp::Add;
    std::vector<std::int32_t> inputs;  // tensor indices; -1: an optional input left out
    std::vector<std::int32_t> outputs;
    TfliteOptions options;
    std::string origin;                // the ONNX node (module) it was translated from; not stored in the file
};

// A stored value as float: scale * (q - zero point) (per channel along the quantised dimension)
// for quantised integers, float16 as float, other values converted as they are.
torch::Tensor tfliteDequantize(const torch::Tensor &stored, const TfliteTensor &spec);

// One subgraph (Lathe writes one), with the model's description and metadata.
struct TfliteModel
{
    std::vector<TfliteTensor> tensors;
    std::vector<TfliteOperator> operators;
    std::vector<std::int32_t> inputs;
    std::vector<std::int32_t> outputs;
    std::string description;
    // Named metadata buffers (Model.metadata): Lathe writes "lathe" (JSON: labels, mean, std,
    // input size, task, variant) and reads any.
    std::map<std::string, std::string> metadata;

    // Appends a tensor and returns its index.
    std::int32_t addTensor(TfliteTensor tensor);
    TfliteOperator &addOperator(TfliteOp op, std::vector<std::int32_t> inputs, std::vector<std::int32_t> outputs);
};

// The FlatBuffer bytes of the model (file identifier "TFL3", schema version 3, one subgraph,
// a "serving_default" signature with the input and output names). Throws EngineError for a
// model that breaks the format (an index out of range, data that disagrees with its shape).
std::string serializeTflite(const TfliteModel &model);

// Reads a .tflite file's bytes: FlatBuffer verification, sizes bounded (parse_limits), one
// subgraph, builtin operators of the set above (another is refused naming it), constant data
// checked against shape and type. Throws EngineError "what: reason".
TfliteModel parseTflite(const std::string &bytes, const std::string &what);
TfliteModel readTfliteFile(const std::string &path); // bounded read, EngineError naming the file

// The format's rules on a model in memory (serializeTflite, parseTflite and the reference runtime
// apply them): tensor indices in range, shapes of at most tflite.rank non-negative dimensions,
// constant data of the tensor's type and shape, quantisation parameters that fit the shape.
// Throws EngineError "what: reason".
void checkTfliteModel(const TfliteModel &model, const std::string &what);

// Evaluates a model with LibTorch ops that follow TFLite's reference kernels: float32, float16
// weights behind DEQUANTIZE, and int8/uint8 tensors (each quantised operator computed on the
// dequantised inputs in float and its output requantised with the output tensor's parameters:
// TFLite's integer kernels agree with this within one quantisation step). Throws EngineError
// naming the operator for one it does not implement or inputs it cannot take.
class TfliteReferenceRuntime
{
public:
    explicit TfliteReferenceRuntime(const TfliteModel &model);
    ~TfliteReferenceRuntime();
    // input: the model's input tensor as stored ([1, H, W, C], its type) -> the first output as
    // stored. observer, when set, sees every operator's output tensor (by tensor index) as
    // float (dequantised where quantised).
    torch::Tensor run(const torch::Tensor &input,
                      const std::function<void(std::int32_t tensor, const torch::Tensor &value)> &observer = {}) const;
    // Several images: input [N, H, W, C] run one by one, outputs stacked [N, ...].
    torch::Tensor runBatch(const torch::Tensor &input) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
