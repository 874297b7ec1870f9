#include "label_issues.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/json_fields.h"
#include "engine/base/parse_limits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>

namespace lathe::engine {
namespace {

// cleanlab's constants (cleanlab/internal/constants.py): the slack of "p reaches the threshold"
// and of "the given label is the most probable", and the floor of a threshold, which keeps a
// class whose examples all have p = 0 from counting every example as confidently that class.
constexpr double kFloatingPointComparison = 1e-6;
constexpr double kThresholdFloor = 2 * kFloatingPointComparison;
// The threshold of a class nobody is labelled with: no probability reaches it.
constexpr double kMissingClassThreshold = 2;
// cleanlab's multi-label aggregation: an exponential moving average of the per-class scores,
// highest first, so the last (lowest) one weighs most.
constexpr double kMultiLabelEmaAlpha = 0.8;

[[noreturn]] void fail(const std::string &reason)
{
    throw EngineError("label issues: " + reason);
}

std::string number(double v)
{
    return json_fields::formatNumber(v);
}

// numpy's sum of float64 values (pairwise, eight accumulators per block of up to 128), so that
// sums, means and the rounding decisions that follow them agree with cleanlab's to the bit.
double pairwiseSum(const double *a, std::size_t n)
{
    if (n < 8) {
        double res = -0.0;
        for (std::size_t i = 0; i < n; ++i)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (std::size_t j = 0; j < 8; ++j)
            r[j] = a[j];
        std::size_t i = 8;
        for (; i < n - (n % 8); i += 8)
            for (std::size_t j = 0; j < 8; ++j)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            res += a[i];
        return res;
    }
    std::size_t half = n / 2;
    half -= half % 8;
    return pairwiseSum(a, half) + pairwiseSum(a + half, n - half);
}
double pairwiseSum(const std::vector<double> &values)
{
    return 0.0 + pairwiseSum(values.data(), values.size());
}

// What the shared algorithm finds for one labelling: which rows are issues, and the pieces a
// report shows.
struct Pruned
{
    std::vector<char> issue;
    std::vector<double> thresholds;
    std::vector<std::vector<std::int64_t>> confidentJoint; // calibrated, [given][true]
};

// Rounds each value to the nearest integer (ties to even, as numpy) so that the total stays the
// rounded total of the values: the shortfall goes to the values rounded down the most, an excess
// comes from those rounded up the most. Among equal remainders, the order numpy's reversed
// argsort gives a stable sort: the later index first when adding, the earlier when taking.
std::vector<std::int64_t> roundPreservingSum(const std::vector<double> &values)
{
    const std::size_t n = values.size();
    std::vector<double> ints(n);
    for (std::size_t i = 0; i < n; ++i)
        ints[i] = std::nearbyint(values[i]);
    const double target = std::nearbyint(pairwiseSum(values));
    double intSum = std::nearbyint(pairwiseSum(ints));
    while (std::abs(intSum - target) > kFloatingPointComparison) {
        const double diff = std::nearbyint(target - intSum);
        const int increment = diff < 0 ? -1 : 1;
        const std::size_t changes = std::min<std::size_t>(std::size_t(std::abs(diff)), n);
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return values[a] - ints[a] < values[b] - ints[b];
        });
        if (increment > 0)
            std::reverse(order.begin(), order.end());
        for (std::size_t c = 0; c < changes; ++c)
            ints[order[c]] += increment;
        intSum = std::nearbyint(pairwiseSum(ints));
    }
    std::vector<std::int64_t> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = std::int64_t(ints[i]);
    return out;
}

