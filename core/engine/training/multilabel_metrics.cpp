#include "engine/training/multilabel_metrics.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace lathe::engine {
namespace {

[[noreturn]] void fail(const std::string &message)
{
    throw EngineError("multilabel metrics: " + message);
}

void checkColumn(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    if (scores.size() != targets.size())
        fail(std::to_string(scores.size()) + " scores but " + std::to_string(targets.size()) + " targets");
    for (std::size_t i = 0; i < scores.size(); ++i) {
        if (std::isnan(scores[i]))
            fail("score " + std::to_string(i) + " is NaN");
        if (targets[i] > 1)
            fail("target " + std::to_string(i) + " is " + std::to_string(int(targets[i])) + " (expected 0 or 1)");
    }
}

// K, after checking that scores and targets are both N x K with N, K >= 1 and valid entries.
std::size_t checkMatrix(const MultiLabelScores &scores, const MultiLabelTargets &targets)
{
    if (scores.empty())
        fail("no images");
    if (scores.size() != targets.size())
        fail(std::to_string(scores.size()) + " rows of scores but " + std::to_string(targets.size()) +
             " rows of targets");
    const std::size_t k = scores.front().size();
    if (k == 0)
        fail("no labels");
    for (std::size_t n = 0; n < scores.size(); ++n) {
        if (scores[n].size() != k || targets[n].size() != k)
            fail("row " + std::to_string(n) + " has " + std::to_string(scores[n].size()) + " scores and " +
                 std::to_string(targets[n].size()) + " targets (expected " + std::to_string(k) + ")");
        for (std::size_t j = 0; j < k; ++j) {
            if (std::isnan(scores[n][j]))
                fail("the score of image " + std::to_string(n) + ", label " + std::to_string(j) + " is NaN");
            if (targets[n][j] > 1)
                fail("the target of image " + std::to_string(n) + ", label " + std::to_string(j) + " is " +
                     std::to_string(int(targets[n][j])) + " (expected 0 or 1)");
        }
    }
    return k;
}

void checkThresholds(const std::vector<double> &thresholds, std::size_t k)
{
    if (thresholds.size() != k)
        fail(std::to_string(thresholds.size()) + " thresholds for " + std::to_string(k) + " labels");
    for (std::size_t j = 0; j < k; ++j)
        if (std::isnan(thresholds[j]))
            fail("the threshold of label " + std::to_string(j) + " is NaN");
}

std::vector<float> scoreColumn(const MultiLabelScores &scores, std::size_t j)
{
    std::vector<float> column(scores.size());
    for (std::size_t n = 0; n < scores.size(); ++n)
        column[n] = scores[n][j];
    return column;
}

std::vector<std::uint8_t> targetColumn(const MultiLabelTargets &targets, std::size_t j)
{
    std::vector<std::uint8_t> column(targets.size());
    for (std::size_t n = 0; n < targets.size(); ++n)
        column[n] = targets[n][j];
    return column;
}

// The counts at each distinct score used as a threshold (score >= threshold predicts positive),
// highest threshold first: scikit-learn's confusion_matrix_at_thresholds, where a group of tied
// scores becomes one point at the end of the group.
struct ThresholdPoint
{
    double threshold = 0;
    std::int64_t truePositives = 0;
    std::int64_t predicted = 0;
};

std::vector<ThresholdPoint> thresholdPoints(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    std::vector<std::size_t> order(scores.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<ThresholdPoint> points;
    std::int64_t tp = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        tp += targets[order[i]];
        if (i + 1 == order.size() || scores[order[i + 1]] != scores[order[i]])
            points.push_back({double(scores[order[i]]), tp, std::int64_t(i + 1)});
    }
    return points;
}

double ratio(std::int64_t numerator, std::int64_t denominator)
{
    return denominator == 0 ? 0.0 : double(numerator) / double(denominator);
}

// averagePrecision on checked input.
double averagePrecisionOf(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    const std::vector<ThresholdPoint> points = thresholdPoints(scores, targets);
    if (points.empty() || points.back().truePositives == 0)
        return std::numeric_limits<double>::quiet_NaN();
    const double positives = double(points.back().truePositives);
    // As scikit-learn: recalls as tp / positives, their differences times the precision.
    double sum = 0;
    double previousRecall = 0;
    for (const ThresholdPoint &p : points) {
        const double recall = double(p.truePositives) / positives;
        sum += (recall - previousRecall) * ratio(p.truePositives, p.predicted);
        previousRecall = recall;
    }
    return std::max(0.0, sum);
}

std::vector<PrCurvePoint> curveOf(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    const std::vector<ThresholdPoint> points = thresholdPoints(scores, targets);
    if (points.empty() || points.back().truePositives == 0)
        return {};
    const double positives = double(points.back().truePositives);
    std::vector<PrCurvePoint> curve;
    curve.reserve(points.size());
    for (auto it = points.rbegin(); it != points.rend(); ++it)
        curve.push_back({it->threshold, ratio(it->truePositives, it->predicted), double(it->truePositives) / positives});
    return curve;
}

} // namespace

