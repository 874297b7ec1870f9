// A small TFLite interpreter on LibTorch ops, following TFLite's reference kernels for the
// operators Lathe writes (NHWC, TF's SAME padding). It checks exported .tflite files in-process.
// Quantised tensors are dequantised on reading; each operator computes in float32 and requantises
// its output with the output tensor's parameters (round half away from zero, as TFLite rounds),
// which is what TFLite's integer kernels compute within one quantisation step.

#include "engine/export/tflite_model.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::engine {

namespace {

// The most elements one value may have: 2^24 (64 MiB of float32; a batch-1 classifier's largest
// activation has a few million). Larger ones come from malformed files and are refused before
// they are allocated, as are operators of more than 2^32 multiply-adds (a classifier's largest
// has about 2^28).
constexpr std::int64_t kMaxValueElements = std::int64_t(1) << 24;
constexpr double kMaxMultiplyAdds = 4294967296.0;

using Shape = std::vector<std::int64_t>;

std::string shapeText(const Shape &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

Shape declaredShape(const TfliteTensor &t)
{
    return Shape(t.shape.begin(), t.shape.end());
}

// Elements of a shape, saturating at a value above every limit.
double elements(const Shape &shape)
{
    double n = 1;
    for (std::int64_t d : shape)
        n *= double(d);
    return n;
}

bool isInteger(TfliteType type)
{
    return type == TfliteType::Int8 || type == TfliteType::UInt8 || type == TfliteType::Int32 ||
           type == TfliteType::Int64;
}

// Quantisation parameters shaped to broadcast against a value of rank `rank`.
std::pair<torch::Tensor, torch::Tensor> quantParams(const TfliteQuantization &q, std::int64_t rank)
{
    torch::Tensor scale = torch::tensor(std::vector<double>(q.scale.begin(), q.scale.end()), torch::kDouble);
    torch::Tensor zp = torch::tensor(std::vector<double>(q.zeroPoint.begin(), q.zeroPoint.end()), torch::kDouble);
    if (q.scale.size() == 1)
        return {scale.reshape({}), zp.reshape({})};
    Shape shape(std::size_t(rank), 1);
    shape[std::size_t(q.dimension)] = std::int64_t(q.scale.size());
    return {scale.reshape(shape), zp.reshape(shape)};
}

std::pair<double, double> integerRange(TfliteType type)
{
    switch (type) {
    case TfliteType::Int8:
        return {-128, 127};
    case TfliteType::UInt8:
        return {0, 255};
    case TfliteType::Int32:
        return {-2147483648.0, 2147483647.0};
    default:
        return {-9223372036854775808.0, 9223372036854775807.0};
    }
}

// TF's output size and padding along one spatial axis: SAME pads max((out - 1) * stride +
// effective kernel - in, 0) in total, the smaller half before.
struct Axis
{
    std::int64_t out = 0, before = 0, after = 0;
};

Axis spatial(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t dilation, bool same)
{
    const std::int64_t effective = (kernel - 1) * dilation + 1;
    Axis a;
    if (same) {
        a.out = (in + stride - 1) / stride;
        const std::int64_t total = std::max<std::int64_t>((a.out - 1) * stride + effective - in, 0);
        a.before = total / 2;
        a.after = total - a.before;
    } else {
        a.out = in >= effective ? (in - effective) / stride + 1 : 0;
    }
    return a;
}

torch::Tensor toNchw(const torch::Tensor &x)
{
    return x.permute({0, 3, 1, 2});
}

torch::Tensor toNhwc(const torch::Tensor &x)
{
    return x.permute({0, 2, 3, 1}).contiguous();
}

// numpy broadcasting of two shapes; false when they do not broadcast.
bool broadcastShape(const Shape &a, const Shape &b, Shape &out)
{
    const std::size_t rank = std::max(a.size(), b.size());
    out.assign(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            return false;
        out[i] = da == 1 ? db : da;
    }
    return true;
}

} // namespace

// f = scale * (q - zero_point) (per channel along the quantised dimension); float16 read as float;
// integers without parameters as they are.
torch::Tensor tfliteDequantize(const torch::Tensor &stored, const TfliteTensor &spec)
{
    if (stored.is_floating_point())
        return stored.to(torch::kFloat).contiguous();
    if (spec.quantization.empty())
        return stored.to(torch::kFloat);
    const auto [scale, zp] = quantParams(spec.quantization, stored.dim());
    return ((stored.to(torch::kDouble) - zp) * scale).to(torch::kFloat);
}

struct TfliteReferenceRuntime::Impl
{
    TfliteModel model;
    std::vector<torch::Tensor> constants; // float (dequantised) value of each constant tensor
    std::vector<std::int32_t> lastUse;    // the last operator that reads each tensor
    std::int32_t input = -1;

