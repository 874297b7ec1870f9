// Evaluation: metrics against hand-computed cases, CSV/JSON exports, evaluate() end to end on
// synthetic "bright square in a quadrant" shards (with and without TTA), Grad-CAM localisation,
// predict's per-file errors, and eval top-1 == the trainer's val_top1 for the same checkpoint.
#include "engine/base/runtime_info.h"
#include "engine/dataset/shard_converter.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/inference/evaluation.h"
#include "engine/inference/grad_cam.h"
#include "engine/inference/prediction.h"
#include "engine/inference/run_model.h"
#include "engine/models/model_builder.h"
#include "engine/models/weights_io.h"
#include "engine/pipeline/sample_transform.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_config.h"
#include "engine/run/run_folder.h"
#include "engine/training/trainer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace fs = std::filesystem;
using namespace lathe;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// computeMetrics by hand
//
// 6 classes a..f. Labels and argmax predictions:
//   row  label pred  p(label)  confidence
//   0    a     a     0.90      0.90
//   1    a     a     0.61      0.61
//   2    a     b     0.30      0.50
//   3    b     b     0.82      0.82
//   4    b     d     0.20      0.55
//   5    c     a     0.35      0.41
//   6    c     b     0.01      0.45   (c is the least probable class: outside the top 5)
// c is never predicted (precision 0/0 -> 0); d is predicted once but has no support (recall and
// f1 undefined: null; precision 0); e and f occur nowhere (all three null) and stay out of the
// macro average.
const std::vector<std::string> kClasses{"a", "b", "c", "d", "e", "f"};
const std::vector<int> kLabels{0, 0, 0, 1, 1, 2, 2};
const std::vector<std::vector<float>> kProbs{
    {0.90f, 0.05f, 0.02f, 0.01f, 0.01f, 0.01f}, {0.61f, 0.29f, 0.04f, 0.03f, 0.02f, 0.01f},
    {0.30f, 0.50f, 0.10f, 0.05f, 0.03f, 0.02f}, {0.08f, 0.82f, 0.05f, 0.03f, 0.01f, 0.01f},
    {0.10f, 0.20f, 0.10f, 0.55f, 0.03f, 0.02f}, {0.41f, 0.09f, 0.35f, 0.10f, 0.03f, 0.02f},
    {0.20f, 0.45f, 0.01f, 0.10f, 0.12f, 0.12f}};

