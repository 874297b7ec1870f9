#include "engine/training/memory_estimate.h"

#include "engine/base/engine_error.h"
#include "engine/models/freezing.h"
#include "engine/models/model_builder.h"
#include "engine/training/optimizer_factory.h"

#include "engine/base/torch_compat.h"
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace lathe::engine {
namespace {

// The peak of CPU tensor bytes this thread holds while a Counting is installed, above what it
// held before. LibTorch's CPU allocator reports every allocation, and the free of every block it
// reported, to the thread's memory-reporting info (the hook torch.profiler's profile_memory
// uses). Nothing global changes: a run training on another thread meanwhile is not touched.
class Counting final : public c10::MemoryReportingInfoBase
{
public:
    void reportMemoryUsage(void *, std::int64_t bytes, compat::MemoryTotal, compat::MemoryTotal, c10::Device device) override
    {
        if (!device.is_cpu())
            return;
        m_live += bytes;
        m_peak = std::max(m_peak, m_live);
    }
    bool memoryProfilingEnabled() const override { return true; }
    std::int64_t peak() const { return m_peak; }

private:
    std::int64_t m_live = 0;
    std::int64_t m_peak = 0;
};

// Runs f with this thread's allocations counted; returns their peak.
template <class F>
std::int64_t peakOf(F &&f)
{
    auto counting = std::make_shared<Counting>();
    {
        c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, counting);
        f();
    }
    return counting->peak();
}

struct Prepared
{
    BuiltModel built;
    int imageSize = 0;
};

Prepared prepare(const RunConfig &config, int numClasses)
{
    if (numClasses < 1)
        throw EngineError("memory estimate: the dataset's class count is needed (got " + std::to_string(numClasses) + ")");
    ModelSpec spec = modelSpecForDataset(config, numClasses);
    spec.weightsPath.clear(); // same shapes without reading a file
    Prepared p;
    p.built = buildModel(spec);
    p.imageSize = config.data.imageSize > 0 ? config.data.imageSize : p.built.info.inputSize;
    torch::nn::Module &model = *p.built.classifier;
    model.train();
    applyFreezing(model, p.built.info, spec.freeze, 0);
    applyBatchNormFreezing(model, p.built.info, spec.freeze);
    return p;
}

// One forward and backward pass; the loss in fp32 as the trainer computes it.
void forwardBackward(models::Classifier &model, const RunConfig &config, int imageSize, int batch, int numClasses)
{
    const torch::Tensor x = torch::randn({batch, config.model.inChannels, imageSize, imageSize});
    const torch::Tensor y = torch::randint(numClasses, {batch}, torch::kInt64);
    torch::Tensor logits;
    {
        // CPU autocast for the measured forward pass (bf16 stands in for fp16: the same width).
        compat::AutocastScope autocast(config.precision != "fp32", c10::DeviceType::CPU, at::kBFloat16);
        logits = model.forward(x);
    }
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), y);
    if (loss.requires_grad())
        loss.backward();
}

std::int64_t bytesOf(const std::vector<torch::Tensor> &tensors, bool onlyTrainable)
{
    std::int64_t bytes = 0;
    for (const torch::Tensor &t : tensors)
        if (!onlyTrainable || t.requires_grad())
            bytes += std::int64_t(t.numel()) * std::int64_t(t.element_size());
    return bytes;
}

} // namespace

MemoryEstimate estimateTrainingMemory(const RunConfig &config, int numClasses)
{
    Prepared p = prepare(config, numClasses);
    models::Classifier &model = *p.built.classifier;

    MemoryEstimate e;
    e.imageSize = p.imageSize;
    const std::vector<torch::Tensor> params = model.parameters();
    e.parameters = bytesOf(params, false) + bytesOf(model.buffers(), false);
    e.gradients = bytesOf(params, true);
    for (const torch::Tensor &t : params)
        if (t.requires_grad())
            e.trainableParameters += t.numel();

    // Warm-up: gradients and lazily built caches exist before anything is counted.
    constexpr int kSmall = 2, kLarge = 4;
    forwardBackward(model, config, p.imageSize, kSmall, numClasses);
    std::int64_t peak[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        for (torch::Tensor &t : model.parameters())
            if (t.grad().defined())
                t.mutable_grad().zero_();
        peak[i] = peakOf([&] { forwardBackward(model, config, p.imageSize, i == 0 ? kSmall : kLarge, numClasses); });
    }
    e.activationsPerImage = std::max<std::int64_t>(0, (peak[1] - peak[0]) / (kLarge - kSmall));
    e.activationsFixed = std::max<std::int64_t>(0, peak[0] - kSmall * e.activationsPerImage);

    // The step time: whole training steps with the run's optimizer, fastest of a few.
    const std::vector<ParameterGroup> groups =
        parameterGroups(model, p.built.info, config.model.freeze, config.optimizer.noDecayNormsAndBiases);
    std::unique_ptr<torch::optim::Optimizer> optimizer = makeOptimizer(config.optimizer, groups);
    const auto fastestStep = [&](int batch) {
        using Clock = std::chrono::steady_clock;
        double fastest = 0, spent = 0;
        // Five tries or a second: a program busy elsewhere (a page loading thumbnails) slows
        // some steps several times over, and the fastest is the one the run will see.
        for (int i = 0; i < 5 && spent < 1.0; ++i) {
            const Clock::time_point start = Clock::now();
            optimizer->zero_grad();
            forwardBackward(model, config, p.imageSize, batch, numClasses);
            optimizer->step();
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            fastest = i == 0 ? seconds : std::min(fastest, seconds);
            spent += seconds;
        }
        return fastest;
    };
    constexpr int kTimedSmall = 4, kTimedLarge = 8;
    const double small = fastestStep(kTimedSmall), large = fastestStep(kTimedLarge);
    e.stepSecondsPerImage = std::max(0.0, (large - small) / (kTimedLarge - kTimedSmall));
    if (e.stepSecondsPerImage == 0) // noise: a step no slower at twice the batch
        e.stepSecondsPerImage = large / kTimedLarge;
    e.stepSecondsFixed = std::max(0.0, small - kTimedSmall * e.stepSecondsPerImage);
    completeMemoryEstimate(e, config);
    return e;
}