    // One operator's evaluation: its inputs as float, its output shape and the errors that name it.
    struct Op
    {
        const Impl &impl;
        const TfliteOperator &op;
        std::size_t index;
        const std::vector<torch::Tensor> &values;

        // "TFLite operator 3 (CONV_2D, from 'node'), tensor 7 'name'": the tensor at fault, or the output.
        std::string where(std::int32_t tensor = -1) const
        {
            if (tensor < 0 && !op.outputs.empty())
                tensor = op.outputs[0];
            std::string s = "TFLite operator " + std::to_string(index) + " (" + tfliteOpName(op.op);
            if (!op.origin.empty())
                s += ", from '" + op.origin + "'";
            s += ")";
            if (tensor >= 0 && std::size_t(tensor) < impl.model.tensors.size())
                s += ", tensor " + std::to_string(tensor) + " '" + impl.model.tensors[std::size_t(tensor)].name + "'";
            return s;
        }
        [[noreturn]] void fail(const std::string &reason, std::int32_t tensor = -1) const
        {
            throw EngineError(where(tensor) + ": " + reason);
        }
        std::int32_t output() const { return op.outputs[0]; }
        bool has(std::size_t i) const { return i < op.inputs.size() && op.inputs[i] >= 0; }
        std::int32_t tensorOf(std::size_t i) const
        {
            if (!has(i))
                fail("input " + std::to_string(i) + " is missing");
            return op.inputs[i];
        }
        // Input i as float32 (dequantised).
        const torch::Tensor &in(std::size_t i) const { return values[std::size_t(tensorOf(i))]; }
        torch::Tensor in(std::size_t i, std::int64_t rank) const
        {
            const torch::Tensor &x = in(i);
            if (x.dim() != rank)
                fail("rank " + std::to_string(x.dim()) + ", not " + std::to_string(rank), tensorOf(i));
            return x;
        }
        // Input i's integer values (shapes, axes, permutations, paddings, indices).
        torch::Tensor ints(std::size_t i) const
        {
            const std::int32_t t = tensorOf(i);
            const TfliteTensor &spec = impl.model.tensors[std::size_t(t)];
            if ((spec.type != TfliteType::Int32 && spec.type != TfliteType::Int64) || !spec.quantization.empty())
                fail("an INT32 or INT64 tensor without quantisation is needed, not " + tfliteTypeName(spec.type), t);
            if (spec.isConstant())
                return spec.data.to(torch::kLong);
            return values[std::size_t(t)].round().to(torch::kLong);
        }
        std::vector<std::int64_t> intList(std::size_t i) const
        {
            const torch::Tensor v = ints(i).contiguous().view({-1});
            return std::vector<std::int64_t>(v.data_ptr<std::int64_t>(), v.data_ptr<std::int64_t>() + v.numel());
        }
        std::int64_t axis(std::int64_t axis, std::int64_t rank, std::int32_t tensor) const
        {
            if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1))
                fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank), tensor);
            return axis < 0 ? axis + rank : axis;
        }
        // The output's shape as the operator computes it must be the tensor's; checked before
        // computing where an operator's output can be larger than its inputs.
        void expectShape(const Shape &shape) const
        {
            const Shape declared = declaredShape(impl.model.tensors[std::size_t(output())]);
            if (shape != declared)
                fail("computes the shape " + shapeText(shape) + ", the tensor has " + shapeText(declared), output());
        }
        void checkWork(double multiplyAdds) const
        {
            if (multiplyAdds > kMaxMultiplyAdds)
                fail("over 2^32 multiply-adds (" + std::to_string(multiplyAdds) + ")", output());
        }
        void checkElements(double count, const std::string &what) const
        {
            if (count > double(kMaxValueElements))
                fail(what + " would have over 2^24 elements", output());
        }
        const TfliteOptions &options() const { return op.options; }
    };

    torch::Tensor evaluate(const Op &c) const;
    torch::Tensor convolution(const Op &c, bool depthwise) const;
    torch::Tensor pool(const Op &c, bool max) const;
};

