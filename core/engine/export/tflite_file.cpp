// TFLite files in and out: the format's rules on a model in memory, the FlatBuffer writer, and the
// bounded, verified reader. On its own (no model code) so that the fuzz build compiles it with
// the reference runtime.

#include "engine/export/tflite_model.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"

#include "tflite_schema_generated.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

namespace lathe::engine {

namespace tfl = lathe::tflite;

// flatbuffers::Verifier takes buffers under FLATBUFFERS_MAX_BUFFER_SIZE (it asserts so).
static_assert(parse_limits::kTfliteFileBytes.value < FLATBUFFERS_MAX_BUFFER_SIZE);

// Constant data is copied between tensors and buffers as bytes; TFLite files are little-endian.
static_assert(FLATBUFFERS_LITTLEENDIAN, "TFLite buffers are little-endian");

namespace {

constexpr std::uint32_t kSchemaVersion = 3;
// The FlatBuffer verifier's bounds: a model nests 6 tables deep (Model, SubGraph, Tensor,
// QuantizationParameters); the table count follows the tensor and operator limits (a tensor or
// operator is at most two tables, a buffer one).
constexpr flatbuffers::uoffset_t kMaxDepth = 32;
constexpr flatbuffers::uoffset_t kMaxTables = 6 * 100000 + 1000;
static_assert(kMaxTables >= 2 * (parse_limits::kTfliteTensors.value + parse_limits::kTfliteOperators.value) +
                                parse_limits::kTfliteTensors.value,
              "the verifier's table bound must admit every model within the limits");

std::size_t elementSize(TfliteType type)
{
    switch (type) {
    case TfliteType::Float32:
    case TfliteType::Int32:
        return 4;
    case TfliteType::Float16:
        return 2;
    case TfliteType::UInt8:
    case TfliteType::Int8:
        return 1;
    case TfliteType::Int64:
        return 8;
    }
    return 0; // a type Lathe does not read
}

bool knownOp(std::int32_t code)
{
    switch (static_cast<TfliteOp>(code)) {
    case TfliteOp::Add:
    case TfliteOp::AveragePool2D:
    case TfliteOp::Concatenation:
    case TfliteOp::Conv2D:
    case TfliteOp::DepthwiseConv2D:
    case TfliteOp::Dequantize:
    case TfliteOp::FullyConnected:
    case TfliteOp::Logistic:
    case TfliteOp::MaxPool2D:
    case TfliteOp::Mul:
    case TfliteOp::Relu:
    case TfliteOp::Relu6:
    case TfliteOp::Reshape:
    case TfliteOp::Softmax:
    case TfliteOp::Pad:
    case TfliteOp::Gather:
    case TfliteOp::Transpose:
    case TfliteOp::Mean:
    case TfliteOp::Sub:
    case TfliteOp::Div:
    case TfliteOp::PadV2:
    case TfliteOp::Sqrt:
    case TfliteOp::Rsqrt:
    case TfliteOp::Quantize:
    case TfliteOp::HardSwish:
    case TfliteOp::BatchMatMul:
    case TfliteOp::Gelu:
        return true;
    }
    return false;
}

// The BuiltinOptions member each operator carries (NONE: it has none).
tfl::BuiltinOptions optionsType(TfliteOp op)
{
    using O = tfl::BuiltinOptions;
    switch (op) {
    case TfliteOp::Add:
        return O::AddOptions;
    case TfliteOp::Sub:
        return O::SubOptions;
    case TfliteOp::Mul:
        return O::MulOptions;
    case TfliteOp::Div:
        return O::DivOptions;
    case TfliteOp::Conv2D:
        return O::Conv2DOptions;
    case TfliteOp::DepthwiseConv2D:
        return O::DepthwiseConv2DOptions;
    case TfliteOp::AveragePool2D:
    case TfliteOp::MaxPool2D:
        return O::Pool2DOptions;
    case TfliteOp::FullyConnected:
        return O::FullyConnectedOptions;
    case TfliteOp::Softmax:
        return O::SoftmaxOptions;
    case TfliteOp::Concatenation:
        return O::ConcatenationOptions;
    case TfliteOp::Reshape:
        return O::ReshapeOptions;
    case TfliteOp::Pad:
        return O::PadOptions;
    case TfliteOp::PadV2:
        return O::PadV2Options;
    case TfliteOp::Gather:
        return O::GatherOptions;
    case TfliteOp::Transpose:
        return O::TransposeOptions;
    case TfliteOp::Mean:
        return O::ReducerOptions;
    case TfliteOp::Dequantize:
        return O::DequantizeOptions;
    case TfliteOp::Quantize:
        return O::QuantizeOptions;
    case TfliteOp::HardSwish:
        return O::HardSwishOptions;
    case TfliteOp::BatchMatMul:
        return O::BatchMatMulOptions;
    case TfliteOp::Gelu:
        return O::GeluOptions;
    default:
        return O::NONE;
    }
}

std::string tensorWhere(const TfliteModel &model, std::size_t i)
{
    return "tensor " + std::to_string(i) + " '" + model.tensors[i].name + "'";
}

std::string opWhere(const TfliteOperator &op, std::size_t j)
{
    return "operator " + std::to_string(j) + " (" + tfliteOpName(op.op) + ")";
}

std::string shapeText(const std::vector<std::int32_t> &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Elements of a shape of non-negative dimensions, or max() when the product passes 2^62.
std::uint64_t elementCount(const std::vector<std::int32_t> &shape)
{
    std::uint64_t n = 1;
    for (std::int32_t d : shape) {
        if (d == 0)
            return 0;
        if (n > (std::uint64_t(1) << 62) / std::uint64_t(d))
            return std::numeric_limits<std::uint64_t>::max();
        n *= std::uint64_t(d);
    }
    return n;
}

tfl::ActivationFunctionType toFile(TfliteActivation a)
{
    return static_cast<tfl::ActivationFunctionType>(a);
}

tfl::Padding paddingOf(const TfliteOptions &o)
{
    return o.padSame ? tfl::Padding::SAME : tfl::Padding::VALID;
}

// The operator's version as TFLite's op_version rules give it for what Lathe writes: the lowest
// version whose kernel takes the operator's input types and options.
int opVersion(const TfliteModel &model, const TfliteOperator &op)
{
    auto typeOf = [&](std::size_t i, bool output) -> TfliteType {
        const auto &list = output ? op.outputs : op.inputs;
        if (i >= list.size() || list[i] < 0)
            return TfliteType::Float32;
        return model.tensors[std::size_t(list[i])].type;
    };
    const TfliteType in = typeOf(0, false), out = typeOf(0, true);
    const bool int8 = in == TfliteType::Int8;
    switch (op.op) {
    case TfliteOp::Conv2D: {
        auto shapeOf = [&](std::size_t i) {
            return i < op.inputs.size() && op.inputs[i] >= 0 ? model.tensors[std::size_t(op.inputs[i])].shape
                                                             : std::vector<std::int32_t>{};
        };
        const std::vector<std::int32_t> x = shapeOf(0), w = shapeOf(1);
        if (x.size() == 4 && w.size() == 4 && x[3] != w[3])
            return 6; // grouped convolution
        if (int8)
            return 3;
        return in == TfliteType::Float32 && typeOf(1, false) == TfliteType::Int8 ? 2 : 1;
    }
    case TfliteOp::DepthwiseConv2D:
        if (int8)
            return 3;
        return op.options.dilationW != 1 || op.options.dilationH != 1 ? 2 : 1;
    case TfliteOp::FullyConnected:
        if (op.options.keepDims)
            return 5;
        return int8 ? 4 : 1;
    case TfliteOp::Quantize:
        return in == TfliteType::Float32 ? 1 : 2; // int8 <-> uint8 requantisation: 2
    case TfliteOp::Dequantize:
        return in == TfliteType::Float16 ? 3 : int8 ? 2 : 1;
    case TfliteOp::Div:
        return in == TfliteType::UInt8 ? 2 : 1;
    case TfliteOp::Reshape:
    case TfliteOp::HardSwish:
    case TfliteOp::Sqrt:
        return 1;
    default:
        return int8 || out == TfliteType::Int8 ? 2 : 1;
    }
}

const std::string &signatureName(const TfliteModel &model, std::int32_t index, const std::string &fallback,
                                 std::string &storage)
{
    const std::string &name = model.tensors[std::size_t(index)].name;
    if (!name.empty())
        return name;
    storage = fallback;
    return storage;
}

void checkActivation(int value, const std::string &where)
{
    if (value != 0 && value != 1 && value != 3) {
        const char *name = tfl::EnumNameActivationFunctionType(static_cast<tfl::ActivationFunctionType>(value));
        throw EngineError(where + ": fused activation " + (name && *name ? std::string(name) : std::to_string(value)) +
                          " is not one Lathe reads (NONE, RELU, RELU6)");
    }
}

TfliteActivation activationOf(tfl::ActivationFunctionType a, const std::string &where)
{
    checkActivation(int(a), where);
    return static_cast<TfliteActivation>(a);
}

bool padSameOf(tfl::Padding p, const std::string &where)
{
    if (p != tfl::Padding::SAME && p != tfl::Padding::VALID)
        throw EngineError(where + ": padding " + std::to_string(int(p)) + " is neither SAME nor VALID");
    return p == tfl::Padding::SAME;
}

// The operator's options from the file; a table of another operator's type is refused, none
// leaves the defaults.
TfliteOptions readOptions(const tfl::Operator &fop, TfliteOp op, const std::string &where)
{
    TfliteOptions o;
    const tfl::BuiltinOptions expected = optionsType(op);
    const tfl::BuiltinOptions type = fop.builtin_options_type();
    if (expected == tfl::BuiltinOptions::NONE || type == tfl::BuiltinOptions::NONE || !fop.builtin_options())
        return o;
    if (type != expected) {
        const char *name = tfl::EnumNameBuiltinOptions(type);
        throw EngineError(where + ": its options are " +
                          (name && *name ? std::string(name) : "of type " + std::to_string(int(type))) + ", not " +
                          tfl::EnumNameBuiltinOptions(expected));
    }
    switch (op) {
    case TfliteOp::Add:
        o.activation = activationOf(fop.builtin_options_as_AddOptions()->fused_activation_function(), where);
        break;
    case TfliteOp::Sub:
        o.activation = activationOf(fop.builtin_options_as_SubOptions()->fused_activation_function(), where);
        break;
    case TfliteOp::Mul:
        o.activation = activationOf(fop.builtin_options_as_MulOptions()->fused_activation_function(), where);
        break;
    case TfliteOp::Div:
        o.activation = activationOf(fop.builtin_options_as_DivOptions()->fused_activation_function(), where);
        break;
    case TfliteOp::Conv2D: {
        const auto *c = fop.builtin_options_as_Conv2DOptions();
        o.padSame = padSameOf(c->padding(), where);
        o.strideW = c->stride_w();
        o.strideH = c->stride_h();
        o.dilationW = c->dilation_w_factor();
        o.dilationH = c->dilation_h_factor();
        o.activation = activationOf(c->fused_activation_function(), where);
        break;
    }
    case TfliteOp::DepthwiseConv2D: {
        const auto *c = fop.builtin_options_as_DepthwiseConv2DOptions();
        o.padSame = padSameOf(c->padding(), where);
        o.strideW = c->stride_w();
        o.strideH = c->stride_h();
        o.dilationW = c->dilation_w_factor();
        o.dilationH = c->dilation_h_factor();
        o.depthMultiplier = c->depth_multiplier();
        o.activation = activationOf(c->fused_activation_function(), where);
        break;
    }
    case TfliteOp::AveragePool2D:
    case TfliteOp::MaxPool2D: {
        const auto *p = fop.builtin_options_as_Pool2DOptions();
        o.padSame = padSameOf(p->padding(), where);
        o.strideW = p->stride_w();
        o.strideH = p->stride_h();
        o.filterW = p->filter_width();
        o.filterH = p->filter_height();
        o.activation = activationOf(p->fused_activation_function(), where);
        break;
    }
    case TfliteOp::FullyConnected: {
        const auto *f = fop.builtin_options_as_FullyConnectedOptions();
        if (f->weights_format() != 0)
            throw EngineError(where + ": weights format " + std::to_string(int(f->weights_format())) +
                              " (shuffled) is not one Lathe reads");
        o.activation = activationOf(f->fused_activation_function(), where);
        o.keepDims = f->keep_num_dims();
        break;
    }
    case TfliteOp::Softmax:
        o.beta = fop.builtin_options_as_SoftmaxOptions()->beta();
        break;
    case TfliteOp::Concatenation: {
        const auto *c = fop.builtin_options_as_ConcatenationOptions();
        o.axis = c->axis();
        o.activation = activationOf(c->fused_activation_function(), where);
        break;
    }
    case TfliteOp::Reshape:
        if (const auto *shape = fop.builtin_options_as_ReshapeOptions()->new_shape())
            o.newShape.assign(shape->begin(), shape->end());
        break;
    case TfliteOp::Gather: {
        const auto *g = fop.builtin_options_as_GatherOptions();
        if (g->batch_dims() != 0)
            throw EngineError(where + ": batch_dims " + std::to_string(g->batch_dims()) +
                              " is not one Lathe reads (0)");
        o.axis = g->axis();
        break;
    }
    case TfliteOp::Mean:
        o.keepDims = fop.builtin_options_as_ReducerOptions()->keep_dims();
        break;
    case TfliteOp::BatchMatMul: {
        const auto *b = fop.builtin_options_as_BatchMatMulOptions();
        o.adjX = b->adj_x();
        o.adjY = b->adj_y();
        break;
    }
    case TfliteOp::Gelu:
        o.approximate = fop.builtin_options_as_GeluOptions()->approximate();
        break;
    default:
        break; // options tables without fields
    }
    return o;
}

// The operator's options table as the file has it.
flatbuffers::Offset<void> writeOptions(flatbuffers::FlatBufferBuilder &fbb, const TfliteOperator &op)
{
    const TfliteOptions &o = op.options;
    switch (op.op) {
    case TfliteOp::Add:
        return tfl::CreateAddOptions(fbb, toFile(o.activation)).Union();
    case TfliteOp::Sub:
        return tfl::CreateSubOptions(fbb, toFile(o.activation)).Union();
    case TfliteOp::Mul:
        return tfl::CreateMulOptions(fbb, toFile(o.activation)).Union();
    case TfliteOp::Div:
        return tfl::CreateDivOptions(fbb, toFile(o.activation)).Union();
    case TfliteOp::Conv2D:
        return tfl::CreateConv2DOptions(fbb, paddingOf(o), o.strideW, o.strideH, toFile(o.activation), o.dilationW,
                                        o.dilationH)
            .Union();
    case TfliteOp::DepthwiseConv2D:
        return tfl::CreateDepthwiseConv2DOptions(fbb, paddingOf(o), o.strideW, o.strideH, o.depthMultiplier,
                                                 toFile(o.activation), o.dilationW, o.dilationH)
            .Union();
    case TfliteOp::AveragePool2D:
    case TfliteOp::MaxPool2D:
        return tfl::CreatePool2DOptions(fbb, paddingOf(o), o.strideW, o.strideH, o.filterW, o.filterH,
                                        toFile(o.activation))
            .Union();
    case TfliteOp::FullyConnected:
        return tfl::CreateFullyConnectedOptions(fbb, toFile(o.activation), 0, o.keepDims).Union();
    case TfliteOp::Softmax:
        return tfl::CreateSoftmaxOptions(fbb, o.beta).Union();
    case TfliteOp::Concatenation:
        return tfl::CreateConcatenationOptions(fbb, o.axis, toFile(o.activation)).Union();
    case TfliteOp::Reshape:
        return tfl::CreateReshapeOptions(fbb, o.newShape.empty() ? 0 : fbb.CreateVector(o.newShape)).Union();
    case TfliteOp::Pad:
        return tfl::CreatePadOptions(fbb).Union();
    case TfliteOp::PadV2:
        return tfl::CreatePadV2Options(fbb).Union();
    case TfliteOp::Gather:
        return tfl::CreateGatherOptions(fbb, o.axis, 0).Union();
    case TfliteOp::Transpose:
        return tfl::CreateTransposeOptions(fbb).Union();
    case TfliteOp::Mean:
        return tfl::CreateReducerOptions(fbb, o.keepDims).Union();
    case TfliteOp::Dequantize:
        return tfl::CreateDequantizeOptions(fbb).Union();
    case TfliteOp::Quantize:
        return tfl::CreateQuantizeOptions(fbb).Union();
    case TfliteOp::HardSwish:
        return tfl::CreateHardSwishOptions(fbb).Union();
    case TfliteOp::BatchMatMul:
        return tfl::CreateBatchMatMulOptions(fbb, o.adjX, o.adjY).Union();
    case TfliteOp::Gelu:
        return tfl::CreateGeluOptions(fbb, o.approximate).Union();
    default:
        return 0;
    }
}

std::string quoted(const std::string &bytes)
{
    std::string s = "'";
    for (unsigned char c : bytes)
        s += c >= 0x20 && c < 0x7f ? std::string(1, char(c))
                                   : "\\x" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
    return s + "'";
}

std::string str(const flatbuffers::String *s)
{
    return s ? std::string(s->c_str(), s->size()) : std::string();
}

} // namespace

void checkTfliteModel(const TfliteModel &model, const std::string &what)
{
    checkLimit(what + ": subgraph", model.tensors.size(), parse_limits::kTfliteTensors);
    checkLimit(what + ": subgraph", model.operators.size(), parse_limits::kTfliteOperators);
    const std::int64_t count = std::int64_t(model.tensors.size());
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        const TfliteTensor &t = model.tensors[i];
        const std::string where = what + ": " + tensorWhere(model, i);
        if (elementSize(t.type) == 0)
            throw EngineError(where + ": type " + tfliteTypeName(t.type) + " is not one Lathe reads");
        checkLimit(where + ": shape", t.shape.size(), parse_limits::kTfliteRank);
        for (std::int32_t d : t.shape)
            if (d < 0)
                throw EngineError(where + ": shape " + shapeText(t.shape) + " has a negative dimension");
        if (t.isConstant()) {
            if (t.data.scalar_type() != tfliteStorageType(t.type))
                throw EngineError(where + ": data of type " + std::string(c10::toString(t.data.scalar_type())) +
                                  " for a " + tfliteTypeName(t.type) + " tensor");
            if (std::uint64_t(t.data.numel()) != elementCount(t.shape))
                throw EngineError(where + ": " + std::to_string(t.data.numel()) + " values for the shape " +
                                  shapeText(t.shape));
        }
        const TfliteQuantization &q = t.quantization;
        if (q.zeroPoint.size() != q.scale.size())
            throw EngineError(where + ": " + std::to_string(q.scale.size()) + " quantisation scales but " +
                              std::to_string(q.zeroPoint.size()) + " zero points");
        if (q.scale.size() > 1) {
            if (q.dimension < 0 || std::size_t(q.dimension) >= t.shape.size())
                throw EngineError(where + ": quantised dimension " + std::to_string(q.dimension) + " of a shape " +
                                  shapeText(t.shape));
            if (std::size_t(t.shape[std::size_t(q.dimension)]) != q.scale.size())
                throw EngineError(where + ": " + std::to_string(q.scale.size()) +
                                  " quantisation scales along dimension " + std::to_string(q.dimension) + " of " +
                                  shapeText(t.shape));
        }
    }
    auto checkIndex = [&](std::int32_t index, bool optional, const std::string &where) {
        if ((optional && index == -1) || (index >= 0 && index < count))
            return;
        throw EngineError(where + ": tensor index " + std::to_string(index) + " out of range (" +
                          std::to_string(count) + " tensors)");
    };
    for (std::size_t j = 0; j < model.operators.size(); ++j) {
        const TfliteOperator &op = model.operators[j];
        const std::string where = what + ": " + opWhere(op, j);
        if (!knownOp(static_cast<std::int32_t>(op.op)))
            throw EngineError(where + ": not an operator Lathe reads");
        if (op.outputs.empty())
            throw EngineError(where + ": no output");
        for (std::int32_t i : op.inputs)
            checkIndex(i, true, where + ": input");
        for (std::int32_t i : op.outputs)
            checkIndex(i, false, where + ": output");
    }
    if (model.inputs.empty() || model.outputs.empty())
        throw EngineError(what + ": the subgraph has no input or no output");
    for (std::int32_t i : model.inputs)
        checkIndex(i, false, what + ": subgraph input");
    for (std::int32_t i : model.outputs)
        checkIndex(i, false, what + ": subgraph output");
}

std::string serializeTflite(const TfliteModel &model)
{
    const std::string what = "TFLite export";
    checkTfliteModel(model, what);
    for (std::size_t j = 0; j < model.operators.size(); ++j) {
        const TfliteOperator &op = model.operators[j];
        // What TFLite's kernels refuse although the format allows it. TFLite's CONV_2D does not
        // prepare without a bias (conv.cc: has_bias).
        if (op.op == TfliteOp::Conv2D && (op.inputs.size() < 3 || op.inputs[2] < 0))
            throw EngineError(what + ": " + opWhere(op, j) + ": no bias; TFLite's CONV_2D needs one (zeros will do)");
        // TFLite's kernel refuses one (concatenation.cc); XNNPACK ignores it.
        if (op.op == TfliteOp::Concatenation && op.options.activation != TfliteActivation::None)
            throw EngineError(what + ": " + opWhere(op, j) +
                              ": a fused activation, which TFLite's CONCATENATION refuses");
    }
    // FlatBuffers address less than 2 GiB; refuse before building rather than fail inside.
    std::uint64_t payload = 0;
    for (const TfliteTensor &t : model.tensors)
        if (t.isConstant())
            payload += std::uint64_t(t.data.numel()) * elementSize(t.type) + 16;
    for (const auto &entry : model.metadata)
        payload += entry.first.size() + entry.second.size() + 32;
    if (payload > (std::uint64_t(2) << 30) - (std::uint64_t(64) << 20))
        throw EngineError(what + ": " + std::to_string(payload) +
                          " bytes of weights and metadata; a TFLite file "
                          "holds less than 2 GiB");

    flatbuffers::FlatBufferBuilder fbb(std::size_t(payload) + 65536);
    auto byteBuffer = [&](const void *data, std::size_t size) {
        fbb.ForceVectorAlignment(size, 1, 16);
        return tfl::CreateBuffer(fbb, fbb.CreateVector(static_cast<const std::uint8_t *>(data), size));
    };
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers{tfl::CreateBuffer(fbb)}; // 0: the empty buffer
    std::vector<std::uint32_t> bufferOf(model.tensors.size(), 0);
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        const TfliteTensor &t = model.tensors[i];
        if (!t.isConstant())
            continue;
        const torch::Tensor data = t.data.cpu().contiguous();
        buffers.push_back(byteBuffer(data.data_ptr(), std::size_t(data.numel()) * elementSize(t.type)));
        bufferOf[i] = std::uint32_t(buffers.size() - 1);
    }
    std::vector<flatbuffers::Offset<tfl::Metadata>> metadata;
    for (const auto &[name, value] : model.metadata) {
        buffers.push_back(byteBuffer(value.data(), value.size()));
        metadata.push_back(tfl::CreateMetadata(fbb, fbb.CreateString(name), std::uint32_t(buffers.size() - 1)));
    }

