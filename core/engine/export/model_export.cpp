// exportModel: the order of an export and its report. Builds the model, the verification batch
// and the FP32 graph once (ExportContext), has each format's writer write and check its file
// (export_onnx.cpp, export_torchscript.cpp, export_safetensors.cpp, export_verify.cpp) and
// writes report.json.

#include "engine/export/export_job.h"

#include "engine/base/engine_error.h"
#include "engine/base/sha256.h"
#include "engine/dataset/shard_converter.h"
#include "engine/export/export_internal.h"
#include "engine/export/export_latency.h"
#include "engine/export/export_verify.h"
#include "engine/models/weights_io.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_config.h"
#include "engine/run/run_layout.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <vector>

namespace lathe::engine {
namespace fs = std::filesystem;
using namespace export_internal;
namespace {

const std::vector<std::string> &knownFormats()
{
    static const std::vector<std::string> formats{"onnx",   "onnx-fp16",   "onnx-int8",   "tflite",
                                                  "tflite-fp16", "tflite-int8", "torchscript", "safetensors"};
    return formats;
}

void checkOptions(const ExportOptions &options)
{
    if (options.outDir.empty())
        throw EngineError("export: an output folder (--out) is required");
    if (options.formats.empty())
        throw EngineError("export: no format given");
    for (const std::string &f : options.formats)
        if (std::find(knownFormats().begin(), knownFormats().end(), f) == knownFormats().end())
            throw EngineError("export: unknown format '" + f +
                              "' (onnx, onnx-fp16, onnx-int8, tflite, tflite-fp16, tflite-int8, torchscript, safetensors)");
    if (options.runDir.empty() == options.arch.empty())
        throw EngineError("export: give either a run folder or an architecture (bare model)");
    if (options.calibMethod != "minmax" && options.calibMethod != "percentile" && options.calibMethod != "entropy")
        throw EngineError("export: calibration method '" + options.calibMethod + "' is unknown (minmax, percentile, entropy)");
    if (options.int8Io != "uint8" && options.int8Io != "int8")
        throw EngineError("export: TFLite INT8 input/output type '" + options.int8Io + "' is unknown (uint8, int8)");
    if (options.calibImages < 1 || options.calibImages > 100000)
        throw EngineError("export: --calib-images must be in [1, 100000]");
    if (options.verifyImages < 1 || options.verifyImages > 1024)
        throw EngineError("export: verification images must be in [1, 1024]");
}

bool hasFormat(const ExportOptions &options, const std::string &format)
{
    return std::find(options.formats.begin(), options.formats.end(), format) != options.formats.end();
}

// The class count of a weights file: rows of the head's bias (0 when absent).
int headRows(const std::string &weightsPath, const BackboneInfo &info)
{
    for (const auto &[name, tensor] : readWeightsFile(weightsPath))
        if (name == info.headParameters.at(1))
            return int(tensor.size(0));
    return 0;
}

std::string jsonText(const nlohmann::json &j) { return j.dump(); }

std::string sha256OfFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open to hash it");
    Sha256 sha;
    std::vector<char> buffer(std::size_t(1) << 20);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        sha.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        throw EngineError(path + ": read error while hashing");
    return sha.hexDigest();
}

// 1. The model, from a run's checkpoint or a bare architecture, in evaluation mode; its labels,
// input size and evaluation transform.
void loadModel(ExportContext &ctx)
{
    const ExportOptions &options = ctx.options;
    ModelSpec &spec = ctx.spec;
    ctx.labels = options.labels;
    ctx.imageSize = options.imageSize;
    if (!options.runDir.empty()) {
        const RunConfig config = readRunConfig(run_layout::configPath(options.runDir));
        const CheckpointRef ref = resolveCheckpoint(options.runDir, options.checkpoint);
        spec = config.model;
        spec.weightsPath = ref.model;
        ctx.checkpointFile = ref.model;
        ctx.checkpointSidecar = ref.sidecar;
        spec.head.numClasses = headRows(ref.model, backboneInfo(spec.arch));
        if (spec.head.numClasses < 1)
            throw EngineError(ref.model + ": no head weights for " + spec.arch);
        if (!ref.sidecar.empty()) {
            // The same task and thresholds as the checkpoint's predictions (RunModel).
            const nlohmann::json meta = checkCheckpoint(ref.sidecar);
            ctx.multiLabel = meta.value("task", "") == kTaskMultiLabel;
            if (ctx.multiLabel)
                ctx.thresholds = checkpointThresholds(meta, ref.sidecar, std::size_t(spec.head.numClasses));
        }
        ctx.dataDir = config.data.shards;
        ctx.valSplit = config.data.valSplit;
        if (ctx.imageSize == 0)
            ctx.imageSize = config.data.imageSize;
        if (ctx.labels.empty() && !ctx.dataDir.empty() && fs::exists(fs::path(ctx.dataDir) / "dataset.json")) {
            const DatasetManifest manifest = readDatasetManifest(ctx.dataDir);
            if (int(manifest.classes.size()) == spec.head.numClasses)
                ctx.labels = manifest.classes;
        }
    } else {
        spec.arch = options.arch;
        spec.inChannels = options.inChannels;
        spec.weightsPath = options.weightsPath;
        ctx.checkpointFile = options.weightsPath;
        spec.head.numClasses = options.numClasses;
        if (spec.head.numClasses == 0)
            spec.head.numClasses = options.weightsPath.empty() ? 1000 : headRows(options.weightsPath, backboneInfo(spec.arch));
        if (spec.head.numClasses < 1)
            throw EngineError(options.weightsPath + ": no head weights for " + spec.arch + "; give --num-classes");
    }
    if (spec.arch == "torchscript")
        throw EngineError("export: models with a custom TorchScript backbone cannot be exported");
    ctx.built = buildModel(spec);
    if (ctx.built.weightsLoaded && (!ctx.built.report.clean() || ctx.built.report.headReplaced))
        throw EngineError(spec.weightsPath + ": the weights do not match " + spec.arch + ":\n" + ctx.built.report.text());
    ctx.model().eval();
    const BackboneInfo &info = ctx.info();
    if (ctx.imageSize == 0)
        ctx.imageSize = info.inputSize;
    if (ctx.labels.empty())
        for (int i = 0; i < spec.head.numClasses; ++i)
            ctx.labels.push_back("class_" + std::to_string(i));
    if (int(ctx.labels.size()) != spec.head.numClasses)
        throw EngineError("export: " + std::to_string(ctx.labels.size()) + " labels given for a model of " +
                          std::to_string(spec.head.numClasses) + " classes");
    ctx.resizeSize = int(std::lround(double(ctx.imageSize) * info.resizeSize / info.inputSize));

    TransformOptions &transform = ctx.transform;
    transform.train = false;
    transform.imageSize = ctx.imageSize;
    transform.resizeSize = ctx.resizeSize;
    transform.channels = spec.inChannels;
    transform.mean = info.mean;
    transform.std = info.std;
    if (spec.inChannels != 1 && spec.inChannels != 3)
        throw EngineError("export: verification images can only be prepared for 1 or 3 input channels");
}

// 2. The verification batch and the reference outputs on it; the labelled validation images
// and the original's accuracy on them when an FP16 or INT8 artifact is asked for.
void prepareVerification(ExportContext &ctx, PhaseTimer &timer)
{
    const ExportOptions &options = ctx.options;
    const ModelSpec &spec = ctx.spec;
    const int imageSize = ctx.imageSize;
    ctx.control.report(0.05, "preparing verification images");
    const std::string verifyDir = !options.verifyData.empty() ? options.verifyData : ctx.dataDir;
    const std::string verifySplit = !options.verifySplit.empty() ? options.verifySplit : ctx.valSplit;
    // TFLite INT8 takes pixels whatever the other artifacts take.
    const bool pixels = options.preprocessing || hasFormat(options, "tflite-int8");
    ImageBatch &verify = ctx.verify;
    if (!verifyDir.empty()) {
        verify = loadImages(verifyDir, verifySplit, options.verifyImages, false, ctx.transform, pixels);
    } else {
        at::Generator gen = at::detail::createCPUGenerator(0);
        verify.images = torch::randn({options.verifyImages, spec.inChannels, imageSize, imageSize}, gen);
        verify.pixels = torch::randint(0, 256, {options.verifyImages, imageSize, imageSize, spec.inChannels}, gen).to(torch::kByte);
        verify.source = "synthetic (no image data given)";
    }
    timer.lap("load model and images");
    // The LibTorch reference, computed once.
    ctx.reference = referenceOutputs(ctx);
    ctx.verifyInput = options.preprocessing ? verify.pixels : verify.images;

    // Top-1 accuracy says nothing of a multi-label model: its variants are checked on agreement.
    const bool wantsAccuracy = !ctx.multiLabel && (hasFormat(options, "onnx-fp16") || hasFormat(options, "onnx-int8") ||
                                                   hasFormat(options, "tflite-fp16") || hasFormat(options, "tflite-int8"));
    if (wantsAccuracy && options.accuracyImages > 0 && !verifyDir.empty() && !verify.labels.empty() && verify.labels[0] >= 0) {
        ctx.control.report(0.1, "evaluating the original model");
        ctx.validation = loadImages(verifyDir, verifySplit, options.accuracyImages, false, ctx.transform, pixels);
        const torch::Tensor validationReference =
            batched([&](const torch::Tensor &x) { return ctx.model().forward(x); }, ctx.validation.images, ctx.control);
        ctx.referenceAccuracy = accuracy(validationReference, ctx.validation.labels);
    }
    timer.lap("reference outputs");
}

// 3. The report's source and the FP32 graph every ONNX/TorchScript artifact starts from,
// checked.
void buildFp32Graph(ExportContext &ctx, PhaseTimer &timer)
{
    const ExportOptions &options = ctx.options;
    const ModelSpec &spec = ctx.spec;
    const BackboneInfo &info = ctx.info();
    ctx.source = {{"arch", info.name},
                  {"num_classes", spec.head.numClasses},
                  {"task", ctx.multiLabel ? kTaskMultiLabel : kTaskSingleLabel},
                  {"thresholds", ctx.thresholds},
                  {"in_channels", spec.inChannels},
                  {"labels", ctx.labels},
                  {"image_size", ctx.imageSize},
                  {"resize_size", ctx.resizeSize},
                  {"interpolation", info.interpolation},
                  {"mean", info.mean},
                  {"std", info.std},
                  {"run", options.runDir},
                  {"checkpoint", ctx.checkpointFile},
                  {"checkpoint_sidecar", ctx.checkpointSidecar}};
    OnnxGraphOptions &graphOptions = ctx.graphOptions;
    graphOptions.imageSize = ctx.imageSize;
    graphOptions.inChannels = spec.inChannels;
    graphOptions.preprocessing = options.preprocessing;
    graphOptions.softmax = options.softmax;
    graphOptions.sigmoid = ctx.multiLabel;
    graphOptions.mean = info.mean;
    graphOptions.std = info.std;
    graphOptions.metadata = {
        {"lathe.arch", info.name},
        {"lathe.labels", jsonText(ctx.labels)},
        {"lathe.task", ctx.multiLabel ? kTaskMultiLabel : kTaskSingleLabel},
        {"lathe.thresholds", jsonText(ctx.thresholds)},
        {"lathe.num_classes", std::to_string(spec.head.numClasses)},
        {"lathe.input_name", "input"},
        {"lathe.output_name", options.softmax ? "probabilities" : "logits"},
        {"lathe.input_layout", options.preprocessing ? "uint8 [N, H, W, C] pixels (normalised inside the graph)"
                                                     : "float32 [N, C, H, W], (pixel / 255 - mean) / std"},
        {"lathe.image_size", std::to_string(ctx.imageSize)},
        {"lathe.in_channels", std::to_string(spec.inChannels)},
        {"lathe.resize_size", std::to_string(ctx.resizeSize)},
        {"lathe.interpolation", info.interpolation},
        {"lathe.mean", jsonText(info.mean)},
        {"lathe.std", jsonText(info.std)},
        {"lathe.source_run", options.runDir},
        {"lathe.checkpoint", ctx.checkpointFile},
    };
    ctx.fp32 = buildOnnxModel(ctx.model(), info, graphOptions);
    checkOnnxModel(ctx.fp32, info.name + " (FP32 graph)");
    timer.lap("build and check the FP32 graph");
}

} // namespace

