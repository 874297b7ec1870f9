#include "engine/tune/study_state.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/json_fields.h"

#include <fstream>
#include <sstream>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

namespace {

json trialToJson(const Trial &t)
{
    json intermediate = json::object();
    for (const auto &[epoch, value] : t.intermediate)
        intermediate[std::to_string(epoch)] = value;
    json out = {{"id", t.id},
                {"params", t.params},
                {"state", trialStateName(t.state)},
                {"intermediate", std::move(intermediate)},
                {"rung", t.rung},
                {"bracket", t.bracket},
                {"run_folder", t.runFolder}};
    if (t.value)
        out["value"] = *t.value;
    if (!t.error.empty())
        out["error"] = t.error;
    return out;
}

Trial parseTrial(const std::string &path, const json &object, const SearchSpace &space, int expectedId)
{
    requireObject(path, object, "a trial object");
    checkKnownKeys(path, object, {"id", "params", "state", "intermediate", "value", "rung", "bracket", "run_folder", "error"},
                   "unknown key of a trial");
    for (const char *key : {"id", "params", "state"})
        if (!object.contains(key))
            fail(fieldPath(path, key), "missing");
    Trial t;
    t.id = readInt(fieldPath(path, "id"), object["id"], NumberRange().ge(0));
    if (t.id != expectedId)
        fail(fieldPath(path, "id"), "expected " + std::to_string(expectedId) + " (trials are listed by id from 0) (got " +
                                        std::to_string(t.id) + ")");
    t.params = object["params"];
    checkTrialParams(space, t.params, fieldPath(path, "params"));
    t.state = trialStateFromName(fieldPath(path, "state"), readString(fieldPath(path, "state"), object["state"]));
    if (object.contains("intermediate")) {
        const std::string at = fieldPath(path, "intermediate");
        const json &values = requireObject(at, object["intermediate"], "an object of \"epoch\": metric");
        for (auto it = values.begin(); it != values.end(); ++it) {
            const std::string &key = it.key();
            const bool digits = !key.empty() && key.size() <= 9 && key.find_first_not_of("0123456789") == std::string::npos &&
                                key[0] != '0';
            if (!digits)
                fail(fieldPath(at, key), "expected an epoch number from 1 as the key");
            t.intermediate[std::stoi(key)] = readNumber(fieldPath(at, key), it.value());
        }
    }
    if (object.contains("value"))
        t.value = readNumber(fieldPath(path, "value"), object["value"]);
    if (t.state == TrialState::Completed && !t.value)
        fail(fieldPath(path, "value"), "missing (a completed trial has its final metric)");
    if (t.state != TrialState::Completed && t.value)
        fail(fieldPath(path, "value"), "only a completed trial has a final metric (this one is " +
                                           trialStateName(t.state) + ")");
    if (object.contains("rung"))
        t.rung = readInt(fieldPath(path, "rung"), object["rung"], NumberRange().ge(-1));
    if (object.contains("bracket"))
        t.bracket = readInt(fieldPath(path, "bracket"), object["bracket"], NumberRange().ge(-1));
    if (object.contains("run_folder"))
        t.runFolder = readString(fieldPath(path, "run_folder"), object["run_folder"]);
    if (t.runFolder.find('/') != std::string::npos || t.runFolder == "." || t.runFolder == "..")
        fail(fieldPath(path, "run_folder"), "expected a folder name inside the study folder (got " +
                                                shown(object["run_folder"]) + ")");
    if (object.contains("error"))
        t.error = readString(fieldPath(path, "error"), object["error"]);
    return t;
}

} // namespace

json studyStateToJson(const StudyState &state)
{
    json trials = json::array();
    for (const Trial &t : state.trials)
        trials.push_back(trialToJson(t));
    return {{"version", StudyState::kVersion},
            {"space", searchSpaceToJson(state.space)},
            {"strategy",
             {{"sampler", state.strategy.sampler},
              {"pruner", state.strategy.pruner},
              {"seed", state.strategy.seed},
              {"sampler_options", state.strategy.samplerOptions},
              {"pruner_options", state.strategy.prunerOptions}}},
            {"trials", std::move(trials)}};
}

StudyState parseStudyState(const json &document)
{
    const std::string root = "study";
    requireObject(root, document, "a JSON object holding a study");
    checkKnownKeys(root, document, {"version", "space", "strategy", "trials"},
                   "unknown key (a study has version, space, strategy, trials)");
    for (const char *key : {"version", "space", "strategy", "trials"})
        if (!document.contains(key))
            fail(fieldPath(root, key), "missing");
    const int version = readInt(fieldPath(root, "version"), document["version"], NumberRange().ge(1));
    if (version > StudyState::kVersion)
        fail(fieldPath(root, "version"), "this study is from a newer Lathe (version " + std::to_string(version) +
                                             ", this one reads up to " + std::to_string(StudyState::kVersion) + ")");
    StudyState state;
    try {
        state.space = parseSearchSpace(document["space"]);
    } catch (const EngineError &e) {
        throw EngineError(root + "." + e.what()); // "study.space.params...": the space's own paths
    }

    const std::string at = fieldPath(root, "strategy");
    const json &strategy = requireObject(at, document["strategy"]);
    checkKnownKeys(at, strategy, {"sampler", "pruner", "seed", "sampler_options", "pruner_options"},
                   "unknown key (a strategy has sampler, pruner, seed, sampler_options, pruner_options)");
    if (!strategy.contains("sampler"))
        fail(fieldPath(at, "sampler"), "missing");
    state.strategy.sampler = readEnum(fieldPath(at, "sampler"), strategy["sampler"], samplerNames());
    if (strategy.contains("pruner"))
        state.strategy.pruner = readEnum(fieldPath(at, "pruner"), strategy["pruner"], prunerNames());
    if (strategy.contains("seed"))
        state.strategy.seed = readUnsigned(fieldPath(at, "seed"), strategy["seed"]);
    if (strategy.contains("sampler_options"))
        state.strategy.samplerOptions = requireObject(fieldPath(at, "sampler_options"), strategy["sampler_options"]);
    if (strategy.contains("pruner_options"))
        state.strategy.prunerOptions = requireObject(fieldPath(at, "pruner_options"), strategy["pruner_options"]);
    // The options are checked as the study will use them (their errors name strategy.*_options).
    try {
        makeSampler(state.space, state.strategy);
        makePruner(state.space, state.strategy);
    } catch (const EngineError &e) {
        throw EngineError(root + "." + e.what()); // "study.strategy.pruner_options..."
    }

    const std::string trialsAt = fieldPath(root, "trials");
    const json &trials = requireArray(trialsAt, document["trials"], "an array of trials");
    for (std::size_t i = 0; i < trials.size(); ++i)
        state.trials.push_back(parseTrial(itemPath(trialsAt, i), trials[i], state.space, static_cast<int>(i)));
    return state;
}

StudyState readStudyState(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot read the study (no such file or not readable)");
    std::stringstream text;
    text << in.rdbuf();
    const json document = json::parse(text.str(), nullptr, false);
    if (document.is_discarded())
        throw EngineError(path + ": not valid JSON");
    try {
        return parseStudyState(document);
    } catch (const EngineError &e) {
        throw EngineError(path + ": " + e.what());
    }
}

void writeStudyState(const std::string &path, const StudyState &state)
{
    writeFileAtomically(path, studyStateToJson(state).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

} // namespace lathe::engine
