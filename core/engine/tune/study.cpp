#include "engine/tune/study.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace lathe::engine {

namespace fs = std::filesystem;

Study::Study(std::string folder, StudyState state)
    : m_folder(std::move(folder))
    , m_state(std::move(state))
    , m_sampler(makeSampler(m_state.space, m_state.strategy))
    , m_pruner(makePruner(m_state.space, m_state.strategy))
{
}

std::unique_ptr<Study> Study::create(const std::string &folder, const SearchSpace &space, const StrategyConfig &strategy)
{
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
        throw EngineError(folder + ": cannot create the study folder (" + ec.message() + ")");
    const std::string path = (fs::path(folder) / kStudyFile).string();
    if (fs::exists(path))
        throw EngineError(path + ": a study exists here already (resume it, or choose another folder)");
    StudyState state;
    // Checked as open() will read it back, so every study that starts can be resumed.
    state.space = parseSearchSpace(searchSpaceToJson(space));
    state.strategy = resolvedStrategy(space, strategy);
    std::unique_ptr<Study> study(new Study(folder, std::move(state)));
    study->save();
    return study;
}

std::unique_ptr<Study> Study::open(const std::string &folder)
{
    const std::string path = (fs::path(folder) / kStudyFile).string();
    return std::unique_ptr<Study>(new Study(folder, readStudyState(path)));
}

std::string Study::statePath() const
{
    return (fs::path(m_folder) / kStudyFile).string();
}

StudyState Study::state() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_state;
}

Trial Study::trial(int id) const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (id < 0 || static_cast<std::size_t>(id) >= m_state.trials.size())
        throw EngineError(statePath() + ": no trial " + std::to_string(id));
    return m_state.trials[static_cast<std::size_t>(id)];
}

std::string Study::runFolderName(int trialId)
{
    char name[32];
    std::snprintf(name, sizeof name, "trial-%04d", trialId);
    return name;
}

std::optional<Trial> Study::startTrial()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const int id = static_cast<int>(m_state.trials.size());
    if (m_state.space.budget.trials > 0 && id >= m_state.space.budget.trials)
        return std::nullopt;
    std::mt19937_64 rng = trialRng(m_state.strategy.seed, id);
    std::optional<nlohmann::json> params = m_sampler->suggest(m_state.trials, rng);
    if (!params)
        return std::nullopt;
    Trial t;
    t.id = id;
    t.params = std::move(*params);
    t.bracket = m_pruner ? m_pruner->bracketOf(id) : -1;
    t.runFolder = runFolderName(id);
    m_state.trials.push_back(t);
    save();
    return t;
}

Trial &Study::runningTrial(int trialId, const char *what)
{
    if (trialId < 0 || static_cast<std::size_t>(trialId) >= m_state.trials.size())
        throw EngineError(statePath() + ": cannot " + what + ": no trial " + std::to_string(trialId));
    Trial &t = m_state.trials[static_cast<std::size_t>(trialId)];
    if (t.state != TrialState::Running)
        throw EngineError(statePath() + ": cannot " + what + ": trial " + std::to_string(trialId) + " is " +
                          trialStateName(t.state) + ", not running");
    return t;
}

PruneDecision Study::reportEpoch(int trialId, int epoch, double value)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    Trial &t = runningTrial(trialId, "report an epoch");
    if (epoch <= t.lastEpoch())
        throw EngineError(statePath() + ": trial " + std::to_string(trialId) + ": epoch " + std::to_string(epoch) +
                          " reported after epoch " + std::to_string(t.lastEpoch()));
    t.intermediate[epoch] = value;
    PruneDecision d;
    if (m_pruner) {
        d = m_pruner->onEpoch(m_state.trials, t, epoch);
        t.rung = std::max(t.rung, d.rung);
        if (d.prune)
            t.state = TrialState::Pruned;
    }
    save();
    return d;
}

void Study::completeTrial(int trialId, double value)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    Trial &t = runningTrial(trialId, "complete a trial");
    t.state = TrialState::Completed;
    t.value = value;
    save();
}

void Study::failTrial(int trialId, const std::string &error)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    Trial &t = runningTrial(trialId, "fail a trial");
    t.state = TrialState::Failed;
    t.error = error;
    save();
}

std::optional<Trial> Study::bestTrial() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const Trial *best = nullptr;
    for (const Trial &t : m_state.trials) {
        if (t.state != TrialState::Completed || !t.value)
            continue;
        if (!best || (m_state.space.maximize ? *t.value > *best->value : *t.value < *best->value))
            best = &t;
    }
    return best ? std::optional<Trial>(*best) : std::nullopt;
}

int Study::maxEpochs() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const nlohmann::json &options = m_state.strategy.prunerOptions;
    if (options.is_object() && options.contains("max_resource"))
        return options["max_resource"].get<int>();
    return m_state.space.budget.epochs;
}

void Study::save()
{
    writeStudyState(statePath(), m_state);
}

} // namespace lathe::engine