// Confident learning with cleanlab's defaults (the header's steps 1-4) for labels in [0, k) and
// probabilities prob(i, j) (double). Every row and label is valid by now; a class may have no
// examples (a binary problem of the multi-label case).
template <class Prob>
Pruned pruneByNoiseRate(const Prob &prob, const std::vector<int> &labels, int k)
{
    const std::size_t n = labels.size();
    const std::size_t kk = std::size_t(k);
    Pruned out;

    // 1. Thresholds: the mean self-confidence of each class.
    std::vector<std::int64_t> counts(kk, 0);
    for (std::size_t i = 0; i < n; ++i)
        ++counts[std::size_t(labels[i])];
    std::vector<std::vector<double>> selfConfidence(kk);
    for (std::size_t j = 0; j < kk; ++j)
        selfConfidence[j].reserve(std::size_t(counts[j]));
    for (std::size_t i = 0; i < n; ++i)
        selfConfidence[std::size_t(labels[i])].push_back(prob(i, labels[i]));
    out.thresholds.resize(kk);
    for (std::size_t j = 0; j < kk; ++j) {
        const double mean = counts[j] ? pairwiseSum(selfConfidence[j]) / double(counts[j]) : kMissingClassThreshold;
        out.thresholds[j] = std::max(mean, kThresholdFloor);
        std::vector<double>().swap(selfConfidence[j]);
    }

    // 2. The confident joint, [given][guessed true class].
    std::vector<std::vector<std::int64_t>> joint(kk, std::vector<std::int64_t>(kk, 0));
    for (std::size_t i = 0; i < n; ++i) {
        int confident = 0, firstConfident = -1, argmax = 0;
        double best = prob(i, 0);
        for (int j = 0; j < k; ++j) {
            const double p = prob(i, j);
            if (p >= out.thresholds[std::size_t(j)] - kFloatingPointComparison) {
                if (confident++ == 0)
                    firstConfident = j;
            }
            if (p > best) {
                best = p;
                argmax = j;
            }
        }
        if (confident > 0)
            ++joint[std::size_t(labels[i])][std::size_t(confident > 1 ? argmax : firstConfident)];
    }
    for (std::size_t j = 0; j < kk; ++j)
        joint[j][j] = std::max<std::int64_t>(joint[j][j], 1);

    // Calibration: each row to its label count, then the whole to n, rounded per row.
    std::vector<double> calibrated(kk * kk);
    for (std::size_t g = 0; g < kk; ++g) {
        std::int64_t rowSum = 0;
        for (std::size_t t = 0; t < kk; ++t)
            rowSum += joint[g][t];
        for (std::size_t t = 0; t < kk; ++t)
            calibrated[g * kk + t] = double(joint[g][t]) / double(rowSum) * double(counts[g]);
    }
    const double total = pairwiseSum(calibrated);
    out.confidentJoint.resize(kk);
    for (std::size_t g = 0; g < kk; ++g) {
        std::vector<double> row(calibrated.begin() + std::ptrdiff_t(g * kk), calibrated.begin() + std::ptrdiff_t((g + 1) * kk));
        for (double &v : row)
            v = v / total * double(n);
        out.confidentJoint[g] = roundPreservingSum(row);
    }

    // 3. How many to prune: prune[t][g] (the joint transposed), with at least one example kept in
    // each class: a diagonal raised to 1 is paid for evenly by the column's other non-zero
    // entries (cleanlab counts the non-zero entries less one, at least one), then truncated.
    std::vector<std::vector<std::int64_t>> prune(kk, std::vector<std::int64_t>(kk));
    for (std::size_t col = 0; col < kk; ++col) {
        // Column col of the transposed joint is row col of the joint.
        const std::vector<std::int64_t> &given = out.confidentJoint[col];
        const double diagonal = double(given[col]);
        const double raised = std::max(diagonal, 1.0);
        std::int64_t nonZero = 0;
        for (std::int64_t v : given)
            nonZero += v != 0;
        const double perEntry = (raised - diagonal) / std::max(double(nonZero) - 1.0, 1.0);
        for (std::size_t row = 0; row < kk; ++row) {
            const double v = row == col ? raised : std::max(double(given[row]) - perEntry, 0.0);
            prune[row][col] = std::int64_t(v);
        }
    }

    // The rows of each given class.
    std::vector<std::vector<std::size_t>> rowsOf(kk);
    for (std::size_t j = 0; j < kk; ++j)
        rowsOf[j].reserve(std::size_t(counts[j]));
    for (std::size_t i = 0; i < n; ++i)
        rowsOf[std::size_t(labels[i])].push_back(i);

    // For given class g and each other class t, the prune[t][g] examples whose p[t] beats p[g]
    // by the most.
    out.issue.assign(n, 0);
    std::vector<std::pair<double, std::size_t>> margins;
    for (std::size_t g = 0; g < kk; ++g) {
        const std::vector<std::size_t> &rows = rowsOf[g];
        if (rows.size() <= 1)
            continue; // min_examples_per_class = 1: a class of one example keeps it
        for (std::size_t t = 0; t < kk; ++t) {
            const std::int64_t take = std::min<std::int64_t>(prune[t][g], std::int64_t(rows.size()));
            if (t == g || take <= 0)
                continue;
            margins.clear();
            for (std::size_t r = 0; r < rows.size(); ++r)
                margins.emplace_back(prob(rows[r], int(t)) - prob(rows[r], int(g)), r);
            const auto larger = [](const std::pair<double, std::size_t> &a, const std::pair<double, std::size_t> &b) {
                return a.first > b.first || (a.first == b.first && a.second < b.second);
            };
            std::nth_element(margins.begin(), margins.begin() + (take - 1), margins.end(), larger);
            for (std::int64_t c = 0; c < take; ++c)
                out.issue[rows[margins[std::size_t(c)].second]] = 1;
        }
    }

    // 4. Never an issue: an example whose given label is the most probable class (within 1e-6;
    // an earlier class must be strictly below, a later one at most equal, as argmax's first max).
    for (std::size_t i = 0; i < n; ++i) {
        if (!out.issue[i])
            continue;
        const int given = labels[i];
        const double boosted = prob(i, given) + kFloatingPointComparison;
        bool givenWins = true;
        for (int j = 0; j < k && givenWins; ++j) {
            if (j == given)
                continue;
            const double p = prob(i, j);
            givenWins = j < given ? p < boosted : p <= boosted;
        }
        if (givenWins)
            out.issue[i] = 0;
    }
    return out;
}

