// TFLite: the model in memory, the FlatBuffer file and the reference runtime. Every operator of
// the runtime against LibTorch computing the same in NCHW; the file round trip; INT8; hostile
// files; and LiteRT (the venv's ai_edge_litert, through export/litert_check.py) loading and
// running the files Lathe writes and agreeing with the reference runtime.

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/export/tflite_model.h"

#include "python_peer.h"
#include "test_support.h"

#include "tflite_schema_generated.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <tuple>

using namespace lathe;
using engine::TfliteActivation;
using engine::TfliteModel;
using engine::TfliteOp;
using engine::TfliteQuantization;
using engine::TfliteTensor;
using engine::TfliteType;

namespace {

std::vector<std::int32_t> dims(at::IntArrayRef sizes)
{
    return std::vector<std::int32_t>(sizes.begin(), sizes.end());
}

TfliteQuantization quant(float scale, std::int64_t zeroPoint)
{
    TfliteQuantization q;
    q.scale = {scale};
    q.zeroPoint = {zeroPoint};
    return q;
}

// A model under construction: tensors by name, operators, the subgraph's input and outputs.
struct Graph
{
    TfliteModel m;

    std::int32_t tensor(const std::string &name, std::vector<std::int32_t> shape, TfliteType type = TfliteType::Float32,
                        TfliteQuantization q = {})
    {
        TfliteTensor t;
        t.name = name;
        t.shape = std::move(shape);
        t.type = type;
        t.quantization = std::move(q);
        return m.addTensor(std::move(t));
    }
    std::int32_t input(const std::string &name, std::vector<std::int32_t> shape, TfliteType type = TfliteType::Float32,
                       TfliteQuantization q = {})
    {
        const std::int32_t i = tensor(name, std::move(shape), type, std::move(q));
        m.inputs.push_back(i);
        return i;
    }
    std::int32_t constant(const std::string &name, const torch::Tensor &data, TfliteType type,
                          TfliteQuantization q = {})
    {
        TfliteTensor t;
        t.name = name;
        t.shape = dims(data.sizes());
        t.type = type;
        t.data = data.contiguous();
        t.quantization = std::move(q);
        return m.addTensor(std::move(t));
    }
    std::int32_t floats(const std::string &name, const torch::Tensor &data)
    {
        return constant(name, data.to(torch::kFloat), TfliteType::Float32);
    }
    std::int32_t ints(const std::string &name, std::vector<std::int32_t> values, std::vector<std::int64_t> shape)
    {
        return constant(name, torch::tensor(values, torch::kInt).reshape(shape), TfliteType::Int32);
    }
    engine::TfliteOperator &op(TfliteOp op, std::vector<std::int32_t> inputs, std::int32_t output)
    {
        return m.addOperator(op, std::move(inputs), {output});
    }
    void output(std::int32_t t) { m.outputs.push_back(t); }
};

// The model as a file and back, then run.
torch::Tensor runThroughFile(const TfliteModel &model, const torch::Tensor &input)
{
    const TfliteModel parsed = engine::parseTflite(engine::serializeTflite(model), "test model");
    return engine::TfliteReferenceRuntime(parsed).run(input);
}

torch::Tensor nchw(const torch::Tensor &x)
{
    return x.permute({0, 3, 1, 2});
}

torch::Tensor nhwc(const torch::Tensor &x)
{
    return x.permute({0, 2, 3, 1}).contiguous();
}

// torch::conv2d on NCHW with square strides, padding and dilation.
torch::Tensor conv(const torch::Tensor &x, const torch::Tensor &w, const torch::Tensor &b, std::int64_t stride,
                   std::int64_t padding, std::int64_t dilation = 1, std::int64_t groups = 1)
{
    const std::vector<std::int64_t> s{stride, stride}, p{padding, padding}, d{dilation, dilation};
    return torch::conv2d(x, w, b, s, p, d, groups);
}

// TFLite's rounding (half away from zero), clamped to the type's range.
torch::Tensor quantizeLikeTflite(const torch::Tensor &x, const TfliteQuantization &q, torch::ScalarType type)
{
    const torch::Tensor v = x.to(torch::kDouble) / double(q.scale[0]);
    const torch::Tensor rounded = torch::sign(v) * torch::floor(v.abs() + 0.5) + double(q.zeroPoint[0]);
    return type == torch::kChar ? rounded.clamp(-128, 127).to(type) : rounded.clamp(0, 255).to(type);
}

torch::Tensor dequant(const torch::Tensor &q, const TfliteQuantization &p)
{
    return ((q.to(torch::kDouble) - double(p.zeroPoint[0])) * double(p.scale[0])).to(torch::kFloat);
}

// Asymmetric int8 parameters covering a float value's range (and 0).
TfliteQuantization rangeParams(const torch::Tensor &f, float atLeast = 0)
{
    double lo = std::min(0.0, f.min().item<double>()), hi = std::max(0.0, f.max().item<double>());
    if (hi - lo < 1e-6)
        hi = lo + 1e-6;
    const float scale = std::max(float((hi - lo) / 250), atLeast); // a little room at both ends
    const std::int64_t zp = std::clamp<std::int64_t>(std::llround(-128 - lo / scale), -128, 127);
    return quant(scale, zp);
}

// Symmetric per-channel int8 weights along `dim` (zero points 0), as TFLite wants them.
struct QuantizedWeights
{
    torch::Tensor q, dequantized;
    TfliteQuantization params;
};

QuantizedWeights perChannel(const torch::Tensor &w, int dim)
{
    std::vector<std::int64_t> others;
    for (std::int64_t d = 0; d < w.dim(); ++d)
        if (d != dim)
            others.push_back(d);
    const torch::Tensor scale = (torch::amax(w.abs(), others) / 127).clamp_min(1e-8);
    std::vector<std::int64_t> shape(std::size_t(w.dim()), 1);
    shape[std::size_t(dim)] = scale.numel();
    QuantizedWeights r;
    r.q = torch::round(w / scale.reshape(shape)).clamp(-127, 127).to(torch::kChar);
    r.dequantized = r.q.to(torch::kFloat) * scale.reshape(shape);
    r.params.dimension = dim;
    for (std::int64_t i = 0; i < scale.numel(); ++i) {
        r.params.scale.push_back(scale[i].item<float>());
        r.params.zeroPoint.push_back(0);
    }
    return r;
}

// int32 bias with scale input_scale * weight_scale[c], zero point 0.
std::pair<torch::Tensor, TfliteQuantization> quantizedBias(const torch::Tensor &b, float inputScale,
                                                           const TfliteQuantization &weights)
{
    TfliteQuantization p;
    torch::Tensor q = torch::empty({b.numel()}, torch::kInt);
    for (std::int64_t i = 0; i < b.numel(); ++i) {
        p.scale.push_back(inputScale * weights.scale[std::size_t(i)]);
        p.zeroPoint.push_back(0);
        q[i] = std::int32_t(std::lround(b[i].item<double>() / double(p.scale.back())));
    }
    return {q, p};
}

double maxAbsDiff(const torch::Tensor &a, const torch::Tensor &b)
{
    return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

// One operator (or a few) in a model, an input, and what LibTorch computes in NCHW.
struct Case
{
    std::string name;
    TfliteModel model;
    torch::Tensor input, expected;
};

torch::Tensor randomInput(std::vector<std::int64_t> shape, bool positive = false)
{
    torch::Tensor x = torch::randn(shape);
    return positive ? x.abs() + 0.1 : x;
}

std::vector<Case> floatCases()
{
    std::vector<Case> cases;
    torch::manual_seed(7);
    auto add = [&](std::string name, Graph &g, torch::Tensor input, torch::Tensor expected) {
        cases.push_back({std::move(name), g.m, std::move(input), std::move(expected)});
    };
    {
        // SAME, stride 2: H 7 -> 4 outputs, padding 3*2+3-7 = 2 (1 before, 1 after); W 8 -> 4, padding 1
        // (0 before, 1 after: TF puts the odd one after).
        Graph g;
        const torch::Tensor x = randomInput({1, 7, 8, 3}), w = torch::randn({5, 3, 3, 3}), b = torch::randn({5});
        const std::int32_t in = g.input("x", {1, 7, 8, 3}), y = g.tensor("y", {1, 4, 4, 5});
        auto &op = g.op(TfliteOp::Conv2D, {in, g.floats("w", w), g.floats("b", b)}, y);
        op.options.padSame = true;
        op.options.strideW = op.options.strideH = 2;
        op.options.activation = TfliteActivation::Relu;
        g.output(y);
        const torch::Tensor padded = torch::constant_pad_nd(nchw(x), {0, 1, 1, 1}, 0);
        add("conv_same_stride2", g, x, nhwc(torch::relu(conv(padded, w.permute({0, 3, 1, 2}), b, 2, 0))));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 9, 9, 4}), w = torch::randn({6, 3, 3, 4}), b = torch::randn({6});
        const std::int32_t in = g.input("x", {1, 9, 9, 4}), y = g.tensor("y", {1, 5, 5, 6});
        auto &op = g.op(TfliteOp::Conv2D, {in, g.floats("w", w), g.floats("b", b)}, y);
        op.options.dilationW = op.options.dilationH = 2;
        op.options.activation = TfliteActivation::Relu6;
        g.output(y);
        add("conv_valid_dilated", g, x, nhwc(conv(nchw(x), w.permute({0, 3, 1, 2}), b, 1, 0, 2).clamp(0, 6)));
    }
    {
        Graph g; // grouped: 6 input channels, filters of 3 -> 2 groups
        const torch::Tensor x = randomInput({1, 5, 5, 6}), w = torch::randn({4, 3, 3, 3}), b = torch::randn({4});
        const std::int32_t in = g.input("x", {1, 5, 5, 6}), y = g.tensor("y", {1, 5, 5, 4});
        g.op(TfliteOp::Conv2D, {in, g.floats("w", w), g.floats("b", b)}, y).options.padSame = true;
        g.output(y);
        add("conv_grouped", g, x, nhwc(conv(nchw(x), w.permute({0, 3, 1, 2}), b, 1, 1, 1, 2)));
    }
    {
        Graph g; // depth multiplier 2: filter [1, 3, 3, 3 * 2]
        const torch::Tensor x = randomInput({1, 6, 6, 3}), w = torch::randn({1, 3, 3, 6}), b = torch::randn({6});
        const std::int32_t in = g.input("x", {1, 6, 6, 3}), y = g.tensor("y", {1, 6, 6, 6});
        auto &op = g.op(TfliteOp::DepthwiseConv2D, {in, g.floats("w", w), g.floats("b", b)}, y);
        op.options.padSame = true;
        op.options.depthMultiplier = 2;
        g.output(y);
        add("depthwise_multiplier2", g, x, nhwc(conv(nchw(x), w.permute({3, 0, 1, 2}), b, 1, 1, 1, 3)));
    }
    {
        Graph g; // SAME, stride 2 on 8: padding 1, after
        const torch::Tensor x = randomInput({1, 8, 8, 4}), w = torch::randn({1, 3, 3, 4}), b = torch::randn({4});
        const std::int32_t in = g.input("x", {1, 8, 8, 4}), y = g.tensor("y", {1, 4, 4, 4});
        auto &op = g.op(TfliteOp::DepthwiseConv2D, {in, g.floats("w", w), g.floats("b", b)}, y);
        op.options.padSame = true;
        op.options.strideW = op.options.strideH = 2;
        op.options.depthMultiplier = 1;
        op.options.activation = TfliteActivation::Relu6;
        g.output(y);
        const torch::Tensor padded = torch::constant_pad_nd(nchw(x), {0, 1, 0, 1}, 0);
        add("depthwise_same_stride2", g, x, nhwc(conv(padded, w.permute({3, 0, 1, 2}), b, 2, 0, 1, 4).clamp(0, 6)));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 2, 5}), w = torch::randn({4, 5}), b = torch::randn({4});
        const std::int32_t in = g.input("x", {1, 2, 5}), y = g.tensor("y", {1, 2, 4});
        g.op(TfliteOp::FullyConnected, {in, g.floats("w", w), g.floats("b", b)}, y).options.keepDims = true;
        g.output(y);
        add("fully_connected_keep_dims", g, x, torch::linear(x, w, b));
    }
    {
        Graph g; // no bias (-1); [1, 3, 4] taken as 3 rows of 4
        const torch::Tensor x = randomInput({1, 3, 4}), w = torch::randn({2, 4});
        const std::int32_t in = g.input("x", {1, 3, 4}), y = g.tensor("y", {3, 2});
        g.op(TfliteOp::FullyConnected, {in, g.floats("w", w), -1}, y).options.activation = TfliteActivation::Relu;
        g.output(y);
        add("fully_connected_rows_no_bias", g, x, torch::relu(torch::linear(x.reshape({3, 4}), w)));
    }
    const std::vector<std::pair<TfliteOp, std::vector<std::int64_t>>> binary{
        {TfliteOp::Add, {3}}, {TfliteOp::Sub, {1, 1, 4, 1}}, {TfliteOp::Mul, {}}, {TfliteOp::Div, {1, 4, 1, 3}}};
    for (const auto &[op, shape] : binary) {
        Graph g;
        const torch::Tensor x = randomInput({1, 4, 4, 3});
        const torch::Tensor c = op == TfliteOp::Div ? torch::rand(shape) + 0.5 : torch::randn(shape);
        const std::int32_t in = g.input("x", {1, 4, 4, 3}), y = g.tensor("y", {1, 4, 4, 3});
        g.op(op, {in, g.floats("c", c)}, y).options.activation =
            op == TfliteOp::Sub ? TfliteActivation::Relu : TfliteActivation::None;
        g.output(y);
        torch::Tensor expected = op == TfliteOp::Add   ? x + c
                                 : op == TfliteOp::Sub ? torch::relu(x - c)
                                 : op == TfliteOp::Mul ? x * c
                                                       : x / c;
        add(engine::tfliteOpName(op) + "_broadcast", g, x, expected);
    }
    {
        Graph g; // both inputs activations
        const torch::Tensor x = randomInput({1, 3, 3, 2});
        const std::int32_t in = g.input("x", {1, 3, 3, 2}), r = g.tensor("r", {1, 3, 3, 2}),
                           y = g.tensor("y", {1, 3, 3, 2});
        g.op(TfliteOp::Relu, {in}, r);
        g.op(TfliteOp::Mul, {in, r}, y);
        g.output(y);
        add("mul_of_activations", g, x, x * torch::relu(x));
    }
    for (bool keep : {true, false}) {
        Graph g;
        const torch::Tensor x = randomInput({1, 5, 6, 4});
        const std::int32_t in = g.input("x", {1, 5, 6, 4});
        const std::int32_t y =
            g.tensor("y", keep ? std::vector<std::int32_t>{1, 1, 1, 4} : std::vector<std::int32_t>{1, 4});
        g.op(TfliteOp::Mean, {in, g.ints("axes", {1, 2}, {2})}, y).options.keepDims = keep;
        g.output(y);
        add(keep ? "mean_keep_dims" : "mean", g, x,
            nhwc(nchw(x).mean({2, 3}, true))
                .reshape(keep ? std::vector<std::int64_t>{1, 1, 1, 4} : std::vector<std::int64_t>{1, 4}));
    }
    {
        Graph g; // SAME 3x3 stride 2 on 8: padding 1, after
        const torch::Tensor x = randomInput({1, 8, 8, 2});
        const std::int32_t in = g.input("x", {1, 8, 8, 2}), y = g.tensor("y", {1, 4, 4, 2});
        auto &op = g.op(TfliteOp::MaxPool2D, {in}, y);
        op.options.padSame = true;
        op.options.filterW = op.options.filterH = 3;
        op.options.strideW = op.options.strideH = 2;
        g.output(y);
        const torch::Tensor padded = torch::constant_pad_nd(nchw(x), {0, 1, 0, 1}, -1e30);
        add("max_pool_same", g, x, nhwc(torch::max_pool2d(padded, 3, 2)));
    }
    {
        Graph g; // SAME 3x3 stride 2 on 7: padding 1 before and after, padding not counted
        const torch::Tensor x = randomInput({1, 7, 7, 2});
        const std::int32_t in = g.input("x", {1, 7, 7, 2}), y = g.tensor("y", {1, 4, 4, 2});
        auto &op = g.op(TfliteOp::AveragePool2D, {in}, y);
        op.options.padSame = true;
        op.options.filterW = op.options.filterH = 3;
        op.options.strideW = op.options.strideH = 2;
        g.output(y);
        add("average_pool_same", g, x, nhwc(torch::avg_pool2d(nchw(x), 3, 2, 1, false, /*count_include_pad=*/false)));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 6, 6, 2});
        const std::int32_t in = g.input("x", {1, 6, 6, 2}), y = g.tensor("y", {1, 3, 3, 2});
        auto &op = g.op(TfliteOp::AveragePool2D, {in}, y);
        op.options.filterW = op.options.filterH = 2;
        op.options.strideW = op.options.strideH = 2;
        op.options.activation = TfliteActivation::Relu;
        g.output(y);
        add("average_pool_valid", g, x, nhwc(torch::relu(torch::avg_pool2d(nchw(x), 2, 2))));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 3, 4, 2});
        const std::int32_t in = g.input("x", {1, 3, 4, 2}), y = g.tensor("y", {1, 6, 5, 2});
        g.op(TfliteOp::Pad, {in, g.ints("paddings", {0, 0, 1, 2, 0, 1, 0, 0}, {4, 2})}, y);
        g.output(y);
        add("pad", g, x, torch::constant_pad_nd(x, {0, 0, 0, 1, 1, 2}, 0));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 3, 4, 2});
        const std::int32_t in = g.input("x", {1, 3, 4, 2}), y = g.tensor("y", {1, 4, 6, 2});
        g.op(TfliteOp::PadV2,
             {in, g.ints("paddings", {0, 0, 0, 1, 1, 1, 0, 0}, {4, 2}), g.floats("value", torch::full({}, 0.5))}, y);
        g.output(y);
        add("padv2", g, x, torch::constant_pad_nd(x, {0, 0, 1, 1, 0, 1}, 0.5));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 2, 3, 4});
        const std::int32_t in = g.input("x", {1, 2, 3, 4}), y = g.tensor("y", {1, 6, 4});
        g.op(TfliteOp::Reshape, {in, g.ints("shape", {1, -1, 4}, {3})}, y);
        g.output(y);
        add("reshape_shape_tensor", g, x, x.reshape({1, 6, 4}));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 2, 3, 4});
        const std::int32_t in = g.input("x", {1, 2, 3, 4}), y = g.tensor("y", {1, 24});
        g.op(TfliteOp::Reshape, {in}, y).options.newShape = {1, 24};
        g.output(y);
        add("reshape_options", g, x, x.reshape({1, 24}));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 2, 3, 4});
        const std::int32_t in = g.input("x", {1, 2, 3, 4}), y = g.tensor("y", {1, 4, 2, 3});
        g.op(TfliteOp::Transpose, {in, g.ints("perm", {0, 3, 1, 2}, {4})}, y);
        g.output(y);
        add("transpose", g, x, x.permute({0, 3, 1, 2}));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 3, 5});
        const std::int32_t in = g.input("x", {1, 3, 5}), y = g.tensor("y", {1, 3, 5});
        g.op(TfliteOp::Softmax, {in}, y).options.beta = 0.7f;
        g.output(y);
        add("softmax_beta", g, x, torch::softmax(x * 0.7, -1));
    }
    const std::vector<std::tuple<std::string, TfliteOp, bool>> unary{
        {"logistic", TfliteOp::Logistic, false}, {"relu", TfliteOp::Relu, false},
        {"relu6", TfliteOp::Relu6, false},       {"hard_swish", TfliteOp::HardSwish, false},
        {"gelu", TfliteOp::Gelu, false},         {"gelu_tanh", TfliteOp::Gelu, true},
        {"sqrt", TfliteOp::Sqrt, false},         {"rsqrt", TfliteOp::Rsqrt, false}};
    for (const auto &[name, op, approximate] : unary) {
        Graph g;
        const bool positive = op == TfliteOp::Sqrt || op == TfliteOp::Rsqrt;
        const torch::Tensor x = randomInput({1, 4, 4, 3}, positive) * (op == TfliteOp::Relu6 ? 5.0 : 2.0);
        const std::int32_t in = g.input("x", {1, 4, 4, 3}), y = g.tensor("y", {1, 4, 4, 3});
        g.op(op, {in}, y).options.approximate = approximate;
        g.output(y);
        torch::Tensor expected;
        switch (op) {
        case TfliteOp::Logistic:
            expected = torch::sigmoid(x);
            break;
        case TfliteOp::Relu:
            expected = torch::relu(x);
            break;
        case TfliteOp::Relu6:
            expected = x.clamp(0, 6);
            break;
        case TfliteOp::HardSwish:
            expected = torch::hardswish(x);
            break;
        case TfliteOp::Gelu:
            expected = torch::gelu(x, approximate ? "tanh" : "none");
            break;
        case TfliteOp::Sqrt:
            expected = torch::sqrt(x);
            break;
        default:
            expected = torch::rsqrt(x);
        }
        add(name, g, x, expected);
    }
    {
        Graph g; // batch dimensions broadcast: [2, 1, 3, 4] x [3, 5, 4]^T
        const torch::Tensor x = randomInput({2, 1, 3, 4}), b = torch::randn({3, 5, 4});
        const std::int32_t in = g.input("x", {2, 1, 3, 4}), y = g.tensor("y", {2, 3, 3, 5});
        g.op(TfliteOp::BatchMatMul, {in, g.floats("b", b)}, y).options.adjY = true;
        g.output(y);
        add("batch_matmul_adj_y", g, x, torch::matmul(x, b.transpose(-1, -2)));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 4, 3}), b = torch::randn({1, 4, 2});
        const std::int32_t in = g.input("x", {1, 4, 3}), y = g.tensor("y", {1, 3, 2});
        g.op(TfliteOp::BatchMatMul, {in, g.floats("b", b)}, y).options.adjX = true;
        g.output(y);
        add("batch_matmul_adj_x", g, x, torch::matmul(x.transpose(-1, -2), b));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 2, 3}), c = torch::randn({1, 2, 2});
        const std::int32_t in = g.input("x", {1, 2, 3}), y = g.tensor("y", {1, 2, 5});
        g.op(TfliteOp::Concatenation, {in, g.floats("c", c)}, y).options.axis = -1;
        g.output(y);
        add("concatenation_negative_axis", g, x, torch::cat({x, c}, 2));
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 5, 3});
        const std::int32_t in = g.input("x", {1, 5, 3}), y = g.tensor("y", {1, 2, 2, 3});
        g.op(TfliteOp::Gather, {in, g.ints("indices", {4, 0, 1, 1}, {2, 2})}, y).options.axis = 1;
        g.output(y);
        add("gather", g, x, x.index_select(1, torch::tensor({4, 0, 1, 1}, torch::kLong)).reshape({1, 2, 2, 3}));
    }
    {
        Graph g; // a scalar index drops the axis
        const torch::Tensor x = randomInput({1, 5, 3});
        const std::int32_t in = g.input("x", {1, 5, 3}), y = g.tensor("y", {1, 3});
        g.op(TfliteOp::Gather, {in, g.ints("index", {2}, {})}, y).options.axis = -2;
        g.output(y);
        add("gather_scalar", g, x, x.select(1, 2));
    }
    {
        Graph g; // float16 weights behind DEQUANTIZE (the FP16 variant)
        const torch::Tensor x = randomInput({1, 4, 4, 3}), c = torch::randn({3}).to(torch::kHalf);
        const std::int32_t in = g.input("x", {1, 4, 4, 3}), f = g.tensor("c32", {3}), y = g.tensor("y", {1, 4, 4, 3});
        g.op(TfliteOp::Dequantize, {g.constant("c16", c, TfliteType::Float16)}, f);
        g.op(TfliteOp::Add, {in, f}, y);
        g.output(y);
        add("dequantize_float16", g, x, x + c.to(torch::kFloat));
    }
    {
        Graph g;
        const TfliteQuantization q = quant(0.05f, 3);
        const torch::Tensor x = randomInput({1, 20}) * 4;
        const std::int32_t in = g.input("x", {1, 20}), y = g.tensor("y", {1, 20}, TfliteType::Int8, q);
        g.op(TfliteOp::Quantize, {in}, y);
        g.output(y);
        add("quantize_int8", g, x, quantizeLikeTflite(x, q, torch::kChar));
    }
    {
        Graph g;
        const TfliteQuantization q = quant(0.1f, -5);
        const torch::Tensor x = torch::randint(-128, 128, {1, 20}).to(torch::kChar);
        const std::int32_t in = g.input("x", {1, 20}, TfliteType::Int8, q), y = g.tensor("y", {1, 20});
        g.op(TfliteOp::Dequantize, {in}, y);
        g.output(y);
        add("dequantize_int8", g, x, dequant(x, q));
    }
    {
        Graph g; // int8 -> uint8 requantisation
        const TfliteQuantization qi = quant(0.1f, -5), qo = quant(0.07f, 128);
        const torch::Tensor x = torch::randint(-128, 128, {1, 20}).to(torch::kChar);
        const std::int32_t in = g.input("x", {1, 20}, TfliteType::Int8, qi),
                           y = g.tensor("y", {1, 20}, TfliteType::UInt8, qo);
        g.op(TfliteOp::Quantize, {in}, y);
        g.output(y);
        add("requantize_int8_to_uint8", g, x, quantizeLikeTflite(dequant(x, qi), qo, torch::kByte));
    }
    return cases;
}

