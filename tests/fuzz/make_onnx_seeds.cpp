// Writes the seeds of the onnx fuzz target (make_corpus.py runs it): two small classifier
// graphs written with Lathe's own ONNX graph writer (OnnxGraph) in the ops its exporter uses
// (a convolutional one, a transformer-like one with the shape ops), each as float32, as
// Lathe's FP16 conversion and as Lathe's INT8 QDQ quantisation writes it.
// Usage: make_onnx_seeds FOLDER
#include "engine/export/onnx_export.h"
#include "engine/export/onnx_graph.h"

#include <torch/torch.h>

#include <cstdio>
#include <fstream>

using namespace lathe::engine;

namespace {

void valueInfo(onnx::ValueInfoProto *value, const std::string &name, const std::vector<std::int64_t> &dims)
{
    value->set_name(name);
    auto *tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    for (std::int64_t d : dims) {
        auto *dim = tensor->mutable_shape()->add_dim();
        if (d < 0)
            dim->set_dim_param("batch");
        else
            dim->set_dim_value(d);
    }
}

onnx::ModelProto model(const std::string &name)
{
    onnx::ModelProto proto;
    proto.set_ir_version(7);
    proto.set_producer_name("Lathe");
    auto *opset = proto.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    proto.mutable_graph()->set_name(name);
    valueInfo(proto.mutable_graph()->add_input(), "input", {-1, 3, 8, 8});
    auto *prop = proto.add_metadata_props();
    prop->set_key("lathe.image_size");
    prop->set_value("8");
    return proto;
}

onnx::ModelProto convolutional()
{
    onnx::ModelProto proto = model("conv");
    OnnxGraph g(proto.mutable_graph());
    onnx::NodeProto &conv = g.node("Conv", {"input", g.initializer("conv.w", torch::randn({4, 3, 3, 3})),
                                            g.initializer("conv.b", torch::randn({4}))}, "conv");
    setInts(conv, "pads", {1, 1, 1, 1});
    setInts(conv, "strides", {2, 2});
    std::string x = g.op("Relu", {conv.output(0)}, "relu");
    onnx::NodeProto &pool = g.node("MaxPool", {x}, "pool");
    setInts(pool, "kernel_shape", {2, 2});
    setInts(pool, "strides", {2, 2});
    x = g.op("HardSigmoid", {pool.output(0)}, "hsig");
    x = g.op("Mul", {x, pool.output(0)}, "hswish");
    x = g.op("GlobalAveragePool", {x}, "gap");
    x = g.op("Flatten", {x}, "flatten");
    onnx::NodeProto &fc = g.node("Gemm", {x, g.initializer("fc.w", torch::randn({5, 4})), g.initializer("fc.b", torch::randn({5}))}, "fc");
    setInt(fc, "transB", 1);
    g.renameOutput(fc.output(0), "logits");
    valueInfo(proto.mutable_graph()->add_output(), "logits", {-1, 5});
    return proto;
}

onnx::ModelProto transformerLike()
{
    onnx::ModelProto proto = model("tokens");
    OnnxGraph g(proto.mutable_graph());
    // [N, 3, 8, 8] -> [N, 3, 64] -> [N, 64, 3] tokens of width 3 -> width 4.
    std::string x = g.op("Reshape", {"input", g.constInt64("shape.tokens", {0, 3, 64})}, "tokens");
    onnx::NodeProto &t = g.node("Transpose", {x}, "tokens_t");
    setInts(t, "perm", {0, 2, 1});
    x = g.op("MatMul", {t.output(0), g.initializer("proj.w", torch::randn({3, 4}))}, "proj");
    x = g.op("Add", {x, g.initializer("proj.b", torch::randn({4}))}, "proj_b");
    // A class token expanded over the batch and put in front.
    const std::string n = g.op("Gather", {g.op("Shape", {x}, "shape"), g.constInt64Scalar("const.index0", 0)}, "batch");
    const std::string n1 = g.op("Reshape", {n, g.constInt64("shape.one", {1})}, "batch1");
    onnx::NodeProto &shape = g.node("Concat", {n1, g.constInt64("shape.rest", {1, 4})}, "cls_shape");
    setInt(shape, "axis", 0);
    const std::string size = shape.output(0);
    const std::string cls = g.op("Expand", {g.initializer("cls", torch::randn({1, 1, 4})), size}, "cls");
    onnx::NodeProto &cat = g.node("Concat", {cls, x}, "with_cls");
    setInt(cat, "axis", 1);
    // Layer norm as the exporter writes it.
    onnx::NodeProto &mean = g.node("ReduceMean", {cat.output(0)}, "ln_mean");
    setInts(mean, "axes", {-1});
    const std::string centred = g.op("Sub", {cat.output(0), mean.output(0)}, "ln_centred");
    onnx::NodeProto &var = g.node("ReduceMean", {g.op("Mul", {centred, centred}, "ln_sq")}, "ln_var");
    setInts(var, "axes", {-1});
    const std::string sd = g.op("Sqrt", {g.op("Add", {var.output(0), g.scalar("const.eps", 1e-6f)}, "ln_var_eps")}, "ln_sd");
    x = g.op("Div", {centred, sd}, "ln");
    // GELU: x * 0.5 * (1 + erf(x / sqrt 2)).
    const std::string erf = g.op("Erf", {g.op("Div", {x, g.scalar("const.sqrt2", 1.4142135f)}, "gelu_scaled")}, "gelu_erf");
    x = g.op("Mul", {g.op("Mul", {x, g.scalar("const.half", 0.5f)}, "gelu_half"), g.op("Add", {erf, g.scalar("const.one", 1.0f)}, "gelu_1")}, "gelu");
    x = g.op("Sigmoid", {x}, "gate");
    const std::string first = g.op("Slice", {x, g.constInt64("slice.start", {0}), g.constInt64("slice.end", {1}),
                                             g.constInt64("slice.axis", {1})}, "cls_out");
    x = g.op("Reshape", {first, g.constInt64("shape.flat", {-1, 4})}, "cls_flat");
    x = g.op("Identity", {x}, "cls_id");
    onnx::NodeProto &head = g.node("Gemm", {x, g.initializer("head.w", torch::randn({4, 5}))}, "head");
    onnx::NodeProto &softmax = g.node("Softmax", {head.output(0)}, "softmax");
    setInt(softmax, "axis", 1);
    g.renameOutput(softmax.output(0), "probabilities");
    valueInfo(proto.mutable_graph()->add_output(), "probabilities", {-1, 5});
    return proto;
}

void write(const std::string &path, const onnx::ModelProto &model)
{
    checkOnnxModel(model, path);
    std::ofstream(path, std::ios::binary) << serializeOnnx(model);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_onnx_seeds FOLDER\n");
        return 2;
    }
    torch::manual_seed(0);
    const std::string dir = argv[1];
    const std::vector<torch::Tensor> calibration{torch::rand({2, 3, 8, 8})};
    for (const auto &[name, graph] : {std::pair{"conv", convolutional()}, std::pair{"tokens", transformerLike()}}) {
        write(dir + "/" + name + ".onnx", graph);
        write(dir + "/" + name + ".fp16.onnx", convertOnnxToFloat16(graph));
        QuantizeReport report;
        write(dir + "/" + name + ".int8.onnx", quantizeOnnxQdq(graph, calibration, QuantizeOptions{}, &report));
    }
    return 0;
}
