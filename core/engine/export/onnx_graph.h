#pragma once

// Engine-internal (LibTorch, libonnx): writing ONNX graphs node by node, and converting tensors
// between LibTorch and ONNX TensorProto.

#include <onnx/onnx_pb.h>
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lathe::engine {

void setInt(onnx::NodeProto &node, const std::string &name, std::int64_t value);
void setInts(onnx::NodeProto &node, const std::string &name, const std::vector<std::int64_t> &values);
void setFloat(onnx::NodeProto &node, const std::string &name, float value);
// The attribute's value, or fallback when the node has none.
const onnx::AttributeProto *findAttribute(const onnx::NodeProto &node, const std::string &name);
std::int64_t intAttribute(const onnx::NodeProto &node, const std::string &name, std::int64_t fallback);
float floatAttribute(const onnx::NodeProto &node, const std::string &name, float fallback);
std::vector<std::int64_t> intsAttribute(const onnx::NodeProto &node, const std::string &name);

// Appends a node with one output, named output, to graph; the node's name is the output's.
onnx::NodeProto &appendNode(onnx::GraphProto &graph, const std::string &op, const std::vector<std::string> &inputs,
                            const std::string &output);

// float32/float16/int8/uint8/int32/int64 (raw little-endian data) <-> LibTorch (CPU, contiguous).
void tensorToProto(const torch::Tensor &tensor, onnx::TensorProto *proto);
torch::Tensor tensorFromProto(const onnx::TensorProto &proto, const std::string &what);
int onnxElemType(torch::ScalarType type);
torch::ScalarType torchScalarType(int elemType, const std::string &what);

// Appends nodes and initializers to a graph, keeping every value name unique.
class OnnxGraph
{
public:
    explicit OnnxGraph(onnx::GraphProto *graph);

    // A node with one output named after hint (made unique); its name is the output's.
    onnx::NodeProto &node(const std::string &op, const std::vector<std::string> &inputs, const std::string &hint);
    std::string op(const std::string &op, const std::vector<std::string> &inputs, const std::string &hint)
    {
        return node(op, inputs, hint).output(0);
    }
    onnx::NodeProto &lastNode() { return *m_graph->mutable_node(m_graph->node_size() - 1); }

    std::string initializer(const std::string &hint, const torch::Tensor &tensor);
    // Shared constants by fixed name (the same name must always carry the same value).
    std::string scalar(const std::string &name, float value);
    std::string constInt64(const std::string &name, const std::vector<std::int64_t> &values);
    std::string constInt64Scalar(const std::string &name, std::int64_t value);

    // Renames a node output (and its uses) to a graph output's name.
    void renameOutput(const std::string &value, const std::string &name);

    std::string unique(const std::string &hint);

private:
    // An initializer under a fixed name; EngineError when the name already holds another value.
    std::string constant(const std::string &name, const torch::Tensor &value);

    onnx::GraphProto *m_graph;
    std::set<std::string> m_names;
    std::map<std::string, std::string> m_constants; // name -> serialized value, to catch clashes
};

} // namespace lathe::engine