TEST(EvaluationMetrics, HandComputedCase)
{
    const json m = engine::computeMetrics(kLabels, kProbs, kClasses);
    EXPECT_EQ(m["count"].get<int>(), 7);
    EXPECT_NEAR(m["top1"].get<double>(), 3.0 / 7, 1e-12);
    EXPECT_NEAR(m["top5"].get<double>(), 6.0 / 7, 1e-12);
    const double loss = -(std::log(0.9) + std::log(0.61) + std::log(0.3) + std::log(0.82) + std::log(0.2) +
                          std::log(0.35) + std::log(0.01)) / 7;
    EXPECT_NEAR(m["loss"].get<double>(), loss, 1e-6);

    const json &pc = m["per_class"];
    ASSERT_EQ(pc.size(), 6u);
    // NaN: the value must be null (undefined).
    const auto expectValue = [](const json &v, double want) {
        if (std::isnan(want))
            EXPECT_TRUE(v.is_null()) << v;
        else
            EXPECT_NEAR(v.get<double>(), want, 1e-12);
    };
    constexpr double undefined = std::numeric_limits<double>::quiet_NaN();
    const auto expectClass = [&](int c, double p, double r, double f1, int support, int predicted) {
        SCOPED_TRACE(kClasses[std::size_t(c)]);
        EXPECT_EQ(pc[c]["class"], kClasses[std::size_t(c)]);
        expectValue(pc[c]["precision"], p);
        expectValue(pc[c]["recall"], r);
        expectValue(pc[c]["f1"], f1);
        EXPECT_EQ(pc[c]["support"].get<int>(), support);
        EXPECT_EQ(pc[c]["predicted"].get<int>(), predicted);
    };
    expectClass(0, 2.0 / 3, 2.0 / 3, 2.0 / 3, 3, 3);
    expectClass(1, 1.0 / 3, 1.0 / 2, 0.4, 2, 3);
    expectClass(2, 0, 0, 0, 2, 0); // never predicted: precision 0/0 -> 0
    expectClass(3, 0, undefined, undefined, 0, 1); // no support: recall and f1 undefined
    expectClass(4, undefined, undefined, undefined, 0, 0);
    expectClass(5, undefined, undefined, undefined, 0, 0);

    // Macro over a, b, c, d (e and f occur neither as label nor as prediction).
    EXPECT_EQ(m["macro"]["classes"].get<int>(), 4);
    EXPECT_NEAR(m["macro"]["precision"].get<double>(), (2.0 / 3 + 1.0 / 3) / 4, 1e-12);
    EXPECT_NEAR(m["macro"]["recall"].get<double>(), (2.0 / 3 + 0.5) / 4, 1e-12);
    EXPECT_NEAR(m["macro"]["f1"].get<double>(), (2.0 / 3 + 0.4) / 4, 1e-12);
    EXPECT_NEAR(m["weighted"]["precision"].get<double>(), (3 * 2.0 / 3 + 2 * 1.0 / 3) / 7, 1e-12);
    EXPECT_NEAR(m["weighted"]["recall"].get<double>(), 3.0 / 7, 1e-12);
    EXPECT_NEAR(m["weighted"]["f1"].get<double>(), (3 * 2.0 / 3 + 2 * 0.4) / 7, 1e-12);

    const json &counts = m["confusion_matrix"]["counts"];
    const std::vector<std::vector<int>> expected{{2, 1, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 0}, {1, 1, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}};
    EXPECT_EQ(counts.get<std::vector<std::vector<int>>>(), expected);
    int total = 0;
    for (std::size_t t = 0; t < 6; ++t) {
        int row = 0;
        double normalizedRow = 0;
        for (std::size_t p = 0; p < 6; ++p) {
            row += counts[t][p].get<int>();
            normalizedRow += m["confusion_matrix"]["normalized"][t][p].get<double>();
        }
        EXPECT_EQ(row, pc[t]["support"].get<int>());
        EXPECT_NEAR(normalizedRow, row ? 1.0 : 0.0, 1e-12);
        total += row;
    }
    EXPECT_EQ(total, 7);
    EXPECT_NEAR(m["confusion_matrix"]["normalized"][1][3].get<double>(), 0.5, 1e-12);
    ASSERT_EQ(m["top_confusions"].size(), 4u);
    EXPECT_EQ(m["top_confusions"][0]["count"].get<int>(), 1);

    // Calibration: bins (b/15, (b+1)/15]: 0.90 -> 13, 0.61 -> 9, 0.50 -> 7, 0.82 -> 12,
    // 0.55 -> 8, 0.41 and 0.45 -> 6 (both wrong).
    const json &cal = m["calibration"];
    ASSERT_EQ(cal["bins"].size(), 15u);
    const double ece = (0.1 + 0.39 + 0.5 + 0.18 + 0.55 + 2 * 0.43) / 7;
    EXPECT_NEAR(cal["ece"].get<double>(), ece, 1e-6);
    EXPECT_NEAR(cal["mce"].get<double>(), 0.55, 1e-6);
    EXPECT_EQ(cal["bins"][6]["count"].get<int>(), 2);
    EXPECT_NEAR(cal["bins"][6]["confidence"].get<double>(), 0.43, 1e-6);
    EXPECT_NEAR(cal["bins"][6]["accuracy"].get<double>(), 0.0, 1e-12);
    EXPECT_EQ(cal["bins"][13]["count"].get<int>(), 1);
    EXPECT_TRUE(cal["bins"][0]["accuracy"].is_null());
    int binned = 0;
    for (const json &b : cal["bins"])
        binned += b["count"].get<int>();
    EXPECT_EQ(binned, 7);

    // PR curve of a: scores .9+ .61+ .41- .3+ .2- .1- .08- (+: label a).
    const json &pr = m["pr_curves"][0];
    EXPECT_EQ(pr["positives"].get<int>(), 3);
    const std::vector<std::array<double, 3>> points{{0.9, 1, 1.0 / 3},   {0.61, 1, 2.0 / 3},   {0.41, 2.0 / 3, 2.0 / 3},
                                                    {0.3, 0.75, 1},      {0.2, 0.6, 1},        {0.1, 0.5, 1},
                                                    {0.08, 3.0 / 7, 1}};
    ASSERT_EQ(pr["points"].size(), points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_NEAR(pr["points"][i]["threshold"].get<double>(), points[i][0], 1e-6);
        EXPECT_NEAR(pr["points"][i]["precision"].get<double>(), points[i][1], 1e-12);
        EXPECT_NEAR(pr["points"][i]["recall"].get<double>(), points[i][2], 1e-12);
    }
    EXPECT_NEAR(pr["average_precision"].get<double>(), 1.0 / 3 + 1.0 / 3 + 0.75 / 3, 1e-12);
    // d has no positives: no average precision; e's tied scores give one point per distinct value.
    EXPECT_TRUE(m["pr_curves"][3]["average_precision"].is_null());
    EXPECT_EQ(m["pr_curves"][4]["points"].size(), 4u); // .12 .03 .02 .01
    EXPECT_NEAR(m["pr_curves"][4]["points"][1]["precision"].get<double>(), 0.0, 1e-12);
}

TEST(EvaluationMetrics, PerfectCalibrationHasZeroEce)
{
    // Ten predictions at confidence 0.7, seven of them right: accuracy equals confidence.
    std::vector<int> labels;
    std::vector<std::vector<float>> probs;
    for (int i = 0; i < 10; ++i) {
        labels.push_back(i < 7 ? 0 : 1);
        probs.push_back({0.7f, 0.3f});
    }
    const json m = engine::computeMetrics(labels, probs, {"x", "y"});
    EXPECT_NEAR(m["calibration"]["ece"].get<double>(), 0.0, 1e-6);
    EXPECT_EQ(m["calibration"]["bins"][10]["count"].get<int>(), 10); // 0.7 in (10/15, 11/15]
    EXPECT_TRUE(m["top5"].is_null());                               // fewer than 5 classes
    // Overconfident: the same predictions at 0.95 give |0.7 - 0.95|.
    for (auto &p : probs)
        p = {0.95f, 0.05f};
    EXPECT_NEAR(engine::computeMetrics(labels, probs, {"x", "y"})["calibration"]["ece"].get<double>(), 0.25, 1e-6);
}