TimeEstimate estimateTrainingTime(const MemoryEstimate &e, const RunConfig &config, std::int64_t trainImages,
                                  std::int64_t valImages)
{
    const OptimizerConfig &o = config.optimizer;
    TimeEstimate t;
    const std::int64_t batches = trainImages / o.batchSize;
    t.stepsPerEpoch = batches / std::max(1, o.accumulateSteps);
    t.imagesPerEpoch = batches * o.batchSize;
    // With accumulation an optimizer step is accumulate_steps forward and backward passes.
    t.secondsPerStep = std::max(1, o.accumulateSteps) * (e.stepSecondsFixed + o.batchSize * e.stepSecondsPerImage);
    const double validation = config.data.valSplit.empty() ? 0.0 : double(valImages) * e.stepSecondsPerImage / 3;
    t.secondsPerEpoch = double(t.stepsPerEpoch) * t.secondsPerStep + validation;
    t.seconds = t.secondsPerEpoch * o.epochs;
    return t;
}

void completeMemoryEstimate(MemoryEstimate &e, const RunConfig &config)
{
    const OptimizerConfig &o = config.optimizer;
    e.batchSize = o.batchSize;
    // torch::optim keeps a momentum buffer (SGD with momentum), exp_avg and exp_avg_sq (AdamW), or
    // square_avg plus a momentum buffer (RMSprop with momentum) per trainable parameter.
    const int buffers = o.name == "adamw" ? 2 : o.name == "rmsprop" ? (o.momentum > 0 ? 2 : 1) : (o.momentum > 0 ? 1 : 0);
    e.optimizerState = buffers * e.gradients;
    e.ema = config.ema.enabled ? e.parameters : 0;
    e.activations = e.activationsFixed + std::int64_t(e.batchSize) * e.activationsPerImage;
    e.total = e.parameters + e.gradients + e.optimizerState + e.ema + e.activations;
    e.note.clear();
    if (config.precision == "fp16")
        e.note = "fp16 activations measured with bf16 on the CPU (same width)";
    const bool cuda = std::any_of(config.devices.begin(), config.devices.end(),
                                  [](const std::string &d) { return d.rfind("cuda", 0) == 0; });
    if (cuda)
        e.note += std::string(e.note.empty() ? "" : "; ") + "add the CUDA context and cuDNN workspaces (often 0.5-1 GiB)";
}

std::int64_t measureTrainingPeak(const RunConfig &config, int numClasses, int steps)
{
    return peakOf([&] {
        Prepared p = prepare(config, numClasses);
        models::Classifier &model = *p.built.classifier;
        const std::vector<ParameterGroup> groups =
            parameterGroups(model, p.built.info, config.model.freeze, config.optimizer.noDecayNormsAndBiases);
        std::unique_ptr<torch::optim::Optimizer> optimizer = makeOptimizer(config.optimizer, groups);
        std::vector<torch::Tensor> emaCopy; // what WeightEma keeps: parameters and buffers
        if (config.ema.enabled) {
            for (const torch::Tensor &t : model.parameters())
                emaCopy.push_back(t.detach().clone());
            for (const torch::Tensor &t : model.buffers())
                emaCopy.push_back(t.detach().clone());
        }
        for (int i = 0; i < steps; ++i) {
            optimizer->zero_grad();
            forwardBackward(model, config, p.imageSize, config.optimizer.batchSize, numClasses);
            optimizer->step();
        }
    });
}

} // namespace lathe::engine
