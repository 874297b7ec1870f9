#include "engine/tune/tpe_sampler.h"

#include "engine/base/json_fields.h"
#include "engine/tune/parzen_estimator.h"
#include "engine/tune/random_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

TpeSampler::Options TpeSampler::Options::fromJson(const json &object, const std::string &path)
{
    Options o;
    requireObject(path, object);
    checkKnownKeys(path, object, {"n_startup_trials", "n_ei_candidates", "prior_weight", "gamma", "gamma_max"},
                   "unknown tpe option (n_startup_trials, n_ei_candidates, prior_weight, gamma, gamma_max)");
    if (object.contains("n_startup_trials"))
        o.nStartupTrials = readInt(fieldPath(path, "n_startup_trials"), object["n_startup_trials"], NumberRange().ge(0));
    if (object.contains("n_ei_candidates"))
        o.nEiCandidates = readInt(fieldPath(path, "n_ei_candidates"), object["n_ei_candidates"], NumberRange().ge(1));
    if (object.contains("prior_weight"))
        o.priorWeight = readNumber(fieldPath(path, "prior_weight"), object["prior_weight"], NumberRange().gt(0));
    if (object.contains("gamma"))
        o.gamma = readNumber(fieldPath(path, "gamma"), object["gamma"], NumberRange().gt(0).le(1));
    if (object.contains("gamma_max"))
        o.gammaMax = readInt(fieldPath(path, "gamma_max"), object["gamma_max"], NumberRange().ge(1));
    return o;
}

json TpeSampler::Options::toJson() const
{
    return {{"n_startup_trials", nStartupTrials},
            {"n_ei_candidates", nEiCandidates},
            {"prior_weight", priorWeight},
            {"gamma", gamma},
            {"gamma_max", gammaMax}};
}

TpeSampler::TpeSampler(SearchSpace space, Options options)
    : m_space(std::move(space))
    , m_options(options)
{
}

namespace {

// The internal value of a parameter in a trial: the number, or the index of a categorical value.
double internalValue(const ParamSpec &p, const json &v)
{
    if (!p.categorical())
        return v.get<double>();
    for (std::size_t i = 0; i < p.values.size(); ++i)
        if (paramValuesEqual(p.values[i], v))
            return static_cast<double>(i);
    return -1;
}

json externalValue(const ParamSpec &p, double x)
{
    if (p.categorical())
        return p.values[static_cast<std::size_t>(x)];
    if (p.type == ParamType::IntUniform)
        return static_cast<std::int64_t>(x);
    return x;
}

std::vector<double> observations(const ParamSpec &p, const std::vector<const Trial *> &trials)
{
    std::vector<double> out;
    for (const Trial *t : trials)
        if (t->params.contains(p.name)) {
            const double x = internalValue(p, t->params[p.name]);
            if (x >= 0 || !p.categorical())
                out.push_back(x);
        }
    return out;
}

} // namespace

std::optional<json> TpeSampler::suggest(const std::vector<Trial> &trials, std::mt19937_64 &rng) const
{
    // Scores to minimise: the metric, negated when the study maximises it.
    const double sign = m_space.maximize ? -1.0 : 1.0;
    std::vector<const Trial *> completed, pruned;
    for (const Trial &t : trials) {
        if (t.state == TrialState::Completed && t.value)
            completed.push_back(&t);
        else if (t.state == TrialState::Pruned)
            pruned.push_back(&t);
    }
    const std::size_t n = completed.size() + pruned.size();
    if (n < static_cast<std::size_t>(m_options.nStartupTrials))
        return RandomSampler(m_space).suggest(trials, rng);

    // The split (Optuna's _split_trials): the best completed trials, then pruned ones that got
    // furthest (and among those the best last metric) while places below are left.
    std::size_t nBelow = std::min<std::size_t>(static_cast<std::size_t>(std::ceil(m_options.gamma * n)),
                                               static_cast<std::size_t>(m_options.gammaMax));
    std::stable_sort(completed.begin(), completed.end(), [&](const Trial *a, const Trial *b) {
        return sign * *a->value < sign * *b->value;
    });
    const auto prunedKey = [&](const Trial *t) {
        const auto last = t->lastIntermediate();
        return last ? std::make_pair(-static_cast<double>(t->lastEpoch()), sign * *last) : std::make_pair(1.0, 0.0);
    };
    std::stable_sort(pruned.begin(), pruned.end(),
                     [&](const Trial *a, const Trial *b) { return prunedKey(a) < prunedKey(b); });
    std::vector<const Trial *> below, above;
    for (const Trial *t : completed)
        (below.size() < nBelow ? below : above).push_back(t);
    for (const Trial *t : pruned)
        (below.size() < nBelow ? below : above).push_back(t);
    const auto byId = [](const Trial *a, const Trial *b) { return a->id < b->id; };
    std::sort(below.begin(), below.end(), byId);
    std::sort(above.begin(), above.end(), byId);

    json params = json::object();
    for (const ParamSpec &p : m_space.params) {
        if (!isParamActive(p, params))
            continue;
        const ParzenEstimator l(p, observations(p, below), m_options.priorWeight);
        const ParzenEstimator g(p, observations(p, above), m_options.priorWeight);
        double best = 0, bestScore = -std::numeric_limits<double>::infinity();
        for (int i = 0; i < m_options.nEiCandidates; ++i) {
            const double x = l.sample(rng);
            const double score = l.logPdf(x) - g.logPdf(x);
            if (i == 0 || score > bestScore) {
                best = x;
                bestScore = score;
            }
        }
        params[p.name] = externalValue(p, best);
    }
    return params;
}

} // namespace lathe::engine
