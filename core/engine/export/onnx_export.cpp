// ONNX graphs of the registry's architectures, written node by node from the built modules.

#include "engine/export/onnx_export.h"
#include "engine/export/onnx_graph.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace lathe::engine {
namespace {

// Reads the modules and tensors of a built classifier and writes its evaluation forward.
class FamilyWriter
{
public:
    FamilyWriter(models::Classifier &model, OnnxGraph &graph)
        : m_graph(graph)
    {
        for (const auto &item : model.named_modules("", /*include_self=*/false))
            m_modules[item.key()] = item.value();
        torch::NoGradGuard noGrad;
        for (const auto &item : model.named_parameters(/*recurse=*/true))
            m_tensors[item.key()] = item.value().detach().to(torch::kCPU, torch::kFloat).contiguous();
        for (const auto &item : model.named_buffers(/*recurse=*/true))
            if (item.value().is_floating_point())
                m_tensors[item.key()] = item.value().detach().to(torch::kCPU, torch::kFloat).contiguous();
    }

    bool has(const std::string &module) const { return m_modules.count(module) != 0; }

    template <typename T>
    T *module(const std::string &name) const
    {
        auto it = m_modules.find(name);
        T *typed = it == m_modules.end() ? nullptr : dynamic_cast<T *>(it->second.get());
        if (!typed)
            throw EngineError("ONNX export: module '" + name + "' is missing or of another type than expected");
        return typed;
    }

    torch::Tensor tensor(const std::string &name) const
    {
        auto it = m_tensors.find(name);
        if (it == m_tensors.end())
            throw EngineError("ONNX export: tensor '" + name + "' is missing");
        return it->second;
    }

    // Conv2d, with the BatchNorm2d that follows folded into its weights and bias.
    std::string conv(const std::string &x, const std::string &convName, const std::string &bnName = "",
                     const torch::Tensor &outputScale = {})
    {
        auto *c = module<torch::nn::Conv2dImpl>(convName);
        const auto &o = c->options;
        const auto *padding = compat::variantIf<torch::ExpandingArray<2>>(o.padding());
        if (!padding || !compat::variantIf<torch::enumtype::kZeros>(o.padding_mode()))
            throw EngineError("ONNX export: " + convName + " uses a padding mode the exporter does not write");
        torch::Tensor w = c->weight.detach().to(torch::kDouble);
        torch::Tensor b = c->bias.defined() ? c->bias.detach().to(torch::kDouble) : torch::zeros({w.size(0)}, torch::kDouble);
        if (!bnName.empty()) {
            auto *bn = module<torch::nn::BatchNorm2dImpl>(bnName);
            torch::Tensor scale = bn->weight.detach().to(torch::kDouble) /
                                  torch::sqrt(bn->running_var.detach().to(torch::kDouble) + bn->options.eps());
            w = w * scale.view({-1, 1, 1, 1});
            b = (b - bn->running_mean.detach().to(torch::kDouble)) * scale + bn->bias.detach().to(torch::kDouble);
        }
        if (outputScale.defined()) {
            w = w * outputScale.to(torch::kDouble).view({-1, 1, 1, 1});
            b = b * outputScale.to(torch::kDouble).view({-1});
        }
        const std::string node = convName;
        const std::string wName = m_graph.initializer(node + ".weight", w.to(torch::kFloat));
        const std::string bName = m_graph.initializer(node + ".bias", b.to(torch::kFloat));
        onnx::NodeProto &n = m_graph.node("Conv", {x, wName, bName}, node);
        const auto &k = o.kernel_size(), &s = o.stride(), &d = o.dilation();
        setInts(n, "kernel_shape", {(*k)[0], (*k)[1]});
        setInts(n, "strides", {(*s)[0], (*s)[1]});
        setInts(n, "pads", {(**padding)[0], (**padding)[1], (**padding)[0], (**padding)[1]});
        setInts(n, "dilations", {(*d)[0], (*d)[1]});
        setInt(n, "group", o.groups());
        return n.output(0);
    }