// Every operator in one float graph (with a float16 constant and an int8 round at the end), for
// LiteRT and the round trip.
TfliteModel allOperatorsModel()
{
    torch::manual_seed(11);
    Graph g;
    auto chain = [&](TfliteOp op, std::vector<std::int32_t> inputs, std::vector<std::int32_t> shape,
                     TfliteType type = TfliteType::Float32, TfliteQuantization q = {}) -> engine::TfliteOperator & {
        const std::int32_t out = g.tensor("t" + std::to_string(g.m.operators.size()) + "_" + engine::tfliteOpName(op),
                                          std::move(shape), type, std::move(q));
        auto &added = g.op(op, std::move(inputs), out);
        added.origin = "node" + std::to_string(g.m.operators.size());
        return added;
    };
    auto last = [&] { return g.m.operators.back().outputs[0]; };
    const std::int32_t x = g.input("image", {1, 8, 8, 3});
    {
        auto &op = chain(TfliteOp::Conv2D,
                         {x, g.floats("w1", torch::randn({4, 3, 3, 3}) * 0.5), g.floats("b1", torch::randn({4}))},
                         {1, 4, 4, 4});
        op.options.padSame = true;
        op.options.strideW = op.options.strideH = 2;
        op.options.activation = TfliteActivation::Relu;
    }
    {
        auto &op = chain(TfliteOp::DepthwiseConv2D,
                         {last(), g.floats("w2", torch::randn({1, 3, 3, 8})), g.floats("b2", torch::randn({8}))},
                         {1, 4, 4, 8});
        op.options.padSame = true;
        op.options.depthMultiplier = 2;
        op.options.activation = TfliteActivation::Relu6;
    }
    {
        auto &op = chain(TfliteOp::MaxPool2D, {last()}, {1, 4, 4, 8});
        op.options.padSame = true;
        op.options.filterW = op.options.filterH = 2;
    }
    {
        auto &op = chain(TfliteOp::AveragePool2D, {last()}, {1, 2, 2, 8});
        op.options.filterW = op.options.filterH = 2;
        op.options.strideW = op.options.strideH = 2;
    }
    chain(TfliteOp::Pad, {last(), g.ints("pad1", {0, 0, 1, 1, 1, 1, 0, 0}, {4, 2})}, {1, 4, 4, 8});
    chain(TfliteOp::PadV2,
          {last(), g.ints("pad2", {0, 0, 0, 1, 0, 1, 0, 0}, {4, 2}), g.floats("value", torch::full({}, 0.5))},
          {1, 5, 5, 8});
    chain(TfliteOp::HardSwish, {last()}, {1, 5, 5, 8});
    const std::int32_t hs = last();
    chain(TfliteOp::Dequantize, {g.constant("c16", torch::randn({8}).to(torch::kHalf), TfliteType::Float16)}, {8});
    chain(TfliteOp::Add, {hs, last()}, {1, 5, 5, 8});
    chain(TfliteOp::Sub, {last(), g.floats("sub", torch::randn({1, 1, 1, 8}))}, {1, 5, 5, 8});
    chain(TfliteOp::Mul, {last(), g.floats("mul", torch::full({}, 1.5))}, {1, 5, 5, 8});
    chain(TfliteOp::Div, {last(), g.floats("div", torch::rand({8}) + 0.5)}, {1, 5, 5, 8});
    chain(TfliteOp::Relu, {last()}, {1, 5, 5, 8});
    chain(TfliteOp::Mean, {last(), g.ints("axes", {1, 2}, {2})}, {1, 1, 1, 8}).options.keepDims = true;
    chain(TfliteOp::Reshape, {last(), g.ints("shape1", {1, 8}, {2})}, {1, 8});
    chain(TfliteOp::FullyConnected, {last(), g.floats("w3", torch::randn({6, 8})), g.floats("b3", torch::randn({6}))},
          {1, 6});
    chain(TfliteOp::Gelu, {last()}, {1, 6});
    chain(TfliteOp::Logistic, {last()}, {1, 6});
    chain(TfliteOp::Sqrt, {last()}, {1, 6});
    chain(TfliteOp::Rsqrt, {last()}, {1, 6});
    chain(TfliteOp::Gelu, {last()}, {1, 6}).options.approximate = true;
    chain(TfliteOp::Relu6, {last()}, {1, 6});
    chain(TfliteOp::Reshape, {last()}, {1, 2, 3}).options.newShape = {1, 2, 3};
    chain(TfliteOp::Transpose, {last(), g.ints("perm", {0, 2, 1}, {3})}, {1, 3, 2});
    chain(TfliteOp::BatchMatMul, {last(), g.floats("bmm", torch::randn({1, 4, 2}))}, {1, 3, 4}).options.adjY = true;
    {
        auto &op = chain(TfliteOp::Concatenation, {last(), g.floats("cat", torch::randn({1, 3, 2}))}, {1, 3, 6});
        op.options.axis = -1;
    }
    chain(TfliteOp::Gather, {last(), g.ints("indices", {0, 2, 5}, {3})}, {1, 3, 3}).options.axis = 2;
    chain(TfliteOp::Reshape, {last(), g.ints("shape2", {1, 9}, {2})}, {1, 9});
    chain(TfliteOp::Softmax, {last()}, {1, 9}).options.beta = 0.5f;
    chain(TfliteOp::Quantize, {last()}, {1, 9}, TfliteType::UInt8, quant(1.0f / 256, 0));
    chain(TfliteOp::Quantize, {last()}, {1, 9}, TfliteType::Int8, quant(1.0f / 256, -128));
    chain(TfliteOp::Dequantize, {last()}, {1, 9});
    g.output(last());
    g.m.description = "every operator of the reference runtime";
    g.m.metadata["lathe"] = R"({"labels": ["a", "b"], "mean": [0.5, 0.5, 0.5]})";
    return g.m;
}

