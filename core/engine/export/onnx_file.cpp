// ONNX files in and out: reading (bounded), parsing, serialising and checking a ModelProto. On
// its own (no model code) so that the fuzz build compiles it with the reference runtime.

#include "engine/export/onnx_export.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>


namespace lathe::engine {

void checkOnnxModel(const onnx::ModelProto &model, const std::string &what)
{
    try {
        onnx::checker::check_model(model);
        onnx::ModelProto copy = model;
        onnx::ShapeInferenceOptions options(/*check_type=*/true, /*strict=*/1, /*data_prop=*/false);
        onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception &e) {
        throw EngineError(what + ": ONNX checker: " + e.what());
    }
}

std::string serializeOnnx(const onnx::ModelProto &model)
{
    std::string bytes;
    if (!model.SerializeToString(&bytes))
        throw EngineError("ONNX export: the model could not be serialised (over 2 GiB?)");
    return bytes;
}

onnx::ModelProto parseOnnx(const std::string &bytes, const std::string &what)
{
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromString(bytes))
        throw EngineError(what + ": not an ONNX model (protobuf parse failed)");
    if (!model.has_graph() || model.graph().input_size() < 1 || model.graph().output_size() < 1)
        throw EngineError(what + ": ONNX model without a graph input and output");
    return model;
}

onnx::ModelProto readOnnxFile(const std::string &path)
{
    const std::string bytes = readFileWithin(path, parse_limits::kOnnxFileBytes);
    return parseOnnx(bytes, path);
}

} // namespace lathe::engine
