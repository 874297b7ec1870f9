#pragma once

#include "engine/tune/search_space.h"
#include "engine/tune/strategy.h"
#include "engine/tune/trial.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// A study's whole state, study.json in the study folder:
//
//   {"version": 1,
//    "space": {... searchSpaceToJson ...},
//    "strategy": {"sampler": "tpe", "pruner": "asha", "seed": 7,
//                 "sampler_options": {"n_startup_trials": 10, ...},
//                 "pruner_options": {"min_resource": 1, "reduction_factor": 3, "max_resource": 9}},
//    "trials": [{"id": 0, "params": {"optimizer.lr": 0.01}, "state": "completed",
//                "intermediate": {"1": 0.41, "2": 0.55}, "value": 0.55, "rung": 1, "bracket": -1,
//                "run_folder": "trial-0000"}, ...]}
//
// Samplers and pruners are functions of the trials and the seed (strategy.h), so this is all
// the strategy's state there is: a study read back continues exactly as it would have.
namespace lathe::engine {

inline constexpr const char *kStudyFile = "study.json";

struct StudyState
{
    static constexpr int kVersion = 1;
    SearchSpace space;
    StrategyConfig strategy;
    std::vector<Trial> trials;   // by id: trials[i].id == i
};

nlohmann::json studyStateToJson(const StudyState &state);
// Checks everything: the space, the strategy and its options, each trial's id, parameters
// (against the space), state, metrics; errors name the field ("study.trials[3].state: ...").
StudyState parseStudyState(const nlohmann::json &json);
StudyState readStudyState(const std::string &path);  // errors also name the file
// Atomically (temp + fsync + rename): a kill leaves the previous state or this one.
void writeStudyState(const std::string &path, const StudyState &state);

} // namespace lathe::engine