// The int8 operators TFLite runs with its integer kernels, each in its own model with an int8
// input and output (activations asymmetric, weights symmetric per channel, biases int32).
std::vector<Case> int8Cases()
{
    std::vector<Case> cases;
    torch::manual_seed(3);
    const TfliteQuantization qx = quant(0.03f, -7);
    auto int8Input = [](std::vector<std::int64_t> shape) { return torch::randint(-128, 128, shape).to(torch::kChar); };
    auto everyInt8 = [] { return torch::arange(-128, 128).to(torch::kChar).reshape({1, 256}); };
    auto finish = [&](std::string name, Graph &g, const torch::Tensor &x, std::int32_t y) {
        g.output(y);
        cases.push_back({std::move(name), g.m, x, torch::Tensor()});
    };
    {
        Graph g;
        const torch::Tensor x = int8Input({1, 8, 8, 3});
        const QuantizedWeights w = perChannel(torch::randn({16, 3, 3, 3}) * 0.3, 0);
        const auto [b, qb] = quantizedBias(torch::randn({16}) * 0.2, qx.scale[0], w.params);
        const torch::Tensor f = torch::relu(conv(torch::constant_pad_nd(nchw(dequant(x, qx)), {0, 1, 0, 1}, 0),
                                                 w.dequantized.permute({0, 3, 1, 2}), {}, 2, 0));
        const std::int32_t in = g.input("x", {1, 8, 8, 3}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {1, 4, 4, 16}, TfliteType::Int8, rangeParams(f));
        auto &op =
            g.op(TfliteOp::Conv2D,
                 {in, g.constant("w", w.q, TfliteType::Int8, w.params), g.constant("b", b, TfliteType::Int32, qb)}, y);
        op.options.padSame = true;
        op.options.strideW = op.options.strideH = 2;
        op.options.activation = TfliteActivation::Relu;
        finish("int8_conv", g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = int8Input({1, 8, 8, 8});
        const QuantizedWeights w = perChannel(torch::randn({1, 3, 3, 8}) * 0.3, 3);
        const auto [b, qb] = quantizedBias(torch::randn({8}) * 0.2, qx.scale[0], w.params);
        const torch::Tensor f = conv(nchw(dequant(x, qx)), w.dequantized.permute({3, 0, 1, 2}), {}, 1, 1, 1, 8);
        const std::int32_t in = g.input("x", {1, 8, 8, 8}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {1, 8, 8, 8}, TfliteType::Int8, rangeParams(f * 1.2));
        auto &op =
            g.op(TfliteOp::DepthwiseConv2D,
                 {in, g.constant("w", w.q, TfliteType::Int8, w.params), g.constant("b", b, TfliteType::Int32, qb)}, y);
        op.options.padSame = true;
        op.options.depthMultiplier = 1;
        finish("int8_depthwise", g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = int8Input({8, 16});
        const QuantizedWeights w = perChannel(torch::randn({32, 16}) * 0.3, 0);
        const auto [b, qb] = quantizedBias(torch::randn({32}) * 0.2, qx.scale[0], w.params);
        const torch::Tensor f = torch::linear(dequant(x, qx), w.dequantized);
        const std::int32_t in = g.input("x", {8, 16}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {8, 32}, TfliteType::Int8, rangeParams(f * 1.2));
        g.op(TfliteOp::FullyConnected,
             {in, g.constant("w", w.q, TfliteType::Int8, w.params), g.constant("b", b, TfliteType::Int32, qb)}, y);
        finish("int8_fully_connected", g, x, y);
    }
    for (TfliteOp op : {TfliteOp::Add, TfliteOp::Mul}) {
        Graph g;
        const torch::Tensor x = int8Input({1, 8, 8, 8});
        const TfliteQuantization qc = quant(0.02f, 5);
        const torch::Tensor c = int8Input({1, 1, 8, 8});
        const torch::Tensor f = op == TfliteOp::Add ? dequant(x, qx) + dequant(c, qc) : dequant(x, qx) * dequant(c, qc);
        const std::int32_t in = g.input("x", {1, 8, 8, 8}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {1, 8, 8, 8}, TfliteType::Int8, rangeParams(f));
        g.op(op, {in, g.constant("c", c, TfliteType::Int8, qc)}, y);
        finish("int8_" + engine::tfliteOpName(op), g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = int8Input({1, 6, 6, 32});
        const std::int32_t in = g.input("x", {1, 6, 6, 32}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {1, 32}, TfliteType::Int8, quant(0.004f, 2));
        g.op(TfliteOp::Mean, {in, g.ints("axes", {1, 2}, {2})}, y);
        finish("int8_mean", g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = everyInt8();
        const TfliteQuantization qh = quant(0.05f, -10);
        const std::int32_t in = g.input("x", {1, 256}, TfliteType::Int8, qh);
        const std::int32_t y = g.tensor("y", {1, 256}, TfliteType::Int8, rangeParams(torch::hardswish(dequant(x, qh))));
        g.op(TfliteOp::HardSwish, {in}, y);
        finish("int8_hard_swish", g, x, y);
    }
    for (TfliteOp op : {TfliteOp::Logistic, TfliteOp::Softmax}) {
        Graph g;
        // LOGISTIC on every int8 value; SOFTMAX on rows of 16.
        const torch::Tensor x = op == TfliteOp::Logistic ? everyInt8() : int8Input({16, 16});
        const TfliteQuantization qi = quant(op == TfliteOp::Logistic ? 0.05f : 0.02f, 3);
        const std::vector<std::int32_t> shape = dims(x.sizes());
        const std::int32_t in = g.input("x", shape, TfliteType::Int8, qi);
        const std::int32_t y = g.tensor("y", shape, TfliteType::Int8, quant(1.0f / 256, -128));
        g.op(op, {in}, y);
        finish("int8_" + engine::tfliteOpName(op), g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = randomInput({1, 16, 16}) * 2;
        const std::int32_t in = g.input("x", {1, 16, 16});
        const std::int32_t y = g.tensor("y", {1, 16, 16}, TfliteType::Int8, quant(0.02f, 4));
        g.op(TfliteOp::Quantize, {in}, y);
        finish("int8_QUANTIZE", g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = everyInt8();
        const std::int32_t in = g.input("x", {1, 256}, TfliteType::Int8, qx);
        const std::int32_t y = g.tensor("y", {1, 256}, TfliteType::UInt8, quant(0.04f, 120));
        g.op(TfliteOp::Quantize, {in}, y);
        finish("int8_to_uint8_QUANTIZE", g, x, y);
    }
    {
        Graph g;
        const torch::Tensor x = everyInt8();
        const std::int32_t in = g.input("x", {1, 256}, TfliteType::Int8, qx), y = g.tensor("y", {1, 256});
        g.op(TfliteOp::Dequantize, {in}, y);
        finish("int8_DEQUANTIZE", g, x, y);
    }
    {
        Graph g; // the operators whose int8 output keeps the input's parameters
        const torch::Tensor x = int8Input({1, 6, 6, 2});
        const std::int32_t in = g.input("x", {1, 6, 6, 2}, TfliteType::Int8, qx);
        const std::int32_t p = g.tensor("p", {1, 8, 8, 2}, TfliteType::Int8, qx),
                           m = g.tensor("m", {1, 4, 4, 2}, TfliteType::Int8, qx);
        const std::int32_t r = g.tensor("r", {1, 16, 2}, TfliteType::Int8, qx),
                           y = g.tensor("y", {1, 2, 16}, TfliteType::Int8, qx);
        g.op(TfliteOp::Pad, {in, g.ints("paddings", {0, 0, 1, 1, 1, 1, 0, 0}, {4, 2})}, p);
        auto &pool = g.op(TfliteOp::MaxPool2D, {p}, m);
        pool.options.filterW = pool.options.filterH = 2;
        pool.options.strideW = pool.options.strideH = 2;
        g.op(TfliteOp::Reshape, {m, g.ints("shape", {1, 16, 2}, {3})}, r);
        g.op(TfliteOp::Transpose, {r, g.ints("perm", {0, 2, 1}, {3})}, y);
        finish("int8_pad_max_pool_reshape_transpose", g, x, y);
    }
    return cases;
}

// LiteRT on each (model, input), in one Python process (export/litert_check.py): the outputs in
// each model's output type and shape. delegates: LiteRT's default (XNNPACK where it can), or
// TFLite's builtin kernels alone.
std::vector<torch::Tensor> runLiteRt(const std::vector<std::pair<TfliteModel, torch::Tensor>> &jobs, bool delegates)
{
    const test::TempDir dir;
    std::string args;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const std::string model = dir.file(std::to_string(i) + ".tflite"), in = dir.file(std::to_string(i) + ".in"),
                          out = dir.file(std::to_string(i) + ".out");
        std::ofstream(model, std::ios::binary) << engine::serializeTflite(jobs[i].first);
        const torch::Tensor x = jobs[i].second.contiguous();
        std::ofstream(in, std::ios::binary).write(static_cast<const char *>(x.data_ptr()), std::streamsize(x.nbytes()));
        args += " '" + model + "' '" + in + "' '" + out + "'";
    }
    const std::string script = test::sourceRoot() + "/tests/unit/engine/export/litert_check.py";
    int status = -1;
    const std::string output = test::runCommand("'" + test::python() + "' '" + script + "'" +
                                                    (delegates ? "" : " --without-delegates") + args + " 2>&1",
                                                &status);
    EXPECT_EQ(status, 0) << output;
    std::vector<torch::Tensor> outputs;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const TfliteModel &m = jobs[i].first;
        const TfliteTensor &spec = m.tensors[std::size_t(m.outputs[0])];
        const torch::Tensor reference = engine::TfliteReferenceRuntime(m).run(jobs[i].second);
        torch::Tensor y = torch::empty_like(reference);
        const std::vector<std::uint8_t> bytes = test::readRaw(dir.file(std::to_string(i) + ".out"));
        EXPECT_EQ(bytes.size(), std::size_t(y.nbytes())) << spec.name << ": " << output;
        if (bytes.size() == std::size_t(y.nbytes()) && !bytes.empty())
            std::memcpy(y.data_ptr(), bytes.data(), bytes.size());
        outputs.push_back(y);
    }
    return outputs;
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string refusal(const std::string &path)
{
    try {
        engine::TfliteReferenceRuntime(engine::readTfliteFile(path)).run(torch::zeros({1, 2, 3}));
    } catch (const engine::EngineError &e) {
        return e.what();
    }
    return "(accepted)";
}

// A model written with the generated FlatBuffer classes directly, so that it can break the
// rules serializeTflite keeps: ADD(x, c) -> y, x and c [1, 2, 3] float32.
struct RawModel
{
    std::int32_t addInput = 0; // the operator's first input (tensor index)
    std::uint32_t constantBytes = 24;
    std::int32_t code = 0;          // the builtin operator code
    std::size_t extraTensors = 0;   // activation tensors no operator uses
    std::size_t extraOperators = 0; // RELU(x) -> y again (the runtime refuses it; the parser counts it)
    std::size_t rank = 3;           // of the extra tensors
};

RawModel raw(const std::function<void(RawModel &)> &change)
{
    RawModel r;
    change(r);
    return r;
}

std::string rawModel(const RawModel &r)
{
    namespace tfl = lathe::tflite;
    flatbuffers::FlatBufferBuilder fbb;
    const std::vector<std::uint8_t> data(r.constantBytes, 0);
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers{tfl::CreateBuffer(fbb),
                                                          tfl::CreateBuffer(fbb, fbb.CreateVector(data))};
    const std::vector<std::int32_t> shape{1, 2, 3};
    std::vector<flatbuffers::Offset<tfl::Tensor>> tensors{
        tfl::CreateTensor(fbb, fbb.CreateVector(shape), tfl::TensorType::FLOAT32, 0, fbb.CreateString("x")),
        tfl::CreateTensor(fbb, fbb.CreateVector(shape), tfl::TensorType::FLOAT32, 1, fbb.CreateString("c")),
        tfl::CreateTensor(fbb, fbb.CreateVector(shape), tfl::TensorType::FLOAT32, 0, fbb.CreateString("y"))};
    const std::vector<std::int32_t> extraShape(r.rank, 1);
    for (std::size_t i = 0; i < r.extraTensors; ++i)
        tensors.push_back(tfl::CreateTensor(fbb, fbb.CreateVector(extraShape), tfl::TensorType::FLOAT32, 0));
    const std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes{
        tfl::CreateOperatorCode(fbb, std::int8_t(std::min(r.code, 127)), 0, 1,
                                static_cast<tfl::BuiltinOperator>(r.code)),
        tfl::CreateOperatorCode(fbb, 19, 0, 1, tfl::BuiltinOperator::RELU)};
    std::vector<flatbuffers::Offset<tfl::Operator>> operators{
        tfl::CreateOperator(fbb, 0, fbb.CreateVector(std::vector<std::int32_t>{r.addInput, 1}),
                            fbb.CreateVector(std::vector<std::int32_t>{2}), tfl::BuiltinOptions::AddOptions,
                            tfl::CreateAddOptions(fbb).Union())};
    for (std::size_t i = 0; i < r.extraOperators; ++i)
        operators.push_back(tfl::CreateOperator(fbb, 1, fbb.CreateVector(std::vector<std::int32_t>{0}),
                                                fbb.CreateVector(std::vector<std::int32_t>{2})));
    const auto subgraph =
        tfl::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(std::vector<std::int32_t>{0}),
                            fbb.CreateVector(std::vector<std::int32_t>{2}), fbb.CreateVector(operators));
    const auto model = tfl::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(std::vector{subgraph}), 0,
                                        fbb.CreateVector(buffers));
    tfl::FinishModelBuffer(fbb, model);
    return std::string(reinterpret_cast<const char *>(fbb.GetBufferPointer()), fbb.GetSize());
}

void expectSameOptions(const engine::TfliteOptions &a, const engine::TfliteOptions &b)
{
    EXPECT_EQ(a.padSame, b.padSame);
    EXPECT_EQ(a.strideW, b.strideW);
    EXPECT_EQ(a.strideH, b.strideH);
    EXPECT_EQ(a.dilationW, b.dilationW);
    EXPECT_EQ(a.dilationH, b.dilationH);
    EXPECT_EQ(a.filterW, b.filterW);
    EXPECT_EQ(a.filterH, b.filterH);
    EXPECT_EQ(a.depthMultiplier, b.depthMultiplier);
    EXPECT_EQ(a.activation, b.activation);
    EXPECT_EQ(a.axis, b.axis);
    EXPECT_EQ(a.keepDims, b.keepDims);
    EXPECT_EQ(a.beta, b.beta);
    EXPECT_EQ(a.adjX, b.adjX);
    EXPECT_EQ(a.adjY, b.adjY);
    EXPECT_EQ(a.approximate, b.approximate);
    EXPECT_EQ(a.newShape, b.newShape);
}

} // namespace

TEST(TfliteModel, NamesAsTfliteSpellsThem)
{
    EXPECT_EQ(engine::tfliteOpName(TfliteOp::Conv2D), "CONV_2D");
    EXPECT_EQ(engine::tfliteOpName(TfliteOp::DepthwiseConv2D), "DEPTHWISE_CONV_2D");
    EXPECT_EQ(engine::tfliteOpName(TfliteOp::FullyConnected), "FULLY_CONNECTED");
    EXPECT_EQ(engine::tfliteOpName(TfliteOp::HardSwish), "HARD_SWISH");
    EXPECT_EQ(engine::tfliteOpName(TfliteOp::Gelu), "GELU");
    EXPECT_EQ(engine::tfliteOpName(static_cast<TfliteOp>(5)), "DEPTH_TO_SPACE");
    EXPECT_EQ(engine::tfliteOpName(static_cast<TfliteOp>(100000)), "code 100000");
    EXPECT_EQ(engine::tfliteTypeName(TfliteType::Float32), "FLOAT32");
    EXPECT_EQ(engine::tfliteTypeName(TfliteType::Int8), "INT8");
    EXPECT_EQ(engine::tfliteTypeName(static_cast<TfliteType>(6)), "BOOL");
    TfliteModel m;
    EXPECT_EQ(m.addTensor({}), 0);
    EXPECT_EQ(m.addTensor({}), 1);
    EXPECT_EQ(m.addOperator(TfliteOp::Relu, {0}, {1}).outputs, std::vector<std::int32_t>{1});
}

TEST(TfliteRuntime, EveryOperatorMatchesLibTorchInNchw)
{
    for (const Case &c : floatCases()) {
        SCOPED_TRACE(c.name);
        const torch::Tensor y = runThroughFile(c.model, c.input);
        ASSERT_EQ(y.sizes(), c.expected.sizes());
        ASSERT_EQ(y.scalar_type(), c.expected.scalar_type());
        if (c.expected.is_floating_point()) {
            EXPECT_TRUE(torch::allclose(y, c.expected, 1e-5, 1e-5)) << maxAbsDiff(y, c.expected);
        } else {
            EXPECT_TRUE(torch::equal(y, c.expected)) << maxAbsDiff(y, c.expected);
        }
    }
}

TEST(TfliteRuntime, ObserverSeesEveryOperatorOutputAsFloatAndBatchesStack)
{
    const TfliteModel m = allOperatorsModel();
    const engine::TfliteReferenceRuntime runtime(m);
    torch::manual_seed(1);
    const torch::Tensor x = torch::randn({3, 8, 8, 3});
    std::vector<std::int32_t> seen;
    torch::Tensor last;
    const torch::Tensor y = runtime.run(x.slice(0, 0, 1), [&](std::int32_t t, const torch::Tensor &v) {
        seen.push_back(t);
        EXPECT_EQ(v.scalar_type(), torch::kFloat) << t;
        EXPECT_EQ(std::vector<std::int32_t>(v.sizes().begin(), v.sizes().end()), m.tensors[std::size_t(t)].shape);
        last = v;
    });
    ASSERT_EQ(seen.size(), m.operators.size());
    for (std::size_t j = 0; j < m.operators.size(); ++j)
        EXPECT_EQ(seen[j], m.operators[j].outputs[0]);
    EXPECT_TRUE(torch::equal(last, y));
    EXPECT_NEAR(y.sum().item<double>(), 1.0, 0.02); // a softmax, rounded to 1/256
    const torch::Tensor batch = runtime.runBatch(x);
    ASSERT_EQ(batch.sizes(), (std::vector<std::int64_t>{3, 9}));
    for (std::int64_t i = 0; i < 3; ++i)
        EXPECT_TRUE(torch::equal(batch[i], runtime.run(x.slice(0, i, i + 1))[0]));
}

TEST(TfliteFile, RoundTripKeepsEveryField)
{
    TfliteModel m = allOperatorsModel();
    Graph g{m};
    torch::manual_seed(5);
    // Constants of every type, quantised per channel and per tensor; unused by the operators.
    const QuantizedWeights w = perChannel(torch::randn({3, 2, 2, 4}), 3);
    g.constant("int8 per channel", w.q, TfliteType::Int8, w.params);
    g.constant("uint8", torch::randint(0, 256, {5}).to(torch::kByte), TfliteType::UInt8, quant(0.5f, 128));
    g.constant("int64", torch::tensor({1, -2, 3}, torch::kLong), TfliteType::Int64);
    g.constant("empty", torch::empty({0, 3}), TfliteType::Float32);
    g.tensor("unicode ünïcödé", {2, 0, 1}, TfliteType::Int8, quant(0.25f, -3));
    g.m.metadata["binary"] = std::string("\0\x01\xff zero", 8);
    m = g.m;

    const std::string bytes = engine::serializeTflite(m);
    EXPECT_EQ(bytes.substr(4, 4), "TFL3");
    const TfliteModel back = engine::parseTflite(bytes, "round trip");
    ASSERT_EQ(back.tensors.size(), m.tensors.size());
    for (std::size_t i = 0; i < m.tensors.size(); ++i) {
        const TfliteTensor &a = m.tensors[i], &b = back.tensors[i];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.shape, b.shape);
        EXPECT_EQ(a.type, b.type);
        ASSERT_EQ(a.isConstant(), b.isConstant());
        if (a.isConstant()) {
            EXPECT_TRUE(torch::equal(a.data, b.data));
        }
        EXPECT_EQ(a.quantization.scale, b.quantization.scale);
        EXPECT_EQ(a.quantization.zeroPoint, b.quantization.zeroPoint);
        if (a.quantization.scale.size() > 1) {
            EXPECT_EQ(a.quantization.dimension, b.quantization.dimension);
        }
    }
    ASSERT_EQ(back.operators.size(), m.operators.size());
    for (std::size_t j = 0; j < m.operators.size(); ++j) {
        SCOPED_TRACE(engine::tfliteOpName(m.operators[j].op));
        EXPECT_EQ(back.operators[j].op, m.operators[j].op);
        EXPECT_EQ(back.operators[j].inputs, m.operators[j].inputs);
        EXPECT_EQ(back.operators[j].outputs, m.operators[j].outputs);
        expectSameOptions(back.operators[j].options, m.operators[j].options);
    }
    EXPECT_EQ(back.inputs, m.inputs);
    EXPECT_EQ(back.outputs, m.outputs);
    EXPECT_EQ(back.description, m.description);
    EXPECT_EQ(back.metadata, m.metadata);
    // Written again, the same bytes.
    EXPECT_EQ(engine::serializeTflite(back), bytes);

    // The file's own structure: buffer 0 empty, one buffer per constant and per metadata entry,
    // operator codes once each, the serving_default signature by tensor name.
    const auto *file = lathe::tflite::GetModel(bytes.data());
    EXPECT_EQ(file->version(), 3u);
    ASSERT_TRUE(file->buffers());
    EXPECT_TRUE(!file->buffers()->Get(0)->data() || file->buffers()->Get(0)->data()->size() == 0);
    std::size_t constants = 0;
    for (const TfliteTensor &t : m.tensors)
        constants += t.isConstant();
    EXPECT_EQ(file->buffers()->size(), 1 + constants + m.metadata.size());
    std::set<std::pair<int, int>> codes;
    for (const auto *code : *file->operator_codes()) {
        EXPECT_EQ(code->deprecated_builtin_code(), std::min<int>(int(code->builtin_code()), 127));
        EXPECT_TRUE(codes.insert({int(code->builtin_code()), code->version()}).second);
    }
    ASSERT_EQ(file->signature_defs()->size(), 1u);
    const auto *signature = file->signature_defs()->Get(0);
    EXPECT_EQ(signature->signature_key()->str(), "serving_default");
    EXPECT_EQ(signature->inputs()->Get(0)->name()->str(), "image");
    EXPECT_EQ(signature->inputs()->Get(0)->tensor_index(), std::uint32_t(m.inputs[0]));
    EXPECT_EQ(signature->outputs()->Get(0)->tensor_index(), std::uint32_t(m.outputs[0]));
    for (const auto *buffer : *file->buffers()) {
        if (buffer->data() && buffer->data()->size() > 0) {
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()->data()) % 16, 0u);
        }
    }
}