namespace {

torch::Tensor activate(const torch::Tensor &y, TfliteActivation activation)
{
    switch (activation) {
    case TfliteActivation::Relu:
        return torch::relu(y);
    case TfliteActivation::Relu6:
        return y.clamp(0, 6);
    default:
        return y;
    }
}

bool hasFusedActivation(TfliteOp op)
{
    switch (op) {
    case TfliteOp::Add:
    case TfliteOp::Sub:
    case TfliteOp::Mul:
    case TfliteOp::Div:
    case TfliteOp::Conv2D:
    case TfliteOp::DepthwiseConv2D:
    case TfliteOp::FullyConnected:
    case TfliteOp::AveragePool2D:
    case TfliteOp::MaxPool2D:
        return true;
    default:
        return false;
    }
}

} // namespace

torch::Tensor TfliteReferenceRuntime::Impl::convolution(const Op &c, bool depthwise) const
{
    const TfliteOptions &o = c.options();
    const torch::Tensor x = c.in(0, 4), w = c.in(1, 4);
    if (o.strideW < 1 || o.strideH < 1 || o.dilationW < 1 || o.dilationH < 1)
        c.fail("strides and dilations must be at least 1");
    const std::int64_t n = x.size(0), h = x.size(1), wd = x.size(2), ch = x.size(3);
    const std::int64_t kh = w.size(1), kw = w.size(2);
    std::int64_t outCh = w.size(0), groups = 1, perGroup = w.size(3);
    if (depthwise) {
        if (w.size(0) != 1 || ch == 0 || w.size(3) % ch != 0)
            c.fail("a depthwise filter [1, KH, KW, C * multiplier] for " + std::to_string(ch) + " channels is needed",
                   c.tensorOf(1));
        outCh = w.size(3);
        groups = ch;
        perGroup = 1;
    } else {
        if (perGroup == 0 || ch % perGroup != 0 || outCh % (ch / perGroup) != 0)
            c.fail("filter of " + std::to_string(perGroup) + " input channels for an input of " + std::to_string(ch),
                   c.tensorOf(1));
        groups = ch / perGroup;
    }
    torch::Tensor bias;
    if (c.has(2)) {
        bias = c.in(2);
        if (bias.numel() != outCh)
            c.fail(std::to_string(bias.numel()) + " biases for " + std::to_string(outCh) + " output channels",
                   c.tensorOf(2));
        bias = bias.reshape({outCh});
    }
    const Axis ay = spatial(h, kh, o.strideH, o.dilationH, o.padSame),
               ax = spatial(wd, kw, o.strideW, o.dilationW, o.padSame);
    if (ay.out < 1 || ax.out < 1)
        c.fail("the filter is larger than the input " + shapeText(x.sizes().vec()));
    c.expectShape({n, ay.out, ax.out, outCh});
    c.checkElements(double(n) * double(h + ay.before + ay.after) * double(wd + ax.before + ax.after) * double(ch),
                    "the padded input");
    c.checkWork(double(n) * double(ay.out) * double(ax.out) * double(outCh) * double(kh) * double(kw) *
                double(perGroup));
    const torch::Tensor padded = torch::constant_pad_nd(toNchw(x), {ax.before, ax.after, ay.before, ay.after}, 0);
    const torch::Tensor weight = depthwise ? w.permute({3, 0, 1, 2}) : w.permute({0, 3, 1, 2});
    const std::vector<std::int64_t> stride{o.strideH, o.strideW}, noPadding{0, 0}, dilation{o.dilationH, o.dilationW};
    return toNhwc(torch::conv2d(padded, weight.contiguous(), bias, stride, noPadding, dilation, groups));
}

