// The ONNX file reader of the export checks (FP16 / INT8 files read back and evaluated), as
// Lathe reads a file: the bounded read and protobuf parse, the reference runtime's initializers
// (tensorFromProto) and constant folding, and one run on a small zero input when the graph's
// input shape is small and static (its batch dimension taken as 1). Not libonnx's checker:
// Lathe runs it on the graphs it builds, never on a file it reads (README: findings).
#include "engine/export/onnx_export.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const lathe::fuzz::MemFile file(data, size);
    lathe::fuzz::refusalAllowed([&] {
        const onnx::ModelProto model = lathe::engine::readOnnxFile(file.path());
        const lathe::engine::OnnxReferenceRuntime runtime(model);
        // The input the runtime feeds: the first graph input that is no initializer.
        const onnx::ValueInfoProto *input = nullptr;
        for (const auto &in : model.graph().input()) {
            bool initializer = false;
            for (const auto &t : model.graph().initializer())
                initializer = initializer || t.name() == in.name();
            if (!initializer) {
                input = &in;
                break;
            }
        }
        if (!input || !input->type().has_tensor_type())
            return;
        const auto &tensor = input->type().tensor_type();
        const int type = tensor.elem_type();
        if (type != onnx::TensorProto::FLOAT && type != onnx::TensorProto::UINT8)
            return;
        std::vector<std::int64_t> shape;
        std::int64_t count = 1;
        for (const auto &dim : tensor.shape().dim()) {
            const std::int64_t d = dim.has_dim_value() ? dim.dim_value() : 1;
            if (d < 1 || d > 4096 || count * d > 4096)
                return;
            shape.push_back(d);
            count *= d;
        }
        runtime.run(torch::zeros(shape, type == onnx::TensorProto::FLOAT ? torch::kFloat : torch::kByte));
    });
    return 0;
}