TEST(EvaluationMetrics, LongPrCurvesAreThinnedButApUsesEveryPoint)
{
    std::vector<int> labels;
    std::vector<std::vector<float>> probs;
    for (int i = 0; i < 1000; ++i) {
        const float s = float(i + 1) / 1001.0f;
        labels.push_back(i >= 500 ? 0 : 1); // the higher half is class 0: a perfect ranking
        probs.push_back({s, 1 - s});
    }
    const json m = engine::computeMetrics(labels, probs, {"x", "y"});
    const json &points = m["pr_curves"][0]["points"];
    ASSERT_EQ(points.size(), 200u);
    EXPECT_NEAR(points.front()["threshold"].get<double>(), 1000.0 / 1001, 1e-6);
    EXPECT_NEAR(points.back()["threshold"].get<double>(), 1.0 / 1001, 1e-6);
    EXPECT_NEAR(points.back()["recall"].get<double>(), 1.0, 1e-12);
    EXPECT_NEAR(points.back()["precision"].get<double>(), 0.5, 1e-12);
    EXPECT_NEAR(m["pr_curves"][0]["average_precision"].get<double>(), 1.0, 1e-12);
    EXPECT_NEAR(m["pr_curves"][1]["average_precision"].get<double>(), 1.0, 1e-12);
}

TEST(EvaluationMetrics, BadInputIsAnError)
{
    EXPECT_NE(test::errorOf([] { engine::computeMetrics({0, 3}, {{0.5f, 0.5f}, {0.5f, 0.5f}}, {"x", "y"}); })
                  .find("label 3"),
              std::string::npos);
    EXPECT_NE(test::errorOf([] { engine::computeMetrics({0}, {{0.5f, 0.3f, 0.2f}}, {"x", "y"}); }).find("row 0"),
              std::string::npos);
    EXPECT_NE(test::errorOf([] { engine::computeMetrics({0, 1}, {{1.0f, 0.0f}}, {"x", "y"}); }).find("rows"),
              std::string::npos);
    const json empty = engine::computeMetrics({}, {}, {"x", "y"});
    EXPECT_EQ(empty["count"].get<int>(), 0);
    EXPECT_TRUE(empty["top1"].is_null());
}

