// Lathe's FP32 ONNX graph translated into TFLite's operators (tflite_export.h).
//
// Every ONNX value gets a TFLite tensor and a permutation `perm` saying how the tensor's
// dimensions are the value's: tensor = value.permute(perm). Convolutions and pooling want NHWC
// ({0, 2, 3, 1} of NCHW); elementwise operators take whatever layout their first activation
// has (constants are permuted to match); reshapes want the value's own order unless the size-1
// dimensions make both orders the same. A TRANSPOSE is written only where a layout must change,
// and an ONNX Transpose that turns NHWC into NCHW (the preprocessing) costs nothing.

#include "engine/export/tflite_export.h"

#include "engine/base/engine_error.h"
#include "engine/export/onnx_export.h"
#include "engine/export/onnx_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

namespace lathe::engine {
namespace {

using Perm = std::vector<int>;

Perm identity(std::size_t rank)
{
    Perm p(rank);
    for (std::size_t i = 0; i < rank; ++i)
        p[i] = int(i);
    return p;
}

const Perm kNhwc{0, 2, 3, 1};

Perm inverse(const Perm &p)
{
    Perm inv(p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
        inv[std::size_t(p[i])] = int(i);
    return inv;
}

std::vector<std::int32_t> permuted(const std::vector<std::int64_t> &shape, const Perm &perm)
{
    std::vector<std::int32_t> out;
    for (int p : perm)
        out.push_back(std::int32_t(shape.at(std::size_t(p))));
    return out;
}

// True when the value and its tensor list their elements in the same order: the dimensions
// larger than 1 come in the same order in both.
bool sameElementOrder(const std::vector<std::int64_t> &shape, const Perm &perm)
{
    std::vector<int> a, b;
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] > 1)
            a.push_back(int(i));
    for (int p : perm)
        if (shape.at(std::size_t(p)) > 1)
            b.push_back(p);
    return a == b;
}

struct Value
{
    std::int32_t tensor = -1;
    Perm perm;
    std::vector<std::int64_t> shape; // the ONNX value's shape (batch 1)
};

class Translator
{
public:
    explicit Translator(const onnx::ModelProto &model)
        : m_graph(model.graph())
    {
        for (const auto &t : m_graph.initializer())
            m_constants[t.name()] = tensorFromProto(t, "initializer " + t.name());
        for (const auto &n : m_graph.node()) {
            for (const auto &in : n.input())
                m_consumers[in].push_back(&n);
            for (const auto &o : n.output())
                m_producers[o] = &n;
        }
        for (const auto &o : m_graph.output())
            m_graphOutputs.insert(o.name());
        // Operators without a translation are refused before anything runs.
        static const std::set<std::string> known{"Conv", "MaxPool", "GlobalAveragePool", "ReduceMean", "Relu", "Sigmoid",
                                                 "HardSigmoid", "Sqrt", "Div", "Add", "Sub", "Mul", "Flatten", "Reshape",
                                                 "Transpose", "Gemm", "MatMul", "Softmax", "Concat", "Gather", "Cast",
                                                 "Erf", "Shape", "Slice", "Expand"};
        for (const auto &n : m_graph.node())
            if (!known.count(n.op_type())) {
                m_node = &n;
                refuse("TFLite export has no translation for this operator");
            }
        shapesAndConstants(model);
    }

