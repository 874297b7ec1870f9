// FP16 conversion and INT8 post-training static quantisation (QDQ) of Lathe's ONNX graphs.

#include "engine/export/onnx_export.h"
#include "engine/export/calibration.h"
#include "engine/export/onnx_graph.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace lathe::engine {
namespace {

// Element type of every value, from the inputs, initializers and the node kinds Lathe writes.
std::unordered_map<std::string, int> valueTypes(const onnx::GraphProto &g)
{
    std::unordered_map<std::string, int> types;
    for (const auto &i : g.input())
        types[i.name()] = i.type().tensor_type().elem_type();
    for (const auto &t : g.initializer())
        types[t.name()] = t.data_type();
    for (const auto &n : g.node()) {
        int type = onnx::TensorProto::FLOAT;
        if (n.op_type() == "Shape")
            type = onnx::TensorProto::INT64;
        else if (n.op_type() == "Cast")
            type = int(intAttribute(n, "to", onnx::TensorProto::FLOAT));
        else if (n.op_type() == "QuantizeLinear")
            type = n.input_size() > 2 ? types[n.input(2)] : onnx::TensorProto::UINT8;
        else if (n.op_type() == "DequantizeLinear")
            type = onnx::TensorProto::FLOAT;
        else if (n.input_size() > 0 && types.count(n.input(0)))
            type = types[n.input(0)];
        for (const auto &o : n.output())
            types[o] = type;
    }
    return types;
}

// LayerNorm statistics stay float32 under FP16: squares of activations overflow float16.
bool keepsFloat32(const onnx::NodeProto &n)
{
    static const char *suffixes[] = {"/mean", "/centered", "/squared", "/variance", "/var_eps", "/std", "/normalized"};
    const std::string &name = n.name();
    for (const char *s : suffixes) {
        const std::string suffix(s);
        const auto pos = name.rfind(suffix);
        if (pos != std::string::npos && (pos + suffix.size() == name.size() || name[pos + suffix.size()] == '_'))
            return true;
    }
    return false;
}

struct QParams
{
    float scale = 1;
    std::uint8_t zeroPoint = 0;
};

// Per-tensor asymmetric uint8 over [min(0, lo), max(0, hi)], so that 0 is exact.
QParams uint8Params(double lo, double hi)
{
    lo = std::min(0.0, lo);
    hi = std::max(0.0, hi);
    QParams p;
    p.scale = float((hi - lo) / 255.0);
    if (!(p.scale > 0) || !std::isfinite(p.scale))
        p.scale = 1;
    p.zeroPoint = std::uint8_t(std::clamp(std::nearbyint(-lo / p.scale), 0.0, 255.0));
    return p;
}

} // namespace