TEST(EvaluationMetrics, CsvExports)
{
    std::vector<std::string> classes = kClasses;
    classes[1] = "b, \"quoted\"";
    const json m = engine::computeMetrics(kLabels, kProbs, classes);
    const std::string csv = engine::metricsCsv(m);
    std::istringstream lines(csv);
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);)
        rows.push_back(line);
    ASSERT_EQ(rows.size(), 1u + 6 + 2);
    EXPECT_EQ(rows[0], "class,precision,recall,f1,support");
    EXPECT_EQ(rows[1], "a,0.666667,0.666667,0.666667,3");
    EXPECT_EQ(rows[2], "\"b, \"\"quoted\"\"\",0.333333,0.5,0.4,2");
    EXPECT_EQ(rows[7], "macro avg,0.25,0.291667,0.266667,7");
    EXPECT_EQ(rows[8].rfind("weighted avg,0.380952,0.428571,0.4,7", 0), 0u);

    const std::string cm = engine::confusionMatrixCsv(m);
    EXPECT_EQ(cm.substr(0, cm.find('\n')), "true\\predicted,a,\"b, \"\"quoted\"\"\",c,d,e,f");
    EXPECT_NE(cm.find("\na,2,1,0,0,0,0\n"), std::string::npos);
    EXPECT_NE(engine::confusionMatrixCsv(m, true).find("\na,0.666667,0.333333,0,0,0,0\n"), std::string::npos);
    const std::string cal = engine::calibrationCsv(m);
    EXPECT_EQ(std::count(cal.begin(), cal.end(), '\n'), 16);
    EXPECT_NE(cal.find("\n0.4,0.466667,2,0.43,0\n"), std::string::npos);
    const std::string pr = engine::prCurvesCsv(m);
    EXPECT_NE(pr.find("\na,0.9,1,0.333333\n"), std::string::npos);
    EXPECT_NE(test::errorOf([] { engine::metricsCsv(json::object()); }).find("per_class"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// End to end on synthetic shards: class "square" has a bright square in one of the four quadrants
// (inside the evaluation crop: 64 px of the 73 px resize, the outer ~4 px are cut), class "dark"
// only a dim noisy background.
//
// The run's model is resnet18 made to look at brightness: every weight 0 and every BatchNorm the
// identity except the stem's channel 0 (the mean of its 7x7x3 window), box filters on channel 0
// 2x2 average pooling on channel 0 in the downsampling blocks (the other blocks pass their input
// through), so each cell of the 2x2 layer4 map holds the brightness of one quadrant, and a head whose
// "square" logit is +20 x channel 0 and "dark" logit -20 x channel 0 + 1. The normalised
// background is negative, so after the stem's ReLU channel 0 is the bright square alone: the
// model classifies every image right, and the only place that speaks for "square" is the square.
// (Networks trained here from scratch for a few dozen steps at 64 px - 2x2 feature maps - do not
// localise: their Grad-CAM often lights the opposite corner, whatever explains the class.)

constexpr int kSize = 64;

// quadrant: 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right; -1: no square.
cv::Mat syntheticImage(int quadrant, std::mt19937 &rng)
{
    cv::Mat img(kSize, kSize, CV_8UC3);
    std::uniform_int_distribution<int> noise(0, 60);
    for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x)
            img.at<cv::Vec3b>(y, x) = cv::Vec3b(std::uint8_t(noise(rng)), std::uint8_t(noise(rng)), std::uint8_t(noise(rng)));
    if (quadrant >= 0) {
        std::uniform_int_distribution<int> pos(7, 17);
        const int x = pos(rng) + (quadrant % 2) * 26; // squares cover [7, 29) or [33, 55)
        const int y = pos(rng) + (quadrant / 2) * 26;
        cv::rectangle(img, cv::Rect(x, y, 12, 12), cv::Scalar(255, 255, 255), cv::FILLED);
    }
    return img;
}

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

engine::NamedTensors brightnessModel()
{
    engine::ModelSpec spec;
    spec.arch = "resnet18";
    spec.head.numClasses = 2;
    auto model = engine::buildModel(spec).classifier;
    engine::NamedTensors state = engine::stateDict(*model);
    torch::NoGradGuard noGrad;
    for (auto &[name, t] : state) {
        if (endsWith(name, "num_batches_tracked"))
            continue;
        if (endsWith(name, "running_var") || (t.dim() == 1 && endsWith(name, ".weight")))
            t.fill_(1);
        else
            t.zero_();
    }
    const auto find = [&state](const std::string &name) {
        for (auto &e : state)
            if (e.first == name)
                return e.second;
        throw std::runtime_error("no " + name);
    };
    find("conv1.weight")[0].fill_(1.0 / (3 * 49));
    for (const std::string layer : {"layer2", "layer3", "layer4"}) {
        // 2x2 average pooling (taps 1..2 of the 3x3 stride-2 kernel), then the identity.
        find(layer + ".0.conv1.weight")[0][0].narrow(0, 1, 2).narrow(1, 1, 2).fill_(0.25);
        find(layer + ".0.conv2.weight")[0][0][1][1] = 1.0;
    }
    find("fc.weight")[1][0] = 20.0;
    find("fc.weight")[0][0] = -20.0;
    find("fc.bias")[0] = 1.0;
    return state;
}

class EvaluationRunTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        engine::configureTorchThreads();
        s_dir = new test::TempDir();
        std::mt19937 rng(1234);
        const fs::path images = s_dir->path() / "images";
        for (const auto &[split, perClass] : std::vector<std::pair<std::string, int>>{{"train", 24}, {"val", 8}})
            for (const std::string cls : {"dark", "square"}) {
                fs::create_directories(images / split / cls);
                for (int i = 0; i < perClass; ++i)
                    cv::imwrite((images / split / cls / (cls + "_" + std::to_string(i) + ".png")).string(),
                                syntheticImage(cls == "square" ? i % 4 : -1, rng));
            }
        engine::ConvertOptions convert;
        convert.scan.root = images.string();
        convert.scan.nearDuplicateDistance = 0;
        convert.outDir = (s_dir->path() / "shards").string();
        convert.shardRecords = 5; // several shards per split
        s_shards = engine::convertFolder(convert).outDir;

        // Images with a known square, for Grad-CAM.
        fs::create_directories(s_dir->path() / "cam");
        for (int i = 0; i < 8; ++i) {
            const std::string file = (s_dir->path() / "cam" / ("q" + std::to_string(i % 4) + "_" + std::to_string(i) + ".png")).string();
            cv::imwrite(file, syntheticImage(i % 4, rng));
            s_camFiles.emplace_back(file, i % 4);
        }

        // The run folder, written by hand: config.json and one checkpoint (no best: evaluation's
        // "best" falls back to "last").
        s_run = (s_dir->path() / "run").string();
        engine::RunFolder::create(s_run, engine::runConfigToJson(runConfig()));
        engine::CheckpointPolicy policy;
        policy.bestMetric = "";
        engine::writeCheckpoint(s_run, 1, {{"classes", {"dark", "square"}}, {"metrics", json::object()}},
                                brightnessModel(), {}, policy);
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    static engine::RunConfig runConfig()
    {
        engine::RunConfig c;
        c.data.shards = s_shards;
        c.data.imageSize = kSize;
        c.data.augment = {};
        c.model.arch = "resnet18";
        c.model.head.numClasses = 2;
        c.seed = 3;
        return c;
    }

    static std::vector<std::string> valFiles(const std::string &cls)
    {
        std::vector<std::string> out;
        for (const auto &e : fs::directory_iterator(s_dir->path() / "images" / "val" / cls))
            out.push_back(e.path().string());
        std::sort(out.begin(), out.end());
        return out;
    }

    // Probabilities of the run's model for the val split's records, in split order, computed
    // here with one forward pass.
    static torch::Tensor directProbabilities(engine::RunModel &m, bool mirrored = false)
    {
        engine::ShardDataset data(s_shards);
        const auto order = data.epochOrder("val", 0, 0, 0, 1, false);
        const engine::SampleTransform transform(m.transform);
        std::mt19937_64 rng(0);
        torch::Tensor x = torch::empty({std::int64_t(order.size()), 3, kSize, kSize});
        for (std::size_t i = 0; i < order.size(); ++i) {
            const engine::ImageExample e = data.read(order[i]);
            transform.apply(reinterpret_cast<const std::uint8_t *>(e.encoded.data()), e.encoded.size(), rng,
                            x[std::int64_t(i)].data_ptr());
        }
        torch::NoGradGuard noGrad;
        return torch::softmax(m.classifier->forward(mirrored ? x.flip({3}) : x), 1);
    }

    static test::TempDir *s_dir;
    static std::string s_shards;
    static std::string s_run;
    static std::vector<std::pair<std::string, int>> s_camFiles;
    test::TempDir m_tmp;
};

