#include "engine/inference/evaluation.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/inference/run_model.h"
#include "engine/pipeline/input_pipeline.h"
#include "engine/training/multilabel_metrics.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace lathe::engine {
namespace {

constexpr int kCalibrationBins = 15;
constexpr std::size_t kMaxPrPoints = 200;
constexpr std::size_t kTopConfusions = 20;
constexpr std::uintmax_t kMaxMetricsBytes = std::uintmax_t(1) << 30;

double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

std::string number(double v)
{
    if (!std::isfinite(v))
        return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string jsonNumber(const json &v)
{
    return v.is_number() ? number(v.get<double>()) : std::string();
}

const json &field(const json &metrics, const char *key)
{
    if (!metrics.is_object() || !metrics.contains(key))
        throw EngineError(std::string("metrics: no \"") + key + "\" (not an object from computeMetrics)");
    return metrics.at(key);
}

// sklearn-style precision-recall curve of one class, one point per distinct score.
json prCurve(const std::vector<std::vector<float>> &probs, const std::vector<int> &labels, int cls,
             const std::string &name)
{
    const std::size_t n = labels.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return probs[a][std::size_t(cls)] > probs[b][std::size_t(cls)];
    });
    std::size_t positives = 0;
    for (int l : labels)
        positives += l == cls;

    json points = json::array();
    double ap = 0;
    double previousRecall = 0;
    std::size_t tp = 0;
    for (std::size_t i = 0; i < n;) {
        const float threshold = probs[order[i]][std::size_t(cls)];
        for (; i < n && probs[order[i]][std::size_t(cls)] == threshold; ++i)
            tp += labels[order[i]] == cls;
        const double precision = double(tp) / double(i);
        const double recall = ratio(double(tp), double(positives));
        ap += (recall - previousRecall) * precision;
        previousRecall = recall;
        points.push_back({{"threshold", threshold}, {"precision", precision}, {"recall", recall}});
    }
    if (points.size() > kMaxPrPoints) {
        json thinned = json::array();
        const std::size_t last = points.size() - 1;
        for (std::size_t k = 0; k < kMaxPrPoints; ++k)
            thinned.push_back(points[k * last / (kMaxPrPoints - 1)]);
        points = std::move(thinned);
    }
    return {{"class", name},
            {"index", cls},
            {"positives", positives},
            {"average_precision", positives > 0 ? json(ap) : json(nullptr)},
            {"points", std::move(points)}};
}

// The crops of a batch of resizeSize squares: four corners then the center (FiveCrop's order),
// or the center alone.
std::vector<torch::Tensor> crops(const torch::Tensor &squares, int size, int count)
{
    const std::int64_t r = squares.size(2);
    const std::int64_t far = r - size;
    const std::int64_t mid = std::int64_t(std::nearbyint(double(far) / 2.0)); // half to even, as center crop
    auto crop = [&](std::int64_t top, std::int64_t left) { return squares.narrow(2, top, size).narrow(3, left, size); };
    if (count == 1)
        return {crop(mid, mid)};
    return {crop(0, 0), crop(0, far), crop(far, 0), crop(far, far), crop(mid, mid)};
}

} // namespace