// The label quality of row i (cleanlab.rank): p[given], or the normalized margin.
template <class Prob>
double labelQuality(const Prob &prob, std::size_t i, int given, int k, LabelQualityScore rankBy)
{
    const double self = prob(i, given);
    if (rankBy == LabelQualityScore::SelfConfidence)
        return self;
    double other = -1;
    for (int j = 0; j < k; ++j)
        if (j != given)
            other = std::max(other, prob(i, j));
    return (self - other + 1) / 2;
}

// Checks of the input common to both tasks; rowSize(i) and value(i, j) read the caller's rows.
template <class RowSize, class Value>
void checkProbabilities(std::size_t n, std::size_t k, const RowSize &rowSize, const Value &value, bool sumsToOne)
{
    if (n == 0)
        fail("no examples");
    for (std::size_t i = 0; i < n; ++i) {
        if (rowSize(i) != k)
            fail("row " + std::to_string(i) + " has " + std::to_string(rowSize(i)) + " probabilities, expected "
                 + std::to_string(k) + " (as row 0)");
        double sum = 0;
        for (std::size_t j = 0; j < k; ++j) {
            const double p = value(i, j);
            if (!std::isfinite(p) || p < 0 || p > 1)
                fail("row " + std::to_string(i) + ": the probability of class " + std::to_string(j) + " is "
                     + number(p) + ", not in [0, 1]");
            sum += p;
        }
        if (sumsToOne && std::abs(sum - 1) > kLabelIssuesRowSumTolerance)
            fail("row " + std::to_string(i) + ": the probabilities sum to " + number(sum)
                 + ", not 1 (single-label predictions are a softmax)");
    }
}

