#pragma once

// Torch-free. The metrics of multi-label classification, where every image carries a set of
// labels and the model answers K independent yes/no questions (sigmoid scores). They follow
// scikit-learn's definitions (tests/parity/multilabel_reference.py checks them against
// scikit-learn), and each place where Lathe decides otherwise says so.
//
// Shapes: scores[n][k] is image n's score for label k (a probability; any finite value works,
// only the order and the thresholds matter), targets[n][k] is 1 when image n carries label k
// and 0 when not. A label is "positive" on an image when its target is 1. Predictions: label k
// is predicted for an image when its score >= thresholds[k] (scores are compared as doubles).
//
// The matrix functions throw EngineError ("multilabel metrics: ...") for no images (N = 0: the
// number of labels would be unknown), no labels, ragged rows, scores and targets of different
// shapes, a target other than 0 or 1, a NaN score, or thresholds that are not K non-NaN values.

#include <cstdint>
#include <limits>
#include <vector>

namespace lathe::engine {

using MultiLabelScores = std::vector<std::vector<float>>;          // [N][K]
using MultiLabelTargets = std::vector<std::vector<std::uint8_t>>;  // [N][K], 0 or 1

// The threshold of a label that has nothing to tune it with (no positive example).
inline constexpr double kDefaultMultiLabelThreshold = 0.5;

// The 0/1 matrix of N label sets over K labels (labelSets[n] holds image n's label indices;
// repeats are harmless). Throws EngineError for K < 1 or an index outside [0, K).
MultiLabelTargets targetsFromLabelSets(const std::vector<std::vector<int>> &labelSets, int labels);

// ---- one label: a column of scores and its 0/1 targets (same length) ----

// One operating point of a precision-recall curve: predicting positive when score >= threshold
// gives this precision (TP / predicted) and recall (TP / positives).
struct PrCurvePoint
{
    double threshold = 0;
    double precision = 0;
    double recall = 0;
};

// scikit-learn's precision_recall_curve(targets, scores) (drop_intermediate=False): one point per
// distinct score, in increasing order of threshold (so recall decreases along the vector).
// scikit-learn appends a final (precision 1, recall 0) without a threshold so that a plot starts
// on the precision axis; it is not stored here (a plot adds it). A label without positives has
// no curve (recall is undefined; scikit-learn sets it to 1): the result is empty, as it is for
// no examples. Throws EngineError for columns of different lengths, a target other than 0/1 or
// a NaN score.
std::vector<PrCurvePoint> precisionRecallCurve(const std::vector<float> &scores,
                                               const std::vector<std::uint8_t> &targets);

// scikit-learn's average_precision_score(targets, scores): the step-wise integral of the curve
// above, sum over the distinct thresholds t from the highest down of (R(t) - R(previous)) * P(t)
// (no interpolation; tied scores form one step). NaN when there is no positive (scikit-learn
// warns and returns 0 there, which would read as "the worst ranking"). Same errors as above.
double averagePrecision(const std::vector<float> &scores, const std::vector<std::uint8_t> &targets);

// ---- all labels ----

struct MeanAveragePrecision
{
    std::vector<double> perLabel;      // averagePrecision per label: NaN for a label without positives
    // The mean over the labels that have at least one positive (NaN when none has). scikit-learn's
    // average="macro" counts a label without positives as AP 0 and so drags the mean down for
    // labels the split simply does not contain; over labels that all have positives the two agree.
    double macro = std::numeric_limits<double>::quiet_NaN();
    // scikit-learn's average="micro": one AP over all N * K (score, target) pairs flattened
    // (NaN when no pair is positive).
    double micro = std::numeric_limits<double>::quiet_NaN();
    std::int64_t labelsWithPositives = 0;  // the labels macro averages over
};
MeanAveragePrecision meanAveragePrecision(const MultiLabelScores &scores, const MultiLabelTargets &targets);

// scikit-learn's precision_recall_curve for every label (empty for a label without positives).
std::vector<std::vector<PrCurvePoint>> precisionRecallCurves(const MultiLabelScores &scores,
                                                             const MultiLabelTargets &targets);

struct PrfAverage
{
    double precision = 0;
    double recall = 0;
    double f1 = 0;
};

// scikit-learn's precision_recall_fscore_support(targets, predictions, zero_division=0) with
// predictions = scores >= thresholds: per label precision = TP / predicted, recall = TP /
// support, f1 = 2 TP / (support + predicted) (= 2PR / (P + R)), each 0 where its denominator
// is 0. macro: the unweighted mean over all K labels of the per-label values (scikit-learn's
// average="macro": labels without support and without predictions count as 0). micro: the same
// formulas over TP, predicted and support summed over the labels (average="micro").
struct MultiLabelPrf
{
    std::vector<double> precision;
    std::vector<double> recall;
    std::vector<double> f1;
    std::vector<std::int64_t> support;       // images that carry the label
    std::vector<std::int64_t> predicted;     // images it was predicted for
    std::vector<std::int64_t> truePositives;
    PrfAverage micro;
    PrfAverage macro;
};
MultiLabelPrf precisionRecallF1(const MultiLabelScores &scores, const MultiLabelTargets &targets,
                                const std::vector<double> &thresholds);

// Per-label thresholds that maximise each label's F1 on these examples (tuned on the validation
// split and stored with the checkpoint). Candidates are the label's distinct scores (a threshold
// between two scores predicts what the higher one does); the first candidate from the highest
// score down that reaches the maximum F1 wins, so ties go to the higher threshold (fewer
// predictions for the same F1). F1s are compared exactly (as fractions of counts). A label
// without positives cannot score F1 above 0 and keeps kDefaultMultiLabelThreshold.
struct TunedThresholds
{
    std::vector<double> thresholds;
    std::vector<double> f1; // each label's F1 at its threshold on these examples (0 without positives)
};
TunedThresholds tuneThresholds(const MultiLabelScores &scores, const MultiLabelTargets &targets);

// The label x label confusion of false positives at the given thresholds: counts[i][j] is the
// number of images that carry label i and for which label j was predicted although they do not
// carry j. An image with several true labels counts once in each of their rows, so rows do not
// add up to the number of false positives; the diagonal is always 0. Images without any true
// label (background images) have no row in counts: their false positives go to
// withoutTrueLabels[j], one count per image for which j was predicted.
struct FalsePositiveConfusion
{
    std::vector<std::vector<std::int64_t>> counts; // [K][K]: [true label][falsely predicted label]
    std::vector<std::int64_t> withoutTrueLabels;   // [K]
};
FalsePositiveConfusion falsePositiveConfusion(const MultiLabelScores &scores, const MultiLabelTargets &targets,
                                              const std::vector<double> &thresholds);

} // namespace lathe::engine