    // A Linear as a 1x1 convolution (NCHW input), optionally scaled per output channel.
    std::string linearAsConv(const std::string &x, const std::string &name, const torch::Tensor &outputScale = {})
    {
        auto *l = module<torch::nn::LinearImpl>(name);
        torch::Tensor w = l->weight.detach().to(torch::kFloat);
        torch::Tensor b = l->bias.detach().to(torch::kFloat);
        if (outputScale.defined()) {
            w = w * outputScale.view({-1, 1});
            b = b * outputScale.view({-1});
        }
        const std::string wName = m_graph.initializer(name + ".weight", w.unsqueeze(-1).unsqueeze(-1).contiguous());
        const std::string bName = m_graph.initializer(name + ".bias", b.contiguous());
        onnx::NodeProto &n = m_graph.node("Conv", {x, wName, bName}, name);
        setInts(n, "kernel_shape", {1, 1});
        setInts(n, "strides", {1, 1});
        setInts(n, "pads", {0, 0, 0, 0});
        setInts(n, "dilations", {1, 1});
        setInt(n, "group", 1);
        return n.output(0);
    }

    // A Linear on [N, D]: Gemm with the weight transposed in the node.
    std::string gemm(const std::string &x, const std::string &name)
    {
        auto *l = module<torch::nn::LinearImpl>(name);
        const std::string wName = m_graph.initializer(name + ".weight", l->weight.detach().to(torch::kFloat));
        const std::string bName = m_graph.initializer(name + ".bias", l->bias.detach().to(torch::kFloat));
        onnx::NodeProto &n = m_graph.node("Gemm", {x, wName, bName}, name);
        setInt(n, "transB", 1);
        return n.output(0);
    }

    // A Linear on [N, T, D] (or a slice of its rows): MatMul with the transposed weight, then the bias.
    std::string matmulLinear(const std::string &x, const std::string &name, torch::Tensor w, torch::Tensor b)
    {
        const std::string wName = m_graph.initializer(name + ".weight_t", w.to(torch::kFloat).t().contiguous());
        const std::string bName = m_graph.initializer(name + ".bias", b.to(torch::kFloat).contiguous());
        const std::string y = m_graph.op("MatMul", {x, wName}, name + "/matmul");
        return m_graph.op("Add", {y, bName}, name + "/bias");
    }

    std::string matmulLinear(const std::string &x, const std::string &name)
    {
        auto *l = module<torch::nn::LinearImpl>(name);
        return matmulLinear(x, name, l->weight.detach(), l->bias.detach());
    }

    // LayerNorm over one axis (-1: tokens [N, T, D]; 1: channels of NCHW), decomposed into
    // opset-13 ops that every runtime reads.
    std::string layerNorm(const std::string &x, const std::string &name, int axis)
    {
        auto *ln = module<torch::nn::LayerNormImpl>(name);
        torch::Tensor gamma = ln->weight.detach().to(torch::kFloat), beta = ln->bias.detach().to(torch::kFloat);
        if (axis == 1) {
            gamma = gamma.view({-1, 1, 1});
            beta = beta.view({-1, 1, 1});
        }
        onnx::NodeProto &mean = m_graph.node("ReduceMean", {x}, name + "/mean");
        setInts(mean, "axes", {axis});
        setInt(mean, "keepdims", 1);
        const std::string d = m_graph.op("Sub", {x, mean.output(0)}, name + "/centered");
        const std::string sq = m_graph.op("Mul", {d, d}, name + "/squared");
        onnx::NodeProto &var = m_graph.node("ReduceMean", {sq}, name + "/variance");
        setInts(var, "axes", {axis});
        setInt(var, "keepdims", 1);
        const std::string eps = m_graph.scalar(name + ".eps", float(ln->options.eps()));
        const std::string sd = m_graph.op("Sqrt", {m_graph.op("Add", {var.output(0), eps}, name + "/var_eps")}, name + "/std");
        const std::string y = m_graph.op("Div", {d, sd}, name + "/normalized");
        const std::string g = m_graph.op("Mul", {y, m_graph.initializer(name + ".weight", gamma.contiguous())}, name + "/scaled");
        return m_graph.op("Add", {g, m_graph.initializer(name + ".bias", beta.contiguous())}, name);
    }

    std::string relu(const std::string &x) { return m_graph.op("Relu", {x}, x + "/relu"); }

    std::string hardswish(const std::string &x)
    {
        onnx::NodeProto &hs = m_graph.node("HardSigmoid", {x}, x + "/hardsigmoid");
        setFloat(hs, "alpha", 1.0f / 6.0f);
        setFloat(hs, "beta", 0.5f);
        return m_graph.op("Mul", {x, hs.output(0)}, x + "/hardswish");
    }