onnx::ModelProto convertOnnxToFloat16(const onnx::ModelProto &model)
{
    onnx::ModelProto out = model;
    onnx::GraphProto *g = out.mutable_graph();
    const auto types = valueTypes(model.graph());
    std::set<std::string> graphInputs, graphOutputs;
    for (const auto &i : g->input())
        graphInputs.insert(i.name());
    for (const auto &o : g->output())
        graphOutputs.insert(o.name());

    std::unordered_map<std::string, const onnx::TensorProto *> inits;
    for (const auto &t : model.graph().initializer())
        inits[t.name()] = &t;

    // Rebuild the node list: float16 nodes read float16 values; the LayerNorm statistics nodes
    // read float32. Casts are inserted where a value's precision differs from what a node needs.
    std::unordered_map<std::string, bool> isHalf; // float values: produced as float16?
    for (const auto &i : graphInputs)
        isHalf[i] = false;
    std::map<std::pair<std::string, bool>, std::string> converted; // (value, toHalf) -> name
    std::set<std::string> usedNames;
    for (const auto &n : model.graph().node())
        for (const auto &o : n.output())
            usedNames.insert(o);
    for (const auto &t : model.graph().initializer())
        usedNames.insert(t.name());
    onnx::GraphProto rebuilt;
    auto unique = [&](const std::string &hint) {
        std::string name = hint;
        for (int i = 1; !usedNames.insert(name).second; ++i)
            name = hint + "_" + std::to_string(i);
        return name;
    };
    auto convertValue = [&](const std::string &value, bool toHalf) -> std::string {
        auto key = std::make_pair(value, toHalf);
        auto it = converted.find(key);
        if (it != converted.end())
            return it->second;
        std::string name;
        auto init = inits.find(value);
        if (init != inits.end()) {
            torch::Tensor t = tensorFromProto(*init->second, "initializer").to(toHalf ? torch::kHalf : torch::kFloat);
            onnx::TensorProto *p = rebuilt.add_initializer();
            tensorToProto(t, p);
            name = unique(value + (toHalf ? "_fp16" : "_fp32"));
            p->set_name(name);
        } else {
            name = unique(value + (toHalf ? "_fp16" : "_fp32"));
            setInt(appendNode(rebuilt, "Cast", {value}, name), "to", toHalf ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT);
        }
        converted[key] = name;
        return name;
    };

    for (const auto &n : model.graph().node()) {
        onnx::NodeProto node = n;
        const bool half = !keepsFloat32(n);
        for (int i = 0; i < node.input_size(); ++i) {
            const std::string &value = n.input(i);
            if (value.empty())
                continue;
            auto type = types.find(value);
            if (type == types.end() || type->second != onnx::TensorProto::FLOAT)
                continue;
            if (inits.count(value)) {
                if (half) // float32 readers keep the original initializer
                    node.set_input(i, convertValue(value, true));
            } else if (isHalf[value] != half) {
                node.set_input(i, convertValue(value, half));
            }
        }
        if (n.op_type() == "Cast" && intAttribute(n, "to", 0) == onnx::TensorProto::FLOAT && half) {
            for (auto &a : *node.mutable_attribute())
                if (a.name() == "to")
                    a.set_i(onnx::TensorProto::FLOAT16);
        }
        for (const auto &o : n.output())
            isHalf[o] = half && types.at(o) == onnx::TensorProto::FLOAT;
        *rebuilt.add_node() = node;
    }
    // Float32 initializers that float32 nodes read unchanged.
    std::set<std::string> present;
    for (const auto &t : rebuilt.initializer())
        present.insert(t.name());
    for (const auto &n : rebuilt.node())
        for (const auto &i : n.input())
            if (inits.count(i) && !present.count(i)) {
                *rebuilt.add_initializer() = *inits[i];
                present.insert(i);
            }
    // Graph outputs: float32 again.
    for (const auto &o : graphOutputs) {
        if (!isHalf[o])
            continue;
        const std::string inner = unique(o + "_fp16");
        for (auto &n : *rebuilt.mutable_node())
            for (auto &i : *n.mutable_input())
                if (i == o)
                    i = inner;
        for (auto &n : *rebuilt.mutable_node())
            for (auto &x : *n.mutable_output())
                if (x == o)
                    x = inner;
        onnx::NodeProto &cast = appendNode(rebuilt, "Cast", {inner}, o);
        cast.set_name(o + "/cast_fp32");
        setInt(cast, "to", onnx::TensorProto::FLOAT);
    }
    g->clear_node();
    g->clear_initializer();
    for (const auto &n : rebuilt.node())
        *g->add_node() = n;
    for (const auto &t : rebuilt.initializer())
        *g->add_initializer() = t;
    g->clear_value_info();
    return out;
}

