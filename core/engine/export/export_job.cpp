#include "engine/export/export_job.h"

#include "engine/models/backbone_registry.h"
#include "engine/run/checkpoint_io.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/models/model_builder.h"
#include "engine/export/onnx_export.h"
#include "engine/inference/prediction.h"
#include "engine/run/run_config.h"
#include "engine/run/run_layout.h"
#include "engine/formats/safetensors.h"
#include "engine/pipeline/sample_transform.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/models/weights_io.h"

#include <opencv2/dnn.hpp>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/jit/serialization/import.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

namespace lathe::engine {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct ImageBatch
{
    torch::Tensor images;                // float [N, C, S, S], normalised
    torch::Tensor pixels;                // uint8 [N, S, S, C] (preprocessing inside the graph)
    std::vector<std::int64_t> labels;    // -1 when unknown
    std::string source;
};

std::string readWholeFile(const std::string &path, std::uintmax_t limit = std::uintmax_t(256) << 20)
{
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    if (size > limit)
        throw EngineError(path + ": file of " + std::to_string(size) + " bytes is larger than allowed");
    std::ifstream in(path, std::ios::binary);
    std::string bytes(std::size_t(size), '\0');
    if (!in.read(bytes.data(), std::streamsize(size)))
        throw EngineError(path + ": read failed");
    return bytes;
}

// The first n images of a shard folder's split (optionally shuffled with a fixed seed) or of
// an image folder (sorted paths), transformed for evaluation.
ImageBatch loadImages(const std::string &dir, std::string split, int n, bool shuffle, TransformOptions transform,
                      bool pixels)
{
    ImageBatch batch;
    std::vector<std::string> encoded;
    std::vector<std::string> names;
    if (fs::exists(fs::path(dir) / "dataset.json")) {
        ShardDataset ds(dir);
        if (split.empty() || ds.size(split) == 0) {
            const std::string wanted = split;
            split.clear();
            for (const char *s : {"val", "validation", "test", "train"})
                if (ds.size(s) > 0) {
                    split = s;
                    break;
                }
            if (split.empty())
                throw EngineError(dir + ": the dataset holds no images" + (wanted.empty() ? "" : " in split '" + wanted + "'"));
        }
        const std::vector<RecordRef> order = ds.epochOrder(split, 0, 0, 0, 1, shuffle);
        for (std::size_t i = 0; i < order.size() && int(i) < n; ++i) {
            ImageExample ex = ds.read(order[i]);
            encoded.push_back(std::move(ex.encoded));
            names.push_back(ex.filename);
            batch.labels.push_back(ex.label);
        }
        batch.source = dir + " (" + split + ")";
    } else if (fs::is_directory(dir)) {
        std::vector<std::string> files = expandImageInputs({dir}); // sorted; the folder itself when it holds none
        files.erase(std::remove(files.begin(), files.end(), dir), files.end());
        if (shuffle)
            std::shuffle(files.begin(), files.end(), std::mt19937_64(0));
        for (std::size_t i = 0; i < files.size() && int(i) < n; ++i) {
            encoded.push_back(readWholeFile(files[i]));
            names.push_back(files[i]);
            batch.labels.push_back(-1);
        }
        batch.source = dir;
    } else {
        throw EngineError(dir + ": not a shard folder (dataset.json) or a folder of images");
    }
    if (encoded.empty())
        throw EngineError(dir + ": no images found");

    transform.train = false;
    transform.uint8Output = false;
    transform.channelsLast = false;
    const SampleTransform floatTransform(transform);
    std::mt19937_64 rng(0);
    const std::int64_t count = std::int64_t(encoded.size());
    const int c = transform.channels, s = transform.imageSize;
    batch.images = torch::empty({count, c, s, s}, torch::kFloat);
    for (std::int64_t i = 0; i < count; ++i) {
        const auto *data = reinterpret_cast<const std::uint8_t *>(encoded[std::size_t(i)].data());
        try {
            floatTransform.apply(data, encoded[std::size_t(i)].size(), rng, batch.images[i].data_ptr());
        } catch (const EngineError &e) {
            throw EngineError(names[std::size_t(i)] + ": " + e.what());
        }
    }
    if (pixels) {
        transform.uint8Output = true;
        transform.channelsLast = true;
        const SampleTransform pixelTransform(transform);
        batch.pixels = torch::empty({count, s, s, c}, torch::kByte);
        for (std::int64_t i = 0; i < count; ++i)
            pixelTransform.apply(reinterpret_cast<const std::uint8_t *>(encoded[std::size_t(i)].data()),
                                 encoded[std::size_t(i)].size(), rng, batch.pixels[i].data_ptr());
    }
    return batch;
}

std::string jsonText(const nlohmann::json &j) { return j.dump(); }

// OpenCV DNN on a copy of the file with the batch size pinned (see withFixedBatch); one
// network per batch size.
class OpenCvRunner
{
public:
    explicit OpenCvRunner(const onnx::ModelProto &model)
        : m_model(model)
    {
    }

