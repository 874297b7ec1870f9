#pragma once

// Engine-internal: includes LibTorch. Which parameters train, and at which learning rate.

#include "engine/models/backbone_registry.h"
#include "engine/models/model_spec.h"

#include <torch/nn/module.h>

#include <string>
#include <vector>

namespace lathe::engine {

// Parameters that no stage prefix matches (e.g. "head_hidden.*") belong to the last stage, "head".
int stageIndexOf(const BackboneInfo &info, const std::string &parameterName);

// How many stages, counted from the input, are frozen at this epoch (gradual unfreezing
// included). Throws EngineError for invalid options (model.freeze.*).
int frozenStageCount(const BackboneInfo &info, const FreezeOptions &freeze, int epoch);

// Sets requires_grad of every parameter: false in the frozen stages, true elsewhere.
// Call at the start of every epoch when gradual unfreezing is on.
void applyFreezing(torch::nn::Module &model, const BackboneInfo &info, const FreezeOptions &freeze, int epoch);

// Call after model.train() (and after applyFreezing): puts BatchNorm modules in eval mode so
// that their running statistics stay fixed, all of them with freezeBatchNorm, and always those
// of frozen stages (recognised by their frozen affine parameters). A frozen stage whose
// statistics kept drifting with the new data would not be frozen in the sense users expect.
void applyBatchNormFreezing(torch::nn::Module &model, const BackboneInfo &info, const FreezeOptions &freeze);

// Trainable parameters sharing a learning-rate multiplier and weight-decay setting.
struct ParameterGroup
{
    std::string stage; // the stages in the group, joined with '+' ("stem+layer1")
    double lrMultiplier = 1;
    bool weightDecay = true;
    std::vector<torch::Tensor> parameters;
    std::vector<std::string> names;
};

// Only parameters that require grad, grouped by (stage multiplier, decay), in model order.
// noDecayForNormsAndBiases puts biases, 1-D parameters (norm weights) and the learned
// embeddings/scales (class_token, pos_embedding, layer_scale) in groups without weight decay.
// Throws EngineError naming model.freeze.lr_multipliers for an unknown stage name.
std::vector<ParameterGroup> parameterGroups(torch::nn::Module &model, const BackboneInfo &info,
                                            const FreezeOptions &freeze, bool noDecayForNormsAndBiases);

// Per-stage parameter counts; trainable as applyFreezing at epoch 0 would leave them (the model
// is not changed).
ModelSummary summarize(torch::nn::Module &model, const BackboneInfo &info, const FreezeOptions &freeze);

// The multiplier of a stage (1 when not named); validates every name.
double lrMultiplierOf(const BackboneInfo &info, const FreezeOptions &freeze, const std::string &stage);

} // namespace lathe::engine