// The single-label algorithm over any row storage.
template <class Prob, class RowSize>
LabelIssueReport singleLabel(std::size_t n, std::size_t k, const Prob &prob, const RowSize &rowSize,
                             const std::vector<int> &labels, LabelQualityScore rankBy)
{
    if (n > 0 && k < 2)
        fail("need at least 2 classes (got " + std::to_string(k) + ")");
    checkProbabilities(n, k, rowSize, prob, true);
    if (labels.size() != n)
        fail(std::to_string(n) + " rows of probabilities but " + std::to_string(labels.size()) + " labels");
    std::vector<std::int64_t> counts(k, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (labels[i] < 0 || std::size_t(labels[i]) >= k)
            fail("row " + std::to_string(i) + ": label " + std::to_string(labels[i]) + " is not a class index in [0, "
                 + std::to_string(k) + ")");
        ++counts[std::size_t(labels[i])];
    }
    for (std::size_t j = 0; j < k; ++j)
        if (counts[j] == 0)
            fail("class " + std::to_string(j) + " has no examples (every class needs some to set its threshold)");

    const auto p = [&prob](std::size_t i, int j) { return prob(i, std::size_t(j)); };
    Pruned pruned = pruneByNoiseRate(p, labels, int(k));
    LabelIssueReport report;
    report.thresholds = std::move(pruned.thresholds);
    report.confidentJoint = std::move(pruned.confidentJoint);
    for (std::size_t i = 0; i < n; ++i) {
        if (!pruned.issue[i])
            continue;
        LabelIssue issue;
        issue.index = i;
        issue.givenLabel = labels[i];
        issue.score = labelQuality(p, i, labels[i], int(k), rankBy);
        double best = -1;
        for (int j = 0; j < int(k); ++j)
            if (j != labels[i] && p(i, j) > best) {
                best = p(i, j);
                issue.suggestedLabel = j;
            }
        report.issues.push_back(issue);
    }
    std::stable_sort(report.issues.begin(), report.issues.end(),
                     [](const LabelIssue &a, const LabelIssue &b) { return a.score < b.score; });
    return report;
}

// The multi-label algorithm over any row storage: one binary problem per class.
template <class Prob, class RowSize>
MultiLabelIssueReport multiLabel(std::size_t n, std::size_t k, const Prob &prob, const RowSize &rowSize,
                                 const std::vector<std::vector<int>> &labels, LabelQualityScore rankBy)
{
    if (n > 0 && k < 1)
        fail("need at least 1 class");
    checkProbabilities(n, k, rowSize, prob, false);
    if (labels.size() != n)
        fail(std::to_string(n) + " rows of probabilities but " + std::to_string(labels.size()) + " label sets");
    // has[i * k + c]: whether example i is labelled with class c.
    std::vector<char> has(n * k, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (int c : labels[i]) {
            if (c < 0 || std::size_t(c) >= k)
                fail("row " + std::to_string(i) + ": label " + std::to_string(c) + " is not a class index in [0, "
                     + std::to_string(k) + ")");
            has[i * k + std::size_t(c)] = 1;
        }

    MultiLabelIssueReport report;
    std::vector<std::vector<int>> flagged(n);
    std::vector<int> binary(n);
    for (std::size_t c = 0; c < k; ++c) {
        for (std::size_t i = 0; i < n; ++i)
            binary[i] = has[i * k + c];
        // Column 0: not the class, 1: the class; 1 - p in double, as cleanlab's stack_complement.
        const auto p = [&prob, c](std::size_t i, int j) {
            const double v = prob(i, c);
            return j == 1 ? v : 1.0 - v;
        };
        const Pruned pruned = pruneByNoiseRate(p, binary, 2);
        report.thresholds.push_back({pruned.thresholds[0], pruned.thresholds[1]});
        report.confidentJoints.push_back({{{pruned.confidentJoint[0][0], pruned.confidentJoint[0][1]},
                                           {pruned.confidentJoint[1][0], pruned.confidentJoint[1][1]}}});
        for (std::size_t i = 0; i < n; ++i)
            if (pruned.issue[i])
                flagged[i].push_back(int(c));
    }

    std::vector<double> scores(k);
    for (std::size_t i = 0; i < n; ++i) {
        if (flagged[i].empty())
            continue;
        MultiLabelIssue issue;
        issue.index = i;
        for (std::size_t c = 0; c < k; ++c) {
            const bool given = has[i * k + c] != 0;
            const bool toggled = std::binary_search(flagged[i].begin(), flagged[i].end(), int(c));
            if (given)
                issue.givenLabels.push_back(int(c));
            if (given != toggled)
                issue.suggestedLabels.push_back(int(c));
            const double v = prob(i, c);
            const double self = given ? v : 1.0 - v;
            const double other = given ? 1.0 - v : v;
            scores[c] = rankBy == LabelQualityScore::SelfConfidence ? self : (self - other + 1) / 2;
        }
        std::sort(scores.begin(), scores.end(), std::greater<double>());
        double ema = scores[0];
        for (std::size_t c = 1; c < k; ++c)
            ema = kMultiLabelEmaAlpha * scores[c] + (1 - kMultiLabelEmaAlpha) * ema;
        issue.score = ema;
        issue.flaggedClasses = std::move(flagged[i]);
        report.issues.push_back(std::move(issue));
    }
    std::stable_sort(report.issues.begin(), report.issues.end(),
                     [](const MultiLabelIssue &a, const MultiLabelIssue &b) { return a.score < b.score; });
    return report;
}

} // namespace

