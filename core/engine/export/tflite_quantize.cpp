// Full-integer INT8 post-training quantisation of Lathe's float TFLite models (tflite_export.h),
// following TFLite's int8 quantisation specification: activations int8 per tensor with a zero
// point, weights int8 symmetric per output channel, biases int32 at input scale x weight scale.

#include "engine/export/tflite_export.h"

#include "engine/base/engine_error.h"
#include "engine/export/calibration.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace lathe::engine {
namespace {

struct Params
{
    float scale = 1;
    std::int64_t zeroPoint = 0;
};

// Per-tensor asymmetric int8 over [min(0, lo), max(0, hi)], so that 0 is exact.
Params int8Params(double lo, double hi)
{
    lo = std::min(0.0, lo);
    hi = std::max(0.0, hi);
    if (!(hi - lo > 1e-8) || !std::isfinite(hi - lo))
        hi = lo + (std::isfinite(hi - lo) ? 1e-8 : 1.0);
    Params p;
    p.scale = float((hi - lo) / 255.0);
    p.zeroPoint = std::int64_t(std::clamp(std::nearbyint(-128.0 - lo / double(p.scale)), -128.0, 127.0));
    return p;
}

TfliteQuantization quantization(const Params &p)
{
    TfliteQuantization q;
    q.scale = {p.scale};
    q.zeroPoint = {p.zeroPoint};
    return q;
}

// Disjoint sets of tensors whose operators need one scale and zero point for all of them.
class SharedParams
{
public:
    explicit SharedParams(std::size_t n)
        : m_parent(n)
    {
        std::iota(m_parent.begin(), m_parent.end(), std::int32_t(0));
    }
    std::int32_t find(std::int32_t i)
    {
        while (m_parent[std::size_t(i)] != i)
            i = m_parent[std::size_t(i)] = m_parent[std::size_t(m_parent[std::size_t(i)])];
        return i;
    }
    void join(std::int32_t a, std::int32_t b) { m_parent[std::size_t(find(a))] = find(b); }

private:
    std::vector<std::int32_t> m_parent;
};

bool passesParamsThrough(TfliteOp op)
{
    switch (op) {
    case TfliteOp::Reshape:
    case TfliteOp::Transpose:
    case TfliteOp::MaxPool2D:
    case TfliteOp::Pad:
    case TfliteOp::PadV2:
    case TfliteOp::Gather:
    case TfliteOp::Concatenation:
        return true;
    default:
        return false;
    }
}

bool hasIntegerKernel(TfliteOp op)
{
    switch (op) {
    case TfliteOp::Sqrt:
    case TfliteOp::Div:
    case TfliteOp::Dequantize:
    case TfliteOp::Quantize:
        return false;
    default:
        return true;
    }
}

// Symmetric int8 per slice of dimension dim ([-127, 127]); returns the data and the scales.
std::pair<torch::Tensor, std::vector<float>> perChannel(const torch::Tensor &w, int dim)
{
    const torch::Tensor moved = w.to(torch::kDouble).movedim(dim, 0).contiguous();
    const torch::Tensor absMax = moved.abs().reshape({moved.size(0), -1}).amax(1).clamp_min(1e-12);
    const torch::Tensor scale = absMax / 127.0;
    std::vector<std::int64_t> view(std::size_t(moved.dim()), 1);
    view[0] = moved.size(0);
    const torch::Tensor q = torch::round(moved / scale.view(view)).clamp(-127, 127).to(torch::kChar).movedim(0, dim).contiguous();
    const torch::Tensor s = scale.to(torch::kFloat).contiguous();
    return {q, std::vector<float>(s.data_ptr<float>(), s.data_ptr<float>() + s.numel())};
}

torch::Tensor quantizeWith(const torch::Tensor &x, const Params &p)
{
    return torch::round(x.to(torch::kDouble) / double(p.scale) + double(p.zeroPoint)).clamp(-128, 127).to(torch::kChar).contiguous();
}

// HARD_SWISH(x) as x * (relu6(x + 3) / 6): ADD with a fused RELU6 and two MULs. LiteRT's
// XNNPACK delegate (2.3) has no int8 HARD_SWISH, so each one would split the graph and run in
// TFLite's slow reference kernel (MobileNetV3-Small int8: 4.5 ms against 1.3 ms in float32).
TfliteModel expandHardSwish(const TfliteModel &model)
{
    TfliteModel out = model;
    out.operators.clear();
    for (const TfliteOperator &o : model.operators) {
        if (o.op != TfliteOp::HardSwish) {
            out.operators.push_back(o);
            continue;
        }
        const std::int32_t x = o.inputs[0];
        const TfliteTensor &xt = model.tensors[std::size_t(x)];
        auto scalar = [&](const std::string &name, float value) {
            TfliteTensor c;
            c.name = xt.name + name;
            c.shape.assign(xt.shape.size(), 1);
            c.data = torch::full(std::vector<std::int64_t>(xt.shape.size(), 1), value);
            return out.addTensor(c);
        };
        auto activation = [&](const std::string &name) {
            TfliteTensor t;
            t.name = xt.name + name;
            t.shape = xt.shape;
            return out.addTensor(t);
        };
        const std::int32_t shifted = activation("/hardswish_relu6"), gate = activation("/hardswish_gate");
        TfliteOperator &add = out.addOperator(TfliteOp::Add, {x, scalar("/three", 3.0f)}, {shifted});
        add.options.activation = TfliteActivation::Relu6;
        add.origin = o.origin;
        out.addOperator(TfliteOp::Mul, {shifted, scalar("/sixth", float(1.0 / 6.0))}, {gate}).origin = o.origin;
        out.addOperator(TfliteOp::Mul, {x, gate}, o.outputs).origin = o.origin;
    }
    return out;
}

} // namespace

