#pragma once

// Torch-free: the GUI draws the learning-rate preview with it.

#include "engine/run/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lathe::engine {

// The learning rate at every optimizer step of a run, as PyTorch's schedulers of the same kind
// compute it, evaluated per step: schedules PyTorch steps once per epoch are evaluated at the
// fractional epoch step / stepsPerEpoch, which gives PyTorch's per-epoch values at each epoch
// start (step, multi_step: the same staircase; exponential: gamma^epoch, smooth in between).
//
//   step             StepLR: gamma^floor(epoch / step_size)
//   multi_step       MultiStepLR: gamma^(number of milestones <= epoch)
//   exponential      ExponentialLR: gamma^epoch
//   cosine           CosineAnnealingLR from lr to min_lr over all the steps after warm-up
//   cosine_restarts  CosineAnnealingWarmRestarts(T_0 = restart_epochs, T_mult), stepped with
//                    fractional epochs as PyTorch documents (scheduler.step(epoch + i / iters))
//   one_cycle        OneCycleLR (two phases, cosine annealing) over the whole run:
//                    max_lr / div_factor -> max_lr (pct_start of the steps) -> max_lr /
//                    (div_factor * final_div_factor); max_lr 0 means lr
//   plateau          ReduceLROnPlateau (rel threshold, no cooldown): reportEpoch() lowers the
//                    factor by plateau_factor after more than patience epochs without improvement
//   constant         1
//
// Warm-up: a linear ramp (LinearLR) from warmup_start_factor to 1 over round(warmup_epochs *
// stepsPerEpoch) steps (at least 1 when warmup_epochs > 0) comes in front of every schedule but
// one_cycle (which has its own, pct_start). The main schedule then runs over the remaining steps,
// as PyTorch's SequentialLR does: its epochs (step_size, milestones, gamma's exponent, restart
// periods) count from the end of the warm-up, and cosine reaches min_lr at the last step of the
// run. Steps past the end of the run keep the value at the end.
class LrSchedule
{
public:
    // Throws EngineError naming the schedule.* field for values the schedules cannot take.
    LrSchedule(const ScheduleConfig &config, double baseLr, std::int64_t stepsPerEpoch, int epochs);

    // Multiplier of the base lr at an optimizer step (step 0 = the first). For plateau, after
    // the warm-up it is the factor the reports so far have left (the schedule's history).
    double factorAt(std::int64_t step) const;
    double lrAt(std::int64_t step) const { return m_baseLr * factorAt(step); }

    // Plateau only (ignored by the other schedules): the monitored metric at the end of an
    // epoch (0 = the first). Its mode follows the metric's name: minimised for losses and
    // errors, maximised otherwise (accuracies). Reports for epochs that end inside the warm-up,
    // and repeated or older epochs (a resumed run reporting again), are ignored.
    void reportEpoch(int epoch, double metric);

    // What reportEpoch() changed, for checkpoints; the rest follows from the configuration.
    nlohmann::json state() const;
    // Throws EngineError ("scheduler state: ...") for a malformed or different schedule's state.
    void loadState(const nlohmann::json &state);

    // About `points` (step, lr) pairs spread over the run, first and last step included, for
    // previews. Plateau shows the warm-up and then its current factor.
    std::vector<std::pair<std::int64_t, double>> curve(int points) const;

    std::int64_t totalSteps() const { return m_totalSteps; }
    std::int64_t warmupSteps() const { return m_warmupSteps; }
    const std::string &name() const { return m_config.name; }

    static bool isMinimizedMetric(const std::string &metricName);

private:
    double mainFactor(std::int64_t step) const; // step counted from the end of the warm-up
    double oneCycleLr(std::int64_t step) const;

    ScheduleConfig m_config;
    double m_baseLr = 0;
    std::int64_t m_stepsPerEpoch = 1;
    std::int64_t m_totalSteps = 1;
    std::int64_t m_warmupSteps = 0;
    std::int64_t m_mainSteps = 1;

    // plateau
    bool m_minimize = true;
    double m_plateauFactor = 1;
    bool m_hasBest = false;
    double m_best = 0;
    int m_badEpochs = 0;
    int m_lastEpoch = -1;
};

} // namespace lathe::engine