TEST(TfliteRuntime, Int8ConvAddIsWithinOneStepOfTheFloatComputation)
{
    torch::manual_seed(9);
    Graph g;
    const TfliteQuantization qx = quant(0.02f, 0);
    const QuantizedWeights w = perChannel(torch::randn({6, 3, 3, 4}) * 0.2, 0);
    const auto [bias, qb] = quantizedBias(torch::randn({6}) * 0.1, qx.scale[0], w.params);
    const torch::Tensor x = torch::randint(-128, 128, {1, 8, 8, 4}).to(torch::kChar);
    const TfliteQuantization qshift = quant(0.01f, 0);
    const torch::Tensor shift = torch::randint(-128, 128, {1, 1, 1, 6}).to(torch::kChar);
    // The float computation on the model's own (dequantised) values.
    const torch::Tensor biasFloat =
        bias.to(torch::kDouble) * torch::tensor(std::vector<double>(qb.scale.begin(), qb.scale.end()));
    const torch::Tensor convolved =
        nhwc(conv(nchw(dequant(x, qx)), w.dequantized.permute({0, 3, 1, 2}), biasFloat.to(torch::kFloat), 1, 1));
    const torch::Tensor expected = convolved + dequant(shift, qshift);
    const TfliteQuantization qc = rangeParams(convolved), qy = rangeParams(expected, qc.scale[0]);

    const std::int32_t in = g.input("x", {1, 8, 8, 4}, TfliteType::Int8, qx);
    const std::int32_t c = g.tensor("conv", {1, 8, 8, 6}, TfliteType::Int8, qc);
    const std::int32_t y = g.tensor("y", {1, 8, 8, 6}, TfliteType::Int8, qy);
    g.op(TfliteOp::Conv2D,
         {in, g.constant("w", w.q, TfliteType::Int8, w.params), g.constant("b", bias, TfliteType::Int32, qb)}, c)
        .options.padSame = true;
    g.op(TfliteOp::Add, {c, g.constant("shift", shift, TfliteType::Int8, qshift)}, y);
    g.output(y);
    const torch::Tensor out = runThroughFile(g.m, x);
    ASSERT_EQ(out.scalar_type(), torch::kChar);
    const double steps = maxAbsDiff(dequant(out, qy), expected) / qy.scale[0];
    EXPECT_LE(steps, 1.0 + 1e-3);
    std::cout << "int8 conv + add: " << steps << " output steps from the float computation\n";
}