    TfliteModel translate()
    {
        const auto &input = m_graph.input(0);
        const std::vector<std::int64_t> &shape = m_shapes.at(input.name());
        TfliteTensor in;
        in.name = "input";
        const bool pixels = input.type().tensor_type().elem_type() == onnx::TensorProto::UINT8;
        if (pixels) {
            // uint8 [1, H, W, C] as it is; DEQUANTIZE (scale 1) makes the float pixels.
            in.type = TfliteType::UInt8;
            in.shape = permuted(shape, identity(4));
            in.quantization.scale = {1.0f};
            in.quantization.zeroPoint = {0};
            define(input.name(), m_model.addTensor(in), identity(4));
        } else {
            if (shape.size() != 4)
                throw EngineError("TFLite export: the graph input must be [N, C, H, W]");
            in.shape = permuted(shape, kNhwc);
            define(input.name(), m_model.addTensor(in), kNhwc);
        }
        m_model.inputs = {m_values.at(input.name()).tensor};

        for (const auto &node : m_graph.node()) {
            if (m_done.count(&node))
                continue;
            m_node = &node;
            if (m_constantNodes.count(&node))
                continue; // folded: its outputs are constants
            translateNode(node);
        }

        const std::string &outName = m_graph.output(0).name();
        if (!m_values.count(outName))
            throw EngineError("TFLite export: the graph output '" + outName + "' was never computed");
        const std::int32_t out = as(outName, identity(m_values.at(outName).shape.size()));
        m_model.tensors[std::size_t(out)].name = outName;
        m_model.outputs = {out};
        return std::move(m_model);
    }

private:
    // Every value's shape at batch 1, and the values of the nodes that depend on constants only
    // (the class token's Shape / Slice / Concat / Expand), from one run of the reference runtime.
    void shapesAndConstants(const onnx::ModelProto &model)
    {
        const auto &input = m_graph.input(0);
        std::vector<std::int64_t> dims;
        for (const auto &d : input.type().tensor_type().shape().dim())
            dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
        m_shapes[input.name()] = dims;
        for (const auto &[name, t] : m_constants)
            m_shapes[name] = t.sizes().vec();
        std::set<std::string> constantValues;
        for (const auto &[name, t] : m_constants)
            constantValues.insert(name);
        for (const auto &n : m_graph.node()) {
            bool constant = n.op_type() == "Shape";
            if (!constant) {
                constant = n.input_size() > 0;
                for (const auto &in : n.input())
                    constant = constant && constantValues.count(in);
            }
            if (constant) {
                m_constantNodes.insert(&n);
                for (const auto &o : n.output())
                    constantValues.insert(o);
            }
        }
        const bool pixels = input.type().tensor_type().elem_type() == onnx::TensorProto::UINT8;
        torch::Tensor x = torch::zeros(dims, pixels ? torch::kByte : torch::kFloat);
        OnnxReferenceRuntime runtime(model);
        runtime.run(x, [&](const std::string &name, const torch::Tensor &value) {
            m_shapes[name] = value.sizes().vec();
            if (constantValues.count(name) && !m_constants.count(name))
                m_constants[name] = value.clone();
        });
    }

    [[noreturn]] void refuse(const std::string &why) const
    {
        throw EngineError("TFLite export: " + m_node->op_type() + " node '" + m_node->name() + "' cannot be written: " + why);
    }

    bool isConstant(const std::string &name) const { return m_constants.count(name) != 0; }

    const torch::Tensor &constant(const std::string &name) const
    {
        auto it = m_constants.find(name);
        if (it == m_constants.end())
            refuse("input '" + name + "' is not a constant");
        return it->second;
    }

    void define(const std::string &name, std::int32_t tensor, Perm perm)
    {
        Value v;
        v.tensor = tensor;
        v.perm = std::move(perm);
        v.shape = m_shapes.at(name);
        m_values[name] = v;
    }

    const Value &value(const std::string &name) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
            refuse("input '" + name + "' is not computed by an operator TFLite has");
        return it->second;
    }

    // A new float32 activation tensor for the ONNX value name in layout perm.
    std::int32_t activation(const std::string &name, const Perm &perm)
    {
        TfliteTensor t;
        t.name = name;
        t.shape = permuted(m_shapes.at(name), perm);
        return m_model.addTensor(t);
    }

    std::int32_t constTensor(const std::string &name, const torch::Tensor &data)
    {
        TfliteTensor t;
        t.name = name;
        t.data = data.contiguous();
        for (std::int64_t d : data.sizes())
            t.shape.push_back(std::int32_t(d));
        if (data.scalar_type() == torch::kInt)
            t.type = TfliteType::Int32;
        else
            t.data = t.data.to(torch::kFloat);
        return m_model.addTensor(t);
    }

    std::int32_t constInt32(const std::string &name, const std::vector<std::int32_t> &values,
                            std::vector<std::int64_t> shape = {})
    {
        torch::Tensor t = torch::tensor(std::vector<std::int32_t>(values), torch::kInt);
        if (!shape.empty())
            t = t.reshape(shape);
        return constTensor(name, t);
    }

    TfliteOperator &op(TfliteOp code, std::vector<std::int32_t> inputs, std::vector<std::int32_t> outputs)
    {
        TfliteOperator &o = m_model.addOperator(code, std::move(inputs), std::move(outputs));
        o.origin = m_node ? m_node->name() : std::string();
        return o;
    }

    // The value's tensor in layout want (a TRANSPOSE when its layout differs), cached.
    std::int32_t as(const std::string &name, const Perm &want)
    {
        const Value &v = value(name);
        if (v.perm == want)
            return v.tensor;
        auto key = std::make_pair(name, want);
        auto it = m_transposed.find(key);
        if (it != m_transposed.end())
            return it->second;
        // tensor = value.permute(Q); wanted = value.permute(W) = tensor.permute(T), T = Q^-1[W].
        const Perm qInv = inverse(v.perm);
        std::vector<std::int32_t> t;
        for (int w : want)
            t.push_back(qInv[std::size_t(w)]);
        TfliteTensor out;
        out.name = name + "/transpose";
        out.shape = permuted(v.shape, want);
        const std::int32_t outIndex = m_model.addTensor(out);
        op(TfliteOp::Transpose, {v.tensor, constInt32(name + "/perm", t)}, {outIndex});
        m_transposed[key] = outIndex;
        return outIndex;
    }

