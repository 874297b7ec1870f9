#pragma once

// Engine-internal: includes LibTorch. fp16 dynamic loss scaling, as torch.cuda.amp.GradScaler.

#include "engine/formats/safetensors.h"

#include <torch/optim/optimizer.h>

#include <cstdint>

namespace lathe::engine {

// Per optimizer step:
//   scaler.scale(loss).backward();
//   scaler.unscale(optimizer);           // only when the gradients are needed unscaled (clipping)
//   clipGradNorm(...);
//   scaler.step(optimizer);              // unscales if not done yet; skipped on inf/NaN gradients
//   scaler.update();                     // backoff after an overflow, growth after growthInterval clean steps
// With several ranks, all-reduce the gradients before unscale(): an overflow on any rank then
// shows on every rank, and all of them skip the same steps.
//
// Unscaling multiplies by the float32 reciprocal of the scale, computed in double (PyTorch's
// way); with the power-of-two scales the defaults produce it is exact. CUDA gradients use
// PyTorch's own fused kernels (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_);
// LibTorch 1.13 has none for the CPU, where the same arithmetic runs as plain tensor ops.
// Disabled, every call is a pass-through (scale() returns the loss, step() always steps).
class GradScaler
{
public:
    explicit GradScaler(double initScale = 65536, double growthFactor = 2, double backoffFactor = 0.5,
                        int growthInterval = 2000, bool enabled = true);

    bool enabled() const { return m_enabled; }

    // loss * scale (the scale lives on the loss's device from the first call on).
    torch::Tensor scale(const torch::Tensor &loss);

    // Divides every gradient of the optimizer by the scale, once per step; returns false when
    // a gradient holds an inf or NaN. Throws EngineError when called twice before update().
    bool unscale(torch::optim::Optimizer &optimizer);

    // Unscales first if unscale() was not called this step; steps only when the gradients are
    // finite. Returns whether the optimizer stepped.
    bool step(torch::optim::Optimizer &optimizer);

    // Adjusts the scale after step() (call once per step, also when the step was skipped).
    void update();

    double scaleValue() const;           // 1 when disabled
    std::int64_t skippedSteps() const { return m_skipped; }

    // "grad_scaler.scale" (float32 [1]), "grad_scaler.growth_tracker" (int32 [1], as PyTorch),
    // "grad_scaler.skipped_steps" (int64 scalar). Empty when disabled or before the first scale().
    NamedTensors state() const;
    // Entries without the "grad_scaler." prefix are ignored; throws EngineError naming the tensor
    // for a malformed one. Loading an empty state keeps the initial scale.
    void loadState(const NamedTensors &state);

private:
    void ensureScale(const torch::Device &device);

    double m_initScale;
    double m_growthFactor;
    double m_backoffFactor;
    int m_growthInterval;
    bool m_enabled;

    torch::Tensor m_scale;         // float32 [1]
    torch::Tensor m_growthTracker; // int32 [1]
    torch::Tensor m_foundInf;      // float32 [1], valid once unscaled this step
    bool m_unscaled = false;
    bool m_stepped = false;
    bool m_foundInfValue = false;
    std::int64_t m_skipped = 0;
};

} // namespace lathe::engine