test::TempDir *EvaluationRunTest::s_dir = nullptr;
std::string EvaluationRunTest::s_shards;
std::string EvaluationRunTest::s_run;
std::vector<std::pair<std::string, int>> EvaluationRunTest::s_camFiles;

TEST_F(EvaluationRunTest, EvaluatesTheValidationSplit)
{
    engine::EvalOptions o;
    o.runDir = s_run;
    o.batchSize = 7; // batches that do not divide the split
    o.threads = 2;
    double lastFraction = -1;
    engine::TaskControl control;
    control.progress = [&](double f, const std::string &) { lastFraction = f; };
    const engine::EvalResult r = engine::evaluate(o, control);
    EXPECT_EQ(lastFraction, 1.0);
    EXPECT_EQ(r.classes, (std::vector<std::string>{"dark", "square"}));
    ASSERT_EQ(r.predictions.size(), 16u);
    EXPECT_EQ(r.metrics["count"].get<int>(), 16);
    EXPECT_EQ(r.metrics["skipped"].get<int>(), 0);
    EXPECT_EQ(r.metrics["top1"].get<double>(), 1.0) << r.metrics["per_class"].dump();
    EXPECT_EQ(r.metrics["checkpoint_step"].get<int>(), 1);
    EXPECT_EQ(fs::path(r.metrics["checkpoint"].get<std::string>()).filename(), "last.safetensors");
    EXPECT_EQ(r.metrics["confusion_matrix"]["counts"], json({{8, 0}, {0, 8}}));

    // Every record once, in split order, with its own file name and label, and probabilities
    // that match a forward pass of the same model on the same pixels.
    engine::RunModel m = engine::loadRunModel(s_run, "last");
    const torch::Tensor probs = directProbabilities(m);
    engine::ShardDataset data(s_shards);
    const auto order = data.epochOrder("val", 0, 0, 0, 1, false);
    double lossSum = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const engine::Prediction &p = r.predictions[i];
        const engine::ImageExample e = data.read(order[i]);
        EXPECT_EQ(p.record, i);
        EXPECT_EQ(p.filename, e.filename);
        EXPECT_EQ(p.label, e.label);
        ASSERT_EQ(p.topClasses.size(), 2u); // top-5 capped at the class count
        EXPECT_EQ(p.topClasses[0], p.label);
        EXPECT_NEAR(p.topProbs[0], probs[std::int64_t(i)][p.topClasses[0]].item<float>(), 1e-5);
        EXPECT_NEAR(p.loss, -std::log(probs[std::int64_t(i)][p.label].item<float>()), 1e-4);
        lossSum += p.loss;
    }
    EXPECT_NEAR(r.metrics["loss"].get<double>(), lossSum / 16, 1e-6);

    // Saved and read back.
    const std::string saved = m_tmp.file("eval");
    engine::saveEvaluation(saved, r);
    for (const char *f : {"metrics.json", "predictions.jsonl", "per_class.csv", "confusion.csv",
                          "confusion_normalized.csv", "calibration.csv", "pr_curves.csv"})
        EXPECT_TRUE(fs::is_regular_file(fs::path(saved) / f)) << f;
    const engine::EvalResult back = engine::loadEvaluation(saved);
    EXPECT_EQ(back.classes, r.classes);
    ASSERT_EQ(back.predictions.size(), r.predictions.size());
    EXPECT_EQ(back.predictions[5].filename, r.predictions[5].filename);
    EXPECT_EQ(back.predictions[5].topClasses, r.predictions[5].topClasses);
    EXPECT_EQ(back.metrics["top1"], r.metrics["top1"]);

    // Another dataset with other classes is refused.
    const fs::path other = m_tmp.path() / "other";
    for (const std::string cls : {"cat", "dog"}) {
        fs::create_directories(other / "val" / cls);
        fs::create_directories(other / "train" / cls);
        std::mt19937 rng(1);
        cv::imwrite((other / "val" / cls / "a.png").string(), syntheticImage(-1, rng));
        cv::imwrite((other / "train" / cls / "a.png").string(), syntheticImage(0, rng));
    }
    engine::ConvertOptions convert;
    convert.scan.root = other.string();
    convert.scan.nearDuplicateDistance = 0;
    convert.outDir = m_tmp.file("other-shards");
    o.dataDir = engine::convertFolder(convert).outDir;
    EXPECT_NE(test::errorOf([&] { engine::evaluate(o); }).find("label 0 is \"cat\" in the dataset, \"dark\" in the run"),
              std::string::npos);
}

