// The TorchScript writer: the FP32 graph as a TorchScript archive (writeTorchScriptFromOnnx in
// onnx_torchscript.cpp), so it computes what the ONNX file does.

#include "engine/export/export_internal.h"

#include "engine/export/export_verify.h"

#include <filesystem>

namespace lathe::engine::export_internal {
namespace fs = std::filesystem;

void exportTorchScript(const ExportContext &ctx, Artifact &artifact)
{
    artifact.path = (fs::path(ctx.options.outDir) / "model.pt").string();
    writeTorchScriptFromOnnx(ctx.fp32, artifact.path); // atomically: no half-written archive is left
    artifact.entry["bytes"] = fs::file_size(artifact.path);
    verifyTorchScript(ctx, artifact);
}

} // namespace lathe::engine::export_internal