MultiLabelTargets targetsFromLabelSets(const std::vector<std::vector<int>> &labelSets, int labels)
{
    if (labels < 1)
        fail("no labels");
    MultiLabelTargets targets(labelSets.size(), std::vector<std::uint8_t>(std::size_t(labels), 0));
    for (std::size_t n = 0; n < labelSets.size(); ++n)
        for (int label : labelSets[n]) {
            if (label < 0 || label >= labels)
                fail("image " + std::to_string(n) + " has label " + std::to_string(label) + ", outside [0, " +
                     std::to_string(labels) + ")");
            targets[n][std::size_t(label)] = 1;
        }
    return targets;
}

std::vector<PrCurvePoint> precisionRecallCurve(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    checkColumn(scores, targets);
    return curveOf(scores, targets);
}

double averagePrecision(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets)
{
    checkColumn(scores, targets);
    return averagePrecisionOf(scores, targets);
}

MeanAveragePrecision meanAveragePrecision(const MultiLabelScores &scores, const MultiLabelTargets &targets)
{
    const std::size_t k = checkMatrix(scores, targets);
    MeanAveragePrecision result;
    result.perLabel.resize(k);
    double sum = 0;
    for (std::size_t j = 0; j < k; ++j) {
        result.perLabel[j] = averagePrecisionOf(scoreColumn(scores, j), targetColumn(targets, j));
        if (!std::isnan(result.perLabel[j])) {
            sum += result.perLabel[j];
            ++result.labelsWithPositives;
        }
    }
    if (result.labelsWithPositives > 0)
        result.macro = sum / double(result.labelsWithPositives);

    // Row-major flattening, as numpy's ravel (the order does not change the value).
    std::vector<float> allScores;
    std::vector<std::uint8_t> allTargets;
    allScores.reserve(scores.size() * k);
    allTargets.reserve(scores.size() * k);
    for (std::size_t n = 0; n < scores.size(); ++n) {
        allScores.insert(allScores.end(), scores[n].begin(), scores[n].end());
        allTargets.insert(allTargets.end(), targets[n].begin(), targets[n].end());
    }
    result.micro = averagePrecisionOf(allScores, allTargets);
    return result;
}

std::vector<std::vector<PrCurvePoint>> precisionRecallCurves(const MultiLabelScores &scores,
                                                             const MultiLabelTargets &targets)
{
    const std::size_t k = checkMatrix(scores, targets);
    std::vector<std::vector<PrCurvePoint>> curves(k);
    for (std::size_t j = 0; j < k; ++j)
        curves[j] = curveOf(scoreColumn(scores, j), targetColumn(targets, j));
    return curves;
}

