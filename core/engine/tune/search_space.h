#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// The search space of a study (space.json; `lathe-cli tune --space`): which run-config fields a
// study varies and how, its budget, and the metric it optimises. One versioned JSON document:
//
//   {"version": 1,
//    "params": {
//      "optimizer.lr":         {"type": "log_uniform", "low": 1e-4, "high": 1e-1},
//      "optimizer.name":       {"type": "choice", "values": ["sgd", "adamw"]},
//      "optimizer.momentum":   {"type": "uniform", "low": 0.8, "high": 0.99,
//                               "when": {"optimizer.name": "sgd"}},
//      "optimizer.batch_size": {"type": "int_uniform", "low": 16, "high": 128, "log": false},
//      "schedule.name":        {"type": "grid", "values": ["cosine", "step"]}},
//    "budget": {"trials": 20, "epochs": 9, "seconds": 3600},
//    "metric": "val_top1", "direction": "maximize"}
//
// Parameter names are run-config fields by their dotted path (runConfigSchema()); each value a
// parameter can take is checked against its field, so a space that parses only yields configs
// whose fields are valid one by one (rules across fields are the run config's to check).
namespace lathe::engine {

enum class ParamType { Choice, Uniform, LogUniform, IntUniform, Grid };

// "choice", "uniform", "log_uniform", "int_uniform", "grid".
std::string paramTypeName(ParamType type);

// "when": {"optimizer.name": "sgd"} or {"optimizer.name": ["sgd", "rmsprop"]}: the parameter
// exists in a trial only while the named parameter exists and has one of the allowed values.
struct ParamCondition
{
    std::string param;
    std::vector<nlohmann::json> allowed;
};

struct ParamSpec
{
    std::string name;                   // the run-config field, "optimizer.lr"
    ParamType type = ParamType::Choice;
    double low = 0, high = 0;           // uniform, log_uniform, int_uniform (integers there); low < high
    bool log = false;                   // int_uniform: sampled in log space (low >= 1)
    std::vector<nlohmann::json> values; // choice, grid: distinct, at least one
    std::vector<ParamCondition> when;   // all must hold

    // Choice and grid: a value out of a list. The others are numeric.
    bool categorical() const { return type == ParamType::Choice || type == ParamType::Grid; }
    // Numeric and searched in log space (log_uniform, int_uniform with log).
    bool logScale() const { return type == ParamType::LogUniform || (type == ParamType::IntUniform && log); }
};

struct SearchBudget
{
    int trials = 0;      // 0: until the strategy runs out (a grid) or the time is up
    int epochs = 0;      // the most epochs a trial trains (ASHA/Hyperband's maximum resource); 0: the run config's
    double seconds = 0;  // wall time of the whole study; 0: no limit
};

struct SearchSpace
{
    static constexpr int kVersion = 1;
    // In an order where every parameter comes after those its "when" names (else by name), so
    // a trial's parameters can be drawn front to back.
    std::vector<ParamSpec> params;
    SearchBudget budget;
    std::string metric = "val_top1";    // one of the run's metrics: val_top1, val_loss, train_loss
    bool maximize = true;               // "direction"; by default maximize for val_top1, minimize for losses

    const ParamSpec *find(const std::string &name) const; // nullptr when name is no parameter
};

// Parses and checks a space; errors are EngineError "<json path>: <reason>" with paths like
// `space.params."optimizer.lr".low: must be > 0 for log_uniform`. Unknown keys, unknown
// run-config fields (with a suggestion), values a field does not accept, conditions on missing
// parameters or values, and cycles of conditions are errors.
SearchSpace parseSearchSpace(const nlohmann::json &json);
SearchSpace readSearchSpace(const std::string &path); // parseSearchSpace; errors also name the file
// The canonical document (every field written); parseSearchSpace reads it back equal.
nlohmann::json searchSpaceToJson(const SearchSpace &space);

// Whether param takes part in a trial whose values so far are params (an object of name ->
// value): every condition's parameter is present with an allowed value.
bool isParamActive(const ParamSpec &param, const nlohmann::json &params);

// Checks that params (name -> value) is what the space can produce: exactly the active
// parameters, each value within its parameter's range or list. Errors name `where` and the
// parameter: `study.trials[2].params."optimizer.lr": 5 is outside [0.0001, 0.1]`.
void checkTrialParams(const SearchSpace &space, const nlohmann::json &params, const std::string &where);

// A copy of runConfig (a run-config JSON document) with each parameter set at its dotted path,
// creating the sections that are missing. Each name must be a run-config field: an unknown one
// is an EngineError "params.\"optimizer.learnig_rate\": not a run-config field (did you mean
// optimizer.lr?)". The result is for parseRunConfig/validateRunConfig, which check the rest.
nlohmann::json applyTrialParams(const nlohmann::json &runConfig, const nlohmann::json &params);

// Two parameter values equal as a space compares them (3 and 3.0 are equal).
bool paramValuesEqual(const nlohmann::json &a, const nlohmann::json &b);

} // namespace lathe::engine