TfliteModel quantizeTfliteInt8(const TfliteModel &floatModel, const std::vector<torch::Tensor> &calibration,
                               const TfliteInt8Options &options, TfliteInt8Report *report)
{
    const TfliteModel model = expandHardSwish(floatModel);
    if (calibration.empty())
        throw EngineError("INT8 quantisation needs calibration images");
    if (model.inputs.size() != 1 || model.outputs.size() != 1)
        throw EngineError("TFLite INT8: the model must have one input and one output");
    const std::int32_t input = model.inputs[0];
    if (model.tensors[std::size_t(input)].type != TfliteType::UInt8)
        throw EngineError("TFLite INT8: the float model must take uint8 pixels (preprocessing inside)");
    for (const TfliteOperator &o : model.operators)
        if (!hasIntegerKernel(o.op) && !(o.op == TfliteOp::Dequantize && o.inputs[0] == input))
            throw EngineError("TFLite INT8: " + tfliteOpName(o.op) + " (from '" + o.origin + "') has no int8 kernel in TFLite");

    // 1. Ranges of every operator output on the calibration images.
    RangeCalibrator calibrator(options.method, options.percentile);
    {
        TfliteReferenceRuntime runtime(model);
        for (int pass = 0; pass < (calibrator.needsHistogramPass() ? 2 : 1); ++pass)
            for (const torch::Tensor &image : calibration)
                runtime.run(image, [&](std::int32_t tensor, const torch::Tensor &value) {
                    calibrator.observe(std::to_string(tensor), value, pass == 1);
                });
    }
    const std::size_t n = model.tensors.size();
    auto range = [&](std::int32_t t) {
        const TfliteTensor &tensor = model.tensors[std::size_t(t)];
        if (tensor.isConstant()) {
            const torch::Tensor d = tensor.data.to(torch::kDouble);
            return std::make_pair(d.min().item<double>(), d.max().item<double>());
        }
        return calibrator.range(std::to_string(t), "TFLite INT8: tensor '" + tensor.name + "'");
    };

    // 2. Tensors that share parameters, and the range of each set.
    SharedParams shared(n);
    // PADV2's constant (-FLT_MAX before a max pool) and its output, which holds that constant at
    // the borders: quantised with their set, never widening it.
    std::set<std::int32_t> padValues;
    std::map<std::int32_t, std::int32_t> padValueOf; // the constant -> the PADV2's input
    for (const TfliteOperator &o : model.operators) {
        if (!passesParamsThrough(o.op))
            continue;
        const std::size_t count = o.op == TfliteOp::Concatenation ? o.inputs.size() : 1;
        for (std::size_t i = 0; i < count; ++i)
            shared.join(o.inputs[i], o.outputs[0]);
        if (o.op == TfliteOp::PadV2) {
            padValues.insert(o.inputs[2]);
            padValues.insert(o.outputs[0]);
            padValueOf[o.inputs[2]] = o.inputs[0];
        }
    }
    std::vector<std::pair<double, double>> setRange(n, {0.0, 0.0});
    std::vector<bool> setUsed(n, false);
    std::set<std::int32_t> dequantizedInput; // the float pixels made from the uint8 input
    for (const TfliteOperator &o : model.operators)
        if (o.op == TfliteOp::Dequantize)
            dequantizedInput.insert(o.outputs[0]);
    for (std::size_t t = 0; t < n; ++t) {
        const TfliteTensor &tensor = model.tensors[t];
        const bool floatValue = tensor.type == TfliteType::Float32;
        if (!floatValue || padValues.count(std::int32_t(t)))
            continue;
        if (!tensor.isConstant() && !calibrator.has(std::to_string(t)) && !dequantizedInput.count(std::int32_t(t)))
            continue; // never computed (unused)
        const auto r = dequantizedInput.count(std::int32_t(t)) ? std::make_pair(0.0, 255.0) : range(std::int32_t(t));
        const std::int32_t root = shared.find(std::int32_t(t));
        std::pair<double, double> &s = setRange[std::size_t(root)];
        if (!tensor.isConstant() || root != std::int32_t(t) || setUsed[std::size_t(root)]) {
            s.first = std::min(s.first, r.first);
            s.second = std::max(s.second, r.second);
        } else {
            s = {std::min(0.0, r.first), std::max(0.0, r.second)};
        }
        setUsed[std::size_t(root)] = true;
    }

    TfliteModel out = model;
    std::vector<Params> params(n);
    std::vector<bool> quantized(n, false);
    int activations = 0;
    for (std::size_t t = 0; t < n; ++t) {
        const TfliteTensor &tensor = model.tensors[t];
        if (tensor.type != TfliteType::Float32 || tensor.isConstant() || !setUsed[std::size_t(shared.find(std::int32_t(t)))])
            continue;
        const auto &r = setRange[std::size_t(shared.find(std::int32_t(t)))];
        params[t] = int8Params(r.first, r.second);
        quantized[t] = true;
        ++activations;
    }
    // TFLite's int8 LOGISTIC and SOFTMAX produce [0, 1) at scale 1/256, zero point -128.
    for (const TfliteOperator &o : model.operators)
        if (o.op == TfliteOp::Logistic || o.op == TfliteOp::Softmax)
            params[std::size_t(o.outputs[0])] = {1.0f / 256.0f, -128};

    // 3. Tensors rewritten: activations int8; weights per channel; biases int32; other float
    // constants per tensor (with their set's parameters where they have one).
    for (std::size_t t = 0; t < n; ++t)
        if (quantized[t]) {
            out.tensors[t].type = TfliteType::Int8;
            out.tensors[t].quantization = quantization(params[t]);
        }
    std::vector<bool> constantDone(n, false);
    for (const TfliteOperator &o : model.operators) {
        const bool weighted = o.op == TfliteOp::Conv2D || o.op == TfliteOp::DepthwiseConv2D || o.op == TfliteOp::FullyConnected;
        if (weighted) {
            const std::int32_t x = o.inputs[0], w = o.inputs[1];
            if (constantDone[std::size_t(w)])
                throw EngineError("TFLite INT8: weights '" + model.tensors[std::size_t(w)].name + "' are shared by two operators");
            const int dim = o.op == TfliteOp::DepthwiseConv2D ? 3 : 0;
            auto [qw, scales] = perChannel(model.tensors[std::size_t(w)].data, dim);
            TfliteTensor &wt = out.tensors[std::size_t(w)];
            wt.type = TfliteType::Int8;
            wt.data = qw;
            wt.quantization.scale = scales;
            wt.quantization.zeroPoint.assign(scales.size(), 0);
            wt.quantization.dimension = dim;
            constantDone[std::size_t(w)] = true;
            if (o.inputs.size() > 2 && o.inputs[2] >= 0) {
                const std::int32_t b = o.inputs[2];
                const float inScale = params[std::size_t(x)].scale;
                std::vector<float> biasScales;
                for (float s : scales)
                    biasScales.push_back(inScale * s);
                const torch::Tensor bs = torch::tensor(biasScales, torch::kDouble);
                TfliteTensor &bt = out.tensors[std::size_t(b)];
                bt.type = TfliteType::Int32;
                bt.data = torch::round(model.tensors[std::size_t(b)].data.to(torch::kDouble) / bs)
                              .clamp(-2147483647.0, 2147483647.0)
                              .to(torch::kInt)
                              .contiguous();
                bt.quantization.scale = biasScales;
                bt.quantization.zeroPoint.assign(biasScales.size(), 0);
                bt.quantization.dimension = 0;
                constantDone[std::size_t(b)] = true;
            }
        }
    }
    for (std::size_t t = 0; t < n; ++t) {
        const TfliteTensor &tensor = model.tensors[t];
        if (!tensor.isConstant() || tensor.type != TfliteType::Float32 || constantDone[t])
            continue;
        const auto padded = padValueOf.find(std::int32_t(t));
        const std::int32_t root = shared.find(padded != padValueOf.end() ? padded->second : std::int32_t(t));
        const Params p = root != std::int32_t(t)
                             ? int8Params(setRange[std::size_t(root)].first, setRange[std::size_t(root)].second)
                             : int8Params(tensor.data.min().item<double>(), tensor.data.max().item<double>());
        TfliteTensor &ct = out.tensors[t];
        ct.type = TfliteType::Int8;
        ct.data = quantizeWith(tensor.data, p);
        ct.quantization = quantization(p);
    }

    // 4. The input: uint8 pixels (scale 1) requantised to int8 by a QUANTIZE where the float
    // model dequantised them; int8 pixels (pixel - 128) read directly.
    std::vector<TfliteOperator> operators;
    std::map<std::int32_t, std::int32_t> replaced;
    for (const TfliteOperator &o : model.operators) {
        TfliteOperator copy = o;
        for (std::int32_t &i : copy.inputs) {
            auto it = replaced.find(i);
            if (it != replaced.end())
                i = it->second;
        }
        if (o.op == TfliteOp::Dequantize && o.inputs[0] == input) {
            if (options.int8Io) {
                replaced[o.outputs[0]] = input;
                continue;
            }
            copy.op = TfliteOp::Quantize;
        }
        operators.push_back(copy);
    }
    out.operators = operators;
    TfliteTensor &in = out.tensors[std::size_t(input)];
    if (options.int8Io) {
        in.type = TfliteType::Int8;
        in.quantization = quantization({1.0f, -128});
    }
    // 5. The output: int8, or uint8 through a QUANTIZE (same scale, zero point + 128).
    if (!options.int8Io) {
        const std::int32_t inner = out.outputs[0];
        TfliteTensor u = out.tensors[std::size_t(inner)];
        out.tensors[std::size_t(inner)].name += "/int8";
        u.type = TfliteType::UInt8;
        u.quantization.zeroPoint = {params[std::size_t(inner)].zeroPoint + 128};
        const std::int32_t outIndex = out.addTensor(u);
        TfliteOperator &q = out.addOperator(TfliteOp::Quantize, {inner}, {outIndex});
        q.origin = "output";
        out.outputs = {outIndex};
    }
    // Tensors no operator reads any more (the float pixels read directly) stay; unused
    // tensors are allowed in the format.

    if (report) {
        report->calibrationImages = int(calibration.size());
        report->quantizedTensors = activations;
        report->ops.clear();
        for (const TfliteOperator &o : out.operators)
            ++report->ops[tfliteOpName(o.op)];
    }
    return out;
}

} // namespace lathe::engine