TEST(TfliteFile, HostileFilesAreRefusedNamingTheFileAndTheReason)
{
    const test::TempDir dir;
    // The raw model itself is good: read and run.
    const std::string good = rawModel({});
    writeFile(dir.file("good.tflite"), good);
    EXPECT_EQ(refusal(dir.file("good.tflite")), "(accepted)");

    struct Hostile
    {
        std::string name, bytes, reason;
    };
    std::string wrongId = good;
    wrongId.replace(4, 4, "ABCD");
    const std::vector<Hostile> hostile{
        {"empty.tflite", "", "not a TFLite file (0 bytes)"},
        {"truncated.tflite", good.substr(0, good.size() / 2), "not a valid TFLite FlatBuffer"},
        {"identifier.tflite", wrongId, "file identifier 'ABCD', not 'TFL3'"},
        {"index.tflite", rawModel(raw([](RawModel &r) { r.addInput = 99; })),
         "operator 0 (ADD): input: tensor index 99 out of range (3 tensors)"},
        {"negative.tflite", rawModel(raw([](RawModel &r) { r.addInput = -2; })), "tensor index -2 out of range"},
        {"buffer.tflite", rawModel(raw([](RawModel &r) { r.constantBytes = 20; })),
         "tensor 1 'c': buffer 1 holds 20 bytes, not the 24 of a FLOAT32 [1, 2, 3]"},
        {"unknown.tflite", rawModel(raw([](RawModel &r) { r.code = 5; })),
         "operator 0: builtin operator code 5 (DEPTH_TO_SPACE) is not one Lathe reads"},
        {"custom.tflite", rawModel(raw([](RawModel &r) { r.code = 32; })),
         "operator 0: custom operator '' is not one Lathe reads"},
        {"unnamed.tflite", rawModel(raw([](RawModel &r) { r.code = 100000; })),
         "operator 0: builtin operator code 100000 is not one Lathe reads"},
        {"rank.tflite", rawModel(raw([](RawModel &r) {
             r.extraTensors = 1;
             r.rank = 9;
         })),
         "tensor 3 '': shape: 9 dimensions, over the limit tflite.rank = 8"},
    };
    for (const Hostile &h : hostile) {
        SCOPED_TRACE(h.name);
        const std::string path = dir.file(h.name);
        writeFile(path, h.bytes);
        const std::string message = refusal(path);
        EXPECT_NE(message.find(path + ": "), std::string::npos) << message;
        EXPECT_NE(message.find(h.reason), std::string::npos) << message;
    }
    // A rank of 8 is the limit, and taken.
    EXPECT_NO_THROW(engine::parseTflite(rawModel(raw([](RawModel &r) {
                                            r.extraTensors = 1;
                                            r.rank = 8;
                                        })),
                                        "rank 8"));

    // The serializer keeps the same rules.
    Graph g;
    const std::int32_t x = g.input("x", {1, 2, 3});
    const std::int32_t c = g.floats("c", torch::zeros({1, 2, 3}));
    g.op(TfliteOp::Add, {x, 7}, g.tensor("y", {1, 2, 3}));
    g.output(2);
    try {
        engine::serializeTflite(g.m);
        ADD_FAILURE() << "accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("tensor index 7 out of range"), std::string::npos) << e.what();
    }
    g.m.operators[0].inputs = {x, c};
    g.m.tensors[std::size_t(c)].shape = {1, 2, 4};
    try {
        engine::serializeTflite(g.m);
        ADD_FAILURE() << "accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("tensor 1 'c': 6 values for the shape [1, 2, 4]"), std::string::npos)
            << e.what();
    }
    // TFLite's CONV_2D kernel needs a bias (conv.cc: has_bias); the writer says so.
    Graph noBias;
    const std::int32_t image = noBias.input("x", {1, 3, 3, 2});
    noBias.op(TfliteOp::Conv2D, {image, noBias.floats("w", torch::zeros({4, 1, 1, 2}))},
              noBias.tensor("y", {1, 3, 3, 4}));
    noBias.output(2);
    try {
        engine::serializeTflite(noBias.m);
        ADD_FAILURE() << "accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("TFLite export: operator 0 (CONV_2D): no bias"), std::string::npos)
            << e.what();
    }
}

