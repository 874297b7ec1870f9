#pragma once

// Torch-free: lathe-cli tune and the workspace's TuneJob call it.

#include "engine/base/cancel_token.h"
#include "engine/training/trainer.h"
#include "engine/tune/study.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// Runs a study: each trial is an ordinary run (engine::train) of the study's base run config
// with the trial's parameters applied, in the run folder <study>/trial-NNNN, so the Runs page,
// Evaluate and Export work on any trial. The study folder holds:
//
//   study.json      the space, the strategy and every trial (study_state.h)
//   base_run.json   the run config every trial starts from (a run-config document)
//   trial-0000/ ... one run folder per trial
namespace lathe::engine {

inline constexpr const char *kStudyBaseConfigFile = "base_run.json";

// A new study folder: base_run.json (validated as a run config, written atomically) and
// study.json (Study::create). The folder must not hold a study already.
std::unique_ptr<Study> createStudy(const std::string &folder, const nlohmann::json &baseRunConfig,
                                   const SearchSpace &space, const StrategyConfig &strategy);
// The base run config of a study folder (errors name the file).
nlohmann::json readStudyBaseConfig(const std::string &folder);

// The run config of one trial: the base with the trial's parameters applied and, when the study
// sets a most-epochs (Study::maxEpochs() > 0), optimizer.epochs set to it; checked as a run
// config is (EngineError naming the trial and the field).
RunConfig trialRunConfig(const nlohmann::json &baseRunConfig, const Trial &trial, int maxEpochs);

struct StudyRunOptions
{
    // Trials trained at once (>= 1). Each takes one slot of `devices`; never more at once than
    // the memory estimate lets fit beside each other on their device.
    int parallel = 1;
    // One device per parallel slot ("cpu", "cuda:0", "cuda:1"); empty: every slot uses the base
    // run config's devices. Fewer entries than `parallel`: they are reused in turn.
    std::vector<std::string> devices;
    // Stops every running trial within a step (each writes its checkpoint and stays "running" in
    // study.json, so a resumed study continues it) and starts no new one.
    CancelToken cancel;
    // Pauses every running trial between steps and the start of new ones.
    PauseToken pause;
    // Study events, from the runner's threads (serialised: one call at a time):
    //   trial_started  trial, params, run_folder, device, resumed (bool)
    //   trial_event    trial, event (the run's own event: step, epoch, checkpoint, log, ...)
    //   trial_epoch    trial, epoch (1, 2, ...), value (the study's metric), rung, pruned (bool)
    //   trial_ended    trial, state (completed, pruned, failed), value, error
    //   study_log      message (waiting for memory, the time budget, ...)
    //   study_ended    status (finished, cancelled, time_up), trials, best_trial, best_value
    std::function<void(const nlohmann::json &event)> onEvent;
    // Bytes the trials may hold at once on a CPU (0: 80% of physical RAM); a CUDA device's own
    // memory bounds the trials on it.
    std::uint64_t cpuMemoryBudget = 0;
    // Skip the memory estimate (each slot trains one trial whatever it needs): for tests.
    bool skipMemoryEstimate = false;
};

// Runs the study until its budget (trials, seconds) or sampler is exhausted, or cancel. Trials
// left running by a killed or cancelled earlier run are continued first: from their run
// folder's latest checkpoint (engine::resume), else started again in that folder. Epoch
// metrics go to the study (and its pruner) as each epoch ends; a pruned trial's run is stopped
// at once (its checkpoint kept). A trial's value is its best epoch's metric (the epoch its best
// checkpoint keeps when the run monitors the same metric). A trial that fails (bad config,
// out of memory) is marked failed and the study goes on. Returns the study_ended event.
nlohmann::json runStudy(Study &study, const StudyRunOptions &options);

} // namespace lathe::engine
