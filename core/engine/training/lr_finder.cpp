#include "engine/training/lr_finder.h"

#include "engine/base/engine_error.h"
#include "engine/training/feature_cache.h"
#include "engine/training/training_rig.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace lathe::engine {
namespace {

using json = nlohmann::json;

void checkOptions(const LrFinderOptions &o)
{
    const auto bad = [](const std::string &field, const std::string &rule, double got) {
        std::ostringstream out;
        out << "lr finder: " << field << ": " << rule << " (got " << got << ")";
        throw EngineError(out.str());
    };
    if (o.steps < 2)
        bad("steps", "must be at least 2", o.steps);
    if (!(o.startLr > 0) || !std::isfinite(o.startLr))
        bad("start_lr", "must be > 0", o.startLr);
    if (!(o.endLr > o.startLr) || !std::isfinite(o.endLr))
        bad("end_lr", "must be greater than start_lr", o.endLr);
    if (!(o.beta >= 0 && o.beta < 1))
        bad("beta", "must be in [0, 1)", o.beta);
    if (!(o.divergeFactor > 1))
        bad("diverge_factor", "must be > 1", o.divergeFactor);
}

std::optional<LrSuggestion> steepest(const std::vector<LrFinderPoint> &p, int begin, int end)
{
    if (end - begin < 3)
        return std::nullopt;
    int best = -1;
    double bestSlope = 0;
    for (int i = begin; i + 1 < end; ++i) {
        const double dx = std::log(p[std::size_t(i + 1)].lr) - std::log(p[std::size_t(i)].lr);
        const double slope = (p[std::size_t(i + 1)].smoothed - p[std::size_t(i)].smoothed) / dx;
        if (best < 0 || slope < bestSlope) {
            best = i;
            bestSlope = slope;
        }
    }
    const LrFinderPoint &at = p[std::size_t(best)];
    return LrSuggestion{"steepest", at.lr, at.smoothed, best};
}

std::optional<LrSuggestion> valley(const std::vector<LrFinderPoint> &p, int begin, int end)
{
    const int n = end - begin;
    if (n < 3)
        return std::nullopt;
    // Longest strictly decreasing subsequence of the smoothed losses (O(n^2), n <= a few hundred).
    // Ties keep the earliest end, as fastai's loop does, and the latest predecessor, so that the
    // span starts where the loss leaves a flat stretch rather than at its beginning. (fastai
    // takes the span as the subsequence's length back from its end, which is the same for a
    // contiguous run.)
    std::vector<int> length(std::size_t(n), 1), previous(std::size_t(n), -1);
    int last = 0;
    for (int i = 1; i < n; ++i) {
        for (int j = 0; j < i; ++j)
            if (p[std::size_t(begin + i)].smoothed < p[std::size_t(begin + j)].smoothed &&
                length[std::size_t(j)] + 1 >= length[std::size_t(i)]) {
                length[std::size_t(i)] = length[std::size_t(j)] + 1;
                previous[std::size_t(i)] = j;
            }
        if (length[std::size_t(i)] > length[std::size_t(last)])
            last = i;
    }
    int first = last;
    while (previous[std::size_t(first)] >= 0)
        first = previous[std::size_t(first)];
    const double sections = double(last - first) / 3.0;
    const int index = begin + first + int(sections) + int(sections / 2.0);
    const LrFinderPoint &at = p[std::size_t(index)];
    return LrSuggestion{"valley", at.lr, at.smoothed, index};
}

// One step's batches: accumulate_steps micro-batches from the pipeline, the next epoch when
// one ends.
class StepInput
{
public:
    explicit StepInput(const TrainingRig &rig)
        : m_source(pipelineOptions(rig.setup, rig.config().data.trainSplit, true, 0))
    {
        if (m_source.batchesPerEpoch() < 1)
            throw EngineError("optimizer.batch_size: " + std::to_string(rig.config().optimizer.batchSize) +
                              " is more than split \"" + rig.config().data.trainSplit +
                              "\" has records (not one full batch)");
        m_source.start(m_epoch, 0);
    }
    Batch next()
    {
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (std::optional<Batch> b = m_source.next())
                return std::move(*b);
            m_source.start(++m_epoch, 0);
        }
        throw EngineError("lr finder: the training split gave no batch");
    }

private:
    PipelineSource m_source;
    std::int64_t m_epoch = 0;
};

} // namespace