    // A constant operand of a broadcasting operator whose output has rank `rank` in layout perm:
    // leading 1s up to the rank (numpy broadcasting), then the layout.
    std::int32_t constOperand(const std::string &name, std::size_t rank, const Perm &perm)
    {
        torch::Tensor c = constant(name).to(torch::kFloat);
        std::vector<std::int64_t> dims(rank - std::min<std::size_t>(rank, std::size_t(c.dim())), 1);
        for (std::int64_t d : c.sizes())
            dims.push_back(d);
        if (dims.size() != rank)
            refuse("constant '" + name + "' has more dimensions than the result");
        c = c.reshape(dims);
        std::vector<std::int64_t> p(perm.begin(), perm.end());
        return constTensor(name, c.permute(p).contiguous());
    }

    // The only consumer of value (nullptr when none, several, or it is a graph output).
    const onnx::NodeProto *soleConsumer(const std::string &name) const
    {
        if (m_graphOutputs.count(name))
            return nullptr;
        auto it = m_consumers.find(name);
        if (it == m_consumers.end() || it->second.size() != 1)
            return nullptr;
        return it->second[0];
    }

    // The operator writes a new tensor for output (in layout perm). With fusesRelu, a Relu that
    // alone reads output is fused into it: the tensor then holds (and is named after) the Relu's
    // output.
    void emit(TfliteOp code, std::vector<std::int32_t> inputs, const std::string &output, const Perm &perm,
              const TfliteOptions &options = {}, bool fusesRelu = false)
    {
        const onnx::NodeProto *relu = fusesRelu ? soleConsumer(output) : nullptr;
        if (relu && relu->op_type() != "Relu")
            relu = nullptr;
        const std::string defined = relu ? relu->output(0) : output;
        const std::int32_t out = activation(defined, perm);
        TfliteOperator &o = op(code, std::move(inputs), {out});
        o.options = options;
        if (relu) {
            o.options.activation = TfliteActivation::Relu;
            m_done.insert(relu);
        }
        define(defined, out, perm);
    }