LabelQualityScore labelQualityScoreFromName(const std::string &name)
{
    if (name == "self_confidence")
        return LabelQualityScore::SelfConfidence;
    if (name == "normalized_margin")
        return LabelQualityScore::NormalizedMargin;
    fail("unknown label quality score \"" + name + "\" (self_confidence or normalized_margin)");
}

std::string labelQualityScoreName(LabelQualityScore score)
{
    return score == LabelQualityScore::SelfConfidence ? "self_confidence" : "normalized_margin";
}

LabelIssueReport findLabelIssues(const std::vector<std::vector<float>> &probs, const std::vector<int> &labels,
                                 LabelQualityScore rankBy)
{
    const std::size_t k = probs.empty() ? 0 : probs[0].size();
    return singleLabel(
        probs.size(), k, [&probs](std::size_t i, std::size_t j) { return double(probs[i][j]); },
        [&probs](std::size_t i) { return probs[i].size(); }, labels, rankBy);
}

MultiLabelIssueReport findMultiLabelIssues(const std::vector<std::vector<float>> &probs,
                                           const std::vector<std::vector<int>> &labels, LabelQualityScore rankBy)
{
    const std::size_t k = probs.empty() ? 0 : probs[0].size();
    return multiLabel(
        probs.size(), k, [&probs](std::size_t i, std::size_t j) { return double(probs[i][j]); },
        [&probs](std::size_t i) { return probs[i].size(); }, labels, rankBy);
}

LabelIssueReport findLabelIssuesInRun(const FoldsRun &run, LabelQualityScore rankBy)
{
    if (run.task != "single_label")
        fail("the folds run's task is " + run.task + ", not single_label");
    std::vector<int> labels(run.rows.size());
    for (std::size_t i = 0; i < run.rows.size(); ++i) {
        if (run.rows[i].labels.size() != 1)
            fail("row " + std::to_string(i) + " has " + std::to_string(run.rows[i].labels.size())
                 + " labels; single-label rows have one");
        labels[i] = run.rows[i].labels[0];
    }
    const auto &rows = run.rows;
    return singleLabel(
        rows.size(), run.classes.size(), [&rows](std::size_t i, std::size_t j) { return double(rows[i].probs[j]); },
        [&rows](std::size_t i) { return rows[i].probs.size(); }, labels, rankBy);
}

MultiLabelIssueReport findMultiLabelIssuesInRun(const FoldsRun &run, LabelQualityScore rankBy)
{
    if (run.task != "multi_label")
        fail("the folds run's task is " + run.task + ", not multi_label");
    std::vector<std::vector<int>> labels(run.rows.size());
    for (std::size_t i = 0; i < run.rows.size(); ++i)
        labels[i] = run.rows[i].labels;
    const auto &rows = run.rows;
    return multiLabel(
        rows.size(), run.classes.size(), [&rows](std::size_t i, std::size_t j) { return double(rows[i].probs[j]); },
        [&rows](std::size_t i) { return rows[i].probs.size(); }, labels, rankBy);
}