ImageBatch export_internal::loadCalibration(const ExportContext &ctx, double progress, bool pixels)
{
    const ExportOptions &options = ctx.options;
    const std::string calibDir = !options.calibData.empty() ? options.calibData : ctx.dataDir;
    if (calibDir.empty())
        throw EngineError("INT8 needs calibration images: give --calib-data (a shard folder or an image folder)");
    ctx.control.report(progress, "calibrating INT8");
    return loadImages(calibDir, options.calibSplit, options.calibImages, true, ctx.transform, pixels);
}

namespace {

// 4. One format: written, checked, timed; its entry in report.json. A failed artifact's file is
// renamed to <file>.failed.
nlohmann::json exportArtifact(const ExportContext &ctx, const std::string &format, double progress, PhaseTimer &timer)
{
    const auto formatStart = Clock::now();
    const std::clock_t formatCpu = std::clock();
    Artifact artifact(format);
    try {
        if (format == "onnx" || format == "onnx-fp16" || format == "onnx-int8")
            exportOnnx(ctx, progress, artifact);
        else if (format == "tflite" || format == "tflite-fp16" || format == "tflite-int8")
            exportTflite(ctx, progress, artifact);
        else if (format == "torchscript")
            exportTorchScript(ctx, artifact);
        else if (format == "safetensors")
            exportSafetensors(ctx, artifact);
    } catch (const Cancelled &) {
        throw;
    } catch (const std::exception &e) {
        artifact.failures.push_back(e.what());
    }
    nlohmann::json &a = artifact.entry;
    const std::string &path = artifact.path;
    a["file"] = path.empty() ? "" : fs::path(path).filename().string();
    a["seconds"] = secondsSince(formatStart);
    a["cpu_seconds"] = cpuSecondsSince(formatCpu);
    timer.lap(format);
    if (artifact.failures.empty()) {
        a["status"] = "passed";
        // The report vouches for these exact bytes: a file replaced later (or by a killed
        // re-export) no longer matches it.
        a["sha256"] = sha256OfFile(path);
    } else {
        a["status"] = "failed";
        std::string reason;
        for (const auto &f : artifact.failures)
            reason += (reason.empty() ? "" : "; ") + f;
        a["reason"] = reason;
        std::error_code ec;
        if (!path.empty() && fs::exists(path, ec)) {
            fs::rename(path, path + ".failed", ec);
            a["file"] = fs::path(path).filename().string() + ".failed";
        }
    }
    return a;
}

} // namespace

