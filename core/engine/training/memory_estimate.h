#pragma once

#include "engine/run/run_config.h"

#include <cstdint>
#include <string>

namespace lathe::engine {

// Memory one training rank needs, in bytes, by part.
struct MemoryEstimate
{
    std::int64_t parameters = 0;     // weights and buffers (fp32: autocast keeps fp32 master weights)
    std::int64_t gradients = 0;      // one per trainable parameter
    std::int64_t optimizerState = 0; // momentum or moment buffers of the trainable parameters
    std::int64_t ema = 0;            // the averaged copy of the weights (ema.enabled)
    std::int64_t activationsPerImage = 0; // measured: kept for the backward pass and temporaries
    std::int64_t activationsFixed = 0;    // measured: per step, whatever the batch
    std::int64_t activations = 0;    // activationsFixed + batchSize * activationsPerImage
    std::int64_t total = 0;
    std::int64_t trainableParameters = 0;
    int batchSize = 0;               // per rank
    int imageSize = 0;               // data.image_size, or the backbone's default
    std::string note;                // what the figure leaves out or approximates, in words
    // Time, measured on this machine's CPU without the memory hook: one training step (forward,
    // backward, optimizer step) at batch b takes about stepSecondsFixed + b * stepSecondsPerImage.
    double stepSecondsFixed = 0;
    double stepSecondsPerImage = 0;
};

// How long a run takes on the CPU the estimate was measured on.
struct TimeEstimate
{
    double seconds = 0;             // every epoch: its training steps and its validation pass
    double secondsPerEpoch = 0;
    double secondsPerStep = 0;      // at optimizer.batch_size
    std::int64_t stepsPerEpoch = 0; // whole batches of the training split (the last partial one is dropped)
    std::int64_t imagesPerEpoch = 0; // the images those steps use
};

// The memory of one training step of `config` for a dataset of numClasses classes: per rank
// (optimizer.batch_size), at data.image_size (or the backbone's), model.in_channels, precision,
// model.freeze, optimizer and ema. Parameters, gradients and optimizer state are counted on the
// built model; activations are measured, not guessed: after a warm-up step, one
// forward+backward pass at batch 2 and one at batch 4 run on the CPU with the calling thread's
// allocations counted (LibTorch's memory-profiling hook; other threads, such as a run training
// meanwhile, are not counted), which gives the per-image and the fixed part, scaled to the batch. fp16 is measured
// as bf16 (same width). Not counted: the CUDA context and cuDNN workspaces, the input
// pipeline's buffers and the image cache (data.cache_mb). model.weights is not read (random
// weights have the same size). The step time is measured after that: real training steps
// (optimizer included) at batch 4 and 8, repeated up to 0.5 s each, the fastest kept. Blocking:
// about the time of five small training steps on the CPU. Throws EngineError.
MemoryEstimate estimateTrainingMemory(const RunConfig &config, int numClasses);

// Fills the parts that follow from the measured ones and the config without measuring again
// (batch size, optimizer state, EMA, total, note): a new batch size or optimizer needs no new
// measurement, only a new model, image size, channel count, precision or freezing does.
void completeMemoryEstimate(MemoryEstimate &estimate, const RunConfig &config);

// The time of config's run on the CPU from a measured estimate: epochs x (the training split's
// whole batches x a step's time + the validation split's images x a third of a step's per-image
// time, a forward pass without backward). The input pipeline is not counted (it runs beside the
// steps); nor are checkpoints. Only meaningful for CPU devices: a GPU's steps are not measured.
TimeEstimate estimateTrainingTime(const MemoryEstimate &estimate, const RunConfig &config, std::int64_t trainImages,
                                  std::int64_t valImages);

// The peak of CPU memory held by tensors while building the model and running `steps` real
// training steps (forward, backward, optimizer step) of config at optimizer.batch_size: the
// measurement estimateTrainingMemory is checked against.
std::int64_t measureTrainingPeak(const RunConfig &config, int numClasses, int steps = 2);

} // namespace lathe::engine
