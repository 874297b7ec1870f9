#include "engine/export/onnx_graph.h"

#include "engine/base/engine_error.h"

#include <cstring>
#include <utility>

namespace lathe::engine {

namespace {

// The element types Lathe reads and writes: LibTorch's and ONNX's names for each.
const std::pair<torch::ScalarType, int> kElementTypes[] = {
    {torch::kFloat, onnx::TensorProto::FLOAT}, {torch::kHalf, onnx::TensorProto::FLOAT16},
    {torch::kChar, onnx::TensorProto::INT8},   {torch::kByte, onnx::TensorProto::UINT8},
    {torch::kInt, onnx::TensorProto::INT32},   {torch::kLong, onnx::TensorProto::INT64},
};

onnx::AttributeProto *addAttribute(onnx::NodeProto &node, const std::string &name, onnx::AttributeProto::AttributeType type)
{
    auto *a = node.add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
}

} // namespace

void setInt(onnx::NodeProto &node, const std::string &name, std::int64_t value)
{
    addAttribute(node, name, onnx::AttributeProto::INT)->set_i(value);
}

void setInts(onnx::NodeProto &node, const std::string &name, const std::vector<std::int64_t> &values)
{
    auto *a = addAttribute(node, name, onnx::AttributeProto::INTS);
    for (std::int64_t v : values)
        a->add_ints(v);
}

void setFloat(onnx::NodeProto &node, const std::string &name, float value)
{
    addAttribute(node, name, onnx::AttributeProto::FLOAT)->set_f(value);
}

onnx::NodeProto &appendNode(onnx::GraphProto &graph, const std::string &op, const std::vector<std::string> &inputs,
                            const std::string &output)
{
    onnx::NodeProto *n = graph.add_node();
    n->set_op_type(op);
    for (const std::string &i : inputs)
        n->add_input(i);
    n->add_output(output);
    n->set_name(output);
    return *n;
}

const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, const std::string &name)
{
    for (const auto &a : node.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

std::int64_t intAttribute(const onnx::NodeProto &node, const std::string &name, std::int64_t fallback)
{
    const auto *a = findAttribute(node, name);
    return a ? a->i() : fallback;
}

float floatAttribute(const onnx::NodeProto &node, const std::string &name, float fallback)
{
    const auto *a = findAttribute(node, name);
    return a ? a->f() : fallback;
}

std::vector<std::int64_t> intsAttribute(const onnx::NodeProto &node, const std::string &name)
{
    const auto *a = findAttribute(node, name);
    return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : std::vector<std::int64_t>{};
}

int onnxElemType(torch::ScalarType type)
{
    for (const auto &[torchType, onnxType] : kElementTypes)
        if (torchType == type)
            return onnxType;
    throw EngineError(std::string("ONNX: tensor type ") + c10::toString(type) + " is not written");
}

torch::ScalarType torchScalarType(int elemType, const std::string &what)
{
    for (const auto &[torchType, onnxType] : kElementTypes)
        if (onnxType == elemType)
            return torchType;
    throw EngineError(what + ": ONNX element type " + std::to_string(elemType) + " is not supported");
}

void tensorToProto(const torch::Tensor &tensor, onnx::TensorProto *proto)
{
    const torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
    proto->set_data_type(onnxElemType(t.scalar_type()));
    for (std::int64_t d : t.sizes())
        proto->add_dims(d);
    proto->set_raw_data(std::string(static_cast<const char *>(t.data_ptr()), t.nbytes()));
}

torch::Tensor tensorFromProto(const onnx::TensorProto &proto, const std::string &what)
{
    const torch::ScalarType type = torchScalarType(proto.data_type(), what);
    std::vector<std::int64_t> dims(proto.dims().begin(), proto.dims().end());
    std::int64_t count = 1;
    for (std::int64_t d : dims) {
        if (d < 0 || (d > 0 && count > (std::int64_t(1) << 40) / d))
            throw EngineError(what + ": tensor '" + proto.name() + "' has an invalid shape");
        count *= d;
    }
    const std::size_t bytes = std::size_t(count) * c10::elementSize(type);
    // The data must be there before anything of the shape's size is allocated.
    if (proto.has_raw_data()) {
        if (proto.raw_data().size() != bytes)
            throw EngineError(what + ": tensor '" + proto.name() + "' holds " + std::to_string(proto.raw_data().size()) +
                              " bytes, its shape needs " + std::to_string(bytes));
        torch::Tensor out = torch::empty(dims, torch::TensorOptions().dtype(type));
        if (bytes > 0) // an empty tensor has no data pointer to copy to (found by fuzz_onnx)
            std::memcpy(out.data_ptr(), proto.raw_data().data(), bytes);
        return out;
    }
    const std::int64_t values = type == torch::kFloat  ? proto.float_data_size()
                                : type == torch::kLong ? proto.int64_data_size()
                                                       : proto.int32_data_size();
    if (values != count)
        throw EngineError(what + ": tensor '" + proto.name() + "' holds " + std::to_string(values) + " values, its shape needs " +
                          std::to_string(count));
    torch::Tensor out = torch::empty(dims, torch::TensorOptions().dtype(type));
    if (count == 0) // nothing to copy, and no pointers to copy between (found by fuzz_onnx)
        return out;
    switch (type) {
    case torch::kFloat:
        std::memcpy(out.data_ptr(), proto.float_data().data(), bytes);
        break;
    case torch::kLong:
        std::memcpy(out.data_ptr(), proto.int64_data().data(), bytes);
        break;
    case torch::kInt:
        std::memcpy(out.data_ptr(), proto.int32_data().data(), bytes);
        break;
    case torch::kHalf: {
        auto *dst = static_cast<std::uint16_t *>(out.data_ptr());
        for (std::int64_t i = 0; i < count; ++i)
            dst[i] = std::uint16_t(proto.int32_data(int(i)));
        break;
    }
    default: { // int8 / uint8 in int32_data
        torch::Tensor wide = torch::empty(dims, torch::kInt);
        std::memcpy(wide.data_ptr(), proto.int32_data().data(), std::size_t(count) * 4);
        out = wide.to(type);
    }
    }
    return out;
}

OnnxGraph::OnnxGraph(onnx::GraphProto *graph)
    : m_graph(graph)
{
    for (const auto &v : graph->input())
        m_names.insert(v.name());
    for (const auto &n : graph->node())
        for (const auto &o : n.output())
            m_names.insert(o);
    for (const auto &t : graph->initializer())
        m_names.insert(t.name());
}

std::string OnnxGraph::unique(const std::string &hint)
{
    std::string name = hint;
    for (int i = 1; !m_names.insert(name).second; ++i)
        name = hint + "_" + std::to_string(i);
    return name;
}

onnx::NodeProto &OnnxGraph::node(const std::string &op, const std::vector<std::string> &inputs, const std::string &hint)
{
    return appendNode(*m_graph, op, inputs, unique(hint));
}

std::string OnnxGraph::initializer(const std::string &hint, const torch::Tensor &tensor)
{
    onnx::TensorProto *t = m_graph->add_initializer();
    tensorToProto(tensor, t);
    t->set_name(unique(hint));
    return t->name();
}

std::string OnnxGraph::constant(const std::string &name, const torch::Tensor &value)
{
    const torch::Tensor t = value.contiguous();
    const std::string key = std::string(c10::toString(t.scalar_type())) + c10::str(t.sizes()) +
                            std::string(static_cast<const char *>(t.data_ptr()), t.nbytes());
    auto it = m_constants.find(name);
    if (it != m_constants.end()) {
        if (it->second != key)
            throw EngineError("ONNX export: constant '" + name + "' defined twice with different values");
        return name;
    }
    m_constants[name] = key;
    m_names.insert(name);
    onnx::TensorProto *proto = m_graph->add_initializer();
    tensorToProto(t, proto);
    proto->set_name(name);
    return name;
}

std::string OnnxGraph::scalar(const std::string &name, float value)
{
    return constant(name, torch::scalar_tensor(value, torch::kFloat));
}

std::string OnnxGraph::constInt64(const std::string &name, const std::vector<std::int64_t> &values)
{
    return constant(name, torch::tensor(values, torch::kLong));
}

std::string OnnxGraph::constInt64Scalar(const std::string &name, std::int64_t value)
{
    return constant(name, torch::scalar_tensor(value, torch::kLong));
}

void OnnxGraph::renameOutput(const std::string &value, const std::string &name)
{
    for (auto &n : *m_graph->mutable_node()) {
        for (auto &o : *n.mutable_output())
            if (o == value)
                o = name;
        for (auto &i : *n.mutable_input())
            if (i == value)
                i = name;
    }
    m_names.insert(name);
}

} // namespace lathe::engine
