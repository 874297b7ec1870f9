#pragma once

// Torch-free. Confident learning (Northcutt, Jiang & Chuang, JAIR 2021), the algorithm of
// cleanlab's find_label_issues: from out-of-sample predicted probabilities (k-fold
// cross-validation's out-of-fold predictions) and the given labels, the examples whose given
// label is probably wrong, ranked most suspicious first.
//
// What is matched (cleanlab 2.9.0, tests/parity/cleanlab_issues.py checks it): the defaults of
// cleanlab.filter.find_label_issues (filter_by="prune_by_noise_rate", frac_noise=1,
// min_examples_per_class=1) with return_indices_ranked_by "self_confidence" or
// "normalized_margin":
//   1. per-class thresholds: the mean p[j] over the examples labelled j, at least 2e-6;
//   2. the confident joint: an example counts in [given][j] for the one class j whose p[j]
//      reaches its threshold (less 1e-6), or the most probable of several; none when no class
//      reaches it. Its diagonal is raised to at least 1, then it is calibrated: each row scaled
//      to the label counts, the whole to N, rounded per row keeping the row totals;
//   3. prune by noise rate: the calibrated joint, transposed, has its diagonal raised to at least
//      one example per class (taken evenly from the column's non-zero noise entries, truncated to
//      integers); then for each given class k with more than one example and each other class j,
//      the n[j][k] examples labelled k with the largest margin p[j] - p[k] are issues;
//   4. examples whose given label is (within 1e-6) the most probable are never issues;
//   5. issues ordered by label quality, lowest first.
// Sums are numpy's pairwise sums, so the numbers agree to the bit. Where cleanlab leaves the order
// of equal values to numpy's unstable argsort (equal margins at a cut, equal scores, equal
// remainders when rounding the joint), this code takes a stable order: cleanlab's choice among
// exact ties is arbitrary and depends on numpy's sort, so those (rare) choices may differ.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

enum class LabelQualityScore
{
    SelfConfidence,   // p[given label]
    NormalizedMargin, // (p[given] - max_{k != given} p[k] + 1) / 2, in [0, 1]
};

// "self_confidence" / "normalized_margin" (cleanlab's names); EngineError for anything else.
LabelQualityScore labelQualityScoreFromName(const std::string &name);
std::string labelQualityScoreName(LabelQualityScore score);

struct LabelIssue
{
    std::size_t index = 0;      // row of the predictions
    int givenLabel = 0;
    int suggestedLabel = 0;     // the most probable other class (the first of equals)
    double score = 0;           // label quality in [0, 1]: lower is more suspicious
};

struct LabelIssueReport
{
    std::vector<LabelIssue> issues;                     // most suspicious first
    std::vector<double> thresholds;                     // per class: mean p[j] over examples labelled j
    std::vector<std::vector<std::int64_t>> confidentJoint; // [given][true], calibrated to the label counts
};

// How far a single-label row of probabilities may sum from 1 (float32 softmax over many classes,
// written as text, is a little off; a row of logits or of sigmoid outputs is far off).
inline constexpr double kLabelIssuesRowSumTolerance = 1e-3;

// Single-label: probs[i] sums to 1 over K >= 2 classes; labels[i] in [0, K). Throws EngineError
// ("label issues: ...") for no rows, ragged rows, a label out of range, a probability outside
// [0, 1] or not finite, a row not summing to 1 (kLabelIssuesRowSumTolerance), or a class without
// examples (cleanlab allows one; its threshold would be meaningless here).
LabelIssueReport findLabelIssues(const std::vector<std::vector<float>> &probs, const std::vector<int> &labels,
                                 LabelQualityScore rankBy = LabelQualityScore::SelfConfidence);

// Multi-label, as cleanlab.multilabel_classification.filter.find_label_issues with its defaults:
// each class is its own binary problem (given: the class is in the set or not; probabilities
// 1 - p[k], p[k]) through the single-label algorithm above, and an example is an issue when any
// class flags it. Issues are ranked by cleanlab's multi-label score: each class's binary label
// quality (self-confidence and normalized margin coincide for two columns up to rounding),
// sorted high to low and folded by an exponential moving average with alpha 0.8, so the worst
// class weighs most.
struct MultiLabelIssue
{
    std::size_t index = 0;
    std::vector<int> givenLabels;     // ascending
    std::vector<int> suggestedLabels; // the given set with each flagged class toggled, ascending
    std::vector<int> flaggedClasses;  // the classes whose binary problem flagged this example
    double score = 0;                 // label quality in [0, 1]: lower is more suspicious
};

struct MultiLabelIssueReport
{
    std::vector<MultiLabelIssue> issues;                 // most suspicious first
    std::vector<std::array<double, 2>> thresholds;       // per class: {not in set, in set}
    // per class: [given not/in][true not/in], calibrated
    std::vector<std::array<std::array<std::int64_t, 2>, 2>> confidentJoints;
};

// probs[i][k] in [0, 1] independently (sigmoid outputs); labels[i] a set of classes in [0, K)
// (repeats ignored, may be empty). A class that every example has, or none has, flags nothing
// (cleanlab refuses the former). Throws EngineError ("label issues: ...") for no rows, ragged
// rows, a class out of range, a probability outside [0, 1] or not finite.
MultiLabelIssueReport findMultiLabelIssues(const std::vector<std::vector<float>> &probs,
                                           const std::vector<std::vector<int>> &labels,
                                           LabelQualityScore rankBy = LabelQualityScore::SelfConfidence);

// The output of `lathe-cli train --folds K` (docs/formats.md: folds.json, oof_predictions.jsonl).
struct OutOfFoldRow
{
    int fold = 0;
    std::string filename;
    std::string sha256;
    std::vector<int> labels;  // one label (single-label) or the label set (multi-label)
    std::vector<float> probs; // softmax (single-label) or sigmoid (multi-label) outputs
};
struct FoldsRun
{
    std::string task; // "single_label" or "multi_label"
    std::vector<std::string> classes;
    int folds = 0;
    std::string metric;               // "" when folds.json has none
    std::vector<double> foldMetrics;  // one per fold, or empty
    std::vector<OutOfFoldRow> rows;
};
// Throws EngineError naming the file (and in oof_predictions.jsonl the line) for anything
// malformed: missing files or fields, wrong types, a fold outside [1, folds], a label outside
// the classes, a probs row of the wrong length, a probability outside [0, 1], a single-label row
// not summing to 1.
FoldsRun readFoldsRun(const std::string &dir);

// findLabelIssues / findMultiLabelIssues on a folds run's rows, without copying them; EngineError
// when the run's task is the other one.
LabelIssueReport findLabelIssuesInRun(const FoldsRun &run, LabelQualityScore rankBy = LabelQualityScore::SelfConfidence);
MultiLabelIssueReport findMultiLabelIssuesInRun(const FoldsRun &run,
                                                LabelQualityScore rankBy = LabelQualityScore::SelfConfidence);

} // namespace lathe::engine
