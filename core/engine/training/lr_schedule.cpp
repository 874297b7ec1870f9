#include "engine/training/lr_schedule.h"

#include "engine/base/engine_error.h"
#include "engine/base/error_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace lathe::engine {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void invalid(const std::string &field, const std::string &reason)
{
    throw EngineError("schedule." + field + ": " + reason);
}

void requirePositive(const std::string &field, double value)
{
    if (!(value > 0) || !std::isfinite(value))
        invalid(field, "must be > 0 (got " + numberText(value) + ")");
}

double cosineAnneal(double start, double end, double pct)
{
    return end + (start - end) / 2.0 * (std::cos(kPi * pct) + 1);
}

} // namespace

LrSchedule::LrSchedule(const ScheduleConfig &config, double baseLr, std::int64_t stepsPerEpoch, int epochs)
    : m_config(config)
    , m_baseLr(baseLr)
    , m_stepsPerEpoch(stepsPerEpoch)
{
    static const std::vector<std::string> kNames{"constant", "step", "multi_step", "exponential",
                                                 "cosine", "cosine_restarts", "one_cycle", "plateau"};
    if (std::find(kNames.begin(), kNames.end(), config.name) == kNames.end())
        invalid("name", "unknown schedule '" + config.name +
                            "' (expected constant, step, multi_step, exponential, cosine, cosine_restarts, one_cycle or plateau)");
    if (!(baseLr > 0) || !std::isfinite(baseLr))
        throw EngineError("optimizer.lr: must be > 0 (got " + numberText(baseLr) + ")");
    if (stepsPerEpoch < 1)
        throw EngineError("schedule: steps per epoch must be >= 1 (got " + std::to_string(stepsPerEpoch) + ")");
    if (epochs < 1)
        throw EngineError("optimizer.epochs: must be >= 1 (got " + std::to_string(epochs) + ")");
    if (stepsPerEpoch > std::numeric_limits<std::int64_t>::max() / epochs)
        throw EngineError("schedule: too many steps (" + std::to_string(stepsPerEpoch) + " per epoch, " +
                          std::to_string(epochs) + " epochs)");
    if (!(config.warmupEpochs >= 0) || !std::isfinite(config.warmupEpochs))
        invalid("warmup_epochs", "must be >= 0 (got " + numberText(config.warmupEpochs) + ")");
    if (!(config.warmupStartFactor >= 0 && config.warmupStartFactor <= 1))
        invalid("warmup_start_factor", "must be within [0, 1] (got " + numberText(config.warmupStartFactor) + ")");

    const std::string &name = config.name;
    if (name == "step" || name == "multi_step" || name == "exponential")
        requirePositive("gamma", config.gamma);
    if (name == "step" && config.stepSize < 1)
        invalid("step_size", "must be >= 1 (got " + std::to_string(config.stepSize) + ")");
    if (name == "multi_step") {
        for (std::size_t i = 0; i < config.milestones.size(); ++i) {
            if (config.milestones[i] < 1)
                invalid("milestones", "must be >= 1 (got " + std::to_string(config.milestones[i]) + ")");
            if (i > 0 && config.milestones[i] <= config.milestones[i - 1])
                invalid("milestones", "must be increasing");
        }
    }
    if (name == "cosine" || name == "cosine_restarts") {
        if (!(config.minLr >= 0) || !std::isfinite(config.minLr))
            invalid("min_lr", "must be >= 0 (got " + numberText(config.minLr) + ")");
    }
    if (name == "cosine_restarts") {
        if (config.restartEpochs < 1)
            invalid("restart_epochs", "must be >= 1 (got " + std::to_string(config.restartEpochs) + ")");
        if (config.restartMultiplier < 1)
            invalid("restart_multiplier", "must be >= 1 (got " + std::to_string(config.restartMultiplier) + ")");
    }
    if (name == "one_cycle") {
        if (!(config.maxLr >= 0) || !std::isfinite(config.maxLr))
            invalid("max_lr", "must be >= 0 (got " + numberText(config.maxLr) + ")");
        if (!(config.pctStart >= 0 && config.pctStart <= 1))
            invalid("pct_start", "must be within [0, 1] (got " + numberText(config.pctStart) + ")");
        requirePositive("div_factor", config.divFactor);
        requirePositive("final_div_factor", config.finalDivFactor);
    }
    if (name == "plateau") {
        if (!(config.plateauFactor > 0 && config.plateauFactor < 1))
            invalid("plateau_factor", "must be within (0, 1) (got " + numberText(config.plateauFactor) + ")");
        if (config.plateauPatience < 0)
            invalid("plateau_patience", "must be >= 0 (got " + std::to_string(config.plateauPatience) + ")");
        if (!(config.plateauThreshold >= 0) || !std::isfinite(config.plateauThreshold))
            invalid("plateau_threshold", "must be >= 0 (got " + numberText(config.plateauThreshold) + ")");
        m_minimize = isMinimizedMetric(config.plateauMetric);
    }

    m_totalSteps = stepsPerEpoch * epochs;
    if (name != "one_cycle" && config.warmupEpochs > 0) {
        const double w = std::round(config.warmupEpochs * double(stepsPerEpoch));
        m_warmupSteps = std::clamp<std::int64_t>(std::int64_t(std::min(w, double(m_totalSteps))), 1, m_totalSteps);
    }
    m_mainSteps = std::max<std::int64_t>(1, m_totalSteps - m_warmupSteps);
}