json computeMetrics(const std::vector<int> &labels, const std::vector<std::vector<float>> &probabilities,
                    const std::vector<std::string> &classes)
{
    const int k = int(classes.size());
    const std::size_t n = labels.size();
    if (k == 0)
        throw EngineError("metrics: no classes");
    if (probabilities.size() != n)
        throw EngineError("metrics: " + std::to_string(n) + " labels but " + std::to_string(probabilities.size()) +
                          " probability rows");
    std::vector<int> predicted(n);
    std::vector<std::vector<std::uint64_t>> cm(std::size_t(k), std::vector<std::uint64_t>(std::size_t(k), 0));
    double lossSum = 0;
    std::uint64_t top1 = 0;
    std::uint64_t top5 = 0;
    std::vector<std::uint64_t> binCount(kCalibrationBins, 0), binCorrect(kCalibrationBins, 0);
    std::vector<double> binConfidence(kCalibrationBins, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::vector<float> &p = probabilities[i];
        const int y = labels[i];
        if (int(p.size()) != k)
            throw EngineError("metrics: row " + std::to_string(i) + " has " + std::to_string(p.size()) +
                              " probabilities for " + std::to_string(k) + " classes");
        if (y < 0 || y >= k)
            throw EngineError("metrics: label " + std::to_string(y) + " of row " + std::to_string(i) +
                              " is outside [0, " + std::to_string(k) + ")");
        const int pred = int(std::max_element(p.begin(), p.end()) - p.begin());
        predicted[i] = pred;
        ++cm[std::size_t(y)][std::size_t(pred)];
        lossSum += -std::log(std::max(double(p[std::size_t(y)]), 1e-30));
        top1 += pred == y;
        // Rank of the label, ties broken by index as for the prediction.
        int rank = 0;
        for (int j = 0; j < k; ++j)
            rank += p[std::size_t(j)] > p[std::size_t(y)] || (j < y && p[std::size_t(j)] == p[std::size_t(y)]);
        top5 += rank < 5;
        const double confidence = p[std::size_t(pred)];
        const int bin = std::clamp(int(std::ceil(confidence * kCalibrationBins)) - 1, 0, kCalibrationBins - 1);
        ++binCount[std::size_t(bin)];
        binCorrect[std::size_t(bin)] += pred == y;
        binConfidence[std::size_t(bin)] += confidence;
    }

    json m = json::object();
    m["count"] = n;
    m["loss"] = n ? json(lossSum / double(n)) : json(nullptr);
    m["top1"] = n ? json(double(top1) / double(n)) : json(nullptr);
    m["top5"] = n && k >= 5 ? json(double(top5) / double(n)) : json(nullptr);

    json perClass = json::array();
    double macro[3] = {0, 0, 0}, weighted[3] = {0, 0, 0};
    int macroClasses = 0;
    for (int c = 0; c < k; ++c) {
        std::uint64_t support = 0, predictedCount = 0;
        for (int j = 0; j < k; ++j) {
            support += cm[std::size_t(c)][std::size_t(j)];
            predictedCount += cm[std::size_t(j)][std::size_t(c)];
        }
        const double tp = double(cm[std::size_t(c)][std::size_t(c)]);
        const double precision = ratio(tp, double(predictedCount));
        const double recall = ratio(tp, double(support));
        const double f1 = ratio(2 * precision * recall, precision + recall);
        // Without images of the class, recall and F1 say nothing: null, not a 0 that reads as
        // "always wrong". Its precision is still 0 when it was predicted (every such prediction
        // is wrong), null when it was not.
        const bool noSupport = support == 0;
        perClass.push_back({{"class", classes[std::size_t(c)]},
                            {"index", c},
                            {"precision", noSupport && predictedCount == 0 ? json(nullptr) : json(precision)},
                            {"recall", noSupport ? json(nullptr) : json(recall)},
                            {"f1", noSupport ? json(nullptr) : json(f1)},
                            {"support", support},
                            {"predicted", predictedCount}});
        if (support > 0 || predictedCount > 0) {
            ++macroClasses;
            macro[0] += precision;
            macro[1] += recall;
            macro[2] += f1;
        }
        weighted[0] += precision * double(support);
        weighted[1] += recall * double(support);
        weighted[2] += f1 * double(support);
    }
    m["per_class"] = std::move(perClass);
    m["macro"] = {{"precision", ratio(macro[0], macroClasses)},
                  {"recall", ratio(macro[1], macroClasses)},
                  {"f1", ratio(macro[2], macroClasses)},
                  {"classes", macroClasses}};
    m["weighted"] = {{"precision", ratio(weighted[0], double(n))},
                     {"recall", ratio(weighted[1], double(n))},
                     {"f1", ratio(weighted[2], double(n))}};

    json counts = json::array(), normalized = json::array();
    std::vector<json> confusions;
    for (int t = 0; t < k; ++t) {
        const auto &row = cm[std::size_t(t)];
        const double total = double(std::accumulate(row.begin(), row.end(), std::uint64_t(0)));
        json r = json::array(), nr = json::array();
        for (int p = 0; p < k; ++p) {
            r.push_back(row[std::size_t(p)]);
            nr.push_back(ratio(double(row[std::size_t(p)]), total));
            if (p != t && row[std::size_t(p)] > 0)
                confusions.push_back({{"true", classes[std::size_t(t)]},
                                      {"predicted", classes[std::size_t(p)]},
                                      {"count", row[std::size_t(p)]}});
        }
        counts.push_back(std::move(r));
        normalized.push_back(std::move(nr));
    }
    m["confusion_matrix"] = {{"counts", std::move(counts)}, {"normalized", std::move(normalized)}};
    std::stable_sort(confusions.begin(), confusions.end(), [](const json &a, const json &b) {
        return a["count"].get<std::uint64_t>() > b["count"].get<std::uint64_t>();
    });
    if (confusions.size() > kTopConfusions)
        confusions.resize(kTopConfusions);
    m["top_confusions"] = confusions;

    json bins = json::array();
    double ece = 0, mce = 0;
    for (int b = 0; b < kCalibrationBins; ++b) {
        const double count = double(binCount[std::size_t(b)]);
        json bin = {{"lower", double(b) / kCalibrationBins},
                    {"upper", double(b + 1) / kCalibrationBins},
                    {"count", binCount[std::size_t(b)]},
                    {"confidence", nullptr},
                    {"accuracy", nullptr}};
        if (count > 0) {
            const double accuracy = double(binCorrect[std::size_t(b)]) / count;
            const double confidence = binConfidence[std::size_t(b)] / count;
            bin["accuracy"] = accuracy;
            bin["confidence"] = confidence;
            ece += count / double(n) * std::abs(accuracy - confidence);
            mce = std::max(mce, std::abs(accuracy - confidence));
        }
        bins.push_back(std::move(bin));
    }
    m["calibration"] = {{"ece", n ? json(ece) : json(nullptr)}, {"mce", n ? json(mce) : json(nullptr)},
                        {"bins", std::move(bins)}};

    json curves = json::array();
    for (int c = 0; c < k; ++c)
        curves.push_back(prCurve(probabilities, labels, c, classes[std::size_t(c)]));
    m["pr_curves"] = std::move(curves);
    return m;
}

