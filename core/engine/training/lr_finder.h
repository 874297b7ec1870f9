#pragma once

// Torch-free: the workspace, the Train page and lathe-cli call it. The learning-rate range test
// (Smith 2015, "Cyclical Learning Rates for Training Neural Networks"; fastai's lr_find): real
// training steps of a run config with the learning rate growing exponentially, the loss of each
// step recorded and smoothed, stopped once it diverges; two rules read a suggestion off the curve.

#include "engine/base/task_control.h"
#include "engine/run/run_config.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace lathe::engine {

struct TrainingRig; // engine/training/training_rig.h (engine-internal)

struct LrFinderPoint
{
    double lr = 0;       // base learning rate of the step (each group times its multiplier)
    double loss = 0;     // the step's training loss, before its update (mean of accumulated batches)
    double smoothed = 0; // exponential moving average of the losses so far, bias-corrected
};

struct LrSuggestion
{
    std::string rule;    // "steepest" or "valley"
    double lr = 0;
    double smoothed = 0; // the smoothed loss at that point
    int index = -1;      // into LrFinderResult::points
};

struct LrFinderOptions
{
    int steps = 100;          // optimizer steps, one per learning rate
    double startLr = 1e-7;
    double endLr = 10;        // the last step's learning rate: lr_i = start * (end / start)^(i / (steps - 1))
    double beta = 0.98;       // smoothing: avg = beta * avg + (1 - beta) * loss, divided by 1 - beta^(i+1)
    double divergeFactor = 4; // stop once the smoothed loss exceeds this times its lowest so far
    // Each point as soon as it is measured, on the calling thread (a live plot).
    std::function<void(const LrFinderPoint &point, int index)> onPoint;
};

struct LrFinderResult
{
    std::vector<LrFinderPoint> points;      // in the order measured: increasing lr
    std::vector<LrSuggestion> suggestions;  // "steepest" then "valley"; either is absent when the trimmed curve is too short
    // "" (every step ran), "diverged" (smoothed loss > divergeFactor x its best; that point is the
    // last) or "non_finite" (a step's loss was NaN or infinite; that step is not in points).
    std::string stoppedEarly;
    int stepsPlanned = 0;
    int stepsDone = 0;       // steps whose loss was measured (points.size(), plus a non-finite one)
    int batchSize = 0;       // per rank, optimizer.batch_size
    std::string device;      // the run's first device: the test runs one rank
    // The points the rules read: [trimStart, trimEnd) (fastai: the first steps/10 and the last 5
    // are left out, the start being flat noise and the end the blow-up).
    int trimStart = 0;
    int trimEnd = 0;

    const LrSuggestion *suggestion(const std::string &rule) const;
};

// Builds the model, optimizer and training input of config as a run's rank 0 would (one rank,
// on config.devices' first device, optimizer.batch_size, accumulation, precision, freezing,
// clipping, loss, augmentation), then runs the range test from config.seed's initial weights
// (or model.weights). The learning-rate schedule and warm-up are not used: the test sweeps the
// learning rate itself. Nothing is written to disk. control.progress gets the fraction of steps
// done; control.cancel stops it within a step by throwing Cancelled. Throws EngineError for bad
// options ("lr finder: steps: ..."), invalid configs and failed steps.
LrFinderResult findLearningRate(const RunConfig &config, const LrFinderOptions &options = {},
                                const TaskControl &control = {});

// The same on a rig the caller holds (engine-internal callers and tests): the model, optimizer
// and loss scaler are restored exactly afterwards (also after a cancel or a failure), so the
// weights, buffers and optimizer state equal those before; the gradients are left cleared.
LrFinderResult findLearningRate(TrainingRig &rig, const LrFinderOptions &options, const TaskControl &control = {});

// The suggestion rules on a measured curve, read on the smoothed losses of
// points[trimStart, trimEnd) (fastai's lr_find: steps/10 from the start and 5 from the end):
//   steepest  the point where the smoothed loss falls fastest against log(lr) (the most negative
//             forward difference (s[i+1] - s[i]) / (log lr[i+1] - log lr[i]); fastai's steep)
//   valley    fastai's valley: the longest run of decreasing smoothed losses (a longest strictly
//             decreasing subsequence), and within its span from first to last index the point
//             int(n/3) + int(n/6) of the span's n steps in (about halfway down the valley)
// Each needs at least 3 points; fewer give no suggestion.
std::vector<LrSuggestion> suggestLearningRates(const std::vector<LrFinderPoint> &points, int trimStart, int trimEnd);
// The trimmed range [trimStart, trimEnd) for a curve of `measured` points from `planned` steps.
void trimRange(int planned, int measured, int &trimStart, int &trimEnd);

// {"points": [{"lr", "loss", "smoothed"}], "suggestions": [{"rule", "lr", "smoothed", "index"}],
//  "stopped_early": "" | "diverged" | "non_finite", "steps_planned", "steps_done", "batch_size",
//  "device", "trim_start", "trim_end"}
nlohmann::json lrFinderResultToJson(const LrFinderResult &result);

} // namespace lathe::engine
