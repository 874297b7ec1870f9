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
    const std::string tmp = temporaryPathFor(artifact.path);
    try {
        writeTorchScriptFromOnnx(ctx.fp32, tmp);
    } catch (...) {
        std::error_code ec;
        fs::remove(tmp, ec); // a half-written archive is not left behind
        throw;
    }
    commitTemporaryFile(tmp, artifact.path);
    artifact.entry["bytes"] = fs::file_size(artifact.path);
    verifyTorchScript(ctx, artifact);
}

} // namespace lathe::engine::export_internal