    std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        const TfliteTensor &t = model.tensors[i];
        flatbuffers::Offset<tfl::QuantizationParameters> quantization = 0;
        if (!t.quantization.empty())
            quantization =
                tfl::CreateQuantizationParameters(fbb, 0, 0, fbb.CreateVector(t.quantization.scale),
                                                  fbb.CreateVector(t.quantization.zeroPoint), t.quantization.dimension);
        tensors.push_back(tfl::CreateTensor(fbb, fbb.CreateVector(t.shape), static_cast<tfl::TensorType>(t.type),
                                            bufferOf[i], fbb.CreateString(t.name), quantization));
    }

    // One operator code per (operator, version), in the order of first use.
    std::vector<std::pair<TfliteOp, int>> codes;
    std::vector<flatbuffers::Offset<tfl::Operator>> operators;
    for (const TfliteOperator &op : model.operators) {
        const std::pair<TfliteOp, int> code{op.op, opVersion(model, op)};
        auto it = std::find(codes.begin(), codes.end(), code);
        if (it == codes.end())
            it = codes.insert(codes.end(), code);
        const flatbuffers::Offset<void> options = writeOptions(fbb, op);
        operators.push_back(tfl::CreateOperator(
            fbb, std::uint32_t(it - codes.begin()), fbb.CreateVector(op.inputs), fbb.CreateVector(op.outputs),
            options.IsNull() ? tfl::BuiltinOptions::NONE : optionsType(op.op), options));
    }
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> operatorCodes;
    for (const auto &[op, version] : codes) {
        const std::int32_t code = static_cast<std::int32_t>(op);
        operatorCodes.push_back(tfl::CreateOperatorCode(fbb, std::int8_t(std::min(code, 127)), 0, version,
                                                        static_cast<tfl::BuiltinOperator>(code)));
    }

    auto tensorMaps = [&](const std::vector<std::int32_t> &indices, const std::string &prefix) {
        std::vector<flatbuffers::Offset<tfl::TensorMap>> maps;
        for (std::size_t i = 0; i < indices.size(); ++i) {
            std::string storage;
            const std::string &name = signatureName(model, indices[i], prefix + std::to_string(i), storage);
            maps.push_back(tfl::CreateTensorMap(fbb, fbb.CreateString(name), std::uint32_t(indices[i])));
        }
        return fbb.CreateVector(maps);
    };
    const auto signatureInputs = tensorMaps(model.inputs, "input_");
    const auto signatureOutputs = tensorMaps(model.outputs, "output_");
    const auto signature =
        tfl::CreateSignatureDef(fbb, signatureInputs, signatureOutputs, fbb.CreateString("serving_default"), 0);
    const auto subgraph =
        tfl::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(model.inputs),
                            fbb.CreateVector(model.outputs), fbb.CreateVector(operators), fbb.CreateString("main"));
    const auto root =
        tfl::CreateModel(fbb, kSchemaVersion, fbb.CreateVector(operatorCodes), fbb.CreateVector(std::vector{subgraph}),
                         fbb.CreateString(model.description), fbb.CreateVector(buffers), fbb.CreateVector(metadata),
                         fbb.CreateVector(std::vector{signature}));
    tfl::FinishModelBuffer(fbb, root);
    return std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()), fbb.GetSize());
}

