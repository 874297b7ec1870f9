// The ONNX writer: the FP32 graph as it is, in float16, or quantised to INT8 QDQ after
// calibration on real images (onnx_export.h has the graph, the conversion and the quantiser).

#include "engine/export/export_internal.h"

#include "engine/base/engine_error.h"
#include "engine/export/export_verify.h"

#include <algorithm>
#include <filesystem>

namespace lathe::engine::export_internal {
namespace fs = std::filesystem;
namespace {

// Calibrates on the calibration images and quantises the FP32 graph; records the quantisation
// in the artifact's entry.
onnx::ModelProto quantizeInt8(const ExportContext &ctx, double progress, Artifact &artifact)
{
    const ExportOptions &options = ctx.options;
    const ImageBatch calib = loadCalibration(ctx, progress, options.preprocessing);
    const torch::Tensor calibInput = options.preprocessing ? calib.pixels : calib.images;
    std::vector<torch::Tensor> batches;
    for (std::int64_t i = 0; i < calibInput.size(0); i += 16)
        batches.push_back(calibInput.slice(0, i, std::min<std::int64_t>(calibInput.size(0), i + 16)));
    QuantizeOptions q;
    q.method = options.calibMethod;
    QuantizeReport qr;
    onnx::ModelProto quantized = quantizeOnnxQdq(ctx.fp32, batches, q, &qr);
    artifact.entry["quantization"] = {{"format", "QDQ"},
                                      {"weights", "int8, symmetric, per output channel (Conv, Gemm); per tensor (MatMul)"},
                                      {"activations", "uint8, asymmetric, per tensor"},
                                      {"calibration", {{"method", options.calibMethod},
                                                       {"images", qr.calibrationImages},
                                                       {"source", calib.source}}},
                                      {"quantized_nodes", qr.quantizedNodes},
                                      {"quantized_ops", qr.quantizedOps},
                                      {"float_ops", qr.floatOps}};
    return quantized;
}

} // namespace

void exportOnnx(const ExportContext &ctx, double progress, Artifact &artifact)
{
    const fs::path outDir(ctx.options.outDir);
    const std::string &format = artifact.format;
    onnx::ModelProto converted;
    const onnx::ModelProto *proto = &ctx.fp32; // checked by exportModel
    // The file is named once its graph exists: an INT8 artifact without calibration images
    // reports no file.
    if (format == "onnx") {
        artifact.path = (outDir / "model.onnx").string();
    } else if (format == "onnx-fp16") {
        converted = convertOnnxToFloat16(ctx.fp32);
        artifact.path = (outDir / "model.fp16.onnx").string();
    } else {
        converted = quantizeInt8(ctx, progress, artifact);
        artifact.path = (outDir / "model.int8.onnx").string();
    }
    if (format != "onnx") {
        proto = &converted;
        checkOnnxModel(converted, artifact.path);
    }
    const std::string bytes = serializeOnnx(*proto);
    writeFileAtomically(artifact.path, bytes);
    artifact.entry["bytes"] = bytes.size();
    // Verify what was written, read back from the file.
    const onnx::ModelProto back = readOnnxFile(artifact.path);
    if (format == "onnx")
        verifyOnnxFp32(ctx, back, artifact);
    else
        verifyOnnxReduced(ctx, back, artifact);
}

} // namespace lathe::engine::export_internal