bool LrSchedule::isMinimizedMetric(const std::string &metricName)
{
    std::string n = metricName;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return n.find("loss") != std::string::npos || n.find("error") != std::string::npos ||
           n.find("err") != std::string::npos;
}

double LrSchedule::factorAt(std::int64_t step) const
{
    if (m_config.name == "one_cycle")
        return oneCycleLr(step) / m_baseLr;
    step = std::clamp<std::int64_t>(step, 0, m_totalSteps);
    if (step < m_warmupSteps) {
        // LinearLR's closed form.
        const double sf = m_config.warmupStartFactor;
        return sf + (1 - sf) * double(step) / double(m_warmupSteps);
    }
    return mainFactor(step - m_warmupSteps);
}

double LrSchedule::mainFactor(std::int64_t step) const
{
    const ScheduleConfig &c = m_config;
    const std::string &name = c.name;
    const double epoch = double(step) / double(m_stepsPerEpoch);
    if (name == "constant")
        return 1;
    if (name == "plateau")
        return m_plateauFactor;
    if (name == "step")
        return std::pow(c.gamma, double(step / (std::int64_t(c.stepSize) * m_stepsPerEpoch)));
    if (name == "multi_step") {
        int passed = 0;
        for (int m : c.milestones)
            passed += std::int64_t(m) * m_stepsPerEpoch <= step ? 1 : 0;
        return std::pow(c.gamma, double(passed));
    }
    if (name == "exponential")
        return std::pow(c.gamma, epoch);
    const double minFactor = c.minLr / m_baseLr;
    if (name == "cosine") {
        const double t = double(std::min(step, m_mainSteps)) / double(m_mainSteps);
        return minFactor + (1 - minFactor) * (1 + std::cos(kPi * t)) / 2;
    }
    // cosine_restarts: the period that holds this fractional epoch, then the position in it.
    const double t0 = c.restartEpochs;
    const double mult = c.restartMultiplier;
    double tCur = epoch;
    double tI = t0;
    if (epoch >= t0) {
        if (c.restartMultiplier == 1) {
            tCur = std::fmod(epoch, t0);
        } else {
            // PyTorch takes n from a logarithm; step it to the exact period so that rounding
            // cannot put an epoch on a restart boundary into the previous period.
            auto start = [&](int k) { return t0 * (std::pow(mult, k) - 1) / (mult - 1); };
            int n = int(std::log(epoch / t0 * (mult - 1) + 1) / std::log(mult));
            while (n > 0 && start(n) > epoch)
                --n;
            while (start(n + 1) <= epoch)
                ++n;
            tCur = epoch - start(n);
            tI = t0 * std::pow(mult, n);
        }
    }
    return minFactor + (1 - minFactor) * (1 + std::cos(kPi * tCur / tI)) / 2;
}

