#pragma once

#include "engine/tune/strategy.h"
#include "engine/tune/study_state.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace lathe::engine {

// A study on disk: its folder holds study.json (study_state.h) and one run folder per trial.
// Every trial event (started, an epoch's metric, completed, pruned, failed) is written to
// study.json atomically before the call returns, so a study killed at any moment reopens with
// every event it reported. Thread-safe: parallel trials report from their own threads.
// Training is not here: a runner asks startTrial() for parameters, trains the trial's run, and
// reports back.
class Study
{
public:
    // A new study in folder (created when missing); study.json must not exist there yet. The
    // space is checked as parseSearchSpace checks a file, the strategy's options are resolved
    // (defaults written out) and checked against it.
    static std::unique_ptr<Study> create(const std::string &folder, const SearchSpace &space,
                                         const StrategyConfig &strategy);
    // An existing study, e.g. after a kill. Trials that were running stay "running": the
    // runner resumes them from their run folders or calls failTrial().
    static std::unique_ptr<Study> open(const std::string &folder);

    Study(const Study &) = delete;
    Study &operator=(const Study &) = delete;

    const std::string &folder() const { return m_folder; }
    std::string statePath() const;
    StudyState state() const;   // a copy: other threads may be reporting
    Trial trial(int id) const;  // throws EngineError for an unknown id

    // The next trial, recorded as running (its run folder "trial-0003" named, not created) and
    // saved; nullopt when budget.trials trials exist already or the sampler has nothing left.
    // Its parameters depend only on the seed, its id and the trials that ended before.
    std::optional<Trial> startTrial();
    // Records the study's metric after epoch (1, 2, ...; increasing) of a running trial and asks
    // the pruner; a pruned trial is marked so (with its rung). Saved.
    PruneDecision reportEpoch(int trialId, int epoch, double value);
    void completeTrial(int trialId, double value);
    void failTrial(int trialId, const std::string &error);

    // The best completed trial by the space's metric and direction (the first of equals).
    std::optional<Trial> bestTrial() const;
    // The epochs a trial trains at most: the pruner's max_resource, else budget.epochs (0: the
    // run config's own).
    int maxEpochs() const;

    // The run folder name of trial id: "trial-0003".
    static std::string runFolderName(int trialId);

private:
    Study(std::string folder, StudyState state);
    Trial &runningTrial(int trialId, const char *what);
    void save();

    std::string m_folder;
    StudyState m_state;
    std::unique_ptr<Sampler> m_sampler;
    std::unique_ptr<Pruner> m_pruner;
    mutable std::mutex m_mutex;
};

} // namespace lathe::engine
