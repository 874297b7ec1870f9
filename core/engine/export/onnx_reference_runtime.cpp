// A small ONNX interpreter on LibTorch ops, following the ONNX operator definitions for the ops
// Lathe writes. It checks exported files in-process (OpenCV DNN 4.6 cannot read QDQ graphs) and
// calibrates quantisation. float16 values are stored as float16 and computed in float32.

#include "engine/export/onnx_export.h"
#include "engine/export/onnx_graph.h"

#include "engine/base/engine_error.h"

#include <torch/nn/functional/padding.h>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace lathe::engine {

struct OnnxReferenceRuntime::Impl
{
    onnx::GraphProto graph;
    std::unordered_map<std::string, torch::Tensor> initializers;
    std::string input;
    std::string output;
};

namespace {

using Values = std::unordered_map<std::string, torch::Tensor>;

// The most elements a value the runtime makes from a shape it is given may have (Expand's
// target, a convolution's padded input): 2^28 (1 GiB of float32). Larger ones come from
// malformed files, not from the classifiers Lathe writes; they are refused before allocating.
constexpr std::int64_t kMaxValueElements = std::int64_t(1) << 28;
// Expand's target, tighter: Lathe's graphs expand a class token over the batch ([N, 1, width]);
// a 3 KB file expanding to 2^28 elements made every later node allocate as much (3.5 GB,
// found by fuzz_onnx). 2^24 elements is 64 MiB of float32.
constexpr std::int64_t kMaxExpandElements = std::int64_t(1) << 24;

std::string where(const onnx::NodeProto &node)
{
    return "ONNX node '" + node.name() + "' (" + node.op_type() + ")";
}

const torch::Tensor &get(const Values &values, const onnx::NodeProto &node, int i)
{
    if (i >= node.input_size() || node.input(i).empty())
        throw EngineError(where(node) + ": input " + std::to_string(i) + " is missing");
    auto it = values.find(node.input(i));
    if (it == values.end())
        throw EngineError(where(node) + ": input '" + node.input(i) + "' is not computed before it");
    return it->second;
}

bool hasInput(const onnx::NodeProto &node, int i) { return i < node.input_size() && !node.input(i).empty(); }

std::vector<std::int64_t> toInts(const torch::Tensor &t)
{
    torch::Tensor l = t.to(torch::kLong).contiguous().view({-1});
    return std::vector<std::int64_t>(l.data_ptr<std::int64_t>(), l.data_ptr<std::int64_t>() + l.numel());
}

std::int64_t normAxis(std::int64_t axis, std::int64_t rank, const onnx::NodeProto &node)
{
    if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1))
        throw EngineError(where(node) + ": axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

// Per-axis parameters of QuantizeLinear / DequantizeLinear shaped to broadcast along axis.
torch::Tensor alongAxis(const torch::Tensor &p, const torch::Tensor &x, std::int64_t axis)
{
    if (p.dim() == 0)
        return p;
    std::vector<std::int64_t> shape(std::size_t(x.dim()), 1);
    shape[std::size_t(axis)] = p.numel();
    return p.reshape(shape);
}

std::pair<double, double> intRange(torch::ScalarType type)
{
    switch (type) {
    case torch::kByte:
        return {0, 255};
    case torch::kChar:
        return {-128, 127};
    case torch::kInt:
        return {-2147483648.0, 2147483647.0};
    default:
        break;
    }
    throw EngineError("QuantizeLinear: unsupported zero-point type");
}

torch::Tensor runNode(const onnx::NodeProto &node, const Values &v)
{
    const std::string &op = node.op_type();
    auto in = [&](int i) -> torch::Tensor {
        const torch::Tensor &t = get(v, node, i);
        return t.scalar_type() == torch::kHalf ? t.to(torch::kFloat) : t;
    };
    if (op == "QuantizeLinear") {
        const torch::Tensor x = in(0).to(torch::kFloat);
        const torch::Tensor rawScale = in(1).to(torch::kFloat);
        // The axis only matters (and is only checked) for per-axis parameters.
        const std::int64_t axis = rawScale.dim() == 0 ? 0 : normAxis(intAttribute(node, "axis", 1), x.dim(), node);
        const torch::Tensor scale = alongAxis(rawScale, x, axis);
        const torch::Tensor zp = hasInput(node, 2) ? get(v, node, 2) : torch::zeros({}, torch::kByte);
        const auto [lo, hi] = intRange(zp.scalar_type());
        torch::Tensor q = torch::round(x / scale) + alongAxis(zp.to(torch::kFloat), x, axis);
        return q.clamp(lo, hi).to(zp.scalar_type());
    }
    if (op == "DequantizeLinear") {
        const torch::Tensor &x = get(v, node, 0);
        const torch::Tensor rawScale = in(1).to(torch::kFloat);
        const std::int64_t axis = rawScale.dim() == 0 ? 0 : normAxis(intAttribute(node, "axis", 1), x.dim(), node);
        const torch::Tensor scale = alongAxis(rawScale, x, axis);
        torch::Tensor zp = hasInput(node, 2) ? alongAxis(get(v, node, 2).to(torch::kDouble), x, axis) : torch::zeros({}, torch::kDouble);
        return ((x.to(torch::kDouble) - zp).to(torch::kFloat) * scale);
    }
    if (op == "Conv") {
        const torch::Tensor x = in(0), w = in(1);
        torch::Tensor b = hasInput(node, 2) ? in(2) : torch::Tensor();
        std::vector<std::int64_t> strides = intsAttribute(node, "strides"), pads = intsAttribute(node, "pads"),
                                  dil = intsAttribute(node, "dilations");
        if (strides.empty())
            strides = {1, 1};
        if (dil.empty())
            dil = {1, 1};
        if (pads.empty())
            pads = {0, 0, 0, 0};
        if (x.dim() != 4 || strides.size() != 2 || pads.size() != 4 || dil.size() != 2)
            throw EngineError(where(node) + ": only 2-D convolutions are supported");
        // Pads beyond the kernel only add outputs computed from padding alone; Lathe writes k / 2.
        if (w.dim() != 4 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0 || pads[0] > w.size(2) ||
            pads[2] > w.size(2) || pads[1] > w.size(3) || pads[3] > w.size(3))
            throw EngineError(where(node) + ": pads must be 0 up to the kernel's size");
        if (double(x.size(0)) * double(x.size(1)) * double(x.size(2) + pads[0] + pads[2]) *
                double(x.size(3) + pads[1] + pads[3]) > double(kMaxValueElements))
            throw EngineError(where(node) + ": the padded input would exceed " + std::to_string(kMaxValueElements) +
                              " elements");
        torch::Tensor xp = x;
        std::vector<std::int64_t> padding{pads[0], pads[1]};
        if (pads[0] != pads[2] || pads[1] != pads[3]) {
            xp = torch::constant_pad_nd(x, {pads[1], pads[3], pads[0], pads[2]}, 0);
            padding = {0, 0};
        }
        return torch::conv2d(xp, w, b, strides, padding, dil, intAttribute(node, "group", 1));
    }
    if (op == "Relu")
        return torch::relu(in(0));
    if (op == "Add")
        return in(0) + in(1);
    if (op == "Sub")
        return in(0) - in(1);
    if (op == "Mul")
        return in(0) * in(1);
    if (op == "Div")
        return in(0) / in(1);
    if (op == "Sigmoid")
        return torch::sigmoid(in(0));
    if (op == "Erf")
        return torch::erf(in(0));
    if (op == "Sqrt")
        return torch::sqrt(in(0));
    if (op == "Identity")
        return in(0);
    if (op == "HardSigmoid")
        return (in(0) * floatAttribute(node, "alpha", 0.2f) + floatAttribute(node, "beta", 0.5f)).clamp(0, 1);
    if (op == "GlobalAveragePool")
        return in(0).mean({2, 3}, true);
    if (op == "MaxPool") {
        std::vector<std::int64_t> k = intsAttribute(node, "kernel_shape"), s = intsAttribute(node, "strides"),
                                  p = intsAttribute(node, "pads");
        if (s.empty())
            s = {1, 1};
        if (p.empty())
            p = {0, 0, 0, 0};
        if (k.size() != 2 || p.size() != 4 || p[0] != p[2] || p[1] != p[3])
            throw EngineError(where(node) + ": only 2-D symmetric max pooling is supported");
        return torch::max_pool2d(in(0), k, s, {p[0], p[1]}, {1, 1}, intAttribute(node, "ceil_mode", 0) != 0);
    }
    if (op == "Flatten") {
        const torch::Tensor x = in(0);
        const std::int64_t axis = normAxis(intAttribute(node, "axis", 1), x.dim() + 1, node);
        std::int64_t outer = 1;
        for (std::int64_t i = 0; i < axis; ++i)
            outer *= x.size(i);
        return x.reshape({outer, outer == 0 ? 0 : x.numel() / std::max<std::int64_t>(outer, 1)});
    }
    if (op == "Gemm") {
        torch::Tensor a = in(0), b = in(1);
        if (intAttribute(node, "transA", 0))
            a = a.t();
        if (intAttribute(node, "transB", 0))
            b = b.t();
        torch::Tensor y = torch::matmul(a, b) * floatAttribute(node, "alpha", 1.0f);
        if (hasInput(node, 2))
            y = y + in(2) * floatAttribute(node, "beta", 1.0f);
        return y;
    }
    if (op == "MatMul")
        return torch::matmul(in(0), in(1));
    if (op == "Softmax") {
        const torch::Tensor x = in(0);
        return torch::softmax(x, normAxis(intAttribute(node, "axis", -1), x.dim(), node));
    }
    if (op == "ReduceMean") {
        const torch::Tensor x = in(0);
        std::vector<std::int64_t> axes = intsAttribute(node, "axes");
        if (axes.empty())
            for (std::int64_t i = 0; i < x.dim(); ++i)
                axes.push_back(i);
        for (auto &a : axes)
            a = normAxis(a, x.dim(), node);
        return x.mean(axes, intAttribute(node, "keepdims", 1) != 0);
    }
    if (op == "Reshape") {
        const torch::Tensor &x = get(v, node, 0);
        std::vector<std::int64_t> shape = toInts(get(v, node, 1));
        for (std::size_t i = 0; i < shape.size(); ++i)
            if (shape[i] == 0 && !intAttribute(node, "allowzero", 0)) {
                if (std::int64_t(i) >= x.dim())
                    throw EngineError(where(node) + ": shape copies a dimension the input does not have");
                shape[i] = x.size(std::int64_t(i));
            }
        return x.reshape(shape);
    }
    if (op == "Transpose") {
        const torch::Tensor &x = get(v, node, 0);
        std::vector<std::int64_t> perm = intsAttribute(node, "perm");
        if (perm.empty())
            for (std::int64_t i = x.dim() - 1; i >= 0; --i)
                perm.push_back(i);
        return x.permute(perm).contiguous();
    }
    if (op == "Concat") {
        std::vector<torch::Tensor> parts;
        bool half = false;
        for (int i = 0; i < node.input_size(); ++i) {
            half = half || get(v, node, i).scalar_type() == torch::kHalf;
            parts.push_back(in(i));
        }
        torch::Tensor out = torch::cat(parts, normAxis(intAttribute(node, "axis", 0), parts.front().dim(), node));
        return out;
    }
    if (op == "Shape") {
        const torch::Tensor &x = get(v, node, 0);
        return torch::tensor(x.sizes().vec(), torch::kLong);
    }
    if (op == "Slice") {
        const torch::Tensor &x = get(v, node, 0);
        const std::vector<std::int64_t> starts = toInts(get(v, node, 1)), ends = toInts(get(v, node, 2));
        std::vector<std::int64_t> axes = hasInput(node, 3) ? toInts(get(v, node, 3)) : std::vector<std::int64_t>{};
        std::vector<std::int64_t> steps = hasInput(node, 4) ? toInts(get(v, node, 4)) : std::vector<std::int64_t>{};
        if (axes.empty())
            for (std::size_t i = 0; i < starts.size(); ++i)
                axes.push_back(std::int64_t(i));
        if (steps.empty())
            steps.assign(starts.size(), 1);
        if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
            throw EngineError(where(node) + ": starts, ends, axes and steps differ in length");
        torch::Tensor y = x;
        for (std::size_t i = 0; i < starts.size(); ++i) {
            if (steps[i] != 1)
                throw EngineError(where(node) + ": only step 1 is supported");
            const std::int64_t axis = normAxis(axes[i], x.dim(), node), n = x.size(axis);
            auto clampIndex = [n](std::int64_t idx) {
                if (idx < 0)
                    idx += n;
                return std::min(std::max<std::int64_t>(idx, 0), n);
            };
            const std::int64_t s = clampIndex(starts[i]), e = clampIndex(ends[i]);
            y = y.slice(axis, s, std::max(s, e));
        }
        return y;
    }
    if (op == "Gather") {
        const torch::Tensor &x = get(v, node, 0);
        const torch::Tensor idx = get(v, node, 1).to(torch::kLong);
        const std::int64_t axis = normAxis(intAttribute(node, "axis", 0), x.dim(), node);
        torch::Tensor fixed = torch::where(idx < 0, idx + x.size(axis), idx);
        if ((fixed < 0).any().item<bool>() || (fixed >= x.size(axis)).any().item<bool>())
            throw EngineError(where(node) + ": index out of range");
        torch::Tensor picked = x.index_select(axis, fixed.reshape({-1}));
        std::vector<std::int64_t> shape(x.sizes().begin(), x.sizes().begin() + axis);
        for (std::int64_t d : fixed.sizes())
            shape.push_back(d);
        for (std::int64_t i = axis + 1; i < x.dim(); ++i)
            shape.push_back(x.size(i));
        return picked.reshape(shape);
    }
    if (op == "Expand") {
        const torch::Tensor &x = get(v, node, 0);
        const std::vector<std::int64_t> shape = toInts(get(v, node, 1));
        // Bidirectional broadcast of x's shape and the given one.
        const std::size_t rank = std::max<std::size_t>(shape.size(), std::size_t(x.dim()));
        std::vector<std::int64_t> out(rank, 1);
        for (std::size_t i = 0; i < rank; ++i) {
            const std::int64_t a = i < rank - std::size_t(x.dim()) ? 1 : x.size(std::int64_t(i - (rank - std::size_t(x.dim()))));
            const std::int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
            if (a != b && a != 1 && b != 1)
                throw EngineError(where(node) + ": shapes do not broadcast");
            out[i] = a == 1 ? b : a;
        }
        std::int64_t elements = 1;
        for (std::int64_t d : out) {
            if (d < 0)
                throw EngineError(where(node) + ": negative dimension in the shape");
            if (d > 0 && elements > kMaxExpandElements / d)
                throw EngineError(where(node) + ": the expanded value would exceed " + std::to_string(kMaxExpandElements) +
                                  " elements");
            elements *= d;
        }
        return x.expand(out).contiguous();
    }
    if (op == "Cast") {
        const int to = int(intAttribute(node, "to", onnx::TensorProto::FLOAT));
        return get(v, node, 0).to(torchScalarType(to, where(node)));
    }
    throw EngineError(where(node) + ": operator not implemented by the reference runtime");
}

// Which output type a node gives under float16 emulation: float16 when a floating input is.
bool halfInputs(const onnx::NodeProto &node, const Values &v)
{
    for (int i = 0; i < node.input_size(); ++i) {
        if (node.input(i).empty())
            continue;
        auto it = v.find(node.input(i));
        if (it != v.end() && it->second.scalar_type() == torch::kHalf)
            return true;
    }
    return false;
}

// A node's output, float16 under float16 emulation when a floating input is (Cast aside).
torch::Tensor evaluate(const onnx::NodeProto &node, const Values &v)
{
    torch::Tensor out;
    try {
        out = runNode(node, v);
    } catch (const EngineError &) {
        throw;
    } catch (const c10::Error &e) {
        // LibTorch refusing the node's inputs (shapes, dtypes, attributes of a malformed file).
        throw EngineError(where(node) + ": " + e.what_without_backtrace());
    } catch (const std::exception &e) {
        // The same from a LibTorch that throws std::runtime_error (Debian's 1.13 does).
        throw EngineError(where(node) + ": " + e.what());
    }
    if (node.op_type() != "Cast" && out.is_floating_point() && halfInputs(node, v))
        out = out.to(torch::kHalf);
    return out;
}

} // namespace

