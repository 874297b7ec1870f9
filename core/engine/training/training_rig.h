#pragma once

// Engine-internal (training only): includes LibTorch. One rank's model, optimizer, loss scaler
// and loss, set up from a run config the way a run's rank 0 sets them up (prepareRunSetup, the
// same seed before buildModel, freezing at epoch 0, parameter groups, makeOptimizer, the
// device, channels-last, class weights), but with no run folder, no other rank and no schedule:
// for the tools that take real training steps outside a run, the learning-rate finder and the
// batch-size finder. The feature cache is not used (the same embeddings, computed each step).

#include "engine/formats/safetensors.h"
#include "engine/models/freezing.h"
#include "engine/models/networks/classifier.h"
#include "engine/run/run_config.h"
#include "engine/training/grad_scaler.h"
#include "engine/training/loss_functions.h"
#include "engine/training/run_setup.h"

#include <torch/torch.h>

#include <memory>
#include <vector>

namespace lathe::engine {

struct TrainingRig
{
    // What a tool must leave as it found it: copies of every parameter and buffer, the
    // optimizer's per-parameter state and its groups' learning rates, the loss scaler's state
    // and each module's train/eval mode.
    struct Snapshot
    {
        std::vector<torch::Tensor> parameters;
        std::vector<torch::Tensor> buffers;
        NamedTensors optimizer;
        std::vector<double> lrs;
        NamedTensors scaler;
        std::vector<bool> training;
    };

    // Prepares config (prepareRunSetup) for one rank on config.devices' first device with the
    // per-rank batch; builds the model (loading model.weights) and its optimizer. Throws
    // EngineError for invalid configs and unreadable data or weights.
    explicit TrainingRig(const RunConfig &config);

    const RunConfig &config() const { return setup.config; }
    std::int64_t trainRecords() const; // of data.train_split

    Snapshot snapshot() const;
    void restore(const Snapshot &snapshot);

    // The start of an optimizer step: gradients cleared (set to none, as the trainer does).
    void clearGradients();
    // One micro-batch of a step of `accumulate`: forward under the run's autocast, the run's loss
    // (targets: int64 labels or soft targets), backward of the loss / accumulate (scaled for
    // fp16). Returns the loss; a non-finite one is not back-propagated.
    double forwardBackward(const torch::Tensor &images, const torch::Tensor &targets, int accumulate = 1);
    // The optimizer step at base learning rate lr (times each group's multiplier), with the
    // run's gradient clipping and fp16 loss scaling; false when the scaler skipped it.
    bool step(double lr);

    RunSetup setup; // one local rank: devices = {config.devices[0]}; worldSize as the run has it
    torch::Device device{torch::kCPU};
    std::shared_ptr<models::Classifier> model;
    std::vector<ParameterGroup> groups;
    std::unique_ptr<torch::optim::Optimizer> optimizer;
    std::unique_ptr<GradScaler> scaler;
    std::unique_ptr<RunLoss> loss;
    bool autocast = false;
    at::ScalarType autocastType = at::kBFloat16;
};

} // namespace lathe::engine
