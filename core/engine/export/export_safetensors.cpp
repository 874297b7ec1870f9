// The safetensors writer: the model's weights under torchvision's parameter names, and
// model.json beside them with what it takes to rebuild and feed the model.

#include "engine/export/export_internal.h"

#include "engine/export/export_verify.h"
#include "engine/formats/safetensors.h"
#include "engine/models/weights_io.h"

#include <filesystem>

namespace lathe::engine::export_internal {
namespace fs = std::filesystem;

void exportSafetensors(const ExportContext &ctx, Artifact &artifact)
{
    const BackboneInfo &info = ctx.info();
    artifact.path = (fs::path(ctx.options.outDir) / "model.safetensors").string();
    writeSafetensors(artifact.path, stateDict(ctx.model()), {{"format", "pt"}, {"lathe.arch", info.name}});
    nlohmann::json modelJson = ctx.source;
    modelJson["format"] = "lathe-model";
    modelJson["format_version"] = 1;
    modelJson["weights"] = "model.safetensors";
    modelJson["parameter_names"] = "torchvision";
    modelJson["head"] = {{"hidden_units", ctx.spec.head.hiddenUnits}, {"dropout", ctx.spec.head.dropout}};
    modelJson["eval_transform"] = {{"resize_short_side", ctx.resizeSize},
                                   {"center_crop", ctx.imageSize},
                                   {"interpolation", info.interpolation},
                                   {"scale", "pixel / 255"},
                                   {"mean", info.mean},
                                   {"std", info.std}};
    writeJsonFile((fs::path(ctx.options.outDir) / "model.json").string(), modelJson);
    artifact.entry["bytes"] = fs::file_size(artifact.path);
    artifact.entry["model_json"] = "model.json";
    verifySafetensors(ctx, artifact);
}

} // namespace lathe::engine::export_internal
