#pragma once

// Engine-internal: includes LibTorch. Exponential moving average of a model's weights.

#include "engine/formats/safetensors.h"

#include <torch/nn/module.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// A shadow copy of every parameter and buffer of a module (float32 kept as float32; the shadow
// has the module's dtypes and devices). After each optimizer step, update() moves each shadow
// parameter towards the model: ema = d * ema + (1 - d) * param, with
//   d = decay                                      without warm-up
//   d = min(decay, (1 + n) / (10 + n))             with warm-up, n = updates before this one
// (TensorFlow's ExponentialMovingAverage with num_updates, also timm's early ModelEma), so that
// the average forgets the random initial weights quickly: the first update uses d = 0.1.
// Buffers (BatchNorm running statistics, num_batches_tracked) are copied, not averaged, as the
// model's statistics are already running averages.
class WeightEma
{
public:
    // Create it once the model is on its device and in its dtype. Throws EngineError for a decay
    // outside [0, 1].
    WeightEma(const torch::nn::Module &module, double decay, bool warmup = true);

    void update(const torch::nn::Module &module);

    // Overwrites the module's parameters and buffers with the average.
    void copyTo(torch::nn::Module &module) const;
    // Exchanges the module's weights with the average: validate with the EMA weights between
    // two swaps; the second restores the training weights bit for bit.
    void swap(torch::nn::Module &module);

    double decayAt(std::int64_t updates) const; // d for the update after `updates` updates
    std::int64_t updates() const { return m_updates; }

    // "ema.<name>" for every parameter and buffer, plus "ema_updates" (int64 scalar). The tensors
    // share memory with the average: write them out before the next update().
    NamedTensors state() const;
    // Throws EngineError naming the tensor for a missing, misshaped or unknown entry; entries
    // outside "ema." and "ema_updates" are ignored, so a whole checkpoint may be passed.
    void loadState(const NamedTensors &state);

private:
    struct Entry
    {
        std::string name;
        bool parameter = true;
        torch::Tensor value;
    };
    std::vector<std::pair<std::string, torch::Tensor>> moduleTensors(const torch::nn::Module &module) const;

    double m_decay;
    bool m_warmup;
    std::int64_t m_updates = 0;
    std::vector<Entry> m_entries;
};

} // namespace lathe::engine