    // 4-D NHWC padding: SAME when TensorFlow's SAME pads exactly pads, VALID when there is none,
    // else an explicit PAD (value: padValue) before a VALID operator. Returns the input tensor.
    std::int32_t padFor(std::int32_t x, const std::string &name, const std::vector<std::int64_t> &inShape,
                        const std::vector<std::int64_t> &k, const std::vector<std::int64_t> &s,
                        const std::vector<std::int64_t> &d, const std::vector<std::int64_t> &pads, float padValue,
                        bool *same)
    {
        *same = false;
        if (std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; }))
            return x;
        bool matches = true;
        for (int i = 0; i < 2; ++i) {
            const std::int64_t in = inShape[std::size_t(2 + i)], stride = s[std::size_t(i)];
            const std::int64_t out = (in + stride - 1) / stride;
            const std::int64_t total = std::max<std::int64_t>((out - 1) * stride + (k[std::size_t(i)] - 1) * d[std::size_t(i)] + 1 - in, 0);
            matches = matches && pads[std::size_t(i)] == total / 2 && pads[std::size_t(i + 2)] == total - total / 2;
        }
        if (matches) {
            *same = true;
            return x;
        }
        const Value &v = value(m_node->input(0));
        TfliteTensor padded;
        padded.name = name + "/pad";
        padded.shape = permuted(v.shape, kNhwc);
        padded.shape[1] += std::int32_t(pads[0] + pads[2]);
        padded.shape[2] += std::int32_t(pads[1] + pads[3]);
        const std::int32_t out = m_model.addTensor(padded);
        const std::int32_t paddings = constInt32(name + "/paddings",
                                                 {0, 0, std::int32_t(pads[0]), std::int32_t(pads[2]),
                                                  std::int32_t(pads[1]), std::int32_t(pads[3]), 0, 0},
                                                 {4, 2});
        if (padValue == 0.0f) {
            op(TfliteOp::Pad, {x, paddings}, {out});
        } else {
            const std::int32_t value = constTensor(name + "/pad_value", torch::full({1}, padValue));
            op(TfliteOp::PadV2, {x, paddings, value}, {out});
        }
        return out;
    }

    std::vector<std::int64_t> ints(const onnx::NodeProto &n, const std::string &name, std::vector<std::int64_t> fallback)
    {
        std::vector<std::int64_t> v = intsAttribute(n, name);
        return v.empty() ? fallback : v;
    }

    void conv(const onnx::NodeProto &n)
    {
        const torch::Tensor w = constant(n.input(1)).to(torch::kFloat);
        const std::int64_t outC = w.size(0), group = intAttribute(n, "group", 1);
        const std::vector<std::int64_t> &inShape = value(n.input(0)).shape;
        const std::int64_t inC = inShape.at(1);
        const torch::Tensor b = n.input_size() > 2 && !n.input(2).empty() ? constant(n.input(2)).to(torch::kFloat)
                                                                         : torch::zeros({outC});
        const auto k = ints(n, "kernel_shape", {w.size(2), w.size(3)});
        const auto s = ints(n, "strides", {1, 1});
        const auto d = ints(n, "dilations", {1, 1});
        const auto pads = ints(n, "pads", {0, 0, 0, 0});
        bool same = false;
        const std::int32_t x = padFor(as(n.input(0), kNhwc), n.name(), inShape, k, s, d, pads, 0.0f, &same);
        TfliteOptions o;
        o.padSame = same;
        o.strideH = int(s[0]);
        o.strideW = int(s[1]);
        o.dilationH = int(d[0]);
        o.dilationW = int(d[1]);
        TfliteOp code = TfliteOp::Conv2D;
        torch::Tensor filter;
        if (group == 1) {
            filter = w.permute({0, 2, 3, 1}); // [O, KH, KW, I]
        } else if (group == inC && outC % inC == 0 && w.size(1) == 1) {
            code = TfliteOp::DepthwiseConv2D;
            filter = w.permute({1, 2, 3, 0}); // [1, KH, KW, O]
            o.depthMultiplier = int(outC / inC);
        } else {
            refuse("grouped convolution (" + std::to_string(group) + " groups) is neither a plain nor a depthwise one");
        }
        const std::int32_t fw = constTensor(n.input(1), filter.contiguous());
        const std::int32_t fb = constTensor(n.input_size() > 2 ? n.input(2) : n.name() + ".bias", b);
        emit(code, {x, fw, fb}, n.output(0), kNhwc, o, true);
    }

    void maxPool(const onnx::NodeProto &n)
    {
        const std::vector<std::int64_t> &inShape = value(n.input(0)).shape;
        const auto k = ints(n, "kernel_shape", {});
        if (k.size() != 2)
            refuse("only 2-D pooling is written");
        const auto s = ints(n, "strides", {1, 1});
        const auto pads = ints(n, "pads", {0, 0, 0, 0});
        if (intAttribute(n, "ceil_mode", 0) != 0)
            refuse("ceil_mode is not written");
        bool same = false;
        const std::int32_t x = padFor(as(n.input(0), kNhwc), n.name(), inShape, k, s, {1, 1}, pads,
                                      std::numeric_limits<float>::lowest(), &same);
        TfliteOptions o;
        o.padSame = same;
        o.strideH = int(s[0]);
        o.strideW = int(s[1]);
        o.filterH = int(k[0]);
        o.filterW = int(k[1]);
        emit(TfliteOp::MaxPool2D, {x}, n.output(0), kNhwc, o, true);
    }

    // MEAN over ONNX axes (keepdims), in the input's layout.
    void mean(const onnx::NodeProto &n, std::vector<std::int64_t> axes)
    {
        const Value &v = value(n.input(0));
        const Perm perm = v.perm;
        const std::int32_t x = v.tensor;
        std::vector<std::int32_t> mapped;
        for (std::int64_t a : axes) {
            if (a < 0)
                a += std::int64_t(v.shape.size());
            mapped.push_back(std::int32_t(std::find(perm.begin(), perm.end(), int(a)) - perm.begin()));
        }
        std::sort(mapped.begin(), mapped.end());
        TfliteOptions o;
        o.keepDims = true;
        emit(TfliteOp::Mean, {x, constInt32(n.name() + "/axes", mapped)}, n.output(0), perm, o);
    }

    // ADD / SUB / MUL / DIV with broadcasting: the layout of the first activation input.
    void binary(const onnx::NodeProto &n, TfliteOp code, bool fusesRelu)
    {
        const std::size_t rank = m_shapes.at(n.output(0)).size();
        const std::string *reference = nullptr;
        for (const auto &in : n.input())
            if (!isConstant(in)) {
                reference = &in;
                break;
            }
        const Value &ref = value(*reference);
        if (ref.shape.size() != rank)
            refuse("an activation input of lower rank than the result is not written");
        const Perm perm = ref.perm;
        std::vector<std::int32_t> inputs;
        for (const auto &in : n.input()) {
            if (isConstant(in))
                inputs.push_back(constOperand(in, rank, perm));
            else if (value(in).shape.size() != rank)
                refuse("an activation input of lower rank than the result is not written");
            else
                inputs.push_back(as(in, perm));
        }
        emit(code, inputs, n.output(0), perm, {}, fusesRelu);
    }

    // MUL by the reciprocal of a constant divisor.
    void divideByConstant(const onnx::NodeProto &n)
    {
        const std::size_t rank = m_shapes.at(n.output(0)).size();
        const Value &x = value(n.input(0));
        if (x.shape.size() != rank)
            refuse("an activation input of lower rank than the result is not written");
        const std::string reciprocal = n.input(1) + "/reciprocal";
        m_constants[reciprocal] = 1.0 / constant(n.input(1)).to(torch::kDouble);
        m_shapes[reciprocal] = m_constants[reciprocal].sizes().vec();
        emit(TfliteOp::Mul, {x.tensor, constOperand(reciprocal, rank, x.perm)}, n.output(0), x.perm);
    }

    bool isScalar(const std::string &name, double v, double tolerance = 1e-6) const
    {
        auto it = m_constants.find(name);
        return it != m_constants.end() && it->second.numel() == 1 &&
               std::abs(it->second.to(torch::kDouble).item<double>() - v) <= tolerance * std::max(1.0, std::abs(v));
    }

    // The other input of a two-input node (nullptr when neither is name).
    static const std::string *otherInput(const onnx::NodeProto &n, const std::string &name)
    {
        if (n.input_size() != 2)
            return nullptr;
        if (n.input(0) == name)
            return &n.input(1);
        if (n.input(1) == name)
            return &n.input(0);
        return nullptr;
    }

    // Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 (the exact GELU Lathe writes) starting
    // at n: GELU(x). Returns false when n does not start that chain.
    bool gelu(const onnx::NodeProto &n)
    {
        if (n.op_type() != "Div" || !isScalar(n.input(1), std::sqrt(2.0)))
            return false;
        const std::string &x = n.input(0);
        const onnx::NodeProto *erf = soleConsumer(n.output(0));
        if (!erf || erf->op_type() != "Erf")
            return false;
        const onnx::NodeProto *add = soleConsumer(erf->output(0));
        const std::string *one = add && add->op_type() == "Add" ? otherInput(*add, erf->output(0)) : nullptr;
        if (!one || !isScalar(*one, 1.0))
            return false;
        const onnx::NodeProto *mul = soleConsumer(add->output(0));
        const std::string *mx = mul && mul->op_type() == "Mul" ? otherInput(*mul, add->output(0)) : nullptr;
        if (!mx || *mx != x)
            return false;
        const onnx::NodeProto *half = soleConsumer(mul->output(0));
        const std::string *h = half && half->op_type() == "Mul" ? otherInput(*half, mul->output(0)) : nullptr;
        if (!h || !isScalar(*h, 0.5))
            return false;
        const Value &v = value(x);
        m_done.insert({erf, add, mul, half});
        emit(TfliteOp::Gelu, {v.tensor}, half->output(0), v.perm);
        return true;
    }

    bool isHardSigmoid(const onnx::NodeProto *n) const
    {
        return n && n->op_type() == "HardSigmoid" && std::abs(floatAttribute(*n, "alpha", 0.2f) - 1.0f / 6.0f) < 1e-6f &&
               std::abs(floatAttribute(*n, "beta", 0.5f) - 0.5f) < 1e-6f;
    }

    // Mul(x, HardSigmoid(x)) -> HARD_SWISH(x).
    bool hardSwish(const onnx::NodeProto &n)
    {
        if (n.op_type() != "Mul" || n.input_size() != 2)
            return false;
        for (int i = 0; i < 2; ++i) {
            const std::string &gate = n.input(i), &x = n.input(1 - i);
            auto producer = m_producers.find(gate);
            if (producer == m_producers.end() || !isHardSigmoid(producer->second) || producer->second->input(0) != x ||
                soleConsumer(gate) != &n)
                continue;
            const Value &v = value(x);
            emit(TfliteOp::HardSwish, {v.tensor}, n.output(0), v.perm);
            return true;
        }
        return false;
    }

    // HardSigmoid(x) = relu6(x + 3) / 6 (alpha 1/6, beta 1/2): ADD with a fused RELU6, MUL.
    void hardSigmoid(const onnx::NodeProto &n)
    {
        if (!isHardSigmoid(&n))
            refuse("only alpha = 1/6, beta = 1/2 (PyTorch's hardsigmoid) is written");
        const Value &v = value(n.input(0));
        const std::size_t rank = v.shape.size();
        const std::string three = n.name() + ".three", sixth = n.name() + ".sixth", shifted = n.name() + "/relu6";
        m_constants[three] = torch::full({1}, 3.0f);
        m_constants[sixth] = torch::full({1}, float(1.0 / 6.0));
        m_shapes[shifted] = v.shape;
        TfliteOptions o;
        o.activation = TfliteActivation::Relu6;
        emit(TfliteOp::Add, {v.tensor, constOperand(three, rank, v.perm)}, shifted, v.perm, o);
        emit(TfliteOp::Mul, {m_values.at(shifted).tensor, constOperand(sixth, rank, v.perm)}, n.output(0), v.perm);
    }

    void reshape(const onnx::NodeProto &n)
    {
        const Value &v = value(n.input(0));
        const std::int32_t x = sameElementOrder(v.shape, v.perm) ? v.tensor : as(n.input(0), identity(v.shape.size()));
        const std::vector<std::int64_t> &outShape = m_shapes.at(n.output(0));
        std::vector<std::int32_t> dims(outShape.begin(), outShape.end());
        TfliteOptions o;
        const std::int32_t shape = constInt32(n.name() + "/shape", dims);
        emit(TfliteOp::Reshape, {x, shape}, n.output(0), identity(outShape.size()), o);
    }

    void transpose(const onnx::NodeProto &n)
    {
        const Value &v = value(n.input(0));
        std::vector<std::int64_t> p = intsAttribute(n, "perm");
        if (p.empty())
            for (std::size_t i = v.shape.size(); i-- > 0;)
                p.push_back(std::int64_t(i));
        const Perm perm(p.begin(), p.end());
        // output = value.permute(P); in layout R its tensor is value.permute(P[R]) =
        // tensor.permute(Q^-1[P[R]]): free when that is the identity.
        const Perm qInv = inverse(v.perm);
        auto through = [&](const Perm &r) {
            Perm t;
            for (int ri : r)
                t.push_back(qInv[std::size_t(perm[std::size_t(ri)])]);
            return t;
        };
        const std::size_t rank = perm.size();
        for (const Perm &r : {identity(rank), rank == 4 ? kNhwc : identity(rank)})
            if (through(r) == identity(rank)) {
                Value alias = v;
                alias.perm = r;
                alias.shape = m_shapes.at(n.output(0));
                m_values[n.output(0)] = alias;
                return;
            }
        const Perm t = through(identity(rank));
        emit(TfliteOp::Transpose, {v.tensor, constInt32(n.name() + "/perm", std::vector<std::int32_t>(t.begin(), t.end()))},
             n.output(0), identity(rank));
    }

    void gemm(const onnx::NodeProto &n)
    {
        if (floatAttribute(n, "alpha", 1.0f) != 1.0f || floatAttribute(n, "beta", 1.0f) != 1.0f || intAttribute(n, "transA", 0))
            refuse("only alpha = beta = 1 without transA is written");
        torch::Tensor w = constant(n.input(1)).to(torch::kFloat);
        if (!intAttribute(n, "transB", 0))
            w = w.t();
        const std::int32_t x = as(n.input(0), identity(2));
        const std::int32_t b = constTensor(n.input_size() > 2 ? n.input(2) : n.name() + ".bias",
                                           n.input_size() > 2 ? constant(n.input(2)).to(torch::kFloat) : torch::zeros({w.size(0)}));
        emit(TfliteOp::FullyConnected, {x, constTensor(n.input(1), w.contiguous()), b}, n.output(0), identity(2), {}, true);
    }

    // MatMul by a constant [D, O] (and the Add of a constant [O] after it): FULLY_CONNECTED that
    // keeps the leading dimensions; of two activations: BATCH_MATMUL.
    void matmul(const onnx::NodeProto &n)
    {
        const std::size_t rank = m_shapes.at(n.output(0)).size();
        if (!isConstant(n.input(1))) {
            emit(TfliteOp::BatchMatMul, {as(n.input(0), identity(rank)), as(n.input(1), identity(rank))}, n.output(0),
                 identity(rank));
            return;
        }
        const torch::Tensor w = constant(n.input(1)).to(torch::kFloat);
        if (w.dim() != 2)
            refuse("a constant right-hand side must be a matrix");
        std::string output = n.output(0);
        torch::Tensor bias = torch::zeros({w.size(1)});
        std::string biasName = n.name() + ".bias";
        const onnx::NodeProto *add = soleConsumer(output);
        const std::string *b = add && add->op_type() == "Add" ? otherInput(*add, output) : nullptr;
        if (b && isConstant(*b) && constant(*b).numel() == w.size(1) && constant(*b).dim() == 1) {
            bias = constant(*b).to(torch::kFloat);
            biasName = *b;
            m_done.insert(add);
            output = add->output(0);
        }
        TfliteOptions o;
        o.keepDims = rank > 2;
        emit(TfliteOp::FullyConnected,
             {as(n.input(0), identity(rank)), constTensor(n.input(1), w.t().contiguous()), constTensor(biasName, bias)}, output,
             identity(rank), o, true);
    }

    void softmax(const onnx::NodeProto &n)
    {
        const Value &v = value(n.input(0));
        const std::int64_t rank = std::int64_t(v.shape.size());
        std::int64_t axis = intAttribute(n, "axis", -1);
        if (axis < 0)
            axis += rank;
        if (v.perm.back() == axis) {
            emit(TfliteOp::Softmax, {v.tensor}, n.output(0), v.perm);
            return;
        }
        if (axis != rank - 1)
            refuse("softmax over another axis than the last is not written");
        emit(TfliteOp::Softmax, {as(n.input(0), identity(std::size_t(rank)))}, n.output(0), identity(std::size_t(rank)));
    }

    void concat(const onnx::NodeProto &n)
    {
        const std::size_t rank = m_shapes.at(n.output(0)).size();
        std::int64_t axis = intAttribute(n, "axis", 0);
        if (axis < 0)
            axis += std::int64_t(rank);
        Perm perm = identity(rank);
        for (const auto &in : n.input())
            if (!isConstant(in)) {
                perm = value(in).perm;
                break;
            }
        std::vector<std::int32_t> inputs;
        for (const auto &in : n.input())
            inputs.push_back(isConstant(in) ? constOperand(in, rank, perm) : as(in, perm));
        TfliteOptions o;
        o.axis = int(std::find(perm.begin(), perm.end(), int(axis)) - perm.begin());
        emit(TfliteOp::Concatenation, inputs, n.output(0), perm, o);
    }

    void gather(const onnx::NodeProto &n)
    {
        const torch::Tensor index = constant(n.input(1));
        if (index.dim() != 0)
            refuse("only a scalar index is written");
        const std::size_t rank = value(n.input(0)).shape.size();
        std::int64_t axis = intAttribute(n, "axis", 0);
        if (axis < 0)
            axis += std::int64_t(rank);
        TfliteOptions o;
        o.axis = int(axis);
        const std::int32_t i = constTensor(n.name() + "/index", torch::tensor(std::int32_t(index.item<std::int64_t>()), torch::kInt));
        emit(TfliteOp::Gather, {as(n.input(0), identity(rank)), i}, n.output(0), identity(rank - 1), o);
    }

    void translateNode(const onnx::NodeProto &n)
    {
        const std::string &t = n.op_type();
        if (t == "Conv") {
            conv(n);
        } else if (t == "MaxPool") {
            maxPool(n);
        } else if (t == "GlobalAveragePool") {
            mean(n, {2, 3});
        } else if (t == "ReduceMean") {
            if (intAttribute(n, "keepdims", 1) != 1)
                refuse("keepdims = 0 is not written");
            mean(n, intsAttribute(n, "axes"));
        } else if (t == "Relu") {
            const Value &v = value(n.input(0));
            emit(TfliteOp::Relu, {v.tensor}, n.output(0), v.perm);
        } else if (t == "Sigmoid") {
            const Value &v = value(n.input(0));
            emit(TfliteOp::Logistic, {v.tensor}, n.output(0), v.perm);
        } else if (t == "HardSigmoid") {
            // Mul(x, HardSigmoid(x)) is HARD_SWISH: written where the Mul is.
            const onnx::NodeProto *mul = soleConsumer(n.output(0));
            if (!(mul && mul->op_type() == "Mul" && otherInput(*mul, n.output(0)) && *otherInput(*mul, n.output(0)) == n.input(0)))
                hardSigmoid(n);
        } else if (t == "Sqrt") {
            // Div(a, Sqrt(b)) is MUL(a, RSQRT(b)): written where the Div is.
            const onnx::NodeProto *div = soleConsumer(n.output(0));
            if (div && div->op_type() == "Div" && div->input(1) == n.output(0))
                return;
            const Value &v = value(n.input(0));
            emit(TfliteOp::Sqrt, {v.tensor}, n.output(0), v.perm);
        } else if (t == "Div") {
            if (gelu(n))
                return;
            auto producer = m_producers.find(n.input(1));
            if (isConstant(n.input(1))) {
                divideByConstant(n);
            } else if (producer != m_producers.end() && producer->second->op_type() == "Sqrt" &&
                       soleConsumer(n.input(1)) == &n) {
                const Value &v = value(producer->second->input(0));
                const std::string rsqrt = n.input(1) + "/rsqrt";
                m_shapes[rsqrt] = v.shape;
                emit(TfliteOp::Rsqrt, {v.tensor}, rsqrt, v.perm);
                const Value &a = value(n.input(0));
                emit(TfliteOp::Mul, {a.tensor, as(rsqrt, a.perm)}, n.output(0), a.perm);
            } else {
                binary(n, TfliteOp::Div, false);
            }
        } else if (t == "Add") {
            binary(n, TfliteOp::Add, true);
        } else if (t == "Sub") {
            binary(n, TfliteOp::Sub, false);
        } else if (t == "Mul") {
            if (!hardSwish(n))
                binary(n, TfliteOp::Mul, false);
        } else if (t == "Flatten" || t == "Reshape") {
            reshape(n);
        } else if (t == "Transpose") {
            transpose(n);
        } else if (t == "Gemm") {
            gemm(n);
        } else if (t == "MatMul") {
            matmul(n);
        } else if (t == "Softmax") {
            softmax(n);
        } else if (t == "Concat") {
            concat(n);
        } else if (t == "Gather") {
            gather(n);
        } else if (t == "Cast") {
            const Value &v = value(n.input(0));
            if (m_model.tensors[std::size_t(v.tensor)].type != TfliteType::UInt8 ||
                intAttribute(n, "to", 0) != onnx::TensorProto::FLOAT)
                refuse("only the input pixels' uint8 -> float32 cast is written");
            emit(TfliteOp::Dequantize, {v.tensor}, n.output(0), v.perm);
        } else if (t == "Erf") {
            refuse("erf outside the exact GELU has no TFLite operator");
        } else {
            refuse("TFLite export has no translation for this operator");
        }
    }

    const onnx::GraphProto &m_graph;
    TfliteModel m_model;
    std::map<std::string, torch::Tensor> m_constants;                 // ONNX layout
    std::map<std::string, std::vector<std::int64_t>> m_shapes;        // every value, batch 1
    std::map<std::string, Value> m_values;
    std::map<std::pair<std::string, Perm>, std::int32_t> m_transposed;
    std::unordered_map<std::string, std::vector<const onnx::NodeProto *>> m_consumers;
    std::unordered_map<std::string, const onnx::NodeProto *> m_producers;
    std::set<std::string> m_graphOutputs;
    std::set<const onnx::NodeProto *> m_constantNodes;
    std::set<const onnx::NodeProto *> m_done; // absorbed into an operator written before them
    const onnx::NodeProto *m_node = nullptr;
};

} // namespace

