#pragma once

// Torch-free: the workspace's evaluation Job, the Evaluate page and lathe-cli call it.

#include "engine/base/task_control.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

struct EvalOptions
{
    std::string runDir;
    std::string checkpoint = "best"; // resolveCheckpoint's names or a file; "best" falls back to "last"
    std::string dataDir;             // shards (dataset.json); empty: the run's data.shards
    std::string split = "val";
    // Test-time augmentation: the image is resized as for evaluation but cropped ttaCrops ways
    // (1: the center crop; 5: the four corners and the center of the resizeSize square, as
    // torchvision's FiveCrop), each also mirrored; the softmax probabilities are averaged.
    bool tta = false;
    int ttaCrops = 5;
    int batchSize = 64;
    int topK = 5;   // classes kept per prediction
    int threads = 0; // decoding threads; 0: every hardware thread
    std::string device; // "cpu", "cuda:N"; empty: the first CUDA device when there is one
    // K-fold cross-validation: only the records of split's fold `fold` of `folds` (the one a
    // fold's run held out, RunConfig data.folds). 0: the whole split.
    int folds = 0;
    int fold = 0;
    bool keepProbabilities = false; // EvalResult::probabilities
};

// One image of the split.
struct Prediction
{
    std::uint64_t record = 0; // position in the split (shard by shard, record by record)
    std::string filename;
    std::string sha256; // of the image file's bytes (image/key/sha256)
    int label = 0;      // multi-label: the lowest of labels
    std::vector<int> labels; // the label set (one label for single-label datasets)
    std::vector<int> topClasses; // most probable first
    std::vector<float> topProbs;
    float loss = 0; // -log p(label)
};

struct EvalResult
{
    std::vector<std::string> classes;
    std::vector<Prediction> predictions; // by record
    std::vector<std::vector<float>> probabilities; // every class's, per prediction (keepProbabilities)
    nlohmann::json metrics;              // computeMetrics' object plus the evaluation's context
};

// Runs a run's checkpoint over a split with the evaluation transform (the one the trainer
// validated with, so top-1 equals the trainer's val_top1 for the same checkpoint and split).
// Records that cannot be read or decoded are left out and listed in metrics "errors"
// (metrics "skipped" counts them). The dataset's classes must be the run's (same names, same
// order). metrics also holds: run_dir, checkpoint, checkpoint_step, data_dir, split, tta,
// tta_views, arch, image_size, resize_size. Throws EngineError or Cancelled.
EvalResult evaluate(const EvalOptions &options, const TaskControl &control = {});

// Metrics of predicted class probabilities (rows sum to 1) against labels. A pure function;
// labels must lie in [0, classes.size()) and every row must have classes.size() entries
// (EngineError otherwise). The prediction is a row's most probable class (lowest index on ties).
// The object:
//   count, loss (mean -log p(label), p clamped to 1e-30), top1, top5 (null when < 5 classes)
//   per_class: [{class, index, precision, recall, f1, support, predicted}]
//       precision = TP / predicted, recall = TP / support, f1 = 2PR / (P + R). A class without
//       support (no image of it in the split) has recall and f1 null (undefined), and precision
//       null too when it was never predicted (0 when it was: every such prediction is wrong).
//       A class with support that was never predicted has precision 0 (scikit-learn's
//       zero_division=0).
//   macro: {precision, recall, f1, classes}: the unweighted mean over the classes that occur
//       among the labels or the predictions (scikit-learn's classification_report), counting an
//       undefined value as 0 as scikit-learn does; a class absent from both does not count;
//       weighted: {precision, recall, f1}: weighted by support.
//   confusion_matrix: {counts: [true][predicted], normalized: counts / row sum (0 rows stay 0)}
//   top_confusions: up to 20 {true, predicted, count} off-diagonal cells, largest first
//   calibration: {ece, mce, bins: [{lower, upper, count, confidence, accuracy}]}: 15 equal bins
//       over the confidence (the top probability), bin b holding (b/15, (b+1)/15];
//       ece = sum over bins of count/N * |accuracy - confidence| (Guo et al. 2017)
//   pr_curves: [{class, average_precision, positives, points: [{threshold, precision, recall}]}]:
//       one-vs-rest over that class's probability, one point per distinct probability from the
//       highest down (a sample is positive when its probability >= threshold); average_precision
//       = sum (R_n - R_n-1) P_n over every point (scikit-learn's), null for a class without
//       positives. Curves with more than 200 points are thinned to 200 evenly spaced ones
//       (first and last kept); average_precision always uses all of them.
nlohmann::json computeMetrics(const std::vector<int> &labels, const std::vector<std::vector<float>> &probabilities,
                              const std::vector<std::string> &classes);