TEST_F(EvaluationRunTest, TestTimeAugmentationAveragesTheViews)
{
    engine::EvalOptions o;
    o.runDir = s_run;
    o.checkpoint = "last";
    o.tta = true;
    o.ttaCrops = 1; // the center crop and its mirror image: checked against two forward passes
    const engine::EvalResult r = engine::evaluate(o);
    ASSERT_EQ(r.predictions.size(), 16u);
    EXPECT_EQ(r.metrics["tta_views"].get<int>(), 2);
    engine::RunModel m = engine::loadRunModel(s_run, "last");
    const torch::Tensor probs = (directProbabilities(m) + directProbabilities(m, true)) / 2;
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        const engine::Prediction &p = r.predictions[i];
        EXPECT_NEAR(p.topProbs[0], probs[std::int64_t(i)][p.topClasses[0]].item<float>(), 1e-5);
        EXPECT_NEAR(p.topProbs[0] + p.topProbs[1], 1.0, 1e-5);
    }

    // Five crops of the resize square (corners and center, as torchvision's FiveCrop) and their
    // mirrors: ten views, checked against the same crops made here.
    o.ttaCrops = 5;
    const engine::EvalResult five = engine::evaluate(o);
    EXPECT_EQ(five.metrics["tta_views"].get<int>(), 10);
    EXPECT_EQ(five.metrics["count"].get<int>(), 16);
    EXPECT_EQ(five.metrics["top1"].get<double>(), 1.0);
    EXPECT_EQ(five.metrics["resize_size"].get<int>(), 73);
    engine::TransformOptions squareOptions = m.transform;
    squareOptions.imageSize = 73; // resize the short side to 73, keep the 73 x 73 center
    const engine::SampleTransform square(squareOptions);
    engine::ShardDataset data(s_shards);
    const auto order = data.epochOrder("val", 0, 0, 0, 1, false);
    std::mt19937_64 rng(0);
    std::vector<std::size_t> records;
    std::vector<torch::Tensor> views;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const engine::ImageExample e = data.read(order[i]);
        if (e.label != 1)
            continue; // dark images give the same probabilities in every view
        torch::Tensor x = torch::empty({1, 3, 73, 73});
        square.apply(reinterpret_cast<const std::uint8_t *>(e.encoded.data()), e.encoded.size(), rng, x.data_ptr());
        for (const auto &[top, left] : std::vector<std::pair<int, int>>{{0, 0}, {0, 9}, {9, 0}, {9, 9}, {4, 4}}) {
            const torch::Tensor crop = x.narrow(2, top, kSize).narrow(3, left, kSize);
            views.push_back(crop);
            views.push_back(crop.flip({3}));
        }
        records.push_back(i);
    }
    ASSERT_EQ(records.size(), 8u);
    torch::NoGradGuard noGrad;
    const torch::Tensor tenViews = torch::softmax(m.classifier->forward(torch::cat(views)), 1).view({8, 10, 2}).mean(1);
    for (std::size_t j = 0; j < records.size(); ++j) {
        const engine::Prediction &p = five.predictions[records[j]];
        EXPECT_NEAR(p.topProbs[0], tenViews[std::int64_t(j)][p.topClasses[0]].item<float>(), 1e-5);
        EXPECT_NE(p.topProbs[0], r.predictions[records[j]].topProbs[0]) << "the views must differ";
    }
}

TEST_F(EvaluationRunTest, GradCamHighlightsTheSquare)
{
    for (const auto &[file, quadrant] : s_camFiles) {
        SCOPED_TRACE(file);
        const engine::GradCamResult r = engine::gradCam(s_run, "last", file);
        ASSERT_EQ(r.width, kSize);
        ASSERT_EQ(r.height, kSize);
        ASSERT_EQ(r.heatmap.size(), std::size_t(kSize * kSize));
        EXPECT_EQ(r.className, "square");
        EXPECT_EQ(r.classIndex, r.topClasses[0]);
        EXPECT_EQ(r.mapWidth, 2); // resnet18 downsamples 64 px by 32
        EXPECT_EQ(r.mapHeight, 2);
        double inQuadrant = 0, total = 0;
        float maxValue = 0, minValue = 1;
        for (int y = 0; y < kSize; ++y)
            for (int x = 0; x < kSize; ++x) {
                const float v = r.heatmap[std::size_t(y * kSize + x)];
                maxValue = std::max(maxValue, v);
                minValue = std::min(minValue, v);
                total += v;
                if ((x >= 32) == (quadrant % 2 == 1) && (y >= 32) == (quadrant / 2 == 1))
                    inQuadrant += v;
            }
        EXPECT_EQ(minValue, 0.0f);
        EXPECT_FLOAT_EQ(maxValue, 1.0f);
        EXPECT_GT(inQuadrant / total, 0.6) << "quadrant " << quadrant;
        // Outside the evaluation crop (the outer ~4 px) the map is 0.
        EXPECT_EQ(r.heatmap[0], 0.0f);
        EXPECT_EQ(r.heatmap[std::size_t(kSize * kSize - 1)], 0.0f);
    }

    // "dark" has nothing speaking for it anywhere: a flat (all 0) map.
    const std::string file = s_camFiles.front().first;
    const engine::GradCamResult dark = engine::gradCam(s_run, "last", file, 0);
    EXPECT_EQ(dark.classIndex, 0);
    EXPECT_EQ(dark.className, "dark");
    EXPECT_EQ(*std::max_element(dark.heatmap.begin(), dark.heatmap.end()), 0.0f);
    EXPECT_GT(dark.cropX, 0);
    EXPECT_LT(dark.cropWidth, kSize);

    const engine::GradCamResult named = engine::gradCamForClass(s_run, "last", file, "square");
    EXPECT_EQ(named.classIndex, 1);
    const std::string png = m_tmp.file("cam.png");
    engine::writeGradCamOverlay(test::readRaw(file), named, png);
    const cv::Mat overlay = cv::imread(png);
    ASSERT_EQ(overlay.cols, kSize);
    ASSERT_EQ(overlay.rows, kSize);
    // Jet: the hottest place is red, a cold one blue (BGR).
    const cv::Vec3b hot = overlay.at<cv::Vec3b>(20, 20), cold = overlay.at<cv::Vec3b>(52, 52);
    EXPECT_GT(hot[2], hot[0]);
    EXPECT_GT(cold[0], cold[2]);

    EXPECT_NE(test::errorOf([&] { engine::gradCamForClass(s_run, "last", file, "cat"); }).find("dark, square"),
              std::string::npos);
    EXPECT_NE(test::errorOf([&] { engine::gradCam(s_run, "last", file, 2); }).find("outside"), std::string::npos);
    EXPECT_NE(test::errorOf([&] { engine::gradCam(s_run, "last", m_tmp.file("missing.png")); }).find("missing.png"),
              std::string::npos);
    EXPECT_NE(test::errorOf([&] { engine::writeGradCamOverlay(test::readRaw(file), engine::GradCamResult{}, png); })
                  .find("does not belong"),
              std::string::npos);
}