json computeMultiLabelMetrics(const std::vector<std::vector<int>> &labelSets, const std::vector<std::vector<float>> &scores,
                              const std::vector<std::string> &classes, const std::vector<double> &thresholds)
{
    const int k = int(classes.size());
    if (labelSets.size() != scores.size())
        throw EngineError("metrics: " + std::to_string(labelSets.size()) + " label sets for " +
                          std::to_string(scores.size()) + " score rows");
    if (int(thresholds.size()) != k)
        throw EngineError("metrics: " + std::to_string(thresholds.size()) + " thresholds for " + std::to_string(k) +
                          " classes");
    for (const std::vector<int> &set : labelSets)
        for (int c : set)
            if (c < 0 || c >= k)
                throw EngineError("metrics: label " + std::to_string(c) + " outside the " + std::to_string(k) + " classes");
    const MultiLabelTargets targets = targetsFromLabelSets(labelSets, k);
    const MeanAveragePrecision map = meanAveragePrecision(scores, targets);
    const MultiLabelPrf prf = precisionRecallF1(scores, targets, thresholds);
    const FalsePositiveConfusion confusion = falsePositiveConfusion(scores, targets, thresholds);
    const auto finiteOrNull = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };

    std::size_t hits = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const auto top = std::max_element(scores[i].begin(), scores[i].end()) - scores[i].begin();
        hits += targets[i][std::size_t(top)] != 0;
    }
    json perClass = json::array(), curves = json::array();
    std::vector<int> oneVsRest(scores.size());
    for (int c = 0; c < k; ++c) {
        const std::size_t j = std::size_t(c);
        perClass.push_back({{"class", classes[j]},
                            {"index", c},
                            {"average_precision", finiteOrNull(map.perLabel[j])},
                            {"precision", prf.precision[j]},
                            {"recall", prf.recall[j]},
                            {"f1", prf.f1[j]},
                            {"support", prf.support[j]},
                            {"predicted", prf.predicted[j]},
                            {"threshold", thresholds[j]}});
        for (std::size_t i = 0; i < scores.size(); ++i)
            oneVsRest[i] = targets[i][j] ? c : -1;
        curves.push_back(prCurve(scores, oneVsRest, c, classes[j]));
    }
    const auto average = [](const PrfAverage &a) {
        return json{{"precision", a.precision}, {"recall", a.recall}, {"f1", a.f1}};
    };
    return {{"task", "multi_label"},
            {"count", scores.size()},
            {"top1", scores.empty() ? 0.0 : double(hits) / double(scores.size())},
            {"map", finiteOrNull(map.macro)},
            {"map_micro", finiteOrNull(map.micro)},
            {"labels_with_positives", map.labelsWithPositives},
            {"thresholds", thresholds},
            {"per_class", std::move(perClass)},
            {"micro", average(prf.micro)},
            {"macro", average(prf.macro)},
            {"pr_curves", std::move(curves)},
            {"false_positive_confusion",
             {{"counts", confusion.counts}, {"without_true_labels", confusion.withoutTrueLabels}}}};
}

