#pragma once

// Engine-internal (LibTorch, libonnx's ModelProto): the TFLite writer's translation and its
// FP16 and INT8 variants (tflite_model.h has the model in memory, the file and the runtime).

#include "engine/export/tflite_model.h"

#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace lathe::engine {

// Lathe's FP32 ONNX graph (buildOnnxModel: BatchNorm folded, opset 13) as a float32 TFLite
// model, batch 1, NHWC: convolutions with their weights in TFLite's layouts, the NCHW <-> NHWC
// transposes folded away (a TRANSPOSE remains only where the graph really reorders data),
// ReLU/ReLU6 fused into the operator before them, HardSwish, GELU and 1/sqrt recognised, explicit
// padding as SAME where TensorFlow's SAME pads the same, else as a PAD. Every operator records
// the ONNX node (named after the module) it came from. Throws EngineError naming the node and
// the operator for anything it cannot write.
TfliteModel tfliteFromOnnx(const onnx::ModelProto &model);

// TFLite's float16 quantisation: float32 constants stored as float16, each behind a DEQUANTIZE
// to float32 (computation stays float32).
TfliteModel tfliteToFloat16(const TfliteModel &model);

struct TfliteInt8Options
{
    std::string method = "minmax"; // "minmax", "percentile", "entropy" (as for INT8 ONNX)
    double percentile = 99.99;
    bool int8Io = false;           // input int8 (pixel - 128) and int8 output, instead of uint8
};

struct TfliteInt8Report
{
    int calibrationImages = 0;
    int quantizedTensors = 0;                // activations with int8 parameters
    std::map<std::string, int> ops;          // operator name -> count in the INT8 model
};

// Full-integer INT8 post-training quantisation of a float model whose input is uint8 pixels
// (tfliteFromOnnx of a graph with preprocessing inside): activation ranges calibrated on
// calibration (uint8 [1, H, W, C] each) with the reference runtime, int8 activations (per
// tensor, asymmetric), int8 weights (symmetric, per output channel), int32 biases, TFLite's
// fixed output parameters where its kernels require them (LOGISTIC, SOFTMAX) and shared
// parameters where its kernels require them (pooling, reshapes, concatenation); HARD_SWISH written
// as ADD (RELU6) and MULs, which LiteRT's XNNPACK delegate runs in int8. Input and output uint8
// (or int8 with int8Io). Throws EngineError naming the operator that has no integer kernel.
TfliteModel quantizeTfliteInt8(const TfliteModel &model, const std::vector<torch::Tensor> &calibration,
                               const TfliteInt8Options &options, TfliteInt8Report *report);

} // namespace lathe::engine