MultiLabelPrf precisionRecallF1(const MultiLabelScores &scores, const MultiLabelTargets &targets,
                                const std::vector<double> &thresholds)
{
    const std::size_t k = checkMatrix(scores, targets);
    checkThresholds(thresholds, k);
    MultiLabelPrf r;
    r.support.assign(k, 0);
    r.predicted.assign(k, 0);
    r.truePositives.assign(k, 0);
    for (std::size_t n = 0; n < scores.size(); ++n)
        for (std::size_t j = 0; j < k; ++j) {
            const bool predicted = double(scores[n][j]) >= thresholds[j];
            const bool positive = targets[n][j] == 1;
            r.support[j] += positive;
            r.predicted[j] += predicted;
            r.truePositives[j] += positive && predicted;
        }
    r.precision.resize(k);
    r.recall.resize(k);
    r.f1.resize(k);
    std::int64_t tp = 0, predicted = 0, support = 0;
    for (std::size_t j = 0; j < k; ++j) {
        r.precision[j] = ratio(r.truePositives[j], r.predicted[j]);
        r.recall[j] = ratio(r.truePositives[j], r.support[j]);
        r.f1[j] = ratio(2 * r.truePositives[j], r.support[j] + r.predicted[j]);
        r.macro.precision += r.precision[j];
        r.macro.recall += r.recall[j];
        r.macro.f1 += r.f1[j];
        tp += r.truePositives[j];
        predicted += r.predicted[j];
        support += r.support[j];
    }
    r.macro.precision /= double(k);
    r.macro.recall /= double(k);
    r.macro.f1 /= double(k);
    r.micro = {ratio(tp, predicted), ratio(tp, support), ratio(2 * tp, support + predicted)};
    return r;
}

TunedThresholds tuneThresholds(const MultiLabelScores &scores, const MultiLabelTargets &targets)
{
    const std::size_t k = checkMatrix(scores, targets);
    TunedThresholds result;
    result.thresholds.assign(k, kDefaultMultiLabelThreshold);
    result.f1.assign(k, 0.0);
    for (std::size_t j = 0; j < k; ++j) {
        const std::vector<ThresholdPoint> points = thresholdPoints(scoreColumn(scores, j), targetColumn(targets, j));
        const std::int64_t positives = points.back().truePositives;
        if (positives == 0)
            continue;
        // F1 = 2 TP / (positives + predicted); a > b compared as cross products of counts. The
        // points run from the highest threshold down, so only a strictly better F1 moves on.
        const ThresholdPoint *best = nullptr;
        for (const ThresholdPoint &p : points)
            if (!best || p.truePositives * (positives + best->predicted) >
                             best->truePositives * (positives + p.predicted))
                best = &p;
        result.thresholds[j] = best->threshold;
        result.f1[j] = ratio(2 * best->truePositives, positives + best->predicted);
    }
    return result;
}

FalsePositiveConfusion falsePositiveConfusion(const MultiLabelScores &scores, const MultiLabelTargets &targets,
                                              const std::vector<double> &thresholds)
{
    const std::size_t k = checkMatrix(scores, targets);
    checkThresholds(thresholds, k);
    FalsePositiveConfusion result;
    result.counts.assign(k, std::vector<std::int64_t>(k, 0));
    result.withoutTrueLabels.assign(k, 0);
    std::vector<std::size_t> trueLabels, falsePositives;
    for (std::size_t n = 0; n < scores.size(); ++n) {
        trueLabels.clear();
        falsePositives.clear();
        for (std::size_t j = 0; j < k; ++j) {
            if (targets[n][j] == 1)
                trueLabels.push_back(j);
            else if (double(scores[n][j]) >= thresholds[j])
                falsePositives.push_back(j);
        }
        for (std::size_t j : falsePositives) {
            if (trueLabels.empty())
                ++result.withoutTrueLabels[j];
            for (std::size_t i : trueLabels)
                ++result.counts[i][j];
        }
    }
    return result;
}

} // namespace lathe::engine