TfliteModel tfliteFromOnnx(const onnx::ModelProto &model)
{
    if (model.graph().input_size() < 1 || model.graph().output_size() < 1)
        throw EngineError("TFLite export: the ONNX graph has no input or output");
    Translator translator(model);
    TfliteModel out = translator.translate();
    out.description = model.doc_string();
    return out;
}

TfliteModel tfliteToFloat16(const TfliteModel &model)
{
    TfliteModel out;
    out.description = model.description;
    out.metadata = model.metadata;
    // Tensors keep their indices; each float32 constant becomes a float16 constant (appended)
    // read through a DEQUANTIZE into the original index, which turns into an activation.
    out.tensors = model.tensors;
    std::vector<TfliteOperator> dequantize;
    for (std::size_t i = 0; i < model.tensors.size(); ++i) {
        const TfliteTensor &t = model.tensors[i];
        if (!t.isConstant() || t.type != TfliteType::Float32 || t.data.numel() <= 1)
            continue; // scalars stay float32 (a float16 pad value of -FLT_MAX would be -inf)
        TfliteTensor half = t;
        half.name = t.name + "/fp16";
        half.type = TfliteType::Float16;
        half.data = t.data.to(torch::kHalf).contiguous();
        const std::int32_t h = out.addTensor(half);
        TfliteTensor &f = out.tensors[i];
        f.data = torch::Tensor();
        TfliteOperator d;
        d.op = TfliteOp::Dequantize;
        d.inputs = {h};
        d.outputs = {std::int32_t(i)};
        d.origin = t.name;
        dequantize.push_back(d);
    }
    out.operators = dequantize;
    out.operators.insert(out.operators.end(), model.operators.begin(), model.operators.end());
    out.inputs = model.inputs;
    out.outputs = model.outputs;
    return out;
}

} // namespace lathe::engine