    std::string silu(const std::string &x)
    {
        return m_graph.op("Mul", {x, m_graph.op("Sigmoid", {x}, x + "/sigmoid")}, x + "/silu");
    }

    // Exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
    std::string gelu(const std::string &x)
    {
        const std::string e = m_graph.op("Erf", {m_graph.op("Div", {x, m_graph.scalar("const.sqrt2", float(std::sqrt(2.0)))}, x + "/gelu_div")},
                                         x + "/gelu_erf");
        const std::string h = m_graph.op("Add", {e, m_graph.scalar("const.one", 1.0f)}, x + "/gelu_add");
        const std::string xh = m_graph.op("Mul", {x, h}, x + "/gelu_mul");
        return m_graph.op("Mul", {xh, m_graph.scalar("const.half", 0.5f)}, x + "/gelu");
    }

    std::string globalPoolFlatten(const std::string &x)
    {
        const std::string p = m_graph.op("GlobalAveragePool", {x}, "pool");
        onnx::NodeProto &f = m_graph.node("Flatten", {p}, "pool/flatten");
        setInt(f, "axis", 1);
        return f.output(0);
    }

    // The optional hidden layer (Linear + ReLU) and the final Linear; dropout is an identity.
    std::string head(const std::string &x, const BackboneInfo &info)
    {
        std::string y = x;
        if (has("head_hidden"))
            y = relu(gemm(y, "head_hidden"));
        const std::string &weight = info.headParameters.at(0);
        return gemm(y, weight.substr(0, weight.rfind('.')));
    }