OnnxReferenceRuntime::OnnxReferenceRuntime(const onnx::ModelProto &model)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->graph = model.graph();
    for (const auto &t : m_impl->graph.initializer())
        m_impl->initializers[t.name()] = tensorFromProto(t, "ONNX initializer");
    for (const auto &in : m_impl->graph.input())
        if (!m_impl->initializers.count(in.name())) {
            m_impl->input = in.name();
            break;
        }
    if (m_impl->input.empty() || m_impl->graph.output_size() < 1)
        throw EngineError("ONNX model: no graph input or output");
    m_impl->output = m_impl->graph.output(0).name();
    m_impl->graph.clear_initializer(); // the tensors live in initializers now
    // Nodes of constants only (the DequantizeLinear of every INT8 weight) are computed once here.
    onnx::GraphProto graph;
    for (const auto &node : m_impl->graph.node()) {
        const bool constant = node.input_size() > 0 && node.output_size() == 1 &&
                              std::all_of(node.input().begin(), node.input().end(), [&](const std::string &i) {
                                  return i.empty() || m_impl->initializers.count(i) != 0;
                              });
        if (constant)
            m_impl->initializers[node.output(0)] = evaluate(node, m_impl->initializers);
        else
            *graph.add_node() = node;
    }
    m_impl->graph.clear_node();
    m_impl->graph.mutable_node()->Swap(graph.mutable_node());
}