TEST(TfliteFile, TensorAndOperatorCountsAreBounded)
{
    const std::uint64_t tensors = engine::parse_limits::kTfliteTensors.value;
    const std::uint64_t operators = engine::parse_limits::kTfliteOperators.value;
    EXPECT_NO_THROW(
        engine::parseTflite(rawModel(raw([&](RawModel &r) { r.extraTensors = tensors - 3; })), "at the limit"));
    try {
        engine::parseTflite(rawModel(raw([&](RawModel &r) { r.extraTensors = tensors - 2; })), "over");
        ADD_FAILURE() << "accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_EQ(std::string(e.what()), "over: subgraph: " + std::to_string(tensors + 1) +
                                             " tensors, over the limit tflite.tensors = " + std::to_string(tensors));
    }
    EXPECT_NO_THROW(
        engine::parseTflite(rawModel(raw([&](RawModel &r) { r.extraOperators = operators - 1; })), "at the limit"));
    try {
        engine::parseTflite(rawModel(raw([&](RawModel &r) { r.extraOperators = operators; })), "over");
        ADD_FAILURE() << "accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("over the limit tflite.operators"), std::string::npos) << e.what();
    }
}

TEST(TfliteRuntime, RefusesWhatItCannotTakeNamingTheOperatorAndTensor)
{
    auto refusalOf = [](const TfliteModel &m, const torch::Tensor &x) -> std::string {
        try {
            engine::TfliteReferenceRuntime(m).run(x);
        } catch (const engine::EngineError &e) {
            return e.what();
        }
        return "(accepted)";
    };
    {
        Graph g; // a declared shape that disagrees with what the operator computes
        const std::int32_t x = g.input("x", {1, 4, 4, 3}), y = g.tensor("pooled", {1, 3, 3, 3});
        auto &op = g.op(TfliteOp::MaxPool2D, {x}, y);
        op.options.filterW = op.options.filterH = 2;
        op.options.strideW = op.options.strideH = 2;
        op.origin = "/features/pool";
        g.output(y);
        EXPECT_EQ(refusalOf(g.m, torch::zeros({1, 4, 4, 3})),
                  "TFLite operator 0 (MAX_POOL_2D, from '/features/pool'), tensor 1 'pooled': computes the shape "
                  "[1, 2, 2, 3], the tensor has [1, 3, 3, 3]");
        EXPECT_NE(refusalOf(g.m, torch::zeros({1, 4, 4, 2})).find("FLOAT32 [1, 4, 4, 3] is needed"), std::string::npos);
    }
    {
        Graph g; // a convolution's input of the wrong rank
        const std::int32_t x = g.input("x", {1, 4, 3}), y = g.tensor("y", {1, 4, 3});
        g.op(TfliteOp::Conv2D, {x, g.floats("w", torch::zeros({2, 1, 1, 3}))}, y);
        g.output(y);
        EXPECT_EQ(refusalOf(g.m, torch::zeros({1, 4, 3})), "TFLite operator 0 (CONV_2D), tensor 0 'x': rank 3, not 4");
    }
    {
        Graph g; // a gather index out of range
        const std::int32_t x = g.input("x", {1, 5}), y = g.tensor("y", {1, 1});
        g.op(TfliteOp::Gather, {x, g.ints("i", {5}, {1})}, y).options.axis = 1;
        g.output(y);
        EXPECT_EQ(refusalOf(g.m, torch::zeros({1, 5})),
                  "TFLite operator 0 (GATHER), tensor 2 'i': an index out of range [0, 5)");
    }
    {
        Graph g; // padding that would make a huge value
        const std::int32_t x = g.input("x", {1, 5}), y = g.tensor("y", {1, 5});
        g.op(TfliteOp::Pad, {x, g.ints("p", {0, 0, 0, 1 << 24}, {2, 2})}, y);
        g.output(y);
        EXPECT_NE(refusalOf(g.m, torch::zeros({1, 5}))
                      .find("TFLite operator 0 (PAD), tensor 1 'y': the padded value would have over 2^24 elements"),
                  std::string::npos);
    }
    {
        Graph g; // what TFLite's kernel refuses (XNNPACK ignores it)
        const std::int32_t x = g.input("x", {1, 2}), y = g.tensor("y", {1, 4});
        g.op(TfliteOp::Concatenation, {x, x}, y).options.activation = TfliteActivation::Relu;
        g.output(y);
        EXPECT_EQ(refusalOf(g.m, torch::zeros({1, 2})),
                  "TFLite operator 0 (CONCATENATION), tensor 1 'y': a fused activation (TFLite's CONCATENATION kernel "
                  "refuses one)");
    }
    {
        // A file the parser takes (its structure is sound) and the runtime refuses.
        const TfliteModel m = engine::parseTflite(rawModel(raw([](RawModel &r) { r.extraOperators = 1; })), "twice");
        EXPECT_EQ(refusalOf(m, torch::zeros({1, 2, 3})),
                  "TFLite operator 1 (RELU), tensor 2 'y': written twice (or a constant or the input)");
    }
    {
        Graph g; // an operator reading a value no operator computed before it
        const std::int32_t x = g.input("x", {1, 5}), a = g.tensor("a", {1, 5}), y = g.tensor("y", {1, 5});
        g.op(TfliteOp::Add, {x, a}, y);
        g.op(TfliteOp::Relu, {x}, a);
        g.output(y);
        EXPECT_EQ(refusalOf(g.m, torch::zeros({1, 5})),
                  "TFLite operator 0 (ADD), tensor 1 'a': read before an operator computes it");
    }
}

