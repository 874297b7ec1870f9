#include "engine/inference/run_model.h"
#include "engine/training/devices.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/dataset/shard_converter.h"
#include "engine/models/model_builder.h"
#include "engine/models/weights_io.h"
#include "engine/run/run_layout.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numeric>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

std::vector<std::string> placeholderClasses(int count)
{
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i)
        out.push_back("class_" + std::to_string(i));
    return out;
}

// The class count a weights file's head was trained for (its final Linear's rows); 0 when unknown.
int headClassesOf(const NamedTensors &tensors, const BackboneInfo &info)
{
    if (info.headParameters.empty())
        return 0;
    for (const auto &entry : tensors)
        if (entry.first == info.headParameters.front() && entry.second.dim() >= 1)
            return int(entry.second.size(0));
    return 0;
}

void finish(RunModel &m, const std::string &device)
{
    m.device = inferenceDevice(device);
    m.classifier->to(m.device);
    m.classifier->eval();
}

} // namespace

RunModel loadRunModel(const std::string &runDir, const std::string &which, const std::string &device)
{
    RunModel m;
    m.runDir = runDir;
    const std::string configPath = run_layout::configPath(runDir);
    if (!isRunFolder(runDir))
        throw EngineError(runDir + ": not a run folder (no " + run_layout::kConfigFile + ")");
    m.config = readRunConfig(configPath);

    try {
        m.checkpoint = resolveCheckpoint(runDir, which);
    } catch (const EngineError &) {
        if (which != run_layout::kBestAlias)
            throw;
        // A run without validation has no best checkpoint; its last one is what it produced.
        m.checkpoint = resolveCheckpoint(runDir, run_layout::kLastAlias);
    }
    nlohmann::json meta;
    if (!m.checkpoint.sidecar.empty())
        meta = checkCheckpoint(m.checkpoint.sidecar);

    // Class names and the task: the sidecar's (the trainer records them), else the run's dataset.
    std::vector<std::string> classes;
    std::error_code ec;
    const bool hasClasses = meta.is_object() && meta.contains("classes") && meta["classes"].is_array();
    const bool hasTask = meta.is_object() && meta.contains("task") && meta["task"].is_string();
    if (hasClasses)
        for (const auto &c : meta["classes"]) {
            if (!c.is_string())
                throw EngineError(m.checkpoint.sidecar + ": \"classes\" must be an array of strings");
            classes.push_back(c.get<std::string>());
        }
    if (hasTask)
        m.task = meta["task"].get<std::string>();
    if ((!hasClasses || !hasTask) && !m.config.data.shards.empty() &&
        fs::is_regular_file(fs::path(m.config.data.shards) / "dataset.json", ec)) {
        const DatasetManifest manifest = readDatasetManifest(m.config.data.shards);
        if (!hasClasses)
            classes = manifest.classes;
        if (!hasTask)
            m.task = manifest.task;
    }

    int numClasses = m.config.model.head.numClasses;
    if (numClasses <= 0)
        numClasses = int(classes.size());
    const NamedTensors weights = readWeightsFile(m.checkpoint.model);
    if (numClasses <= 0) {
        const BackboneInfo info = m.config.model.arch == "torchscript" ? BackboneInfo{} : backboneInfo(m.config.model.arch);
        numClasses = headClassesOf(weights, info);
    }
    if (numClasses <= 0)
        throw EngineError(configPath + ": model.head.num_classes is 0 and no class list was found (checkpoint sidecar "
                          "or data.shards)");
    if (classes.empty())
        classes = placeholderClasses(numClasses);
    if (int(classes.size()) != numClasses)
        throw EngineError((m.checkpoint.sidecar.empty() ? configPath : m.checkpoint.sidecar) + ": " +
                          std::to_string(classes.size()) + " class names for a model of " + std::to_string(numClasses) +
                          " classes");
    m.classes = classes;
    if (m.multiLabel())
        m.thresholds = checkpointThresholds(meta, m.checkpoint.sidecar, classes.size());

    m.spec = m.config.model;
    m.spec.head.numClasses = numClasses;
    m.spec.weightsPath.clear();
    BuiltModel built = buildModel(m.spec);
    const LoadReport report = loadStateDict(*built.classifier, weights, &built.info);
    if (!report.missing.empty() || !report.mismatched.empty() || !report.unexpected.empty() || report.headReplaced ||
        !report.stemAdapted.empty())
        throw EngineError(m.checkpoint.model + ": does not match the run's model (" + m.spec.arch + ", " +
                          std::to_string(numClasses) + " classes): " + report.text());
    m.classifier = built.classifier;
    m.info = built.info;
    m.transform = evaluationTransform(m.info, m.config.data.imageSize, m.spec.inChannels);
    finish(m, device);
    return m;
}

