// The TFLite writer: the FP32 graph translated into TFLite's operators (tflite_export.h), as it
// is, with float16 weights, or full-integer INT8 after calibration on real images; the file
// describes itself (metadata "lathe") and labels.txt lies beside it.

#include "engine/export/export_internal.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/shard_converter.h"
#include "engine/export/export_verify.h"
#include "engine/export/tflite_export.h"

#include <filesystem>

namespace lathe::engine::export_internal {
namespace fs = std::filesystem;
namespace {

nlohmann::json quantizationJson(const TfliteTensor &t)
{
    if (t.quantization.empty())
        return nullptr;
    return {{"scale", t.quantization.scale.at(0)}, {"zero_point", t.quantization.zeroPoint.at(0)}};
}

nlohmann::json tensorJson(const TfliteTensor &t)
{
    nlohmann::json j = {{"name", t.name}, {"type", tfliteTypeName(t.type)}, {"shape", t.shape}};
    if (!t.quantization.empty())
        j["quantization"] = quantizationJson(t);
    return j;
}

// The metadata every Lathe .tflite carries: what the model is and how to feed it.
std::string metadataJson(const ExportContext &ctx, const TfliteModel &model, const std::string &variant, bool pixels)
{
    const ExportOptions &options = ctx.options;
    const TfliteTensor &in = model.tensors.at(std::size_t(model.inputs.at(0)));
    const TfliteTensor &out = model.tensors.at(std::size_t(model.outputs.at(0)));
    nlohmann::json input = tensorJson(in);
    input["layout"] = "NHWC";
    input["content"] = !pixels ? "(pixel / 255 - mean) / std"
                       : in.type == TfliteType::Int8 ? "pixel - 128 (normalised inside the model)"
                                                      : "pixel (normalised inside the model)";
    nlohmann::json output = tensorJson(out);
    output["content"] = options.softmax ? "probabilities" : "logits";
    const nlohmann::json doc = {{"producer", "Lathe"},
                                {"format_version", 1},
                                {"task", ctx.multiLabel ? kTaskMultiLabel : kTaskSingleLabel},
                                {"thresholds", ctx.thresholds},
                                {"variant", variant},
                                {"arch", ctx.info().name},
                                {"labels", ctx.labels},
                                {"num_classes", ctx.spec.head.numClasses},
                                {"image_size", ctx.imageSize},
                                {"resize_size", ctx.resizeSize},
                                {"interpolation", ctx.info().interpolation},
                                {"in_channels", ctx.spec.inChannels},
                                {"mean", ctx.info().mean},
                                {"std", ctx.info().std},
                                {"input", input},
                                {"output", output},
                                {"source_run", options.runDir},
                                {"checkpoint", ctx.checkpointFile}};
    return doc.dump();
}

// INT8: the graph with the pixels' normalisation inside, translated, calibrated and quantised;
// records the quantisation in the artifact's entry.
TfliteModel int8Model(const ExportContext &ctx, double progress, Artifact &artifact)
{
    const ExportOptions &options = ctx.options;
    OnnxGraphOptions graphOptions = ctx.graphOptions;
    graphOptions.preprocessing = true;
    const TfliteModel floatModel = tfliteFromOnnx(buildOnnxModel(ctx.model(), ctx.info(), graphOptions));
    const ImageBatch calib = loadCalibration(ctx, progress, true);
    std::vector<torch::Tensor> images;
    for (std::int64_t i = 0; i < calib.pixels.size(0); ++i)
        images.push_back(calib.pixels.slice(0, i, i + 1));
    TfliteInt8Options q;
    q.method = options.calibMethod;
    q.int8Io = options.int8Io == "int8";
    TfliteInt8Report report;
    TfliteModel model = quantizeTfliteInt8(floatModel, images, q, &report);
    artifact.entry["quantization"] = {{"format", "full integer"},
                                      {"weights", "int8, symmetric, per output channel"},
                                      {"biases", "int32 (input scale x weight scale)"},
                                      {"activations", "int8, asymmetric, per tensor"},
                                      {"io", options.int8Io},
                                      {"calibration", {{"method", options.calibMethod},
                                                       {"images", report.calibrationImages},
                                                       {"source", calib.source}}},
                                      {"quantized_tensors", report.quantizedTensors}};
    return model;
}

} // namespace

void exportTflite(const ExportContext &ctx, double progress, Artifact &artifact)
{
    const ExportOptions &options = ctx.options;
    const fs::path outDir(options.outDir);
    const std::string &format = artifact.format;
    TfliteModel model;
    std::string variant;
    bool pixels = options.preprocessing;
    if (format == "tflite") {
        model = tfliteFromOnnx(ctx.fp32);
        variant = "fp32";
        artifact.path = (outDir / "model.tflite").string();
    } else if (format == "tflite-fp16") {
        model = tfliteToFloat16(tfliteFromOnnx(ctx.fp32));
        variant = "fp16";
        artifact.path = (outDir / "model.fp16.tflite").string();
    } else {
        model = int8Model(ctx, progress, artifact);
        variant = "int8";
        pixels = true;
        artifact.path = (outDir / "model.int8.tflite").string();
    }
    model.description = "Image classifier " + ctx.info().name + " exported by Lathe (" + variant + ")";
    model.metadata["lathe"] = metadataJson(ctx, model, variant, pixels);

    const std::string bytes = serializeTflite(model);
    writeFileAtomically(artifact.path, bytes);
    std::string labels;
    for (const std::string &label : ctx.labels)
        labels += label + "\n";
    writeFileAtomically((outDir / "labels.txt").string(), labels);

    nlohmann::json &a = artifact.entry;
    a["bytes"] = bytes.size();
    a["labels_file"] = "labels.txt";
    a["input"] = tensorJson(model.tensors.at(std::size_t(model.inputs.at(0))));
    a["output"] = tensorJson(model.tensors.at(std::size_t(model.outputs.at(0))));
    std::map<std::string, int> ops;
    for (const TfliteOperator &o : model.operators)
        ++ops[tfliteOpName(o.op)];
    a["operators"] = ops;
    // Verify what was written, read back from the file.
    verifyTflite(ctx, readTfliteFile(artifact.path), pixels, artifact);
}

} // namespace lathe::engine::export_internal