std::string multiLabelMetricsCsv(const json &metrics)
{
    std::ostringstream out;
    out << "class,average_precision,precision,recall,f1,support,threshold\n";
    for (const json &c : field(metrics, "per_class"))
        out << csvField(c.at("class").get<std::string>()) << ',' << jsonNumber(c.at("average_precision")) << ','
            << jsonNumber(c.at("precision")) << ',' << jsonNumber(c.at("recall")) << ',' << jsonNumber(c.at("f1")) << ','
            << jsonNumber(c.at("support")) << ',' << jsonNumber(c.at("threshold")) << '\n';
    for (const char *avg : {"micro", "macro"}) {
        const json &a = field(metrics, avg);
        out << avg << " avg,," << jsonNumber(a.at("precision")) << ',' << jsonNumber(a.at("recall")) << ','
            << jsonNumber(a.at("f1")) << ",,\n";
    }
    return out.str();
}

std::string metricsCsv(const json &metrics)
{
    std::ostringstream out;
    out << "class,precision,recall,f1,support\n";
    double total = 0;
    for (const json &c : field(metrics, "per_class")) {
        out << csvField(c.at("class").get<std::string>()) << ',' << jsonNumber(c.at("precision")) << ','
            << jsonNumber(c.at("recall")) << ',' << jsonNumber(c.at("f1")) << ',' << jsonNumber(c.at("support")) << '\n';
        total += c.at("support").get<double>();
    }
    for (const char *avg : {"macro", "weighted"}) {
        const json &a = field(metrics, avg);
        out << avg << " avg," << jsonNumber(a.at("precision")) << ',' << jsonNumber(a.at("recall")) << ','
            << jsonNumber(a.at("f1")) << ',' << number(total) << '\n';
    }
    return out.str();
}

std::string confusionMatrixCsv(const json &metrics, bool normalized)
{
    std::ostringstream out;
    out << "true\\predicted";
    for (const json &c : field(metrics, "per_class"))
        out << ',' << csvField(c.at("class").get<std::string>());
    out << '\n';
    const json &rows = field(metrics, "confusion_matrix").at(normalized ? "normalized" : "counts");
    const json &perClass = field(metrics, "per_class");
    for (std::size_t t = 0; t < rows.size(); ++t) {
        out << csvField(perClass.at(t).at("class").get<std::string>());
        for (const json &v : rows[t])
            out << ',' << jsonNumber(v);
        out << '\n';
    }
    return out.str();
}

std::string calibrationCsv(const json &metrics)
{
    std::ostringstream out;
    out << "lower,upper,count,confidence,accuracy\n";
    for (const json &b : field(metrics, "calibration").at("bins"))
        out << jsonNumber(b.at("lower")) << ',' << jsonNumber(b.at("upper")) << ',' << jsonNumber(b.at("count")) << ','
            << jsonNumber(b.at("confidence")) << ',' << jsonNumber(b.at("accuracy")) << '\n';
    return out.str();
}