TEST_F(EvaluationRunTest, GradCamRefusesTransformers)
{
    engine::RunConfig c = runConfig();
    c.model.arch = "vit_b_16";
    const std::string run = m_tmp.file("vit-run");
    engine::RunFolder::create(run, engine::runConfigToJson(c));
    const std::string message = test::errorOf([&] { engine::gradCam(run, "best", s_camFiles.front().first); });
    EXPECT_NE(message.find("not available for transformer backbones"), std::string::npos) << message;
}

TEST_F(EvaluationRunTest, PredictGivesPerFileErrors)
{
    const fs::path in = m_tmp.path() / "inputs";
    fs::create_directories(in / "nested");
    fs::create_directories(in / "empty");
    fs::copy_file(valFiles("square")[0], in / "a_square.png");
    fs::copy_file(valFiles("dark")[0], in / "nested" / "b_dark.PNG");
    test::writeRaw((in / "c_text.jpg").string(), {'h', 'e', 'l', 'l', 'o'});
    std::vector<std::uint8_t> png = test::readRaw(valFiles("square")[1]);
    png.resize(png.size() / 2);
    test::writeRaw((in / "d_truncated.png").string(), png);
    test::writeRaw((in / "e_empty.png").string(), {});
    test::writeRaw((in / "notes.txt").string(), {'x'}); // not an image extension: skipped in folders

    engine::PredictOptions o;
    o.runDir = s_run;
    o.topK = 1;
    const auto results = engine::predictFiles(
        o, {in.string(), (in / "notes.txt").string(), m_tmp.file("missing.png"), (in / "empty").string(), "/dev/null"});
    ASSERT_EQ(results.size(), 9u);
    std::map<std::string, engine::FilePrediction> byName;
    for (const auto &r : results)
        byName[fs::path(r.path).filename().string()] = r;
    EXPECT_EQ(byName["a_square.png"].error, "");
    ASSERT_EQ(byName["a_square.png"].topNames.size(), 1u);
    EXPECT_EQ(byName["a_square.png"].topNames[0], "square");
    EXPECT_EQ(byName["b_dark.PNG"].error, "");
    ASSERT_EQ(byName["b_dark.PNG"].topNames.size(), 1u);
    EXPECT_EQ(byName["b_dark.PNG"].topNames[0], "dark");
    for (const auto &[name, reason] : std::vector<std::pair<std::string, std::string>>{{"c_text.jpg", "c_text.jpg: "},
                                                                                       {"d_truncated.png", "d_truncated.png: "},
                                                                                       {"e_empty.png", "empty file"},
                                                                                       {"notes.txt", "notes.txt: "},
                                                                                       {"missing.png", "no such file"},
                                                                                       {"empty", "no image files"},
                                                                                       {"null", "not a regular file"}}) {
        SCOPED_TRACE(name);
        EXPECT_NE(byName[name].error.find(reason), std::string::npos) << byName[name].error;
        EXPECT_TRUE(byName[name].topClasses.empty());
    }
    // A folder's files come sorted, in the place of the folder.
    EXPECT_EQ(fs::path(results[0].path).filename(), "a_square.png");
    EXPECT_EQ(fs::path(results[4].path).filename(), "b_dark.PNG");
    EXPECT_EQ(fs::path(results[5].path).filename(), "notes.txt");

    // A bare weights file (no run folder) with class names.
    engine::PredictOptions bare;
    bare.model.arch = "resnet18";
    bare.model.weightsPath = s_run + "/checkpoints/last.safetensors";
    bare.classes = {"D", "S"};
    bare.imageSize = kSize;
    const auto bareResults = engine::predictFiles(bare, {(in / "a_square.png").string()});
    ASSERT_EQ(bareResults.size(), 1u);
    ASSERT_EQ(bareResults[0].topNames.size(), 2u);
    EXPECT_EQ(bareResults[0].topNames[0], "S");
    EXPECT_NEAR(bareResults[0].topProbs[0], byName["a_square.png"].topProbs[0], 1e-6);
}