    OnnxGraph &graph() { return m_graph; }

private:
    OnnxGraph &m_graph;
    std::map<std::string, std::shared_ptr<torch::nn::Module>> m_modules;
    std::map<std::string, torch::Tensor> m_tensors;
};

std::string writeResNet(FamilyWriter &w, const std::string &input, const BackboneInfo &info)
{
    OnnxGraph &g = w.graph();
    std::string x = w.relu(w.conv(input, "conv1", "bn1"));
    onnx::NodeProto &pool = g.node("MaxPool", {x}, "maxpool");
    setInts(pool, "kernel_shape", {3, 3});
    setInts(pool, "strides", {2, 2});
    setInts(pool, "pads", {1, 1, 1, 1});
    x = pool.output(0);
    for (int layer = 1; layer <= 4; ++layer)
        for (int b = 0; w.has("layer" + std::to_string(layer) + "." + std::to_string(b)); ++b) {
            const std::string p = "layer" + std::to_string(layer) + "." + std::to_string(b) + ".";
            std::string out = w.relu(w.conv(x, p + "conv1", p + "bn1"));
            out = w.conv(out, p + "conv2", p + "bn2");
            if (w.has(p + "conv3"))
                out = w.conv(w.relu(out), p + "conv3", p + "bn3");
            const std::string skip = w.has(p + "downsample") ? w.conv(x, p + "downsample.0", p + "downsample.1") : x;
            x = w.relu(g.op("Add", {out, skip}, p + "add"));
        }
    return w.head(w.globalPoolFlatten(x), info);
}

enum class Act { None, ReLU, Hardswish, SiLU };

std::string activate(FamilyWriter &w, Act a, const std::string &x)
{
    switch (a) {
    case Act::ReLU:
        return w.relu(x);
    case Act::Hardswish:
        return w.hardswish(x);
    case Act::SiLU:
        return w.silu(x);
    case Act::None:
        break;
    }
    return x;
}

// MobileNetV3's InvertedResidual and EfficientNet's MBConv: "<p>block.<j>" is a
// Conv2dNormActivation ("0" conv, "1" BatchNorm) or a SqueezeExcitation ("fc1", "fc2"); the
// last one projects without activation.
std::string writeInvertedResidual(FamilyWriter &w, const std::string &input, const std::string &p, Act act,
                                  bool efficientNet)
{
    OnnxGraph &g = w.graph();
    int count = 0;
    while (w.has(p + "block." + std::to_string(count)))
        ++count;
    std::string x = input;
    bool stride1 = true;
    std::int64_t inChannels = -1, outChannels = -1;
    for (int j = 0; j < count; ++j) {
        const std::string s = p + "block." + std::to_string(j) + ".";
        if (w.has(s + "fc1")) {
            const std::string pooled = g.op("GlobalAveragePool", {x}, s + "pool");
            std::string scale = w.conv(pooled, s + "fc1");
            scale = efficientNet ? w.silu(scale) : w.relu(scale);
            scale = w.conv(scale, s + "fc2");
            if (efficientNet) {
                scale = g.op("Sigmoid", {scale}, s + "gate");
            } else {
                onnx::NodeProto &hs = g.node("HardSigmoid", {scale}, s + "gate");
                setFloat(hs, "alpha", 1.0f / 6.0f);
                setFloat(hs, "beta", 0.5f);
                scale = hs.output(0);
            }
            // scale * x, in this order: OpenCV DNN 4.6 mis-broadcasts Mul(x [N,C,H,W], scale [N,C,1,1]).
            x = g.op("Mul", {scale, x}, s + "scale");
            continue;
        }
        auto *c = w.module<torch::nn::Conv2dImpl>(s + "0");
        if (inChannels < 0)
            inChannels = c->options.in_channels();
        outChannels = c->options.out_channels();
        stride1 = stride1 && (*c->options.stride())[0] == 1 && (*c->options.stride())[1] == 1;
        x = w.conv(x, s + "0", s + "1");
        if (j + 1 < count)
            x = activate(w, act, x);
    }
    if (stride1 && inChannels == outChannels)
        x = g.op("Add", {x, input}, p + "add");
    return x;
}

std::string writeMobileNetOrEfficientNet(FamilyWriter &w, const std::string &input, const BackboneInfo &info)
{
    const bool efficientNet = info.family == "EfficientNet";
    const Act outer = efficientNet ? Act::SiLU : Act::Hardswish;
    // MobileNetV3's blocks use ReLU up to this feature index and Hardswish after it (paper tables 1, 2).
    const int lastReluBlock = info.name == "mobilenet_v3_small" ? 3 : 6;
    std::string x = input;
    for (int i = 0; w.has("features." + std::to_string(i)); ++i) {
        const std::string f = "features." + std::to_string(i) + ".";
        if (w.has(f + "block")) {
            x = writeInvertedResidual(w, x, f, i <= lastReluBlock ? Act::ReLU : Act::Hardswish, false);
        } else if (w.has(f + "0.block")) {
            for (int b = 0; w.has(f + std::to_string(b)); ++b)
                x = writeInvertedResidual(w, x, f + std::to_string(b) + ".", Act::SiLU, true);
        } else {
            x = activate(w, outer, w.conv(x, f + "0", f + "1"));
        }
    }
    x = w.globalPoolFlatten(x);
    if (!efficientNet)
        x = w.hardswish(w.gemm(x, "classifier.0"));
    return w.head(x, info);
}

std::string writeConvNeXt(FamilyWriter &w, const std::string &input, const BackboneInfo &info)
{
    OnnxGraph &g = w.graph();
    std::string x = w.layerNorm(w.conv(input, "features.0.0"), "features.0.1", 1);
    for (int i = 1; w.has("features." + std::to_string(i)); ++i) {
        const std::string f = "features." + std::to_string(i) + ".";
        if (w.has(f + "0.block")) {
            for (int b = 0; w.has(f + std::to_string(b)); ++b) {
                const std::string p = f + std::to_string(b) + ".";
                std::string y = w.conv(x, p + "block.0");
                y = w.layerNorm(y, p + "block.2", 1);
                // The block's Linear layers act on channels: 1x1 convolutions in NCHW, with the
                // layer scale folded into the second.
                y = w.gelu(w.linearAsConv(y, p + "block.3"));
                y = w.linearAsConv(y, p + "block.5", w.tensor(p + "layer_scale").reshape({-1}));
                x = g.op("Add", {y, x}, p + "add");
            }
        } else {
            x = w.conv(w.layerNorm(x, f + "0", 1), f + "1");
        }
    }
    const std::string pooled = g.op("GlobalAveragePool", {x}, "pool");
    onnx::NodeProto &flat = g.node("Flatten", {w.layerNorm(pooled, "classifier.0", 1)}, "pool/flatten");
    setInt(flat, "axis", 1);
    return w.head(flat.output(0), info);
}

std::string writeVisionTransformer(FamilyWriter &w, const std::string &input, const BackboneInfo &info)
{
    OnnxGraph &g = w.graph();
    auto *proj = w.module<torch::nn::Conv2dImpl>("conv_proj");
    const std::int64_t dim = proj->options.out_channels();

    std::string x = w.conv(input, "conv_proj");
    x = g.op("Reshape", {x, g.constInt64("shape.tokens", {0, dim, -1})}, "tokens");
    onnx::NodeProto &t = g.node("Transpose", {x}, "tokens/transpose");
    setInts(t, "perm", {0, 2, 1});
    x = t.output(0);

    // The class token, expanded to the batch: shape [N, 1, D] from the input's batch size.
    const std::string shape = g.op("Shape", {input}, "class_token/input_shape");
    onnx::NodeProto &batch = g.node("Slice", {shape, g.constInt64("const.start0", {0}), g.constInt64("const.end1", {1})},
                                    "class_token/batch");
    const std::string target = g.op("Concat", {batch.output(0), g.constInt64("shape.class_token_rest", {1, dim})},
                                    "class_token/shape");
    setInt(g.lastNode(), "axis", 0);
    const std::string cls = g.op("Expand", {g.initializer("class_token", w.tensor("class_token")), target}, "class_token/expand");
    x = g.op("Concat", {cls, x}, "tokens/with_class");
    setInt(g.lastNode(), "axis", 1);
    x = g.op("Add", {x, g.initializer("encoder.pos_embedding", w.tensor("encoder.pos_embedding"))}, "tokens/position");

    for (int i = 0; w.has("encoder.layers.encoder_layer_" + std::to_string(i)); ++i) {
        const std::string p = "encoder.layers.encoder_layer_" + std::to_string(i) + ".";
        const std::string a = p + "self_attention.";
        const torch::Tensor inW = w.tensor(a + "in_proj_weight"), inB = w.tensor(a + "in_proj_bias");
        // Heads: from the block's configuration (ViT-B: 12); hd = D / heads.
        const std::int64_t heads = 12, hd = dim / heads;
        const float scale = float(1.0 / std::sqrt(double(hd)));
        const std::string h = w.layerNorm(x, p + "ln_1", -1);
        // q is scaled in its weights (as the attention scales q before the product).
        std::string q = w.matmulLinear(h, a + "q", inW.slice(0, 0, dim) * scale, inB.slice(0, 0, dim) * scale);
        std::string k = w.matmulLinear(h, a + "k", inW.slice(0, dim, 2 * dim), inB.slice(0, dim, 2 * dim));
        std::string v = w.matmulLinear(h, a + "v", inW.slice(0, 2 * dim), inB.slice(0, 2 * dim));
        const std::string headShape = g.constInt64("shape.heads", {0, 0, heads, hd});
        auto split = [&](const std::string &z, const std::string &name, std::vector<std::int64_t> perm) {
            const std::string r = g.op("Reshape", {z, headShape}, a + name + "/heads");
            onnx::NodeProto &tr = g.node("Transpose", {r}, a + name + "/transpose");
            setInts(tr, "perm", perm);
            return tr.output(0);
        };
        q = split(q, "q", {0, 2, 1, 3});
        k = split(k, "k", {0, 2, 3, 1});
        v = split(v, "v", {0, 2, 1, 3});
        const std::string scores = g.op("MatMul", {q, k}, a + "scores");
        const std::string probs = g.op("Softmax", {scores}, a + "softmax");
        setInt(g.lastNode(), "axis", -1);
        std::string o = g.op("MatMul", {probs, v}, a + "context");
        onnx::NodeProto &ot = g.node("Transpose", {o}, a + "context/transpose");
        setInts(ot, "perm", {0, 2, 1, 3});
        o = g.op("Reshape", {ot.output(0), g.constInt64("shape.merge_heads", {0, 0, dim})}, a + "context/merge");
        o = w.matmulLinear(o, a + "out_proj");
        x = g.op("Add", {o, x}, p + "attention_residual");
        std::string m = w.layerNorm(x, p + "ln_2", -1);
        m = w.matmulLinear(w.gelu(w.matmulLinear(m, p + "mlp.0")), p + "mlp.3");
        x = g.op("Add", {x, m}, p + "mlp_residual");
    }
    x = w.layerNorm(x, "encoder.ln", -1);
    const std::string cls0 = g.op("Gather", {x, g.constInt64Scalar("const.index0", 0)}, "class_token/select");
    setInt(g.lastNode(), "axis", 1);
    return w.head(cls0, info);
}

void setValueInfo(onnx::ValueInfoProto *value, const std::string &name, int elemType, const std::vector<std::int64_t> &dims)
{
    value->set_name(name);
    auto *tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elemType);
    auto *shape = tensor->mutable_shape();
    for (std::int64_t d : dims) {
        auto *dim = shape->add_dim();
        if (d < 0)
            dim->set_dim_param("batch");
        else
            dim->set_dim_value(d);
    }
}

} // namespace