TEST(TfliteLiteRt, LoadsAndRunsLathesFilesAgreeingWithTheReferenceRuntime)
{
    // Float: every operator case, then every operator in one graph.
    std::vector<Case> cases = floatCases();
    cases.push_back({"all_operators", allOperatorsModel(), torch::randn({1, 8, 8, 3}), torch::Tensor()});
    std::vector<std::pair<TfliteModel, torch::Tensor>> jobs;
    for (const Case &c : cases)
        jobs.emplace_back(c.model, c.input);
    for (bool delegates : {true, false}) {
        const std::string kernels = delegates ? "LiteRT (XNNPACK)" : "LiteRT (builtin kernels)";
        SCOPED_TRACE(kernels);
        const std::vector<torch::Tensor> liteRt = runLiteRt(jobs, delegates);
        ASSERT_EQ(liteRt.size(), cases.size());
        double worst = 0;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            SCOPED_TRACE(cases[i].name);
            const torch::Tensor reference = engine::TfliteReferenceRuntime(cases[i].model).run(cases[i].input);
            const double diff = maxAbsDiff(liteRt[i], reference);
            if (!reference.is_floating_point()) {
                EXPECT_LE(diff, 1.0); // one quantisation step
            } else if (cases[i].name == "all_operators") {
                EXPECT_LE(diff, 1.0 / 256 + 1e-6); // the graph ends in a round to int8 of scale 1/256
            } else {
                EXPECT_LE(diff, 1e-4 * (1 + reference.abs().max().item<double>()));
                worst = std::max(worst, diff);
            }
            std::cout << kernels << " vs reference, " << cases[i].name << ": max |diff| " << diff << "\n";
        }
        std::cout << kernels << " vs reference, float operator cases: worst max |diff| " << worst << "\n";
    }
}