std::string prCurvesCsv(const json &metrics)
{
    std::ostringstream out;
    out << "class,threshold,precision,recall\n";
    for (const json &curve : field(metrics, "pr_curves")) {
        const std::string name = csvField(curve.at("class").get<std::string>());
        for (const json &p : curve.at("points"))
            out << name << ',' << jsonNumber(p.at("threshold")) << ',' << jsonNumber(p.at("precision")) << ','
                << jsonNumber(p.at("recall")) << '\n';
    }
    return out.str();
}

std::string predictionsJsonl(const std::vector<Prediction> &predictions)
{
    std::string out;
    for (const Prediction &p : predictions) {
        out += json{{"record", p.record},
                    {"filename", p.filename},
                    {"label", p.label},
                    {"labels", p.labels},
                    {"top_classes", p.topClasses},
                    {"top_probs", p.topProbs},
                    {"loss", p.loss}}
                   .dump(-1, ' ', false, json::error_handler_t::replace);
        out += '\n';
    }
    return out;
}

std::string scoresJsonl(const std::vector<Prediction> &predictions, const std::vector<std::vector<float>> &scores)
{
    if (scores.size() != predictions.size())
        throw EngineError("scores: " + std::to_string(scores.size()) + " rows for " + std::to_string(predictions.size()) +
                          " predictions");
    std::string out;
    for (std::size_t i = 0; i < predictions.size(); ++i) {
        out += json{{"record", predictions[i].record}, {"scores", scores[i]}}.dump();
        out += '\n';
    }
    return out;
}

void saveEvaluation(const std::string &dir, const EvalResult &result)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec))
        throw EngineError(dir + ": cannot create the evaluation folder");
    const auto path = [&dir](const char *name) { return (fs::path(dir) / name).string(); };
    json metrics = result.metrics;
    metrics["classes"] = result.classes;
    writeFileAtomically(path("predictions.jsonl"), predictionsJsonl(result.predictions));
    if (result.metrics.value("task", "single_label") == "multi_label") {
        writeFileAtomically(path("per_class.csv"), multiLabelMetricsCsv(result.metrics));
    } else {
        writeFileAtomically(path("per_class.csv"), metricsCsv(result.metrics));
        writeFileAtomically(path("confusion.csv"), confusionMatrixCsv(result.metrics, false));
        writeFileAtomically(path("confusion_normalized.csv"), confusionMatrixCsv(result.metrics, true));
        writeFileAtomically(path("calibration.csv"), calibrationCsv(result.metrics));
    }
    writeFileAtomically(path("pr_curves.csv"), prCurvesCsv(result.metrics));
    if (!result.probabilities.empty())
        writeFileAtomically(path("scores.jsonl"), scoresJsonl(result.predictions, result.probabilities));
    else
        fs::remove(path("scores.jsonl"), ec); // an older evaluation's scores would not match
    // Last: a folder with metrics.json holds a complete evaluation.
    writeFileAtomically(path("metrics.json"), metrics.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
}

