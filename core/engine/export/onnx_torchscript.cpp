// TorchScript from an ONNX graph: LibTorch cannot trace or script a C++ nn::Module, but it can
// compile TorchScript source (torch::jit::Module::define). The graph Lathe writes for ONNX
// (BatchNorm folded, evaluation semantics) is turned into that source op by op, and its
// initializers become the module's buffers, so the .pt file loads in Python and LibTorch alike.

#include "engine/export/export_job.h"
#include "engine/export/onnx_export.h"
#include "engine/export/onnx_graph.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"

#include <torch/csrc/jit/api/module.h>

#include <sstream>
#include <unordered_map>

namespace lathe::engine {
namespace {

std::string list(const std::vector<std::int64_t> &values)
{
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + std::to_string(values[i]);
    return out + "]";
}

std::string floatLiteral(double v)
{
    std::ostringstream s;
    s.precision(9);
    s << v;
    std::string text = s.str();
    if (text.find_first_of(".eEn") == std::string::npos)
        text += ".0";
    return text;
}

} // namespace

void writeTorchScriptFromOnnx(const onnx::ModelProto &model, const std::string &path)
{
    const onnx::GraphProto &g = model.graph();
    std::unordered_map<std::string, torch::Tensor> inits;
    for (const auto &t : g.initializer())
        inits[t.name()] = tensorFromProto(t, "ONNX initializer");

    torch::jit::Module module("__torch__.lathe.ExportedClassifier");
    std::unordered_map<std::string, std::string> names; // ONNX value -> TorchScript expression
    int counter = 0;
    auto buffer = [&](const std::string &init) {
        auto it = names.find(init);
        if (it != names.end())
            return it->second;
        const std::string attr = "c" + std::to_string(counter++);
        module.register_buffer(attr, inits.at(init));
        return names[init] = "self." + attr;
    };
    auto ints = [&](const std::string &init) {
        torch::Tensor t = inits.at(init).to(torch::kLong).contiguous().view({-1});
        return std::vector<std::int64_t>(t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel());
    };
    std::string input;
    for (const auto &i : g.input())
        if (!inits.count(i.name())) {
            input = i.name();
            break;
        }
    names[input] = "x";

    std::ostringstream src;
    src << "def forward(self, x: Tensor) -> Tensor:\n";
    std::unordered_map<std::string, bool> isList; // values held as List[int] (shapes)
    int v = 0;
    for (const auto &n : g.node()) {
        const std::string &op = n.op_type();
        auto in = [&](int i) -> std::string {
            const std::string &name = n.input(i);
            if (inits.count(name))
                return buffer(name);
            auto it = names.find(name);
            if (it == names.end())
                throw EngineError("TorchScript export: value '" + name + "' is used before it is computed");
            return it->second;
        };
        const std::string out = "v" + std::to_string(v++);
        std::string expr;
        if (op == "Conv") {
            std::vector<std::int64_t> pads = intsAttribute(n, "pads"), strides = intsAttribute(n, "strides"),
                                      dil = intsAttribute(n, "dilations");
            if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3])
                throw EngineError("TorchScript export: asymmetric convolution padding in '" + n.name() + "'");
            expr = "torch.conv2d(" + in(0) + ", " + in(1) + ", " + (n.input_size() > 2 ? in(2) : "None") + ", " +
                   list(strides.empty() ? std::vector<std::int64_t>{1, 1} : strides) + ", " + list({pads[0], pads[1]}) + ", " +
                   list(dil.empty() ? std::vector<std::int64_t>{1, 1} : dil) + ", " + std::to_string(intAttribute(n, "group", 1)) +
                   ")";
        } else if (op == "Relu") {
            expr = "torch.relu(" + in(0) + ")";
        } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
            const char *sym = op == "Add" ? " + " : op == "Sub" ? " - " : op == "Mul" ? " * " : " / ";
            expr = in(0) + sym + in(1);
        } else if (op == "Sigmoid" || op == "Erf" || op == "Sqrt") {
            std::string f = op == "Sigmoid" ? "sigmoid" : op == "Erf" ? "erf" : "sqrt";
            expr = "torch." + f + "(" + in(0) + ")";
        } else if (op == "HardSigmoid") {
            expr = "torch.clamp(" + in(0) + " * " + floatLiteral(floatAttribute(n, "alpha", 0.2f)) + " + " +
                   floatLiteral(floatAttribute(n, "beta", 0.5f)) + ", 0.0, 1.0)";
        } else if (op == "GlobalAveragePool") {
            expr = "torch.mean(" + in(0) + ", [2, 3], True)";
        } else if (op == "MaxPool") {
            std::vector<std::int64_t> p = intsAttribute(n, "pads");
            expr = "torch.max_pool2d(" + in(0) + ", " + list(intsAttribute(n, "kernel_shape")) + ", " +
                   list(intsAttribute(n, "strides")) + ", " + list({p.at(0), p.at(1)}) + ", [1, 1], " +
                   (intAttribute(n, "ceil_mode", 0) ? "True" : "False") + ")";
        } else if (op == "Flatten") {
            expr = "torch.flatten(" + in(0) + ", " + std::to_string(intAttribute(n, "axis", 1)) + ")";
        } else if (op == "Gemm") {
            if (intAttribute(n, "transA", 0) || floatAttribute(n, "alpha", 1) != 1 || floatAttribute(n, "beta", 1) != 1)
                throw EngineError("TorchScript export: Gemm '" + n.name() + "' has options the exporter does not write");
            const std::string b = intAttribute(n, "transB", 0) ? in(1) : "torch.t(" + in(1) + ")";
            expr = "torch.linear(" + in(0) + ", " + b + ", " + (n.input_size() > 2 ? in(2) : "None") + ")";
        } else if (op == "MatMul") {
            expr = "torch.matmul(" + in(0) + ", " + in(1) + ")";
        } else if (op == "Softmax") {
            expr = "torch.softmax(" + in(0) + ", " + std::to_string(intAttribute(n, "axis", -1)) + ")";
        } else if (op == "ReduceMean") {
            expr = "torch.mean(" + in(0) + ", " + list(intsAttribute(n, "axes")) + ", " +
                   (intAttribute(n, "keepdims", 1) ? "True" : "False") + ")";
        } else if (op == "Reshape") {
            const std::vector<std::int64_t> shape = ints(n.input(1));
            std::string dims = "[";
            for (std::size_t i = 0; i < shape.size(); ++i)
                dims += (i ? ", " : "") + (shape[i] == 0 ? in(0) + ".size(" + std::to_string(i) + ")" : std::to_string(shape[i]));
            expr = "torch.reshape(" + in(0) + ", " + dims + "])";
        } else if (op == "Transpose") {
            expr = in(0) + ".permute(" + list(intsAttribute(n, "perm")) + ")";
        } else if (op == "Concat") {
            std::string parts;
            for (int i = 0; i < n.input_size(); ++i)
                parts += (i ? ", " : "") + in(i);
            expr = "torch.cat([" + parts + "], " + std::to_string(intAttribute(n, "axis", 0)) + ")";
        } else if (op == "Shape") {
            expr = "torch.tensor(" + in(0) + ".size())";
        } else if (op == "Slice") {
            const std::vector<std::int64_t> s = ints(n.input(1)), e = ints(n.input(2));
            if (s.size() != 1 || (n.input_size() > 3 && ints(n.input(3)) != std::vector<std::int64_t>{0}) || n.input_size() > 4)
                throw EngineError("TorchScript export: Slice '" + n.name() + "' is not a slice of the first axis");
            expr = in(0) + "[" + std::to_string(s[0]) + ":" + std::to_string(e[0]) + "]";
        } else if (op == "Expand") {
            src << "    " << out << "_shape: List[int] = " << in(1) << ".tolist()\n";
            expr = in(0) + ".expand(" + out + "_shape)";
        } else if (op == "Gather") {
            const torch::Tensor idx = inits.count(n.input(1)) ? inits.at(n.input(1)) : torch::Tensor();
            if (!idx.defined() || idx.dim() != 0)
                throw EngineError("TorchScript export: Gather '" + n.name() + "' needs a constant scalar index");
            expr = "torch.select(" + in(0) + ", " + std::to_string(intAttribute(n, "axis", 0)) + ", " +
                   std::to_string(idx.item<std::int64_t>()) + ")";
        } else if (op == "Cast") {
            const int to = int(intAttribute(n, "to", onnx::TensorProto::FLOAT));
            if (to != onnx::TensorProto::FLOAT)
                throw EngineError("TorchScript export: only casts to float32 are supported");
            expr = in(0) + ".float()";
        } else {
            throw EngineError("TorchScript export: ONNX operator " + op + " ('" + n.name() + "') is not supported");
        }
        src << "    " << out << " = " << expr << "\n";
        names[n.output(0)] = out;
    }
    const std::string &output = g.output(0).name();
    if (!names.count(output))
        throw EngineError("TorchScript export: the graph output is never computed");
    src << "    return " << names[output] << "\n";
    std::ostringstream archive;
    try {
        module.define(src.str());
        module.eval();
        module.save(archive);
    } catch (const c10::Error &e) {
        throw EngineError("TorchScript export: " + std::string(e.what_without_backtrace()));
    }
    // Written by the engine's writer, not LibTorch's file stream, whose failures on a full disk
    // name neither the file nor the reason.
    writeFileAtomically(path, archive.str());
}

void onnxFileToTorchScript(const std::string &onnxPath, const std::string &ptPath)
{
    try {
        writeTorchScriptFromOnnx(readOnnxFile(onnxPath), ptPath);
    } catch (const EngineError &e) {
        const std::string what = e.what();
        throw EngineError(what.rfind(onnxPath, 0) == 0 ? what : onnxPath + ": " + what);
    }
}

} // namespace lathe::engine