torch::Tensor TfliteReferenceRuntime::Impl::pool(const Op &c, bool max) const
{
    const TfliteOptions &o = c.options();
    const torch::Tensor x = c.in(0, 4);
    if (o.strideW < 1 || o.strideH < 1 || o.filterW < 1 || o.filterH < 1)
        c.fail("strides and filter sizes must be at least 1");
    const Axis ay = spatial(x.size(1), o.filterH, o.strideH, 1, o.padSame),
               ax = spatial(x.size(2), o.filterW, o.strideW, 1, o.padSame);
    if (ay.out < 1 || ax.out < 1)
        c.fail("the filter is larger than the input " + shapeText(x.sizes().vec()));
    c.checkElements(double(x.size(0)) * double(x.size(1) + ay.before + ay.after) *
                        double(x.size(2) + ax.before + ax.after) * double(x.size(3)),
                    "the padded input");
    c.checkWork(double(x.numel()) * double(o.filterH) * double(o.filterW));
    const std::vector<std::int64_t> pads{ax.before, ax.after, ay.before, ay.after};
    const torch::Tensor xc = toNchw(x);
    if (max) {
        const torch::Tensor padded = torch::constant_pad_nd(xc, pads, -std::numeric_limits<double>::infinity());
        return toNhwc(torch::max_pool2d(padded, {o.filterH, o.filterW}, {o.strideH, o.strideW}));
    }
    // TFLite averages over the window's elements inside the input only.
    const torch::Tensor sum =
        torch::avg_pool2d(torch::constant_pad_nd(xc, pads, 0), {o.filterH, o.filterW}, {o.strideH, o.strideW});
    const torch::Tensor ones = torch::ones({1, 1, x.size(1), x.size(2)}, torch::kFloat);
    const torch::Tensor count =
        torch::avg_pool2d(torch::constant_pad_nd(ones, pads, 0), {o.filterH, o.filterW}, {o.strideH, o.strideW});
    return toNhwc(sum / count);
}

