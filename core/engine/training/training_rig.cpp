#include "engine/training/training_rig.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"
#include "engine/models/model_builder.h"
#include "engine/training/loss_functions.h"
#include "engine/training/optimizer_factory.h"
#include "engine/training/train_util.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace lathe::engine {

TrainingRig::TrainingRig(const RunConfig &config)
{
    setup.config = config;
    prepareRunSetup(setup);
    const RunConfig &c = setup.config;
    // One rank, alone on the machine: the first device, every core for its pipeline.
    setup.devices.erase(setup.devices.begin() + 1, setup.devices.end());
    setup.localRanks = 1;
    device = setup.devices.front();
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    setup.threadsPerRank = std::max(1, at::get_num_threads());
    setup.workersPerRank = c.data.workers > 0 ? c.data.workers : cores;

    torch::manual_seed(c.seed); // the run's initial weights
    BuiltModel built = buildModel(setup.spec);
    model = built.classifier;
    applyFreezing(*model, setup.info, setup.spec.freeze, 0);
    groups = parameterGroups(*model, setup.info, setup.spec.freeze, c.optimizer.noDecayNormsAndBiases);
    optimizer = makeOptimizer(c.optimizer, groups);
    if (device.is_cuda())
        at::globalContext().setBenchmarkCuDNN(true);
    model->to(device);
    if (c.data.channelsLast)
        toChannelsLast(*model);
    model->train();
    applyBatchNormFreezing(*model, setup.info, setup.spec.freeze);

    autocast = c.precision == "bf16" || c.precision == "fp16";
    autocastType = c.precision == "fp16" ? at::kHalf : at::kBFloat16;
    scaler = std::make_unique<GradScaler>(65536.0, 2.0, 0.5, 2000, c.precision == "fp16");
    loss = std::make_unique<RunLoss>(c, setup.multiLabel, setup.trainCounts, setup.trainImages, device);
}

std::int64_t TrainingRig::trainRecords() const
{
    std::int64_t n = 0;
    for (std::int64_t count : setup.trainCounts)
        n += count;
    return n;
}

TrainingRig::Snapshot TrainingRig::snapshot() const
{
    torch::NoGradGuard noGrad;
    Snapshot s;
    for (const torch::Tensor &p : model->parameters())
        s.parameters.push_back(p.detach().clone());
    for (const torch::Tensor &b : model->buffers())
        s.buffers.push_back(b.clone());
    // optimizerState() shares memory with the optimizer, which updates it in place.
    for (auto &entry : optimizerState(*optimizer, groups))
        s.optimizer.emplace_back(entry.first, entry.second.clone());
    for (const auto &group : optimizer->param_groups())
        s.lrs.push_back(group.options().get_lr());
    for (auto &entry : scaler->state())
        s.scaler.emplace_back(entry.first, entry.second.clone());
    for (const auto &module : model->modules(/*include_self=*/true))
        s.training.push_back(module->is_training());
    return s;
}

void TrainingRig::restore(const Snapshot &s)
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> parameters = model->parameters();
    std::vector<torch::Tensor> buffers = model->buffers();
    if (parameters.size() != s.parameters.size() || buffers.size() != s.buffers.size())
        throw EngineError("training rig: the snapshot is of another model");
    for (std::size_t i = 0; i < parameters.size(); ++i)
        parameters[i].copy_(s.parameters[i]);
    for (std::size_t i = 0; i < buffers.size(); ++i)
        buffers[i].copy_(s.buffers[i]);
    clearGradients();
    loadOptimizerState(*optimizer, groups, s.optimizer); // also drops the state of parameters stepped since
    auto &pgs = optimizer->param_groups();
    for (std::size_t g = 0; g < pgs.size() && g < s.lrs.size(); ++g)
        pgs[g].options().set_lr(s.lrs[g]);
    scaler = std::make_unique<GradScaler>(65536.0, 2.0, 0.5, 2000, config().precision == "fp16");
    scaler->loadState(s.scaler);
    // Pre-order: a module's own mode is set after its parent's (train() recurses).
    const auto modules = model->modules(/*include_self=*/true);
    for (std::size_t i = 0; i < modules.size() && i < s.training.size(); ++i)
        modules[i]->train(s.training[i]);
}

void TrainingRig::clearGradients()
{
    lathe::engine::clearGradients(*optimizer);
}

double TrainingRig::forwardBackward(const torch::Tensor &images, const torch::Tensor &targets, int accumulate)
{
    const torch::Tensor x = images.to(device, /*non_blocking=*/true);
    const torch::Tensor y = targets.to(device);
    torch::Tensor logits;
    {
        compat::AutocastScope scope(autocast, device.type(), autocastType);
        logits = model->forward(x);
    }
    const torch::Tensor lossTensor = (*loss)(logits, y);
    const double value = lossTensor.item<double>();
    if (!std::isfinite(value))
        return value;
    torch::Tensor scaled = accumulate > 1 ? lossTensor / double(accumulate) : lossTensor;
    if (scaler->enabled())
        scaled = scaler->scale(scaled);
    scaled.backward();
    return value;
}

bool TrainingRig::step(double lr)
{
    setLearningRate(*optimizer, lr, groups);
    if (config().optimizer.clipGradNorm > 0) {
        if (scaler->enabled())
            scaler->unscale(*optimizer);
        clipGradNorm(groups, config().optimizer.clipGradNorm);
    }
    const bool stepped = scaler->step(*optimizer);
    scaler->update();
    return stepped;
}

} // namespace lathe::engine