onnx::ModelProto buildOnnxModel(models::Classifier &model, const BackboneInfo &info, const OnnxGraphOptions &options)
{
    if (options.imageSize < 8 || options.imageSize > 4096)
        throw EngineError("ONNX export: image size " + std::to_string(options.imageSize) + " is out of range");
    onnx::ModelProto proto;
    proto.set_ir_version(7);
    proto.set_producer_name("Lathe");
    proto.set_model_version(1);
    proto.set_doc_string("Image classifier " + info.name + " exported by Lathe");
    auto *opset = proto.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    onnx::GraphProto *graphProto = proto.mutable_graph();
    graphProto->set_name(info.name);
    OnnxGraph graph(graphProto);

    const int c = options.inChannels, s = options.imageSize;
    std::string x = "input";
    if (options.preprocessing) {
        setValueInfo(graphProto->add_input(), "input", onnx::TensorProto::UINT8, {-1, s, s, c});
        x = graph.op("Cast", {x}, "preprocess/cast");
        setInt(graph.lastNode(), "to", onnx::TensorProto::FLOAT);
        onnx::NodeProto &t = graph.node("Transpose", {x}, "preprocess/nchw");
        setInts(t, "perm", {0, 3, 1, 2});
        torch::Tensor scale = torch::empty({c, 1, 1}), shift = torch::empty({c, 1, 1});
        for (int i = 0; i < c; ++i) {
            const std::size_t k = std::size_t(std::min(i, 2));
            scale[i] = 1.0 / (255.0 * options.std[k]);
            shift[i] = -options.mean[k] / options.std[k];
        }
        x = graph.op("Mul", {t.output(0), graph.initializer("preprocess.scale", scale)}, "preprocess/scale");
        x = graph.op("Add", {x, graph.initializer("preprocess.shift", shift)}, "preprocess/normalized");
    } else {
        setValueInfo(graphProto->add_input(), "input", onnx::TensorProto::FLOAT, {-1, c, s, s});
    }

    FamilyWriter writer(model, graph);
    std::string logits;
    if (info.family == "ResNet")
        logits = writeResNet(writer, x, info);
    else if (info.family == "MobileNetV3" || info.family == "EfficientNet")
        logits = writeMobileNetOrEfficientNet(writer, x, info);
    else if (info.family == "ConvNeXt")
        logits = writeConvNeXt(writer, x, info);
    else if (info.family == "ViT")
        logits = writeVisionTransformer(writer, x, info);
    else
        throw EngineError("ONNX export: architecture family '" + info.family + "' (" + info.name + ") is not supported");

    const std::string outputName = options.softmax ? "probabilities" : "logits";
    if (options.softmax && options.sigmoid) {
        graph.renameOutput(graph.op("Sigmoid", {logits}, "sigmoid"), outputName);
    } else if (options.softmax) {
        graph.renameOutput(graph.op("Softmax", {logits}, "softmax"), outputName);
        setInt(graph.lastNode(), "axis", 1);
    } else {
        graph.renameOutput(logits, outputName);
    }
    const std::int64_t classes = model.named_parameters()[info.headParameters.at(1)].size(0);
    setValueInfo(graphProto->add_output(), outputName, onnx::TensorProto::FLOAT, {-1, classes});

    for (const auto &[key, value] : options.metadata) {
        auto *prop = proto.add_metadata_props();
        prop->set_key(key);
        prop->set_value(value);
    }
    return proto;
}

onnx::ModelProto withFixedBatch(const onnx::ModelProto &model, std::int64_t batch)
{
    onnx::ModelProto copy = model;
    auto pin = [batch](onnx::ValueInfoProto &v) {
        auto *shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() > 0 && shape->dim(0).has_dim_param())
            shape->mutable_dim(0)->set_dim_value(batch);
    };
    for (auto &v : *copy.mutable_graph()->mutable_input())
        pin(v);
    for (auto &v : *copy.mutable_graph()->mutable_output())
        pin(v);
    return copy;
}

} // namespace lathe::engine