nlohmann::json exportModel(const ExportOptions &options, const TaskControl &control)
{
    const auto started = Clock::now();
    const std::clock_t startedCpu = std::clock();
    PhaseTimer timer;
    torch::NoGradGuard noGrad;
    checkOptions(options);

    ExportContext ctx(options, control);
    control.report(0.0, "loading the model");
    loadModel(ctx);
    prepareVerification(ctx, timer);
    buildFp32Graph(ctx, timer);

    fs::create_directories(options.outDir);
    // report.json marks a finished export (serve loads a folder once it appears): an earlier
    // export's report goes before the first file is replaced, so a kill from here on leaves a
    // folder without a report, never an old report over new files. It is written last.
    const fs::path reportPath = fs::path(options.outDir) / "report.json";
    std::error_code removeError;
    if (fs::remove(reportPath, removeError))
        syncFolder(options.outDir);
    else if (removeError)
        throw EngineError(reportPath.string() + ": cannot remove the earlier export's report (" + removeError.message() + ")");
    const int channels = ctx.spec.inChannels, imageSize = ctx.imageSize;
    const torch::Tensor one = torch::randn({1, channels, imageSize, imageSize});
    const torch::Tensor many = torch::randn({32, channels, imageSize, imageSize});
    const torch::Tensor onePixels = torch::randint(0, 256, {1, imageSize, imageSize, channels}).to(torch::kByte);
    const torch::Tensor manyPixels = torch::randint(0, 256, {32, imageSize, imageSize, channels}).to(torch::kByte);
    ctx.latencyOne = options.preprocessing ? onePixels : one;
    ctx.latencyMany = options.preprocessing ? manyPixels : many;

    nlohmann::json original;
    if (options.benchmark) {
        original["latency"] = latency([&](const torch::Tensor &x) { ctx.model().forward(x); }, one, many);
        timer.lap("latency of the original");
    }
    if (ctx.referenceAccuracy >= 0)
        original["accuracy"] = ctx.referenceAccuracy;

    nlohmann::json artifacts = nlohmann::json::array();
    for (std::size_t fi = 0; fi < options.formats.size(); ++fi) {
        const std::string &format = options.formats[fi];
        control.checkCancel();
        const double progress = 0.15 + 0.85 * double(fi) / double(options.formats.size());
        control.report(progress, "exporting " + format);
        artifacts.push_back(exportArtifact(ctx, format, progress, timer));
    }

    nlohmann::json report = {{"format_version", 1},
                             {"source", ctx.source},
                             {"input", {{"name", "input"},
                                        {"layout", options.preprocessing ? "uint8 NHWC" : "float32 NCHW, normalised"},
                                        {"shape", options.preprocessing ? nlohmann::json{"N", imageSize, imageSize, channels}
                                                                        : nlohmann::json{"N", channels, imageSize, imageSize}}}},
                             {"output", {{"name", options.softmax ? "probabilities" : "logits"},
                                         {"shape", {"N", ctx.spec.head.numClasses}}}},
                             {"opset", kOnnxOpset},
                             {"verification_images", {{"count", ctx.verify.images.size(0)}, {"source", ctx.verify.source}}},
                             {"original", original},
                             {"artifacts", artifacts},
                             {"seconds", secondsSince(started)},
                             {"cpu_seconds", cpuSecondsSince(startedCpu)},
                             {"timing", timer.phases()}};
    bool ok = true;
    for (const auto &a : artifacts)
        ok = ok && a["status"] == "passed";
    report["status"] = ok ? "passed" : "failed";
    writeJsonFile(reportPath.string(), report);
    control.report(1.0, ok ? "exported" : "exported with failures");
    return report;
}

} // namespace lathe::engine