OnnxReferenceRuntime::~OnnxReferenceRuntime() = default;

torch::Tensor OnnxReferenceRuntime::run(const torch::Tensor &input,
                                        const std::function<void(const std::string &, const torch::Tensor &)> &observer) const
{
    torch::NoGradGuard noGrad;
    Values values(m_impl->initializers.begin(), m_impl->initializers.end());
    values[m_impl->input] = input;
    // Values are dropped after their last use to keep memory at what the graph needs.
    std::unordered_map<std::string, int> remainingUses;
    for (const auto &node : m_impl->graph.node())
        for (const auto &i : node.input())
            ++remainingUses[i];
    for (const auto &node : m_impl->graph.node()) {
        const torch::Tensor out = evaluate(node, values);
        if (node.output_size() != 1)
            throw EngineError(where(node) + ": nodes with several outputs are not supported");
        if (observer)
            observer(node.output(0), out);
        for (const auto &i : node.input())
            if (--remainingUses[i] == 0 && i != m_impl->output && !m_impl->initializers.count(i))
                values.erase(i);
        values[node.output(0)] = out;
    }
    auto it = values.find(m_impl->output);
    if (it == values.end())
        throw EngineError("ONNX model: the graph output '" + m_impl->output + "' is never computed");
    return it->second.to(torch::kFloat);
}

} // namespace lathe::engine