torch::Tensor TfliteReferenceRuntime::Impl::evaluate(const Op &c) const
{
    const TfliteOptions &o = c.options();
    switch (c.op.op) {
    case TfliteOp::Conv2D:
        return convolution(c, false);
    case TfliteOp::DepthwiseConv2D:
        return convolution(c, true);
    case TfliteOp::FullyConnected: {
        const torch::Tensor &x = c.in(0);
        const torch::Tensor w = c.in(1, 2);
        const std::int64_t outCh = w.size(0), inCh = w.size(1);
        if (inCh == 0 || x.numel() % inCh != 0 || (o.keepDims && (x.dim() == 0 || x.size(-1) != inCh)))
            c.fail("an input of " + shapeText(x.sizes().vec()) + " for weights " + shapeText(w.sizes().vec()),
                   c.tensorOf(0));
        const std::int64_t rows = x.numel() / inCh;
        Shape shape{rows, outCh};
        if (o.keepDims) {
            shape = x.sizes().vec();
            shape.back() = outCh;
        }
        c.expectShape(shape);
        c.checkWork(double(rows) * double(outCh) * double(inCh));
        torch::Tensor y = torch::matmul(x.reshape({rows, inCh}), w.t());
        if (c.has(2)) {
            const torch::Tensor &b = c.in(2);
            if (b.numel() != outCh)
                c.fail(std::to_string(b.numel()) + " biases for " + std::to_string(outCh) + " outputs", c.tensorOf(2));
            y = y + b.reshape({outCh});
        }
        return y.reshape(shape);
    }
    case TfliteOp::Add:
    case TfliteOp::Sub:
    case TfliteOp::Mul:
    case TfliteOp::Div: {
        const torch::Tensor &a = c.in(0), &b = c.in(1);
        Shape shape;
        if (!broadcastShape(a.sizes().vec(), b.sizes().vec(), shape))
            c.fail("shapes " + shapeText(a.sizes().vec()) + " and " + shapeText(b.sizes().vec()) + " do not broadcast");
        c.expectShape(shape);
        switch (c.op.op) {
        case TfliteOp::Add:
            return a + b;
        case TfliteOp::Sub:
            return a - b;
        case TfliteOp::Mul:
            return a * b;
        default:
            return a / b;
        }
    }
    case TfliteOp::Mean: {
        const torch::Tensor &x = c.in(0);
        std::vector<std::int64_t> axes;
        for (std::int64_t a : c.intList(1)) {
            const std::int64_t axis = c.axis(a, x.dim(), c.tensorOf(1));
            if (std::find(axes.begin(), axes.end(), axis) == axes.end())
                axes.push_back(axis);
        }
        if (axes.empty()) // torch reduces every axis for an empty list; TFLite none
            return x.clone();
        return x.to(torch::kDouble).mean(axes, o.keepDims).to(torch::kFloat);
    }
    case TfliteOp::MaxPool2D:
        return pool(c, true);
    case TfliteOp::AveragePool2D:
        return pool(c, false);
    case TfliteOp::Pad:
    case TfliteOp::PadV2: {
        const torch::Tensor &x = c.in(0);
        const std::vector<std::int64_t> pads = c.intList(1);
        if (std::int64_t(pads.size()) != 2 * x.dim())
            c.fail(std::to_string(pads.size()) + " paddings for rank " + std::to_string(x.dim()) + " (rank x 2 needed)",
                   c.tensorOf(1));
        Shape shape = x.sizes().vec();
        std::vector<std::int64_t> torchPads; // last dimension first
        for (std::int64_t d = x.dim() - 1; d >= 0; --d) {
            const std::int64_t before = pads[std::size_t(2 * d)], after = pads[std::size_t(2 * d + 1)];
            if (before < 0 || after < 0 || before > kMaxValueElements || after > kMaxValueElements)
                c.fail("padding " + std::to_string(before) + ", " + std::to_string(after) + " of dimension " +
                           std::to_string(d) + " (0 up to 2^24 is taken)",
                       c.tensorOf(1));
            shape[std::size_t(d)] += before + after;
            torchPads.push_back(before);
            torchPads.push_back(after);
        }
        c.checkElements(elements(shape), "the padded value");
        c.expectShape(shape);
        double value = 0;
        if (c.op.op == TfliteOp::PadV2 && c.has(2)) {
            const torch::Tensor &v = c.in(2);
            if (v.numel() != 1)
                c.fail("the constant value must be one value", c.tensorOf(2));
            value = v.reshape({}).item<double>();
        }
        return torch::constant_pad_nd(x, torchPads, value);
    }
    case TfliteOp::Reshape: {
        const torch::Tensor &x = c.in(0);
        std::vector<std::int64_t> shape;
        if (c.has(1))
            shape = c.intList(1);
        else if (!o.newShape.empty())
            shape.assign(o.newShape.begin(), o.newShape.end());
        else
            shape = declaredShape(model.tensors[std::size_t(c.output())]);
        std::int64_t known = 1, unknown = -1;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            if (shape[i] == -1 && unknown < 0) {
                unknown = std::int64_t(i);
            } else if (shape[i] < 0 || shape[i] > kMaxValueElements) {
                c.fail("new shape " + shapeText(shape) + " has a dimension out of range");
            } else {
                known *= shape[i];
                if (known > kMaxValueElements)
                    c.fail("new shape " + shapeText(shape) + " has over 2^24 elements");
            }
        }
        if (unknown >= 0) {
            if (known == 0 || x.numel() % known != 0)
                c.fail("new shape " + shapeText(shape) + " does not fit " + std::to_string(x.numel()) + " elements");
            shape[std::size_t(unknown)] = x.numel() / known;
        } else if (known != x.numel()) {
            c.fail("new shape " + shapeText(shape) + " does not fit " + std::to_string(x.numel()) + " elements");
        }
        return x.reshape(shape);
    }
    case TfliteOp::Transpose: {
        const torch::Tensor &x = c.in(0);
        std::vector<std::int64_t> perm = c.intList(1);
        std::vector<bool> seen(std::size_t(x.dim()), false);
        if (std::int64_t(perm.size()) != x.dim())
            c.fail("a permutation of " + std::to_string(perm.size()) + " for rank " + std::to_string(x.dim()),
                   c.tensorOf(1));
        for (auto &p : perm) {
            p = c.axis(p, x.dim(), c.tensorOf(1));
            if (seen[std::size_t(p)])
                c.fail("not a permutation", c.tensorOf(1));
            seen[std::size_t(p)] = true;
        }
        return x.permute(perm).contiguous();
    }
    case TfliteOp::Softmax: {
        const torch::Tensor &x = c.in(0);
        if (x.dim() < 1)
            c.fail("a scalar input", c.tensorOf(0));
        return torch::softmax(x * o.beta, -1);
    }
    case TfliteOp::Logistic:
        return torch::sigmoid(c.in(0));
    case TfliteOp::Relu:
        return torch::relu(c.in(0));
    case TfliteOp::Relu6:
        return c.in(0).clamp(0, 6);
    case TfliteOp::HardSwish: {
        const torch::Tensor &x = c.in(0);
        return x * (x + 3).clamp(0, 6) / 6;
    }
    case TfliteOp::Gelu: {
        const torch::Tensor &x = c.in(0);
        if (o.approximate)
            return 0.5 * x * (1 + torch::tanh(0.7978845608028654 /* sqrt(2 / pi) */ * (x + 0.044715 * x * x * x)));
        return 0.5 * x * (1 + torch::erf(x * 0.7071067811865476 /* 1 / sqrt(2) */));
    }
    case TfliteOp::Sqrt:
        return torch::sqrt(c.in(0));
    case TfliteOp::Rsqrt:
        return torch::rsqrt(c.in(0));
    case TfliteOp::BatchMatMul: {
        torch::Tensor a = c.in(0), b = c.in(1);
        if (a.dim() < 2 || b.dim() < 2)
            c.fail("both inputs need rank 2 or more");
        if (o.adjX)
            a = a.transpose(-1, -2);
        if (o.adjY)
            b = b.transpose(-1, -2);
        if (a.size(-1) != b.size(-2))
            c.fail("inner dimensions " + std::to_string(a.size(-1)) + " and " + std::to_string(b.size(-2)) + " differ");
        Shape shape;
        const Shape batchA(a.sizes().begin(), a.sizes().end() - 2), batchB(b.sizes().begin(), b.sizes().end() - 2);
        if (!broadcastShape(batchA, batchB, shape))
            c.fail("batch dimensions " + shapeText(batchA) + " and " + shapeText(batchB) + " do not broadcast");
        shape.push_back(a.size(-2));
        shape.push_back(b.size(-1));
        c.expectShape(shape);
        c.checkWork(elements(shape) * double(a.size(-1)));
        return torch::matmul(a, b);
    }
    case TfliteOp::Concatenation: {
        if (o.activation != TfliteActivation::None)
            c.fail("a fused activation (TFLite's CONCATENATION kernel refuses one)");
        std::vector<torch::Tensor> parts;
        for (std::size_t i = 0; i < c.op.inputs.size(); ++i)
            parts.push_back(c.in(i));
        if (parts.empty())
            c.fail("no inputs");
        const std::int64_t rank = parts[0].dim(), axis = c.axis(o.axis, rank, c.tensorOf(0));
        Shape shape = parts[0].sizes().vec();
        for (std::size_t i = 1; i < parts.size(); ++i) {
            Shape other = parts[i].sizes().vec();
            if (std::int64_t(other.size()) != rank)
                c.fail("inputs of different ranks", c.tensorOf(i));
            shape[std::size_t(axis)] += other[std::size_t(axis)];
            other[std::size_t(axis)] = shape[std::size_t(axis)];
            if (other != shape)
                c.fail("inputs differ outside the axis", c.tensorOf(i));
        }
        c.expectShape(shape);
        return torch::cat(parts, axis);
    }
    case TfliteOp::Gather: {
        const torch::Tensor &x = c.in(0);
        const torch::Tensor indices = c.ints(1);
        const std::int64_t axis = c.axis(o.axis, x.dim(), c.tensorOf(0));
        if (indices.numel() > 0 &&
            (indices.min().item<std::int64_t>() < 0 || indices.max().item<std::int64_t>() >= x.size(axis)))
            c.fail("an index out of range [0, " + std::to_string(x.size(axis)) + ")", c.tensorOf(1));
        Shape shape(x.sizes().begin(), x.sizes().begin() + axis);
        for (std::int64_t d : indices.sizes())
            shape.push_back(d);
        for (std::int64_t i = axis + 1; i < x.dim(); ++i)
            shape.push_back(x.size(i));
        c.checkElements(elements(shape), "the gathered value");
        c.expectShape(shape);
        return x.index_select(axis, indices.reshape({-1})).reshape(shape);
    }
    case TfliteOp::Quantize:
    case TfliteOp::Dequantize:
        // The input is read dequantised and the output stored in its tensor's type and parameters.
        return c.in(0);
    }
    c.fail("not an operator the reference runtime implements");
}