std::shared_ptr<const RunModel> cachedRunModel(const std::string &runDir, const std::string &which,
                                               const std::string &device)
{
    struct Entry
    {
        std::string key;
        std::shared_ptr<const RunModel> model;
    };
    static std::mutex mutex;
    static Entry cache;

    // The key names what "which" resolves to now, so a new best/last checkpoint is picked up.
    CheckpointRef ref;
    try {
        ref = resolveCheckpoint(runDir, which);
    } catch (const EngineError &) {
        if (which != "best")
            throw;
        ref = resolveCheckpoint(runDir, "last");
    }
    std::error_code ec;
    const auto size = fs::file_size(ref.model, ec);
    const auto mtime = fs::last_write_time(ref.model, ec).time_since_epoch().count();
    const std::string key = runDir + '\n' + which + '\n' + device + '\n' + ref.model + '\n' + std::to_string(size) +
                            '\n' + std::to_string(mtime);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (cache.model && cache.key == key)
            return cache.model;
    }
    auto model = std::make_shared<const RunModel>(loadRunModel(runDir, which, device));
    std::lock_guard<std::mutex> lock(mutex);
    cache = {key, model};
    return model;
}

RunModel loadBareModel(const ModelSpec &spec, const std::vector<std::string> &classes, int imageSize,
                       const std::string &device)
{
    if (spec.weightsPath.empty())
        throw EngineError("model: a weights file is required to predict with a model outside a run folder");
    RunModel m;
    m.spec = spec;
    m.spec.weightsPath.clear();
    const NamedTensors weights = readWeightsFile(spec.weightsPath);
    int numClasses = int(classes.size());
    if (numClasses == 0) {
        const BackboneInfo info = spec.arch == "torchscript" ? BackboneInfo{} : backboneInfo(spec.arch);
        numClasses = headClassesOf(weights, info);
        if (numClasses <= 0)
            numClasses = spec.head.numClasses;
    }
    m.spec.head.numClasses = numClasses;
    BuiltModel built = buildModel(m.spec);
    const LoadReport report = loadStateDict(*built.classifier, weights, &built.info);
    if (!report.missing.empty() || !report.mismatched.empty() || report.headReplaced)
        throw EngineError(spec.weightsPath + ": does not fit " + spec.arch + " with " + std::to_string(numClasses) +
                          " classes: " + report.text());
    m.checkpoint.model = spec.weightsPath;
    m.classes = classes.empty() ? placeholderClasses(numClasses) : classes;
    m.classifier = built.classifier;
    m.info = built.info;
    m.config.model = m.spec;
    m.config.data.imageSize = imageSize > 0 ? imageSize : m.info.inputSize;
    m.transform = evaluationTransform(m.info, imageSize, m.spec.inChannels);
    finish(m, device);
    return m;
}

std::vector<std::uint8_t> readInputFile(const std::string &path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw EngineError(path + ": no such file");
    if (fs::is_directory(st))
        throw EngineError(path + ": is a folder, not an image");
    if (!fs::is_regular_file(st))
        throw EngineError(path + ": not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read its size (" + ec.message() + ")");
    checkLimit(path, size, parse_limits::kImageFileBytes);
    if (size == 0)
        throw EngineError(path + ": empty file (0 bytes)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open");
    std::vector<std::uint8_t> bytes(size);
    in.read(reinterpret_cast<char *>(bytes.data()), std::streamsize(size));
    if (std::uintmax_t(in.gcount()) != size)
        throw EngineError(path + ": read " + std::to_string(in.gcount()) + " of " + std::to_string(size) + " bytes");
    return bytes;
}

void topClasses(const float *probs, int classes, int k, std::vector<int> &indices, std::vector<float> &values)
{
    std::vector<int> order(static_cast<std::size_t>(classes));
    std::iota(order.begin(), order.end(), 0);
    k = std::clamp(k, 0, classes);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [probs](int a, int b) { return probs[a] > probs[b] || (probs[a] == probs[b] && a < b); });
    indices.assign(order.begin(), order.begin() + k);
    values.clear();
    for (int c : indices)
        values.push_back(probs[c]);
}

} // namespace lathe::engine