// Metrics of a multi-label model's sigmoid scores against label sets, at per-class thresholds
// (training/multilabel_metrics.h; every class needs a threshold). The object:
//   task "multi_label", count, top1 (the top-scored class is one of the image's),
//   map (macro average precision over the classes with positives; null when none has),
//   map_micro, labels_with_positives, thresholds,
//   per_class: [{class, index, average_precision (null without positives), precision, recall,
//       f1, support, predicted, threshold}] at the thresholds (scikit-learn's zero_division=0),
//   micro, macro: {precision, recall, f1},
//   pr_curves: as computeMetrics' (one-vs-rest on each class's score), thinned to 200 points,
//   false_positive_confusion: {counts: [true][falsely predicted], without_true_labels: [K]}.
// Throws EngineError for ragged rows, labels out of range or thresholds of another length.
nlohmann::json computeMultiLabelMetrics(const std::vector<std::vector<int>> &labelSets,
                                        const std::vector<std::vector<float>> &scores,
                                        const std::vector<std::string> &classes, const std::vector<double> &thresholds);
// "class,average_precision,precision,recall,f1,support,threshold" per class of a multi-label
// metrics object, then "micro avg" and "macro avg" rows.
std::string multiLabelMetricsCsv(const nlohmann::json &metrics);

// CSV exports of a metrics object (RFC 4180 quoting; numbers with 6 significant digits):
// per class "class,precision,recall,f1,support" then "macro avg" and "weighted avg" rows;
std::string metricsCsv(const nlohmann::json &metrics);
// the confusion matrix with a header row of predicted classes and a first column of true ones;
std::string confusionMatrixCsv(const nlohmann::json &metrics, bool normalized = false);
// "lower,upper,count,confidence,accuracy" per calibration bin;
std::string calibrationCsv(const nlohmann::json &metrics);
// "class,threshold,precision,recall" per PR-curve point.
std::string prCurvesCsv(const nlohmann::json &metrics);

// One JSON object per line: {record, filename, label, top_classes, top_probs, loss}.
std::string predictionsJsonl(const std::vector<Prediction> &predictions);
// One JSON object per line, in the predictions' order: {record, scores} with every class's
// probability (multi-label: sigmoid score) of that image. Throws EngineError when the rows are
// not one per prediction.
std::string scoresJsonl(const std::vector<Prediction> &predictions, const std::vector<std::vector<float>> &scores);

// Writes an evaluation into dir (created when missing) so views open instantly later:
// metrics.json (metrics plus "classes"), predictions.jsonl, per_class.csv, pr_curves.csv, and
// for single-label models confusion.csv, confusion_normalized.csv, calibration.csv; when
// result.probabilities is filled (EvalOptions::keepProbabilities) also scores.jsonl (a stale one
// is removed otherwise). Each file atomically (writeFileAtomically, engine/base/file_io.h).
void saveEvaluation(const std::string &dir, const EvalResult &result);
// Reads saveEvaluation's metrics.json and predictions.jsonl back, and scores.jsonl into
// probabilities when it is there. Throws EngineError naming the file (and line) and the reason.
EvalResult loadEvaluation(const std::string &dir);

} // namespace lathe::engine