onnx::ModelProto quantizeOnnxQdq(const onnx::ModelProto &model, const std::vector<torch::Tensor> &calibration,
                                 const QuantizeOptions &options, QuantizeReport *report)
{
    if (options.method != "minmax" && options.method != "percentile" && options.method != "entropy")
        throw EngineError("calibration method '" + options.method + "' is unknown (minmax, percentile, entropy)");
    if (calibration.empty())
        throw EngineError("INT8 quantisation needs calibration images");

    onnx::ModelProto out = model;
    onnx::GraphProto *g = out.mutable_graph();
    std::unordered_map<std::string, const onnx::TensorProto *> inits;
    for (const auto &t : model.graph().initializer())
        inits[t.name()] = &t;
    std::set<std::string> graphOutputs;
    for (const auto &o : g->output())
        graphOutputs.insert(o.name());

    // 1. Relu after a quantisable node, as that node's only consumer, is absorbed: the node
    //    takes the Relu's output name and its QuantizeLinear (zero point at 0) clamps.
    auto consumersOf = [&](const onnx::GraphProto &graph) {
        std::unordered_map<std::string, std::vector<int>> consumers;
        for (int i = 0; i < graph.node_size(); ++i)
            for (const auto &in : graph.node(i).input())
                consumers[in].push_back(i);
        return consumers;
    };
    auto quantisable = [&](const onnx::NodeProto &n) {
        if (n.op_type() == "Conv" || n.op_type() == "Gemm")
            return n.input_size() >= 2 && inits.count(n.input(1)) != 0;
        if (n.op_type() == "MatMul")
            return inits.count(n.input(1)) != 0;
        if (n.op_type() == "Add") // residual sums of two activations
            return !inits.count(n.input(0)) && !inits.count(n.input(1));
        return false;
    };
    {
        auto consumers = consumersOf(*g);
        std::set<int> removed;
        for (int i = 0; i < g->node_size(); ++i) {
            onnx::NodeProto *n = g->mutable_node(i);
            if (!quantisable(*n) || graphOutputs.count(n->output(0)))
                continue;
            const auto &c = consumers[n->output(0)];
            if (c.size() != 1 || g->node(c[0]).op_type() != "Relu")
                continue;
            n->set_output(0, g->node(c[0]).output(0));
            removed.insert(c[0]);
        }
        onnx::GraphProto kept;
        for (int i = 0; i < g->node_size(); ++i)
            if (!removed.count(i))
                *kept.add_node() = g->node(i);
        g->clear_node();
        for (const auto &n : kept.node())
            *g->add_node() = n;
    }

    // 2. The activations to quantise: inputs and outputs of the quantisable nodes (graph
    //    outputs stay float).
    std::set<std::string> activations;
    for (const auto &n : g->node()) {
        if (!quantisable(n))
            continue;
        const int activationInputs = n.op_type() == "Add" ? 2 : 1;
        for (int i = 0; i < activationInputs; ++i)
            activations.insert(n.input(i));
        if (!graphOutputs.count(n.output(0)))
            activations.insert(n.output(0));
    }

    // 3. Calibration on the float model (same value names: absorbed Relus are observed under
    //    their own output names).
    RangeCalibrator calibrator(options.method, options.percentile);
    {
        OnnxReferenceRuntime runtime(model);
        const std::string input = [&] {
            for (const auto &i : model.graph().input())
                if (!inits.count(i.name()))
                    return i.name();
            return std::string();
        }();
        for (int pass = 0; pass < (calibrator.needsHistogramPass() ? 2 : 1); ++pass)
            for (const torch::Tensor &batch : calibration) {
                auto observe = [&](const std::string &name, const torch::Tensor &v) {
                    if (activations.count(name))
                        calibrator.observe(name, v, pass == 1);
                };
                observe(input, batch);
                runtime.run(batch, observe);
            }
    }
    std::unordered_map<std::string, QParams> params;
    for (const std::string &name : activations) {
        const auto [lo, hi] = calibrator.range(name, "INT8 calibration: value '" + name + "'");
        params[name] = uint8Params(lo, hi);
    }

    // 4. Rewrite: Q after each quantised activation, a DQ per consumer; int8 weights, int32 biases.
    OnnxGraph writer(g);
    onnx::GraphProto rebuilt;
    std::unordered_map<std::string, std::string> quantized; // activation -> its Q output
    std::set<std::string> droppedInits;
    auto paramNames = [&](const std::string &value) {
        const QParams &p = params.at(value);
        const std::string s = writer.initializer(value + "_scale", torch::scalar_tensor(p.scale, torch::kFloat));
        const std::string z = writer.initializer(value + "_zero_point", torch::scalar_tensor(int(p.zeroPoint), torch::kByte));
        return std::make_pair(s, z);
    };
    std::unordered_map<std::string, std::pair<std::string, std::string>> qpNames;
    auto addQuantize = [&](const std::string &value) {
        if (quantized.count(value) || !activations.count(value))
            return;
        qpNames[value] = paramNames(value);
        quantized[value] = appendNode(rebuilt, "QuantizeLinear", {value, qpNames[value].first, qpNames[value].second},
                                      writer.unique(value + "_quantized"))
                               .output(0);
    };
    auto dequantize = [&](const std::string &value) {
        return appendNode(rebuilt, "DequantizeLinear", {quantized.at(value), qpNames[value].first, qpNames[value].second},
                          writer.unique(value + "_dequantized"))
            .output(0);
    };
    auto dequantizeConstant = [&](const std::string &q, const std::string &scale, const std::string &zp, int axis,
                                  const std::string &hint) {
        onnx::NodeProto &dq = appendNode(rebuilt, "DequantizeLinear", {q, scale, zp}, writer.unique(hint));
        if (axis >= 0)
            setInt(dq, "axis", axis);
        return dq.output(0);
    };

    QuantizeReport r;
    r.calibrationImages = 0;
    for (const auto &b : calibration)
        r.calibrationImages += int(b.size(0));
    for (const auto &i : g->input())
        addQuantize(i.name());
    const onnx::GraphProto source = *g; // nodes after Relu absorption
    for (const auto &n : source.node()) {
        onnx::NodeProto node = n;
        // Every reader of a quantised activation reads it through its own DequantizeLinear (the
        // QDQ form runtimes fuse).
        for (int i = 0; i < n.input_size(); ++i)
            if (quantized.count(n.input(i)))
                node.set_input(i, dequantize(n.input(i)));
        if (quantisable(n)) {
            const bool weighted = n.op_type() != "Add";
            if (weighted) {
                const std::string &wName = n.input(1);
                const torch::Tensor w = tensorFromProto(*inits.at(wName), "weight").to(torch::kFloat);
                // Conv [O, I, kh, kw] and Gemm (transB) [O, I]: per output channel along axis 0;
                // MatMul [K, N]: per tensor.
                const bool perChannel = n.op_type() != "MatMul" &&
                                        (n.op_type() == "Conv" || intAttribute(n, "transB", 0) == 1);
                torch::Tensor absMax = perChannel ? w.abs().reshape({w.size(0), -1}).amax(1) : w.abs().max().reshape({});
                torch::Tensor scale = (absMax / 127.0).clamp_min(1e-12).to(torch::kFloat);
                std::vector<std::int64_t> shape(std::size_t(w.dim()), 1);
                if (perChannel)
                    shape[0] = w.size(0);
                torch::Tensor wq = torch::round(w / scale.reshape(perChannel ? shape : std::vector<std::int64_t>{}))
                                       .clamp(-127, 127)
                                       .to(torch::kChar);
                const std::string qName = writer.initializer(wName + "_quantized", wq);
                const std::string sName = writer.initializer(wName + "_scale", scale);
                const std::string zName = writer.initializer(wName + "_zero_point", torch::zeros(scale.sizes(), torch::kChar));
                node.set_input(1, dequantizeConstant(qName, sName, zName, perChannel ? 0 : -1, wName + "_dequantized"));
                droppedInits.insert(wName);
                if (n.input_size() > 2 && !n.input(2).empty() && n.op_type() != "MatMul") {
                    const std::string &bName = n.input(2);
                    const torch::Tensor b = tensorFromProto(*inits.at(bName), "bias").to(torch::kDouble);
                    const torch::Tensor bScale = (scale.to(torch::kDouble) * double(params.at(n.input(0)).scale)).expand_as(b);
                    torch::Tensor bq = torch::round(b / bScale).clamp(-2147483647.0, 2147483647.0).to(torch::kInt);
                    const std::string bq_ = writer.initializer(bName + "_quantized", bq);
                    const std::string bs = writer.initializer(bName + "_scale", bScale.to(torch::kFloat).contiguous());
                    const std::string bz = writer.initializer(bName + "_zero_point", torch::zeros(bScale.sizes(), torch::kInt));
                    node.set_input(2, dequantizeConstant(bq_, bs, bz, 0, bName + "_dequantized"));
                    droppedInits.insert(bName);
                }
            }
            ++r.quantizedNodes;
            ++r.quantizedOps[n.op_type()];
        } else {
            ++r.floatOps[n.op_type()];
        }
        *rebuilt.add_node() = node;
        addQuantize(n.output(0));
    }
    r.quantizedTensors = int(quantized.size());

    onnx::GraphProto final;
    for (const auto &t : g->initializer())
        if (!droppedInits.count(t.name()))
            *final.add_initializer() = t;
    g->clear_node();
    for (const auto &n : rebuilt.node())
        *g->add_node() = n;
    g->clear_initializer();
    for (const auto &t : final.initializer())
        *g->add_initializer() = t;
    g->clear_value_info();
    if (report)
        *report = r;
    return out;
}

} // namespace lathe::engine