TfliteReferenceRuntime::TfliteReferenceRuntime(const TfliteModel &model)
    : m_impl(std::make_unique<Impl>())
{
    const std::string what = "TFLite model";
    checkTfliteModel(model, what);
    Impl &impl = *m_impl;
    impl.model = model;
    const std::size_t count = model.tensors.size();
    if (model.inputs.size() != 1)
        throw EngineError(what + ": " + std::to_string(model.inputs.size()) + " inputs; the runtime takes one");
    impl.input = model.inputs[0];
    impl.constants.resize(count);
    std::vector<bool> available(count, false);
    for (std::size_t i = 0; i < count; ++i) {
        const TfliteTensor &t = model.tensors[i];
        const std::string where = what + ": tensor " + std::to_string(i) + " '" + t.name + "'";
        if (t.isConstant()) {
            impl.constants[i] = tfliteDequantize(t.data, t);
            available[i] = true;
            continue;
        }
        if (t.type == TfliteType::Float16)
            throw EngineError(where + ": a FLOAT16 value that is no constant (the runtime computes in FLOAT32)");
        if (elements(declaredShape(t)) > double(kMaxValueElements))
            throw EngineError(where + ": shape " + shapeText(declaredShape(t)) + " has over 2^24 elements");
        if (isInteger(t.type) && !t.quantization.empty())
            for (float s : t.quantization.scale)
                if (!(s > 0) || !std::isfinite(s))
                    throw EngineError(where + ": quantisation scale " + std::to_string(s) +
                                      " (a positive number is needed)");
    }
    if (model.tensors[std::size_t(impl.input)].isConstant())
        throw EngineError(what + ": the input is a constant");
    available[std::size_t(impl.input)] = true;
    impl.lastUse.assign(count, -1);
    for (std::size_t j = 0; j < model.operators.size(); ++j) {
        const TfliteOperator &op = model.operators[j];
        const Impl::Op c{impl, op, j, impl.constants};
        for (std::int32_t i : op.inputs)
            if (i >= 0) {
                if (!available[std::size_t(i)])
                    throw EngineError(c.where(i) + ": read before an operator computes it");
                impl.lastUse[std::size_t(i)] = std::int32_t(j);
            }
        if (op.outputs.size() != 1)
            throw EngineError(c.where() + ": " + std::to_string(op.outputs.size()) + " outputs (one is taken)");
        if (available[std::size_t(op.outputs[0])])
            throw EngineError(c.where(op.outputs[0]) + ": written twice (or a constant or the input)");
        available[std::size_t(op.outputs[0])] = true;
    }
    for (std::int32_t i : model.outputs)
        if (!available[std::size_t(i)])
            throw EngineError(what + ": the output tensor " + std::to_string(i) + " is never computed");
}