TfliteModel parseTflite(const std::string &bytes, const std::string &what)
{
    checkLimit(what, bytes.size(), parse_limits::kTfliteFileBytes);
    if (bytes.size() < 8)
        throw EngineError(what + ": not a TFLite file (" + std::to_string(bytes.size()) + " bytes)");
    if (bytes.compare(4, 4, tfl::ModelIdentifier()) != 0)
        throw EngineError(what + ": not a TFLite file (file identifier " + quoted(bytes.substr(4, 4)) +
                          ", not 'TFL3')");
    const auto *data = reinterpret_cast<const std::uint8_t *>(bytes.data());
    flatbuffers::Verifier::Options verifierOptions;
    verifierOptions.max_depth = kMaxDepth;
    verifierOptions.max_tables = kMaxTables;
    flatbuffers::Verifier verifier(data, bytes.size(), verifierOptions);
    if (!tfl::VerifyModelBuffer(verifier))
        throw EngineError(what + ": not a valid TFLite FlatBuffer (truncated or corrupt: an offset or size points "
                                 "outside the file, or tables nest too deep)");
    const tfl::Model *fmodel = tfl::GetModel(data);
    if (fmodel->version() != kSchemaVersion)
        throw EngineError(what + ": schema version " + std::to_string(fmodel->version()) + ", not " +
                          std::to_string(kSchemaVersion));
    if (!fmodel->subgraphs() || fmodel->subgraphs()->size() != 1)
        throw EngineError(what + ": " + std::to_string(fmodel->subgraphs() ? fmodel->subgraphs()->size() : 0) +
                          " subgraphs; Lathe reads models of one");
    const tfl::SubGraph *sg = fmodel->subgraphs()->Get(0);
    const auto *fbuffers = fmodel->buffers();
    const std::size_t bufferCount = fbuffers ? fbuffers->size() : 0;
    auto bufferData = [&](std::uint32_t index, const std::string &where) -> const flatbuffers::Vector<std::uint8_t> * {
        if (index >= bufferCount)
            throw EngineError(where + ": buffer " + std::to_string(index) + " out of range (" +
                              std::to_string(bufferCount) + " buffers)");
        const tfl::Buffer *b = fbuffers->Get(index);
        return b ? b->data() : nullptr;
    };

    TfliteModel model;
    model.description = str(fmodel->description());
    const std::size_t tensorCount = sg->tensors() ? sg->tensors()->size() : 0;
    const std::size_t operatorCount = sg->operators() ? sg->operators()->size() : 0;
    checkLimit(what + ": subgraph", tensorCount, parse_limits::kTfliteTensors);
    checkLimit(what + ": subgraph", operatorCount, parse_limits::kTfliteOperators);
    model.tensors.reserve(tensorCount);
    for (std::size_t i = 0; i < tensorCount; ++i) {
        const tfl::Tensor *ft = sg->tensors()->Get(flatbuffers::uoffset_t(i));
        TfliteTensor t;
        t.name = str(ft->name());
        const std::string where = what + ": tensor " + std::to_string(i) + " '" + t.name + "'";
        if (ft->shape()) {
            checkLimit(where + ": shape", ft->shape()->size(), parse_limits::kTfliteRank);
            t.shape.assign(ft->shape()->begin(), ft->shape()->end());
        }
        for (std::int32_t d : t.shape)
            if (d < 0)
                throw EngineError(where + ": shape " + shapeText(t.shape) + " has a negative dimension");
        t.type = static_cast<TfliteType>(ft->type());
        const std::size_t size = elementSize(t.type);
        if (size == 0)
            throw EngineError(where + ": type " + tfliteTypeName(t.type) + " is not one Lathe reads");
        const auto *content = bufferData(ft->buffer(), where);
        const std::uint64_t elements = elementCount(t.shape);
        if (ft->buffer() != 0 && content && (content->size() > 0 || elements == 0)) {
            if (elements > content->size() || elements * size != content->size())
                throw EngineError(where + ": buffer " + std::to_string(ft->buffer()) + " holds " +
                                  std::to_string(content->size()) + " bytes, not the " +
                                  (elements == std::numeric_limits<std::uint64_t>::max()
                                       ? std::string("more than 2^62")
                                       : std::to_string(elements * size)) +
                                  " of a " + tfliteTypeName(t.type) + " " + shapeText(t.shape));
            std::vector<std::int64_t> shape(t.shape.begin(), t.shape.end());
            t.data = torch::empty(shape, torch::TensorOptions().dtype(tfliteStorageType(t.type)));
            if (content->size() > 0)
                std::memcpy(t.data.data_ptr(), content->data(), content->size());
        }
        if (const tfl::QuantizationParameters *q = ft->quantization()) {
            if (q->scale())
                t.quantization.scale.assign(q->scale()->begin(), q->scale()->end());
            // Copied as bytes: the verifier checks a vector's length field for 4-byte alignment
            // only, so int64 values may sit misaligned in a hostile file (found by fuzz_tflite).
            if (const auto *zp = q->zero_point()) {
                t.quantization.zeroPoint.resize(zp->size());
                if (zp->size() > 0)
                    std::memcpy(t.quantization.zeroPoint.data(), zp->Data(), zp->size() * sizeof(std::int64_t));
            }
            t.quantization.dimension = q->quantized_dimension();
        }
        model.tensors.push_back(std::move(t));
    }

    const auto *codes = fmodel->operator_codes();
    model.operators.reserve(operatorCount);
    for (std::size_t j = 0; j < operatorCount; ++j) {
        const tfl::Operator *fop = sg->operators()->Get(flatbuffers::uoffset_t(j));
        const std::string where = what + ": operator " + std::to_string(j);
        if (!codes || fop->opcode_index() >= codes->size())
            throw EngineError(where + ": operator code " + std::to_string(fop->opcode_index()) + " out of range (" +
                              std::to_string(codes ? codes->size() : 0) + " operator codes)");
        const tfl::OperatorCode *code = codes->Get(fop->opcode_index());
        // As TFLite reads it: files from before builtin_code existed have only the deprecated field.
        const std::int32_t builtin =
            std::max(static_cast<std::int32_t>(code->builtin_code()), std::int32_t(code->deprecated_builtin_code()));
        const TfliteOp op = static_cast<TfliteOp>(builtin);
        if (builtin == 32)
            throw EngineError(where + ": custom operator " + quoted(str(code->custom_code())) +
                              " is not one Lathe reads");
        if (!knownOp(builtin))
            throw EngineError(
                where + ": builtin operator code " + std::to_string(builtin) +
                (tfliteOpName(op).rfind("code ", 0) == 0 ? std::string() : " (" + tfliteOpName(op) + ")") +
                " is not one Lathe reads");
        TfliteOperator &added = model.addOperator(op, {}, {});
        if (fop->inputs())
            added.inputs.assign(fop->inputs()->begin(), fop->inputs()->end());
        if (fop->outputs())
            added.outputs.assign(fop->outputs()->begin(), fop->outputs()->end());
        added.options = readOptions(*fop, op, where + " (" + tfliteOpName(op) + ")");
    }
    if (sg->inputs())
        model.inputs.assign(sg->inputs()->begin(), sg->inputs()->end());
    if (sg->outputs())
        model.outputs.assign(sg->outputs()->begin(), sg->outputs()->end());

    if (const auto *entries = fmodel->metadata()) {
        for (const tfl::Metadata *m : *entries) {
            const std::string name = str(m->name());
            const auto *content = bufferData(m->buffer(), what + ": metadata " + quoted(name));
            model.metadata[name] =
                content ? std::string(reinterpret_cast<const char *>(content->data()), content->size()) : std::string();
        }
    }
    checkTfliteModel(model, what);
    return model;
}

TfliteModel readTfliteFile(const std::string &path)
{
    const std::string bytes = readFileWithin(path, parse_limits::kTfliteFileBytes);
    return parseTflite(bytes, path);
}

} // namespace lathe::engine