TEST(TfliteLiteRt, Int8OperatorsAgreeWithinOneQuantisationStep)
{
    const std::vector<Case> cases = int8Cases();
    std::vector<std::pair<TfliteModel, torch::Tensor>> jobs;
    for (const Case &c : cases)
        jobs.emplace_back(c.model, c.input);
    for (bool delegates : {true, false}) {
        const std::string kernels = delegates ? "LiteRT (XNNPACK)" : "LiteRT (builtin kernels)";
        SCOPED_TRACE(kernels);
        const std::vector<torch::Tensor> liteRt = runLiteRt(jobs, delegates);
        ASSERT_EQ(liteRt.size(), cases.size());
        for (std::size_t i = 0; i < cases.size(); ++i) {
            SCOPED_TRACE(cases[i].name);
            const TfliteModel &m = cases[i].model;
            const torch::Tensor reference = engine::TfliteReferenceRuntime(m).run(cases[i].input);
            const double diff = maxAbsDiff(liteRt[i], reference);
            // In steps of the output (a float output: of the input's step).
            const double steps =
                reference.is_floating_point() ? diff / m.tensors[std::size_t(m.inputs[0])].quantization.scale[0] : diff;
            const double differing =
                (liteRt[i].to(torch::kDouble) != reference.to(torch::kDouble)).to(torch::kDouble).mean().item<double>();
            EXPECT_LE(steps, 1.0 + 1e-6);
            // (Distinct values: the case exercises the output's range, not one clamped value.)
            const std::int64_t distinct = std::get<0>(torch::_unique(reference.flatten())).numel();
            EXPECT_GT(distinct, std::min<std::int64_t>(reference.numel() / 4, 8));
            std::cout << kernels << " vs reference, " << cases[i].name << ": max " << steps << " steps, "
                      << 100 * differing << "% of " << reference.numel() << " values differ (" << distinct
                      << " distinct)\n";
        }
    }
}

// The fuzz target's seeds (tests/fuzz/corpus/tflite; tests/fuzz/make_corpus.py runs this with
// LATHE_TFLITE_SEEDS set to that folder): a few of the models above, as serializeTflite writes them.
TEST(TfliteFuzzSeeds, WrittenWhenAsked)
{
    const char *dir = std::getenv("LATHE_TFLITE_SEEDS");
    if (!dir || !*dir)
        GTEST_SKIP() << "LATHE_TFLITE_SEEDS not set";
    std::vector<std::pair<std::string, TfliteModel>> seeds{{"all_operators", allOperatorsModel()}};
    const std::set<std::string> chosen{"conv_grouped",
                                       "depthwise_same_stride2",
                                       "fully_connected_rows_no_bias",
                                       "gather_scalar",
                                       "batch_matmul_adj_y",
                                       "dequantize_float16",
                                       "int8_conv",
                                       "int8_fully_connected",
                                       "int8_SOFTMAX",
                                       "int8_to_uint8_QUANTIZE",
                                       "int8_pad_max_pool_reshape_transpose"};
    std::vector<Case> cases = floatCases();
    for (Case &c : int8Cases())
        cases.push_back(std::move(c));
    for (const Case &c : cases)
        if (chosen.count(c.name))
            seeds.emplace_back(c.name, c.model);
    ASSERT_EQ(seeds.size(), chosen.size() + 1);
    for (const auto &[name, model] : seeds) {
        const std::string bytes = engine::serializeTflite(model);
        EXPECT_LT(bytes.size(), 20000u) << name;
        writeFile(std::string(dir) + "/" + name + ".tflite", bytes);
    }
}