TfliteReferenceRuntime::~TfliteReferenceRuntime() = default;

torch::Tensor
TfliteReferenceRuntime::run(const torch::Tensor &input,
                            const std::function<void(std::int32_t, const torch::Tensor &)> &observer) const
{
    torch::NoGradGuard noGrad;
    const Impl &impl = *m_impl;
    const TfliteModel &model = impl.model;
    const TfliteTensor &inputSpec = model.tensors[std::size_t(impl.input)];
    if (input.scalar_type() != tfliteStorageType(inputSpec.type) || input.sizes().vec() != declaredShape(inputSpec))
        throw EngineError("TFLite model input '" + inputSpec.name + "': " + tfliteTypeName(inputSpec.type) + " " +
                          shapeText(declaredShape(inputSpec)) + " is needed, not " +
                          std::string(c10::toString(input.scalar_type())) + " " + shapeText(input.sizes().vec()));
    std::vector<torch::Tensor> values = impl.constants;
    std::vector<torch::Tensor> stored(model.tensors.size());
    values[std::size_t(impl.input)] = tfliteDequantize(input.cpu(), inputSpec);
    stored[std::size_t(impl.input)] = input;
    auto isOutput = [&](std::int32_t t) {
        return std::find(model.outputs.begin(), model.outputs.end(), t) != model.outputs.end();
    };
    for (std::size_t j = 0; j < model.operators.size(); ++j) {
        const TfliteOperator &op = model.operators[j];
        const Impl::Op c{impl, op, j, values};
        const std::int32_t out = op.outputs[0];
        const TfliteTensor &spec = model.tensors[std::size_t(out)];
        torch::Tensor result, value;
        try {
            result = impl.evaluate(c).to(torch::kFloat);
            if (hasFusedActivation(op.op))
                result = activate(result, op.options.activation);
            c.expectShape(result.sizes().vec());
            if (isInteger(spec.type)) {
                // Requantised: round half away from zero (TfLiteRound), clamped to the type's range.
                TfliteQuantization q = spec.quantization;
                if (q.empty())
                    q = TfliteQuantization{{1.0f}, {0}, 0};
                const auto [scale, zp] = quantParams(q, result.dim());
                const auto [lo, hi] = integerRange(spec.type);
                const torch::Tensor x = torch::nan_to_num(result.to(torch::kDouble) / scale, 0.0);
                const torch::Tensor rounded = torch::sign(x) * torch::floor(x.abs() + 0.5);
                result = (rounded + zp).clamp(lo, hi).to(tfliteStorageType(spec.type));
                value = tfliteDequantize(result, spec);
            } else {
                result = result.contiguous();
                value = result;
            }
        } catch (const EngineError &) {
            throw;
        } catch (const c10::Error &e) {
            // LibTorch refusing the operator's inputs (shapes, types of a malformed file).
            throw EngineError(c.where(out) + ": " + e.what_without_backtrace());
        } catch (const std::exception &e) {
            // The same from a LibTorch that throws std::runtime_error (Debian's 1.13 does).
            throw EngineError(c.where(out) + ": " + e.what());
        }
        if (observer)
            observer(out, value);
        for (std::int32_t i : op.inputs)
            if (i >= 0 && impl.lastUse[std::size_t(i)] == std::int32_t(j) &&
                !model.tensors[std::size_t(i)].isConstant() && !isOutput(i))
                values[std::size_t(i)] = torch::Tensor();
        values[std::size_t(out)] = value;
        if (isOutput(out))
            stored[std::size_t(out)] = result;
    }
    const std::int32_t first = model.outputs[0];
    if (model.tensors[std::size_t(first)].isConstant())
        return model.tensors[std::size_t(first)].data;
    return stored[std::size_t(first)];
}

torch::Tensor TfliteReferenceRuntime::runBatch(const torch::Tensor &input) const
{
    if (input.dim() < 1)
        throw EngineError("TFLite model: a batch of inputs needs a batch dimension");
    std::vector<torch::Tensor> outputs;
    for (std::int64_t i = 0; i < input.size(0); ++i)
        outputs.push_back(run(input.slice(0, i, i + 1)));
    if (outputs.empty())
        throw EngineError("TFLite model: an empty batch");
    return outputs[0].dim() > 0 ? torch::cat(outputs, 0) : torch::stack(outputs, 0);
}

} // namespace lathe::engine