FoldsRun readFoldsRun(const std::string &dir)
{
    namespace jf = json_fields;
    FoldsRun run;

    // folds.json: a few hundred bytes of run metadata, read under the run config's limit.
    const std::string foldsPath = (std::filesystem::path(dir) / "folds.json").string();
    if (!std::filesystem::exists(foldsPath))
        throw EngineError(foldsPath + ": not found (is " + dir + " the output of lathe-cli train --folds K?)");
    const std::string text = readFileWithin(foldsPath, parse_limits::kRunConfigBytes);
    checkJsonDepth(text, foldsPath);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &e) {
        throw EngineError(foldsPath + ": not valid JSON (" + e.what() + ")");
    }
    const std::string where = foldsPath + ": ";
    jf::requireObject(where + "(top level)", doc);
    for (const char *key : {"task", "classes", "folds"})
        if (!doc.contains(key))
            throw EngineError(where + "missing \"" + key + "\"");
    run.task = jf::readEnum(where + "task", doc["task"], {"single_label", "multi_label"});
    const nlohmann::json &classes = jf::requireArray(where + "classes", doc["classes"], "an array of class names");
    for (std::size_t c = 0; c < classes.size(); ++c)
        run.classes.push_back(jf::readString(jf::itemPath(where + "classes", c), classes[c]));
    if (run.classes.size() < (run.task == "single_label" ? 2u : 1u))
        throw EngineError(where + "classes: " + std::to_string(run.classes.size()) + " classes are too few for "
                          + run.task);
    run.folds = jf::readInt(where + "folds", doc["folds"], jf::NumberRange().ge(1));
    if (doc.contains("metric"))
        run.metric = jf::readString(where + "metric", doc["metric"]);
    if (doc.contains("fold_metrics")) {
        const nlohmann::json &metrics = jf::requireArray(where + "fold_metrics", doc["fold_metrics"]);
        for (std::size_t f = 0; f < metrics.size(); ++f)
            run.foldMetrics.push_back(jf::readNumber(jf::itemPath(where + "fold_metrics", f), metrics[f]));
    }

    // oof_predictions.jsonl: one example a line, streamed (100k rows of 1000 probabilities are a
    // gigabyte of text).
    const std::string rowsPath = (std::filesystem::path(dir) / "oof_predictions.jsonl").string();
    std::ifstream in(rowsPath, std::ios::binary);
    if (!in)
        throw EngineError(rowsPath + ": cannot open");
    const bool single = run.task == "single_label";
    const int classCount = int(run.classes.size());
    std::string line;
    for (std::size_t lineNumber = 1; std::getline(in, line); ++lineNumber) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const std::string at = rowsPath + ":" + std::to_string(lineNumber) + ": ";
        checkJsonDepth(line, rowsPath + ":" + std::to_string(lineNumber));
        nlohmann::json row;
        try {
            row = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception &e) {
            throw EngineError(at + "not valid JSON (" + e.what() + ")");
        }
        jf::requireObject(at + "(line)", row);
        for (const char *key : {"fold", "filename", "probs", single ? "label" : "labels"})
            if (!row.contains(key))
                throw EngineError(at + "missing \"" + key + "\"");
        OutOfFoldRow r;
        r.fold = jf::readInt(at + "fold", row["fold"], jf::NumberRange().ge(1).le(run.folds));
        r.filename = jf::readString(at + "filename", row["filename"]);
        if (row.contains("sha256"))
            r.sha256 = jf::readString(at + "sha256", row["sha256"]);
        const jf::NumberRange classRange = jf::NumberRange().ge(0).lt(classCount);
        if (single) {
            r.labels.push_back(jf::readInt(at + "label", row["label"], classRange));
        } else {
            const nlohmann::json &set = jf::requireArray(at + "labels", row["labels"], "an array of class indices");
            for (std::size_t c = 0; c < set.size(); ++c)
                r.labels.push_back(jf::readInt(jf::itemPath(at + "labels", c), set[c], classRange));
            std::sort(r.labels.begin(), r.labels.end());
            r.labels.erase(std::unique(r.labels.begin(), r.labels.end()), r.labels.end());
        }
        const nlohmann::json &probs = jf::requireArray(at + "probs", row["probs"], "an array of probabilities");
        if (probs.size() != run.classes.size())
            throw EngineError(at + "probs has " + std::to_string(probs.size()) + " values, expected "
                              + std::to_string(run.classes.size()) + " (one per class of folds.json)");
        r.probs.reserve(probs.size());
        double sum = 0;
        for (std::size_t c = 0; c < probs.size(); ++c) {
            const double p = jf::readNumber(jf::itemPath(at + "probs", c), probs[c], jf::NumberRange().ge(0).le(1));
            r.probs.push_back(float(p));
            sum += p;
        }
        if (single && std::abs(sum - 1) > kLabelIssuesRowSumTolerance)
            throw EngineError(at + "probs sum to " + json_fields::formatNumber(sum)
                              + ", not 1 (single-label predictions are a softmax)");
        run.rows.push_back(std::move(r));
    }
    if (in.bad())
        throw EngineError(rowsPath + ": read failed");
    if (run.rows.empty())
        throw EngineError(rowsPath + ": no predictions");
    return run;
}

} // namespace lathe::engine