TEST_F(EvaluationRunTest, HostileRunsAndDatasets)
{
    engine::EvalOptions o;
    o.runDir = m_tmp.file("no-run");
    EXPECT_NE(test::errorOf([&] { engine::evaluate(o); }).find("not a run folder"), std::string::npos);

    o.runDir = s_run;
    o.split = "test";
    EXPECT_NE(test::errorOf([&] { engine::evaluate(o); }).find("split \"test\" has no records (splits: train, val)"),
              std::string::npos);
    o.split = "val";
    o.checkpoint = "step-7";
    EXPECT_NE(test::errorOf([&] { engine::evaluate(o); }).find("step-7"), std::string::npos);

    // A corrupt record (a flipped byte: its CRC fails) is left out and reported; the rest count.
    {
        const fs::path copy = m_tmp.path() / "corrupt-shards";
        fs::copy(s_shards, copy);
        engine::ShardDataset data(copy.string());
        const engine::RecordRef ref = data.epochOrder("val", 0, 0, 0, 1, false).at(3);
        const fs::path shard = copy / data.manifest().shards.at(ref.shard).file;
        std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
        const auto at = std::streamoff(ref.entry.offset + ref.entry.size / 2);
        f.seekg(at);
        const char byte = char(f.get());
        f.seekp(at);
        f.put(char(byte ^ 0x5a));
        f.close();
        engine::EvalOptions c = o;
        c.checkpoint = "last";
        c.dataDir = copy.string();
        const engine::EvalResult r = engine::evaluate(c);
        EXPECT_EQ(r.metrics["count"].get<int>(), 15);
        EXPECT_EQ(r.metrics["skipped"].get<int>(), 1);
        ASSERT_EQ(r.metrics["errors"].size(), 1u);
        EXPECT_NE(r.metrics["errors"][0].get<std::string>().find(shard.filename().string()), std::string::npos)
            << r.metrics["errors"][0];
        for (const engine::Prediction &p : r.predictions)
            EXPECT_NE(p.record, 3u);
    }

    // Weights of another architecture.
    o.checkpoint = m_tmp.file("other.safetensors");
    {
        engine::ModelSpec spec;
        spec.arch = "mobilenet_v3_small";
        spec.head.numClasses = 2;
        engine::writeSafetensors(o.checkpoint, engine::stateDict(*engine::buildModel(spec).classifier));
    }
    EXPECT_NE(test::errorOf([&] { engine::evaluate(o); }).find("does not match the run's model"), std::string::npos);

    // Malformed saved evaluations.
    const std::string dir = m_tmp.file("saved");
    fs::create_directories(dir);
    test::writeRaw(dir + "/metrics.json", {'{', '}'});
    test::writeRaw(dir + "/predictions.jsonl", {});
    EXPECT_NE(test::errorOf([&] { engine::loadEvaluation(dir); }).find("no \"classes\""), std::string::npos);
    std::ofstream(dir + "/metrics.json") << R"({"classes": ["x", "y"]})";
    std::ofstream(dir + "/predictions.jsonl")
        << R"({"record":0,"filename":"a","label":1,"top_classes":[1],"top_probs":[0.9],"loss":0.1})" << "\n"
        << R"({"record":1,"filename":"b","label":7,"top_classes":[1],"top_probs":[0.9],"loss":0.1})" << "\n";
    EXPECT_NE(test::errorOf([&] { engine::loadEvaluation(dir); }).find("predictions.jsonl:2: label 7"), std::string::npos);
    std::ofstream(dir + "/predictions.jsonl") << "{\"record\": \n";
    EXPECT_NE(test::errorOf([&] { engine::loadEvaluation(dir); }).find("predictions.jsonl:1: malformed"),
              std::string::npos);
}

// The trainer's validation and eval of the same checkpoint on the same split agree.
TEST_F(EvaluationRunTest, MatchesTheTrainersValidation)
{
    engine::RunConfig c = runConfig();
    c.model.arch = "mobilenet_v3_small"; // small checkpoints: the run writes three
    c.model.head.numClasses = 0;
    c.data.imageSize = 32;
    c.optimizer.name = "adamw";
    c.optimizer.lr = 1e-3;
    c.optimizer.batchSize = 8;
    c.optimizer.epochs = 2;
    c.featureCache.mode = "off";
    c.data.workers = 2;
    const std::string run = m_tmp.file("trained");
    const json summary = engine::train(c, run);
    ASSERT_EQ(summary["status"], "finished");
    json lastEpoch;
    for (const json &e : engine::readMetrics(run))
        if (e.value("type", "") == "epoch")
            lastEpoch = e;
    ASSERT_TRUE(lastEpoch.contains("val_top1"));

    engine::EvalOptions o;
    o.runDir = run;
    o.checkpoint = "last";
    o.batchSize = c.optimizer.batchSize;
    const engine::EvalResult r = engine::evaluate(o);
    EXPECT_EQ(r.metrics["count"].get<int>(), 16);
    EXPECT_EQ(r.metrics["image_size"].get<int>(), 32);
    EXPECT_DOUBLE_EQ(r.metrics["top1"].get<double>(), lastEpoch["val_top1"].get<double>());
    EXPECT_NEAR(r.metrics["loss"].get<double>(), lastEpoch["val_loss"].get<double>(), 1e-4);

    o.checkpoint = "best";
    const engine::EvalResult best = engine::evaluate(o);
    const json bestMeta = json::parse(std::ifstream(run + "/checkpoints/best.json"));
    EXPECT_DOUBLE_EQ(best.metrics["top1"].get<double>(), bestMeta["best_value"].get<double>());
}

} // namespace