double LrSchedule::oneCycleLr(std::int64_t step) const
{
    const ScheduleConfig &c = m_config;
    const double maxLr = c.maxLr > 0 ? c.maxLr : m_baseLr;
    const double initialLr = maxLr / c.divFactor;
    const double minLr = initialLr / c.finalDivFactor;
    const double total = double(m_totalSteps);
    const double s = double(std::clamp<std::int64_t>(step, 0, m_totalSteps - 1));
    const double phase1End = c.pctStart * total - 1;
    const double phase2End = total - 1;
    if (s <= phase1End) {
        return phase1End > 0 ? cosineAnneal(initialLr, maxLr, s / phase1End) : maxLr;
    }
    const double span = phase2End - phase1End;
    return span > 0 ? cosineAnneal(maxLr, minLr, (s - phase1End) / span) : minLr;
}

void LrSchedule::reportEpoch(int epoch, double metric)
{
    if (m_config.name != "plateau" || epoch <= m_lastEpoch)
        return;
    m_lastEpoch = epoch;
    if ((std::int64_t(epoch) + 1) * m_stepsPerEpoch <= m_warmupSteps)
        return;
    // ReduceLROnPlateau, threshold_mode "rel", cooldown 0, min_lr 0, eps 1e-8.
    const double th = m_config.plateauThreshold;
    const bool better = !m_hasBest || (m_minimize ? metric < m_best * (1 - th) : metric > m_best * (1 + th));
    if (better && !std::isnan(metric)) {
        m_best = metric;
        m_hasBest = true;
        m_badEpochs = 0;
    } else {
        ++m_badEpochs;
    }
    if (m_badEpochs > m_config.plateauPatience) {
        const double reduced = m_plateauFactor * m_config.plateauFactor;
        if (m_baseLr * (m_plateauFactor - reduced) > 1e-8)
            m_plateauFactor = reduced;
        m_badEpochs = 0;
    }
}

nlohmann::json LrSchedule::state() const
{
    nlohmann::json s{{"name", m_config.name}};
    if (m_config.name == "plateau") {
        s["factor"] = m_plateauFactor;
        s["best"] = m_hasBest ? nlohmann::json(m_best) : nlohmann::json();
        s["bad_epochs"] = m_badEpochs;
        s["last_epoch"] = m_lastEpoch;
    }
    return s;
}

void LrSchedule::loadState(const nlohmann::json &state)
{
    auto fail = [](const std::string &reason) { throw EngineError("scheduler state: " + reason); };
    if (!state.is_object())
        fail("not a JSON object");
    if (!state.contains("name") || !state["name"].is_string())
        fail("'name' missing or not a string");
    if (state["name"].get<std::string>() != m_config.name)
        fail("saved for schedule '" + state["name"].get<std::string>() + "', not '" + m_config.name + "'");
    if (m_config.name != "plateau")
        return;
    auto number = [&](const char *key) -> const nlohmann::json & {
        if (!state.contains(key) || !state[key].is_number())
            fail(std::string("'") + key + "' missing or not a number");
        return state[key];
    };
    const double factor = number("factor").get<double>();
    if (!(factor > 0 && factor <= 1))
        fail("'factor' must be within (0, 1] (got " + numberText(factor) + ")");
    const int badEpochs = number("bad_epochs").get<int>();
    const int lastEpoch = number("last_epoch").get<int>();
    if (badEpochs < 0 || lastEpoch < -1)
        fail("'bad_epochs' or 'last_epoch' out of range");
    if (!state.contains("best") || !(state["best"].is_null() || state["best"].is_number()))
        fail("'best' missing or not a number");
    m_plateauFactor = factor;
    m_badEpochs = badEpochs;
    m_lastEpoch = lastEpoch;
    m_hasBest = state["best"].is_number();
    m_best = m_hasBest ? state["best"].get<double>() : 0;
}

std::vector<std::pair<std::int64_t, double>> LrSchedule::curve(int points) const
{
    std::vector<std::pair<std::int64_t, double>> out;
    const std::int64_t last = m_totalSteps - 1;
    if (points < 2 || last < 1) {
        out.emplace_back(0, lrAt(0));
        if (last >= 1)
            out.emplace_back(last, lrAt(last));
        return out;
    }
    const std::int64_t n = std::min<std::int64_t>(points, last + 1);
    std::int64_t previous = -1;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t step = (i * last + (n - 1) / 2) / (n - 1);
        if (step == previous)
            continue;
        out.emplace_back(step, lrAt(step));
        previous = step;
    }
    return out;
}

} // namespace lathe::engine