EvalResult loadEvaluation(const std::string &dir)
{
    const std::string metricsPath = (fs::path(dir) / "metrics.json").string();
    const std::string predictionsPath = (fs::path(dir) / "predictions.jsonl").string();
    std::error_code ec;
    for (const std::string &p : {metricsPath, predictionsPath}) {
        if (!fs::is_regular_file(p, ec))
            throw EngineError(p + ": missing (not a saved evaluation)");
        if (fs::file_size(p, ec) > kMaxMetricsBytes)
            throw EngineError(p + ": larger than 1 GiB");
    }
    EvalResult r;
    {
        std::ifstream in(metricsPath, std::ios::binary);
        try {
            r.metrics = json::parse(in);
        } catch (const json::exception &e) {
            throw EngineError(metricsPath + ": not JSON (" + e.what() + ")");
        }
        if (!r.metrics.is_object() || !r.metrics.contains("classes") || !r.metrics["classes"].is_array())
            throw EngineError(metricsPath + ": not an evaluation (no \"classes\" array)");
        for (const json &c : r.metrics["classes"]) {
            if (!c.is_string())
                throw EngineError(metricsPath + ": \"classes\" must hold strings");
            r.classes.push_back(c.get<std::string>());
        }
        r.metrics.erase("classes");
    }
    std::ifstream in(predictionsPath, std::ios::binary);
    std::string line;
    std::size_t lineNo = 0;
    const int k = int(r.classes.size());
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        const std::string where = predictionsPath + ":" + std::to_string(lineNo);
        try {
            const json j = json::parse(line);
            Prediction p;
            p.record = j.at("record").get<std::uint64_t>();
            p.filename = j.at("filename").get<std::string>();
            p.label = j.at("label").get<int>();
            p.labels = j.contains("labels") ? j.at("labels").get<std::vector<int>>() : std::vector<int>{p.label};
            p.topClasses = j.at("top_classes").get<std::vector<int>>();
            p.topProbs = j.at("top_probs").get<std::vector<float>>();
            p.loss = j.at("loss").get<float>();
            if (p.label < 0 || p.label >= k)
                throw EngineError(where + ": label " + std::to_string(p.label) + " outside the " + std::to_string(k) +
                                  " classes");
            if (p.topClasses.size() != p.topProbs.size())
                throw EngineError(where + ": top_classes and top_probs differ in length");
            for (int c : p.topClasses)
                if (c < 0 || c >= k)
                    throw EngineError(where + ": class " + std::to_string(c) + " outside the " + std::to_string(k) +
                                      " classes");
            r.predictions.push_back(std::move(p));
        } catch (const json::exception &e) {
            throw EngineError(where + ": malformed prediction (" + e.what() + ")");
        }
    }
    const std::string scoresPath = (fs::path(dir) / "scores.jsonl").string();
    if (!fs::exists(scoresPath, ec))
        return r;
    if (fs::file_size(scoresPath, ec) > kMaxMetricsBytes)
        throw EngineError(scoresPath + ": larger than 1 GiB");
    std::ifstream scores(scoresPath, std::ios::binary);
    lineNo = 0;
    while (std::getline(scores, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        const std::string where = scoresPath + ":" + std::to_string(lineNo);
        const std::size_t row = r.probabilities.size();
        try {
            const json j = json::parse(line);
            if (row >= r.predictions.size())
                throw EngineError(where + ": more score rows than the " + std::to_string(r.predictions.size()) +
                                  " predictions");
            if (j.at("record").get<std::uint64_t>() != r.predictions[row].record)
                throw EngineError(where + ": record " + j.at("record").dump() + ", but prediction " + std::to_string(row + 1) +
                                  " is record " + std::to_string(r.predictions[row].record));
            std::vector<float> s = j.at("scores").get<std::vector<float>>();
            if (int(s.size()) != k)
                throw EngineError(where + ": " + std::to_string(s.size()) + " scores for " + std::to_string(k) +
                                  " classes");
            r.probabilities.push_back(std::move(s));
        } catch (const json::exception &e) {
            throw EngineError(where + ": malformed scores (" + e.what() + ")");
        }
    }
    if (r.probabilities.size() != r.predictions.size())
        throw EngineError(scoresPath + ": " + std::to_string(r.probabilities.size()) + " score rows for " +
                          std::to_string(r.predictions.size()) + " predictions");
    return r;
}