    torch::Tensor run(const torch::Tensor &input);

private:
    onnx::ModelProto m_model;
    std::map<std::int64_t, cv::dnn::Net> m_nets;
};

torch::Tensor runOpenCv(cv::dnn::Net &net, const torch::Tensor &input)
{
    torch::Tensor x = input.contiguous();
    std::vector<int> dims(x.sizes().begin(), x.sizes().end());
    cv::Mat blob(int(dims.size()), dims.data(), x.scalar_type() == torch::kByte ? CV_8U : CV_32F, x.data_ptr());
    net.setInput(blob);
    cv::Mat out = net.forward();
    if (out.type() != CV_32F)
        throw EngineError("OpenCV DNN returned a non-float output");
    std::vector<std::int64_t> shape(out.size.p, out.size.p + out.dims);
    return torch::from_blob(out.ptr<float>(), shape, torch::kFloat).clone();
}

torch::Tensor OpenCvRunner::run(const torch::Tensor &input)
{
    auto it = m_nets.find(input.size(0));
    if (it == m_nets.end()) {
        const std::string bytes = serializeOnnx(withFixedBatch(m_model, input.size(0)));
        it = m_nets.emplace(input.size(0), cv::dnn::readNetFromONNX(bytes.data(), bytes.size())).first;
    }
    return runOpenCv(it->second, input);
}

struct Diff
{
    double maxAbs = 0, meanAbs = 0, top1Agreement = 0, refMaxAbs = 0;
    bool finite = true;
};

Diff compare(const torch::Tensor &reference, const torch::Tensor &got)
{
    if (reference.sizes() != got.sizes())
        throw EngineError("output shape " + c10::str(got.sizes()) + " differs from the model's " + c10::str(reference.sizes()));
    Diff d;
    const torch::Tensor diff = (reference.to(torch::kDouble) - got.to(torch::kDouble)).abs();
    d.finite = torch::isfinite(got).all().item<bool>();
    d.maxAbs = diff.max().item<double>();
    d.meanAbs = diff.mean().item<double>();
    d.refMaxAbs = reference.abs().max().item<double>();
    d.top1Agreement = (reference.argmax(1) == got.argmax(1)).to(torch::kDouble).mean().item<double>();
    return d;
}

nlohmann::json diffJson(const Diff &d)
{
    return {{"max_abs_diff", d.maxAbs}, {"mean_abs_diff", d.meanAbs}, {"top1_agreement", d.top1Agreement},
            {"reference_max_abs", d.refMaxAbs}};
}

// Wall and CPU (user + system, all threads) seconds of the export's phases, for the report.
class PhaseTimer
{
public:
    // Records the time since the previous lap (or the start) under name.
    void lap(const std::string &name)
    {
        const auto wall = Clock::now();
        const std::clock_t cpu = std::clock();
        m_phases.push_back({{"phase", name},
                            {"wall_s", std::chrono::duration<double>(wall - m_wall).count()},
                            {"cpu_s", double(cpu - m_cpu) / CLOCKS_PER_SEC}});
        m_wall = wall;
        m_cpu = cpu;
    }
    const nlohmann::json &phases() const { return m_phases; }

private:
    Clock::time_point m_wall = Clock::now();
    std::clock_t m_cpu = std::clock();
    nlohmann::json m_phases = nlohmann::json::array();
};

// Milliseconds per image of run on x: the median of timed runs, repeated until budgetSeconds
// have been spent (at least minRuns, at most maxRuns). With warmUp, an untimed run comes first;
// without it, the first timed run is dropped when there are others (a batch that takes longer
// than the budget is timed once, its one-off set-up included: a few percent of such a run).
double msPerImage(const std::function<void(const torch::Tensor &)> &run, const torch::Tensor &x, double budgetSeconds,
                  int minRuns, int maxRuns, bool warmUp)
{
    if (warmUp)
        run(x);
    std::vector<double> times;
    const auto start = Clock::now();
    while (int(times.size()) < minRuns || (int(times.size()) < maxRuns && secondsSince(start) < budgetSeconds)) {
        const auto t = Clock::now();
        run(x);
        times.push_back(secondsSince(t) * 1000 / double(x.size(0)));
    }
    if (!warmUp && times.size() > 1)
        times.erase(times.begin());
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// CPU latency per image at batch 1 (after a warm-up, the median of 3 to 20 runs within half a
// second) and batch 32 (1 to 4 runs within three seconds, the first one counting as the warm-up
// when there are more); with the wall and CPU seconds the measurement took.
nlohmann::json latency(const std::function<void(const torch::Tensor &)> &run, const torch::Tensor &one,
                       const torch::Tensor &many)
{
    const auto start = Clock::now();
    const std::clock_t cpu = std::clock();
    nlohmann::json out = {{"batch1_ms_per_image", msPerImage(run, one, 0.5, 3, 20, true)},
                          {"batch32_ms_per_image", msPerImage(run, many, 3.0, 1, 4, false)}};
    out["seconds"] = secondsSince(start);
    out["cpu_seconds"] = double(std::clock() - cpu) / CLOCKS_PER_SEC;
    return out;
}

double accuracy(const torch::Tensor &logits, const std::vector<std::int64_t> &labels)
{
    const torch::Tensor pred = logits.argmax(1);
    std::int64_t correct = 0;
    for (std::size_t i = 0; i < labels.size(); ++i)
        correct += pred[std::int64_t(i)].item<std::int64_t>() == labels[i];
    return 100.0 * double(correct) / double(labels.size());
}

torch::Tensor batched(const std::function<torch::Tensor(const torch::Tensor &)> &run, const torch::Tensor &x,
                      const TaskControl &control, int batch = 32)
{
    std::vector<torch::Tensor> parts;
    for (std::int64_t i = 0; i < x.size(0); i += batch) {
        control.checkCancel();
        parts.push_back(run(x.slice(0, i, std::min<std::int64_t>(x.size(0), i + batch))));
    }
    return torch::cat(parts, 0);
}

// The class count of a weights file: rows of the head's bias (0 when absent).
int headRows(const std::string &weightsPath, const BackboneInfo &info)
{
    for (const auto &[name, tensor] : readWeightsFile(weightsPath))
        if (name == info.headParameters.at(1))
            return int(tensor.size(0));
    return 0;
}

void writeJsonFile(const std::string &path, const nlohmann::json &doc)
{
    writeFileAtomically(path, doc.dump(2) + "\n");
}

const std::vector<std::string> &knownFormats()
{
    static const std::vector<std::string> formats{"onnx", "onnx-fp16", "onnx-int8", "torchscript", "safetensors"};
    return formats;
}

} // namespace

nlohmann::json exportModel(const ExportOptions &options, const TaskControl &control)
{
    const auto started = Clock::now();
    const std::clock_t startedCpu = std::clock();
    PhaseTimer timer;
    torch::NoGradGuard noGrad;
    if (options.outDir.empty())
        throw EngineError("export: an output folder (--out) is required");
    if (options.formats.empty())
        throw EngineError("export: no format given");
    for (const std::string &f : options.formats)
        if (std::find(knownFormats().begin(), knownFormats().end(), f) == knownFormats().end())
            throw EngineError("export: unknown format '" + f + "' (onnx, onnx-fp16, onnx-int8, torchscript, safetensors)");
    if (options.runDir.empty() == options.arch.empty())
        throw EngineError("export: give either a run folder or an architecture (bare model)");
    if (options.calibMethod != "minmax" && options.calibMethod != "percentile" && options.calibMethod != "entropy")
        throw EngineError("export: calibration method '" + options.calibMethod + "' is unknown (minmax, percentile, entropy)");
    if (options.calibImages < 1 || options.calibImages > 100000)
        throw EngineError("export: --calib-images must be in [1, 100000]");
    if (options.verifyImages < 1 || options.verifyImages > 1024)
        throw EngineError("export: verification images must be in [1, 1024]");

    // 1. The model.
    control.report(0.0, "loading the model");
    ModelSpec spec;
    std::vector<std::string> labels = options.labels;
    std::string dataDir, valSplit, checkpointFile, checkpointSidecar;
    int imageSize = options.imageSize;
    if (!options.runDir.empty()) {
        const RunConfig config = readRunConfig(run_layout::configPath(options.runDir));
        const CheckpointRef ref = resolveCheckpoint(options.runDir, options.checkpoint);
        spec = config.model;
        spec.weightsPath = ref.model;
        checkpointFile = ref.model;
        checkpointSidecar = ref.sidecar;
        spec.head.numClasses = headRows(ref.model, backboneInfo(spec.arch));
        if (spec.head.numClasses < 1)
            throw EngineError(ref.model + ": no head weights for " + spec.arch);
        dataDir = config.data.shards;
        valSplit = config.data.valSplit;
        if (imageSize == 0)
            imageSize = config.data.imageSize;
        if (labels.empty() && !dataDir.empty() && fs::exists(fs::path(dataDir) / "dataset.json")) {
            const DatasetManifest manifest = readDatasetManifest(dataDir);
            if (int(manifest.classes.size()) == spec.head.numClasses)
                labels = manifest.classes;
        }
    } else {
        spec.arch = options.arch;
        spec.inChannels = options.inChannels;
        spec.weightsPath = options.weightsPath;
        checkpointFile = options.weightsPath;
        spec.head.numClasses = options.numClasses;
        if (spec.head.numClasses == 0)
            spec.head.numClasses = options.weightsPath.empty() ? 1000 : headRows(options.weightsPath, backboneInfo(spec.arch));
        if (spec.head.numClasses < 1)
            throw EngineError(options.weightsPath + ": no head weights for " + spec.arch + "; give --num-classes");
    }
    if (spec.arch == "torchscript")
        throw EngineError("export: models with a custom TorchScript backbone cannot be exported");
    BuiltModel built = buildModel(spec);
    if (built.weightsLoaded && (!built.report.clean() || built.report.headReplaced))
        throw EngineError(spec.weightsPath + ": the weights do not match " + spec.arch + ":\n" + built.report.text());
    models::Classifier &model = *built.classifier;
    model.eval();
    const BackboneInfo &info = built.info;
    if (imageSize == 0)
        imageSize = info.inputSize;
    if (labels.empty())
        for (int i = 0; i < spec.head.numClasses; ++i)
            labels.push_back("class_" + std::to_string(i));
    if (int(labels.size()) != spec.head.numClasses)
        throw EngineError("export: " + std::to_string(labels.size()) + " labels given for a model of " +
                          std::to_string(spec.head.numClasses) + " classes");
    const int resizeSize = int(std::lround(double(imageSize) * info.resizeSize / info.inputSize));

    TransformOptions transform;
    transform.train = false;
    transform.imageSize = imageSize;
    transform.resizeSize = resizeSize;
    transform.channels = spec.inChannels;
    transform.mean = info.mean;
    transform.std = info.std;
    if (spec.inChannels != 1 && spec.inChannels != 3)
        throw EngineError("export: verification images can only be prepared for 1 or 3 input channels");

    // 2. The verification batch and the reference outputs.
    control.report(0.05, "preparing verification images");
    const std::string verifyDir = !options.verifyData.empty() ? options.verifyData : dataDir;
    const std::string verifySplit = !options.verifySplit.empty() ? options.verifySplit : valSplit;
    ImageBatch verify;
    if (!verifyDir.empty()) {
        verify = loadImages(verifyDir, verifySplit, options.verifyImages, false, transform, options.preprocessing);
    } else {
        at::Generator gen = at::detail::createCPUGenerator(0);
        verify.images = torch::randn({options.verifyImages, spec.inChannels, imageSize, imageSize}, gen);
        verify.pixels = torch::randint(0, 256, {options.verifyImages, imageSize, imageSize, spec.inChannels}, gen).to(torch::kByte);
        verify.source = "synthetic (no image data given)";
    }
    timer.lap("load model and images");
    // The LibTorch reference, computed once. The uint8 path normalises inside the graph: its
    // reference is the model on those pixels.
    torch::Tensor referenceInput = verify.images;
    if (options.preprocessing && verify.pixels.defined()) {
        torch::Tensor x = verify.pixels.permute({0, 3, 1, 2}).to(torch::kFloat) / 255.0;
        torch::Tensor mean = torch::empty({spec.inChannels, 1, 1}), sd = torch::empty({spec.inChannels, 1, 1});
        for (int c = 0; c < spec.inChannels; ++c) {
            mean[c] = info.mean[std::size_t(std::min(c, 2))];
            sd[c] = info.std[std::size_t(std::min(c, 2))];
        }
        referenceInput = (x - mean) / sd;
    }
    torch::Tensor reference = model.forward(referenceInput);
    if (options.softmax)
        reference = torch::softmax(reference, 1);
    const torch::Tensor verifyInput = options.preprocessing ? verify.pixels : verify.images;

    // Labelled validation images for accuracy (FP16 / INT8).
    const bool wantsAccuracy = std::any_of(options.formats.begin(), options.formats.end(),
                                           [](const std::string &f) { return f == "onnx-fp16" || f == "onnx-int8"; });
    ImageBatch validation;
    torch::Tensor validationReference;
    double referenceAccuracy = -1;
    if (wantsAccuracy && options.accuracyImages > 0 && !verifyDir.empty() && !verify.labels.empty() && verify.labels[0] >= 0) {
        control.report(0.1, "evaluating the original model");
        validation = loadImages(verifyDir, verifySplit, options.accuracyImages, false, transform, options.preprocessing);
        validationReference = batched([&](const torch::Tensor &x) { return model.forward(x); }, validation.images, control);
        referenceAccuracy = accuracy(validationReference, validation.labels);
    }
    timer.lap("reference outputs");

    // 3. The FP32 graph every ONNX/TorchScript artifact starts from.
    nlohmann::json source = {{"arch", info.name},
                             {"num_classes", spec.head.numClasses},
                             {"in_channels", spec.inChannels},
                             {"labels", labels},
                             {"image_size", imageSize},
                             {"resize_size", resizeSize},
                             {"interpolation", info.interpolation},
                             {"mean", info.mean},
                             {"std", info.std},
                             {"run", options.runDir},
                             {"checkpoint", checkpointFile},
                             {"checkpoint_sidecar", checkpointSidecar}};
    OnnxGraphOptions graphOptions;
    graphOptions.imageSize = imageSize;
    graphOptions.inChannels = spec.inChannels;
    graphOptions.preprocessing = options.preprocessing;
    graphOptions.softmax = options.softmax;
    graphOptions.mean = info.mean;
    graphOptions.std = info.std;
    graphOptions.metadata = {
        {"lathe.arch", info.name},
        {"lathe.labels", jsonText(labels)},
        {"lathe.num_classes", std::to_string(spec.head.numClasses)},
        {"lathe.input_name", "input"},
        {"lathe.output_name", options.softmax ? "probabilities" : "logits"},
        {"lathe.input_layout", options.preprocessing ? "uint8 [N, H, W, C] pixels (normalised inside the graph)"
                                                     : "float32 [N, C, H, W], (pixel / 255 - mean) / std"},
        {"lathe.image_size", std::to_string(imageSize)},
        {"lathe.in_channels", std::to_string(spec.inChannels)},
        {"lathe.resize_size", std::to_string(resizeSize)},
        {"lathe.interpolation", info.interpolation},
        {"lathe.mean", jsonText(info.mean)},
        {"lathe.std", jsonText(info.std)},
        {"lathe.source_run", options.runDir},
        {"lathe.checkpoint", checkpointFile},
    };
    const onnx::ModelProto fp32 = buildOnnxModel(model, info, graphOptions);
    checkOnnxModel(fp32, info.name + " (FP32 graph)");
    timer.lap("build and check the FP32 graph");

    fs::create_directories(options.outDir);
    nlohmann::json artifacts = nlohmann::json::array();
    const torch::Tensor one = torch::randn({1, spec.inChannels, imageSize, imageSize});
    const torch::Tensor many = torch::randn({32, spec.inChannels, imageSize, imageSize});
    const torch::Tensor onePixels = torch::randint(0, 256, {1, imageSize, imageSize, spec.inChannels}).to(torch::kByte);
    const torch::Tensor manyPixels = torch::randint(0, 256, {32, imageSize, imageSize, spec.inChannels}).to(torch::kByte);
    const torch::Tensor &latencyOne = options.preprocessing ? onePixels : one;
    const torch::Tensor &latencyMany = options.preprocessing ? manyPixels : many;

    nlohmann::json original;
    if (options.benchmark) {
        original["latency"] = latency([&](const torch::Tensor &x) { model.forward(x); }, one, many);
        timer.lap("latency of the original");
    }
    if (referenceAccuracy >= 0)
        original["accuracy"] = referenceAccuracy;

    const double diffTolerance = 1e-4; // FP32 artifacts: max |diff| <= 1e-4 * max(1, max |logit|)
    for (std::size_t fi = 0; fi < options.formats.size(); ++fi) {
        const std::string &format = options.formats[fi];
        control.checkCancel();
        control.report(0.15 + 0.85 * double(fi) / double(options.formats.size()), "exporting " + format);
        const auto formatStart = Clock::now();
        const std::clock_t formatCpu = std::clock();
        nlohmann::json a = {{"format", format}};
        std::string path;
        std::vector<std::string> failures;
        auto checkDiff = [&](const Diff &d, double relTolerance) {
            a["verification"] = diffJson(d);
            if (!d.finite)
                failures.push_back("non-finite outputs");
            const double limit = relTolerance * std::max(1.0, d.refMaxAbs);
            if (d.maxAbs > limit)
                failures.push_back("max |diff| " + std::to_string(d.maxAbs) + " exceeds " + std::to_string(limit));
        };
        try {
            if (format == "onnx" || format == "onnx-fp16" || format == "onnx-int8") {
                onnx::ModelProto converted;
                const onnx::ModelProto *proto = &fp32; // checked above
                if (format == "onnx") {
                    path = (fs::path(options.outDir) / "model.onnx").string();
                } else if (format == "onnx-fp16") {
                    converted = convertOnnxToFloat16(fp32);
                    path = (fs::path(options.outDir) / "model.fp16.onnx").string();
                } else {
                    const std::string calibDir = !options.calibData.empty() ? options.calibData : dataDir;
                    if (calibDir.empty())
                        throw EngineError("INT8 needs calibration images: give --calib-data (a shard folder or an image folder)");
                    control.report(0.15 + 0.85 * double(fi) / double(options.formats.size()), "calibrating INT8");
                    ImageBatch calib = loadImages(calibDir, options.calibSplit, options.calibImages, true, transform,
                                                  options.preprocessing);
                    const torch::Tensor calibInput = options.preprocessing ? calib.pixels : calib.images;
                    std::vector<torch::Tensor> batches;
                    for (std::int64_t i = 0; i < calibInput.size(0); i += 16)
                        batches.push_back(calibInput.slice(0, i, std::min<std::int64_t>(calibInput.size(0), i + 16)));
                    QuantizeOptions q;
                    q.method = options.calibMethod;
                    QuantizeReport qr;
                    converted = quantizeOnnxQdq(fp32, batches, q, &qr);
                    a["quantization"] = {{"format", "QDQ"},
                                         {"weights", "int8, symmetric, per output channel (Conv, Gemm); per tensor (MatMul)"},
                                         {"activations", "uint8, asymmetric, per tensor"},
                                         {"calibration", {{"method", options.calibMethod},
                                                          {"images", qr.calibrationImages},
                                                          {"source", calib.source}}},
                                         {"quantized_nodes", qr.quantizedNodes},
                                         {"quantized_ops", qr.quantizedOps},
                                         {"float_ops", qr.floatOps}};
                    path = (fs::path(options.outDir) / "model.int8.onnx").string();
                }
                if (format != "onnx") {
                    proto = &converted;
                    checkOnnxModel(converted, path);
                }
                const std::string bytes = serializeOnnx(*proto);
                writeFileAtomically(path, bytes);
                a["bytes"] = bytes.size();
                // Verify what was written, read back from the file.
                const onnx::ModelProto back = readOnnxFile(path);
                if (format == "onnx") {
                    // OpenCV DNN is the independent check. It has no general broadcasting in 4.6
                    // (LayerNorm statistics, ViT's position embedding), so where it cannot load or
                    // run a graph, or disagrees, the file is judged by the reference runtime (the
                    // ONNX operator definitions on LibTorch) and OpenCV's result is reported beside it.
                    bool openCvMatched = false;
                    try {
                        OpenCvRunner net(back);
                        const Diff byOpenCv = compare(reference, net.run(verifyInput));
                        a["opencv_dnn"] = diffJson(byOpenCv);
                        openCvMatched = byOpenCv.finite && byOpenCv.maxAbs <= diffTolerance * std::max(1.0, byOpenCv.refMaxAbs);
                        if (openCvMatched) {
                            checkDiff(byOpenCv, diffTolerance);
                            if (options.benchmark)
                                a["latency"] = latency([&](const torch::Tensor &x) { net.run(x); }, latencyOne, latencyMany);
                        }
                    } catch (const cv::Exception &e) {
                        a["opencv_dnn"] = {{"error", e.what()}};
                    } catch (const EngineError &e) {
                        a["opencv_dnn"] = {{"error", e.what()}};
                    }
                    a["runtime"] = openCvMatched ? "opencv_dnn" : "reference";
                    if (!openCvMatched) {
                        const Diff byReference = compare(reference, OnnxReferenceRuntime(back).run(verifyInput));
                        a["reference_runtime"] = diffJson(byReference);
                        checkDiff(byReference, diffTolerance);
                    }
                } else {
                    OnnxReferenceRuntime runtime(back);
                    a["runtime"] = "reference";
                    // The labelled validation images start with the verification batch: one pass
                    // through the (slow) reference runtime gives the verification and the accuracy.
                    const torch::Tensor validationInput = options.preprocessing ? validation.pixels : validation.images;
                    const std::int64_t n = verifyInput.size(0);
                    const bool oneSweep = referenceAccuracy >= 0 && validationInput.size(0) >= n &&
                                          torch::equal(validationInput.slice(0, 0, n), verifyInput);
                    torch::Tensor validationLogits;
                    if (referenceAccuracy >= 0)
                        validationLogits = batched([&](const torch::Tensor &x) { return runtime.run(x); }, validationInput, control);
                    const Diff d = compare(reference, oneSweep ? validationLogits.slice(0, 0, n) : runtime.run(verifyInput));
                    // FP16 is checked against a relative bound; INT8 by accuracy below.
                    if (format == "onnx-fp16")
                        checkDiff(d, 5e-2);
                    else {
                        a["verification"] = diffJson(d);
                        if (!d.finite)
                            failures.push_back("non-finite outputs");
                    }
                    if (referenceAccuracy >= 0) {
                        const double acc = accuracy(validationLogits, validation.labels);
                        a["accuracy"] = {{"top1", acc}, {"reference_top1", referenceAccuracy},
                                         {"images", validation.labels.size()}, {"source", validation.source}};
                        if (format == "onnx-int8" && referenceAccuracy - acc > options.int8MaxAccuracyDrop) {
                            char what[160];
                            std::snprintf(what, sizeof what,
                                          "top-1 accuracy %.1f%% is more than %.1f points below the original's %.1f%% "
                                          "(try another calibration method or more calibration images)",
                                          acc, options.int8MaxAccuracyDrop, referenceAccuracy);
                            failures.push_back(what);
                        }
                    } else {
                        a["accuracy"] = nullptr;
                    }
                    a["latency"] = nullptr; // the reference runtime is a checker, not a deployment runtime
                }
            } else if (format == "torchscript") {
                path = (fs::path(options.outDir) / "model.pt").string();
                const std::string tmp = temporaryPathFor(path);
                try {
                    writeTorchScriptFromOnnx(fp32, tmp);
                } catch (...) {
                    std::error_code ec;
                    fs::remove(tmp, ec); // a half-written archive is not left behind
                    throw;
                }
                commitTemporaryFile(tmp, path);
                a["bytes"] = fs::file_size(path);
                torch::jit::Module loaded = torch::jit::load(path);
                loaded.eval();
                // Run as torch.jit.optimized_execution(False) does: the profiling executor would
                // profile and re-optimise the graph for every new batch size (seconds for a
                // ResNet-50, longer than the runs themselves) to reach the same operator calls.
                const torch::jit::GraphOptimizerEnabledGuard unoptimized(false);
                auto run = [&](const torch::Tensor &x) { return loaded.forward({x}).toTensor(); };
                a["runtime"] = "libtorch_jit";
                checkDiff(compare(reference, run(verifyInput)), diffTolerance);
                if (options.benchmark)
                    a["latency"] = latency([&](const torch::Tensor &x) { run(x); }, latencyOne, latencyMany);
            } else if (format == "safetensors") {
                path = (fs::path(options.outDir) / "model.safetensors").string();
                writeSafetensors(path, stateDict(model), {{"format", "pt"}, {"lathe.arch", info.name}});
                nlohmann::json modelJson = source;
                modelJson["format"] = "lathe-model";
                modelJson["format_version"] = 1;
                modelJson["weights"] = "model.safetensors";
                modelJson["parameter_names"] = "torchvision";
                modelJson["head"] = {{"hidden_units", spec.head.hiddenUnits}, {"dropout", spec.head.dropout}};
                modelJson["eval_transform"] = {{"resize_short_side", resizeSize},
                                               {"center_crop", imageSize},
                                               {"interpolation", info.interpolation},
                                               {"scale", "pixel / 255"},
                                               {"mean", info.mean},
                                               {"std", info.std}};
                writeJsonFile((fs::path(options.outDir) / "model.json").string(), modelJson);
                a["bytes"] = fs::file_size(path);
                a["model_json"] = "model.json";
                // Load it back, strictly, into a fresh model.
                ModelSpec again = spec;
                again.weightsPath = path;
                BuiltModel rebuilt = buildModel(again);
                if (!rebuilt.report.clean() || rebuilt.report.headReplaced)
                    failures.push_back("reloading gave: " + rebuilt.report.text());
                rebuilt.classifier->eval();
                a["runtime"] = "libtorch";
                torch::Tensor got = rebuilt.classifier->forward(verify.images);
                if (options.softmax)
                    got = torch::softmax(got, 1);
                if (!options.preprocessing)
                    checkDiff(compare(reference, got), 0);
            }
        } catch (const Cancelled &) {
            throw;
        } catch (const std::exception &e) {
            failures.push_back(e.what());
        }
        a["file"] = path.empty() ? "" : fs::path(path).filename().string();
        a["seconds"] = secondsSince(formatStart);
        a["cpu_seconds"] = double(std::clock() - formatCpu) / CLOCKS_PER_SEC;
        timer.lap(format);
        if (failures.empty()) {
            a["status"] = "passed";
        } else {
            a["status"] = "failed";
            std::string reason;
            for (const auto &f : failures)
                reason += (reason.empty() ? "" : "; ") + f;
            a["reason"] = reason;
            std::error_code ec;
            if (!path.empty() && fs::exists(path, ec)) {
                fs::rename(path, path + ".failed", ec);
                a["file"] = fs::path(path).filename().string() + ".failed";
            }
        }
        artifacts.push_back(a);
    }

    nlohmann::json report = {{"format_version", 1},
                             {"source", source},
                             {"input", {{"name", "input"},
                                        {"layout", options.preprocessing ? "uint8 NHWC" : "float32 NCHW, normalised"},
                                        {"shape", options.preprocessing ? nlohmann::json{"N", imageSize, imageSize, spec.inChannels}
                                                                        : nlohmann::json{"N", spec.inChannels, imageSize, imageSize}}}},
                             {"output", {{"name", options.softmax ? "probabilities" : "logits"},
                                         {"shape", {"N", spec.head.numClasses}}}},
                             {"opset", kOnnxOpset},
                             {"verification_images", {{"count", verify.images.size(0)}, {"source", verify.source}}},
                             {"original", original},
                             {"artifacts", artifacts},
                             {"seconds", secondsSince(started)},
                             {"cpu_seconds", double(std::clock() - startedCpu) / CLOCKS_PER_SEC},
                             {"timing", timer.phases()}};
    bool ok = true;
    for (const auto &a : artifacts)
        ok = ok && a["status"] == "passed";
    report["status"] = ok ? "passed" : "failed";
    writeJsonFile((fs::path(options.outDir) / "report.json").string(), report);
    control.report(1.0, ok ? "exported" : "exported with failures");
    return report;
}

nlohmann::json predictWithOnnx(const OnnxPredictOptions &options)
{
    const onnx::ModelProto model = readOnnxFile(options.modelPath);
    std::map<std::string, std::string> meta;
    for (const auto &p : model.metadata_props())
        meta[p.key()] = p.value();
    auto need = [&](const std::string &key) -> const std::string & {
        auto it = meta.find(key);
        if (it == meta.end())
            throw EngineError(options.modelPath + ": metadata '" + key + "' is missing (not exported by Lathe?)");
        return it->second;
    };
    TransformOptions transform;
    transform.train = false;
    nlohmann::json labels;
    bool pixels = false, probabilities = false;
    try {
        transform.imageSize = std::stoi(need("lathe.image_size"));
        transform.resizeSize = std::stoi(need("lathe.resize_size"));
        transform.channels = std::stoi(need("lathe.in_channels"));
        transform.mean = nlohmann::json::parse(need("lathe.mean")).get<std::array<float, 3>>();
        transform.std = nlohmann::json::parse(need("lathe.std")).get<std::array<float, 3>>();
        labels = nlohmann::json::parse(need("lathe.labels"));
        pixels = need("lathe.input_layout").rfind("uint8", 0) == 0;
        probabilities = need("lathe.output_name") == "probabilities";
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        throw EngineError(options.modelPath + ": malformed Lathe metadata (" + e.what() + ")");
    }
    transform.uint8Output = pixels;
    transform.channelsLast = pixels;
    const SampleTransform sample(transform);
    OpenCvRunner net(model);
    nlohmann::json predictions = nlohmann::json::array();
    std::mt19937_64 rng(0);
    const int s = transform.imageSize, c = transform.channels;
    for (const std::string &image : options.images) {
        const std::string bytes = readWholeFile(image);
        torch::Tensor x = pixels ? torch::empty({1, s, s, c}, torch::kByte) : torch::empty({1, c, s, s}, torch::kFloat);
        try {
            sample.apply(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), rng, x.data_ptr());
        } catch (const EngineError &e) {
            throw EngineError(image + ": " + e.what());
        }
        torch::Tensor out;
        try {
            out = net.run(x);
        } catch (const cv::Exception &e) {
            throw EngineError(options.modelPath + ": OpenCV DNN cannot run it (float ONNX only): " + e.what());
        }
        torch::Tensor p = probabilities ? out[0] : torch::softmax(out[0], 0);
        const int k = std::min<int>(options.top, int(p.size(0)));
        auto top = p.topk(k);
        nlohmann::json list = nlohmann::json::array();
        for (int i = 0; i < k; ++i) {
            const std::int64_t index = std::get<1>(top)[i].item<std::int64_t>();
            list.push_back({{"index", index},
                            {"label", index < std::int64_t(labels.size()) ? labels[std::size_t(index)] : nlohmann::json()},
                            {"probability", std::get<0>(top)[i].item<double>()}});
        }
        predictions.push_back({{"image", image}, {"top", list}});
    }
    return {{"model", options.modelPath}, {"runtime", "opencv_dnn"}, {"predictions", predictions}};
}

} // namespace lathe::engine