const LrSuggestion *LrFinderResult::suggestion(const std::string &rule) const
{
    for (const LrSuggestion &s : suggestions)
        if (s.rule == rule)
            return &s;
    return nullptr;
}

void trimRange(int planned, int measured, int &trimStart, int &trimEnd)
{
    // fastai trims steps/10 and 5; a curve cut short by divergence keeps at least half its points.
    trimStart = std::min(planned / 10, measured / 4);
    trimEnd = measured - std::min(5, measured / 4);
}

std::vector<LrSuggestion> suggestLearningRates(const std::vector<LrFinderPoint> &points, int trimStart, int trimEnd)
{
    trimStart = std::clamp(trimStart, 0, int(points.size()));
    trimEnd = std::clamp(trimEnd, trimStart, int(points.size()));
    std::vector<LrSuggestion> out;
    if (auto s = steepest(points, trimStart, trimEnd))
        out.push_back(*s);
    if (auto v = valley(points, trimStart, trimEnd))
        out.push_back(*v);
    return out;
}

LrFinderResult findLearningRate(TrainingRig &rig, const LrFinderOptions &o, const TaskControl &control)
{
    checkOptions(o);
    const RunConfig &c = rig.config();
    LrFinderResult r;
    r.stepsPlanned = o.steps;
    r.batchSize = c.optimizer.batchSize;
    r.device = c.devices.front();
    const int accumulate = std::max(1, c.optimizer.accumulateSteps);

    const TrainingRig::Snapshot before = rig.snapshot();
    try {
        StepInput input(rig);
        double average = 0, best = 0;
        for (int i = 0; i < o.steps; ++i) {
            control.checkCancel();
            const double lr = o.startLr * std::pow(o.endLr / o.startLr, double(i) / double(o.steps - 1));
            rig.clearGradients();
            double lossSum = 0;
            bool finite = true;
            for (int m = 0; m < accumulate && finite; ++m) {
                const Batch batch = input.next();
                const torch::Tensor targets = batch.softTargets.defined() ? batch.softTargets : batch.labels;
                const double loss = rig.forwardBackward(batch.images, targets, accumulate);
                finite = std::isfinite(loss);
                lossSum += loss;
            }
            ++r.stepsDone;
            if (!finite) {
                r.stoppedEarly = "non_finite";
                break;
            }
            rig.step(lr);
            const double loss = lossSum / accumulate;
            average = o.beta * average + (1 - o.beta) * loss;
            const double smoothed = average / (1 - std::pow(o.beta, i + 1));
            r.points.push_back({lr, loss, smoothed});
            if (o.onPoint)
                o.onPoint(r.points.back(), i);
            std::ostringstream status;
            status << "step " << (i + 1) << " of " << o.steps << ": lr " << lr << ", loss " << loss;
            control.report(double(i + 1) / o.steps, status.str());
            if (i > 0 && smoothed > o.divergeFactor * best) {
                r.stoppedEarly = "diverged";
                break;
            }
            if (i == 0 || smoothed < best)
                best = smoothed;
        }
    } catch (...) {
        rig.restore(before);
        throw;
    }
    rig.restore(before);
    trimRange(o.steps, int(r.points.size()), r.trimStart, r.trimEnd);
    r.suggestions = suggestLearningRates(r.points, r.trimStart, r.trimEnd);
    return r;
}

LrFinderResult findLearningRate(const RunConfig &config, const LrFinderOptions &options, const TaskControl &control)
{
    checkOptions(options); // before the set-up, which reads the dataset and builds the model
    TrainingRig rig(config);
    return findLearningRate(rig, options, control);
}

json lrFinderResultToJson(const LrFinderResult &r)
{
    json points = json::array();
    for (const LrFinderPoint &p : r.points)
        points.push_back({{"lr", p.lr}, {"loss", p.loss}, {"smoothed", p.smoothed}});
    json suggestions = json::array();
    for (const LrSuggestion &s : r.suggestions)
        suggestions.push_back({{"rule", s.rule}, {"lr", s.lr}, {"smoothed", s.smoothed}, {"index", s.index}});
    return {{"points", points},
            {"suggestions", suggestions},
            {"stopped_early", r.stoppedEarly},
            {"steps_planned", r.stepsPlanned},
            {"steps_done", r.stepsDone},
            {"batch_size", r.batchSize},
            {"device", r.device},
            {"trim_start", r.trimStart},
            {"trim_end", r.trimEnd}};
}

} // namespace lathe::engine