EvalResult evaluate(const EvalOptions &o, const TaskControl &control)
{
    if (o.batchSize < 1 || o.batchSize > 65536)
        throw EngineError("eval: batch size must be in [1, 65536] (got " + std::to_string(o.batchSize) + ")");
    if (o.topK < 1)
        throw EngineError("eval: top-k must be at least 1 (got " + std::to_string(o.topK) + ")");
    if (o.tta && o.ttaCrops != 1 && o.ttaCrops != 5)
        throw EngineError("eval: TTA crops must be 1 or 5 (got " + std::to_string(o.ttaCrops) + ")");
    control.report(0, "loading the model");
    RunModel m = loadRunModel(o.runDir, o.checkpoint, o.device);
    const std::string dataDir = o.dataDir.empty() ? m.config.data.shards : o.dataDir;
    if (dataDir.empty())
        throw EngineError(o.runDir + ": the run's config names no data.shards; give a dataset folder");

    ShardDataset names(dataDir);
    const DatasetManifest &manifest = names.manifest();
    if (manifest.classes != m.classes) {
        std::string message = dataDir + ": its classes differ from the run's (" + std::to_string(manifest.classes.size()) +
                              " vs " + std::to_string(m.classes.size()) + ")";
        for (std::size_t i = 0; i < std::min(manifest.classes.size(), m.classes.size()); ++i)
            if (manifest.classes[i] != m.classes[i]) {
                message += "; label " + std::to_string(i) + " is \"" + manifest.classes[i] + "\" in the dataset, \"" +
                           m.classes[i] + "\" in the run";
                break;
            }
        throw EngineError(message);
    }
    RecordSelection selection;
    selection.folds = o.folds;
    selection.fold = o.fold;
    selection.heldOut = true;
    const std::uint64_t n = names.size(o.split, selection);
    if (n == 0) {
        std::string splits;
        for (const auto &entry : manifest.counts) {
            std::uint64_t records = 0;
            for (const auto &perClass : entry.second)
                records += perClass.second;
            if (records > 0)
                splits += (splits.empty() ? "" : ", ") + entry.first;
        }
        throw EngineError(dataDir + ": split \"" + o.split + "\" has no records (splits: " + splits + ")");
    }
    const std::vector<RecordRef> order = names.epochOrder(o.split, 0, 0, 0, 1, false, selection);
    const int k = int(m.classes.size());
    const int topK = std::min(o.topK, k);
    const int crop = m.transform.imageSize;
    const int cropCount = o.tta ? o.ttaCrops : 1;

    PipelineOptions p;
    p.datasetDir = dataDir;
    p.split = o.split;
    p.transform = m.transform;
    if (o.tta && cropCount == 5)
        p.transform.imageSize = m.transform.resizeSize; // the resized image's center square, cropped below
    p.batchSize = o.batchSize;
    p.threads = o.threads;
    p.shuffle = false;
    p.dropLast = false;
    p.numClasses = k;
    p.selection = selection;
    InputPipeline pipeline(p);
    pipeline.startEpoch(0);

    std::vector<char> seen(order.size(), 0);
    std::vector<Prediction> byRecord(order.size());
    std::vector<std::vector<float>> probsByRecord(order.size());
    std::uint64_t done = 0;
    torch::NoGradGuard noGrad;
    while (std::optional<Batch> batch = pipeline.next()) {
        control.checkCancel();
        torch::Tensor x = batch->images.to(m.device);
        torch::Tensor probs;
        torch::Tensor logProbs;
        const bool multi = m.multiLabel();
        // Multi-label: each class's sigmoid score (averaged over TTA views); logProbs then holds
        // each image's mean binary cross-entropy over the classes, in column 0.
        const auto activation = [multi](const torch::Tensor &logits) {
            return multi ? torch::sigmoid(logits) : torch::softmax(logits, 1);
        };
        if (!o.tta && !multi) {
            logProbs = torch::log_softmax(m.classifier->forward(x).to(torch::kFloat32), 1);
            probs = logProbs.exp();
        } else if (!o.tta) {
            probs = activation(m.classifier->forward(x).to(torch::kFloat32));
        } else {
            std::vector<torch::Tensor> views = cropCount == 5 ? crops(x, crop, 5) : std::vector<torch::Tensor>{x};
            probs = torch::zeros({x.size(0), k}, torch::TensorOptions(m.device).dtype(torch::kFloat32));
            int count = 0;
            for (const torch::Tensor &v : views)
                for (bool flip : {false, true}) {
                    const torch::Tensor in = (flip ? v.flip({3}) : v).contiguous();
                    probs += activation(m.classifier->forward(in).to(torch::kFloat32));
                    ++count;
                }
            probs /= double(count);
            if (!multi)
                logProbs = probs.clamp_min(1e-30).log();
        }
        torch::Tensor targets;
        if (multi) {
            targets = batch->softTargets.to(torch::kCPU);
            const torch::Tensor p = probs.to(torch::kCPU).clamp(1e-7, 1 - 1e-7);
            logProbs = -(targets * p.log() + (1 - targets) * (1 - p).log()).mean(1, true);
        }
        probs = probs.to(torch::kCPU).contiguous();
        logProbs = logProbs.to(torch::kCPU).contiguous();
        const torch::Tensor labels = batch->labels.to(torch::kCPU);
        for (std::int64_t i = 0; i < probs.size(0); ++i) {
            const std::uint64_t pos = batch->recordIndices[std::size_t(i)];
            // A sample standing in for a corrupt record repeats a record: count each once.
            if (pos >= order.size() || seen[pos])
                continue;
            seen[pos] = 1;
            Prediction &pred = byRecord[pos];
            pred.record = pos;
            pred.label = int(labels[i].item<std::int64_t>());
            const ImageExample example = names.read(order[pos]);
            pred.filename = example.filename;
            pred.sha256 = example.sha256;
            const float *row = probs[i].data_ptr<float>();
            probsByRecord[pos].assign(row, row + k);
            topClasses(row, k, topK, pred.topClasses, pred.topProbs);
            if (multi) {
                pred.loss = logProbs[i][0].item<float>();
                const float *t = targets[i].data_ptr<float>();
                for (int c = 0; c < k; ++c)
                    if (t[c] >= 0.5f)
                        pred.labels.push_back(c);
            } else {
                pred.loss = -logProbs[i][pred.label].item<float>();
                pred.labels = {pred.label};
            }
            ++done;
        }
        control.report(double(done) / double(order.size()),
                       "evaluated " + std::to_string(done) + " of " + std::to_string(order.size()) + " images");
    }

    EvalResult result;
    result.classes = m.classes;
    std::vector<int> labels;
    std::vector<std::vector<int>> labelSets;
    std::vector<std::vector<float>> probabilities;
    double lossSum = 0;
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        if (!seen[pos])
            continue;
        labels.push_back(byRecord[pos].label);
        labelSets.push_back(byRecord[pos].labels);
        probabilities.push_back(std::move(probsByRecord[pos]));
        lossSum += byRecord[pos].loss;
        result.predictions.push_back(std::move(byRecord[pos]));
    }
    if (result.predictions.empty())
        throw EngineError(dataDir + ": no record of split \"" + o.split + "\" could be decoded");
    result.metrics = m.multiLabel() ? computeMultiLabelMetrics(labelSets, probabilities, m.classes, m.thresholds)
                                    : computeMetrics(labels, probabilities, m.classes);
    if (o.keepProbabilities)
        result.probabilities = std::move(probabilities);
    // Exact log-softmax, not clamped (multi-label: the mean binary cross-entropy).
    result.metrics["loss"] = lossSum / double(result.predictions.size());
    const PipelineStats stats = pipeline.stats();
    result.metrics["skipped"] = order.size() - result.predictions.size();
    result.metrics["errors"] = stats.errorSamples;
    result.metrics["run_dir"] = o.runDir;
    result.metrics["checkpoint"] = m.checkpoint.model;
    result.metrics["checkpoint_step"] = m.checkpoint.step;
    result.metrics["data_dir"] = dataDir;
    result.metrics["split"] = o.split;
    if (o.folds > 0) {
        result.metrics["folds"] = o.folds;
        result.metrics["fold"] = o.fold;
    }
    result.metrics["tta"] = o.tta;
    result.metrics["tta_views"] = o.tta ? 2 * cropCount : 1;
    result.metrics["arch"] = m.spec.arch;
    result.metrics["image_size"] = m.transform.imageSize;
    result.metrics["resize_size"] = m.transform.resizeSize;
    control.report(1, "evaluated " + std::to_string(result.predictions.size()) + " images");
    return result;
}

} // namespace lathe::engine
