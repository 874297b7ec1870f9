#include "engine/base/engine_error.h"
#include "engine/training/multilabel_metrics.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace lathe::engine;
using lathe::test::errorOf;

namespace {

// ---- scikit-learn's answers (tests/parity/multilabel_reference.py metrics), run once ----

const nlohmann::json &reference()
{
    static const nlohmann::json ref = [] {
        int status = -1;
        const std::string out = lathe::test::runCommand(
            "'" + lathe::test::python() + "' '" + lathe::test::parityScript("multilabel_reference.py").string() +
                "' metrics",
            &status);
        if (status != 0)
            return nlohmann::json{{"failure", "reference script failed (" + std::to_string(status) + "): " + out}};
        return nlohmann::json::parse(out);
    }();
    return ref;
}

constexpr double kTolerance = 1e-9;

// A NaN from Lathe where the reference has null (undefined), the value otherwise.
void expectValue(double actual, const nlohmann::json &expected, const std::string &what)
{
    if (expected.is_null())
        EXPECT_TRUE(std::isnan(actual)) << what << ": " << actual;
    else
        EXPECT_NEAR(actual, expected.get<double>(), kTolerance) << what;
}

MultiLabelScores scoresOf(const nlohmann::json &c)
{
    MultiLabelScores scores;
    for (const auto &row : c.at("scores")) {
        scores.emplace_back();
        // The reference printed float32 values as doubles: the conversion back is exact.
        for (const auto &v : row)
            scores.back().push_back(float(v.get<double>()));
    }
    return scores;
}

MultiLabelTargets targetsOf(const nlohmann::json &c)
{
    MultiLabelTargets targets;
    for (const auto &row : c.at("targets")) {
        targets.emplace_back();
        for (const auto &v : row)
            targets.back().push_back(std::uint8_t(v.get<int>()));
    }
    return targets;
}

} // namespace

TEST(MultiLabelMetrics, MatchScikitLearn)
{
    const nlohmann::json &ref = reference();
    ASSERT_FALSE(ref.contains("failure")) << ref.at("failure").get<std::string>();
    int cases = 0;
    for (const auto &c : ref.at("cases")) {
        const std::string id = c.at("id");
        SCOPED_TRACE(id);
        const MultiLabelScores scores = scoresOf(c);
        const MultiLabelTargets targets = targetsOf(c);
        const std::vector<double> thresholds = c.at("thresholds").get<std::vector<double>>();
        const std::size_t k = thresholds.size();

        const MeanAveragePrecision map = meanAveragePrecision(scores, targets);
        ASSERT_EQ(map.perLabel.size(), k);
        std::int64_t withPositives = 0;
        for (std::size_t j = 0; j < k; ++j) {
            expectValue(map.perLabel[j], c.at("ap")[j], "AP of label " + std::to_string(j));
            withPositives += !c.at("ap")[j].is_null();
        }
        EXPECT_EQ(map.labelsWithPositives, withPositives);
        expectValue(map.macro, c.at("macro_ap"), "macro AP");
        if (!c.at("sklearn_macro_ap").is_null())
            expectValue(map.macro, c.at("sklearn_macro_ap"), "macro AP (scikit-learn's average=macro)");
        expectValue(map.micro, c.at("micro_ap"), "micro AP");

        const auto curves = precisionRecallCurves(scores, targets);
        ASSERT_EQ(curves.size(), k);
        for (std::size_t j = 0; j < k; ++j) {
            const auto &expected = c.at("curves")[j];
            if (expected.is_null()) {
                EXPECT_TRUE(curves[j].empty()) << "label " << j;
                continue;
            }
            ASSERT_EQ(curves[j].size(), expected.at("threshold").size()) << "label " << j;
            for (std::size_t i = 0; i < curves[j].size(); ++i) {
                EXPECT_EQ(curves[j][i].threshold, expected.at("threshold")[i].get<double>()) << "label " << j;
                EXPECT_NEAR(curves[j][i].precision, expected.at("precision")[i].get<double>(), kTolerance);
                EXPECT_NEAR(curves[j][i].recall, expected.at("recall")[i].get<double>(), kTolerance);
            }
        }

        const MultiLabelPrf prf = precisionRecallF1(scores, targets, thresholds);
        for (std::size_t j = 0; j < k; ++j) {
            EXPECT_NEAR(prf.precision[j], c.at("precision")[j].get<double>(), kTolerance) << "label " << j;
            EXPECT_NEAR(prf.recall[j], c.at("recall")[j].get<double>(), kTolerance) << "label " << j;
            EXPECT_NEAR(prf.f1[j], c.at("f1")[j].get<double>(), kTolerance) << "label " << j;
            EXPECT_EQ(prf.support[j], c.at("support")[j].get<std::int64_t>()) << "label " << j;
        }
        EXPECT_NEAR(prf.micro.precision, c.at("micro_prf")[0].get<double>(), kTolerance);
        EXPECT_NEAR(prf.micro.recall, c.at("micro_prf")[1].get<double>(), kTolerance);
        EXPECT_NEAR(prf.micro.f1, c.at("micro_prf")[2].get<double>(), kTolerance);
        EXPECT_NEAR(prf.macro.precision, c.at("macro_prf")[0].get<double>(), kTolerance);
        EXPECT_NEAR(prf.macro.recall, c.at("macro_prf")[1].get<double>(), kTolerance);
        EXPECT_NEAR(prf.macro.f1, c.at("macro_prf")[2].get<double>(), kTolerance);

        const TunedThresholds tuned = tuneThresholds(scores, targets);
        for (std::size_t j = 0; j < k; ++j) {
            EXPECT_EQ(tuned.thresholds[j], c.at("tuned_thresholds")[j].get<double>()) << "label " << j;
            EXPECT_NEAR(tuned.f1[j], c.at("tuned_f1")[j].get<double>(), kTolerance) << "label " << j;
        }
        // The tuned thresholds' F1 is what precisionRecallF1 measures with them.
        const MultiLabelPrf atTuned = precisionRecallF1(scores, targets, tuned.thresholds);
        for (std::size_t j = 0; j < k; ++j)
            EXPECT_NEAR(atTuned.f1[j], tuned.f1[j], kTolerance) << "label " << j;

        const FalsePositiveConfusion fp = falsePositiveConfusion(scores, targets, thresholds);
        EXPECT_EQ(fp.counts, c.at("fp_confusion").get<std::vector<std::vector<std::int64_t>>>());
        EXPECT_EQ(fp.withoutTrueLabels, c.at("fp_without_labels").get<std::vector<std::int64_t>>());
        ++cases;
    }
    EXPECT_GE(cases, 8);
    std::printf("compared %d cases with scikit-learn %s\n", cases, ref.at("sklearn").get<std::string>().c_str());
}

// sklearn's documented example: AP 0.83 for scores [0.1, 0.4, 0.35, 0.8] and targets [0, 0, 1, 1].
// By hand: from the top, 0.8 (positive: P 1, R 1/2), 0.4 (negative), 0.35 (P 2/3, R 1):
// AP = 1/2 * 1 + 1/2 * 2/3 = 5/6.
TEST(MultiLabelMetrics, AveragePrecisionByHand)
{
    EXPECT_DOUBLE_EQ(averagePrecision({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}), 5.0 / 6.0);
    // Tied scores form one step: the positive and the negative at 0.5 come together (P 1/2).
    EXPECT_DOUBLE_EQ(averagePrecision({0.9f, 0.5f, 0.5f}, {1, 1, 0}), 0.5 * 1 + 0.5 * (2.0 / 3.0));
    EXPECT_DOUBLE_EQ(averagePrecision({0.5f, 0.5f, 0.5f, 0.5f}, {1, 0, 0, 0}), 0.25);
    // Every example positive: precision 1 everywhere.
    EXPECT_DOUBLE_EQ(averagePrecision({0.2f, 0.7f, 0.1f}, {1, 1, 1}), 1.0);
    // No positives, or no examples: undefined.
    EXPECT_TRUE(std::isnan(averagePrecision({0.2f, 0.7f}, {0, 0})));
    EXPECT_TRUE(std::isnan(averagePrecision({}, {})));

    const std::vector<PrCurvePoint> curve = precisionRecallCurve({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1});
    ASSERT_EQ(curve.size(), 4u);
    EXPECT_EQ(curve[0].threshold, double(0.1f));
    EXPECT_DOUBLE_EQ(curve[0].precision, 0.5);
    EXPECT_DOUBLE_EQ(curve[0].recall, 1.0);
    EXPECT_EQ(curve[3].threshold, double(0.8f));
    EXPECT_DOUBLE_EQ(curve[3].precision, 1.0);
    EXPECT_DOUBLE_EQ(curve[3].recall, 0.5);
    EXPECT_TRUE(precisionRecallCurve({0.2f, 0.7f}, {0, 0}).empty());
}

TEST(MultiLabelMetrics, MeanAveragePrecisionSkipsLabelsWithoutPositives)
{
    // Label 0: AP 1 (the positive ranks first); label 1: no positives; label 2: AP 1/2.
    const MultiLabelScores scores = {{0.9f, 0.1f, 0.2f}, {0.2f, 0.8f, 0.9f}, {0.3f, 0.4f, 0.3f}};
    const MultiLabelTargets targets = {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}};
    const MeanAveragePrecision map = meanAveragePrecision(scores, targets);
    EXPECT_DOUBLE_EQ(map.perLabel[0], 1.0);
    EXPECT_TRUE(std::isnan(map.perLabel[1]));
    EXPECT_DOUBLE_EQ(map.perLabel[2], 0.5);
    EXPECT_EQ(map.labelsWithPositives, 2);
    EXPECT_DOUBLE_EQ(map.macro, 0.75);
    // Micro: 9 pairs, positives at 0.9 (rank 1 of the tie group {0.9, 0.9}) and 0.3 (ranks 4-5
    // with the other 0.3): from the top 0.9 (2 examples, 1 positive: P 1/2, R 1/2), 0.8, 0.4,
    // 0.3 (6 examples, 2 positives: P 1/3, R 1): AP = 1/2 * 1/2 + 1/2 * 1/3.
    EXPECT_DOUBLE_EQ(map.micro, 0.25 + 1.0 / 6.0);

    const MeanAveragePrecision none = meanAveragePrecision({{0.5f, 0.5f}}, {{0, 0}});
    EXPECT_TRUE(std::isnan(none.macro));
    EXPECT_TRUE(std::isnan(none.micro));
    EXPECT_EQ(none.labelsWithPositives, 0);
}

TEST(MultiLabelMetrics, PrecisionRecallF1AtThresholds)
{
    // Label 0 at 0.5: predicted for images 0, 1 (scores 0.9, 0.5: >= includes the threshold),
    // true on 0 and 2: TP 1, P 1/2, R 1/2, F1 1/2. Label 1 at 0.95: never predicted, true on
    // image 1: all 0. Label 2 at 0.1: predicted for all three, true on none: all 0, support 0.
    const MultiLabelScores scores = {{0.9f, 0.2f, 0.3f}, {0.5f, 0.9f, 0.1f}, {0.4f, 0.1f, 0.7f}};
    const MultiLabelTargets targets = {{1, 0, 0}, {0, 1, 0}, {1, 0, 0}};
    const MultiLabelPrf prf = precisionRecallF1(scores, targets, {0.5, 0.95, double(0.1f)});
    EXPECT_EQ(prf.support, (std::vector<std::int64_t>{2, 1, 0}));
    EXPECT_EQ(prf.predicted, (std::vector<std::int64_t>{2, 0, 3}));
    EXPECT_EQ(prf.truePositives, (std::vector<std::int64_t>{1, 0, 0}));
    EXPECT_EQ(prf.precision, (std::vector<double>{0.5, 0, 0}));
    EXPECT_EQ(prf.recall, (std::vector<double>{0.5, 0, 0}));
    EXPECT_EQ(prf.f1, (std::vector<double>{0.5, 0, 0}));
    EXPECT_DOUBLE_EQ(prf.macro.precision, 0.5 / 3);
    EXPECT_DOUBLE_EQ(prf.macro.f1, 0.5 / 3);
    // Micro: TP 1, predicted 5, support 3.
    EXPECT_DOUBLE_EQ(prf.micro.precision, 0.2);
    EXPECT_DOUBLE_EQ(prf.micro.recall, 1.0 / 3);
    EXPECT_DOUBLE_EQ(prf.micro.f1, 2.0 / 8);
}

// A constructed case where the best thresholds are known.
TEST(MultiLabelMetrics, TunedThresholdsMaximiseF1)
{
    // Label 0, scores from the top: 0.9+ 0.8+ 0.7- 0.6+ 0.5- 0.4- (3 positives).
    //   t=0.9: TP 1 pred 1 F1 2/4; 0.8: 2,2 4/5; 0.7: 2,3 4/6; 0.6: 3,4 6/7; 0.5: 3,5 6/8; 0.4: 6/9.
    //   Best: 0.6 with F1 6/7.
    // Label 1: 0.9+ 0.8- 0.7+ 0.6- (2 positives).
    //   0.9: 1,1 2/3; 0.8: 1,2 2/4; 0.7: 2,3 4/5; 0.6: 2,4 4/6. Best: 0.7 with 4/5.
    //   (0.9 at 2/3 < 4/5.)
    // Label 2: a tie in F1 between 0.8 (1,1: 2/3) and 0.6 (2,4: 4/6 = 2/3): the higher, 0.8, wins.
    //   scores 0.8+ 0.7- 0.65- 0.6+ 0.1- 0.1-; 0.7: 1,2 2/4; 0.65: 1,3 2/5; 0.1: 2,6 4/8.
    // Label 3: no positives: keeps 0.5 and F1 0.
    const std::vector<std::vector<float>> columns = {
        {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.4f},
        {0.9f, 0.8f, 0.7f, 0.6f, 0.3f, 0.2f},
        {0.8f, 0.7f, 0.65f, 0.6f, 0.1f, 0.1f},
        {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.4f},
    };
    const std::vector<std::vector<std::uint8_t>> truth = {
        {1, 1, 0, 1, 0, 0},
        {1, 0, 1, 0, 0, 0},
        {1, 0, 0, 1, 0, 0},
        {0, 0, 0, 0, 0, 0},
    };
    MultiLabelScores scores(6, std::vector<float>(4));
    MultiLabelTargets targets(6, std::vector<std::uint8_t>(4));
    for (std::size_t n = 0; n < 6; ++n)
        for (std::size_t j = 0; j < 4; ++j) {
            scores[n][j] = columns[j][n];
            targets[n][j] = truth[j][n];
        }
    const TunedThresholds tuned = tuneThresholds(scores, targets);
    EXPECT_EQ(tuned.thresholds, (std::vector<double>{double(0.6f), double(0.7f), double(0.8f), 0.5}));
    EXPECT_DOUBLE_EQ(tuned.f1[0], 6.0 / 7);
    EXPECT_DOUBLE_EQ(tuned.f1[1], 4.0 / 5);
    EXPECT_DOUBLE_EQ(tuned.f1[2], 2.0 / 3);
    EXPECT_EQ(tuned.f1[3], 0.0);

    // Every image positive: the lowest score predicts all of them (F1 1); one image: its score.
    const TunedThresholds all = tuneThresholds({{0.3f}, {0.9f}, {0.1f}}, {{1}, {1}, {1}});
    EXPECT_EQ(all.thresholds[0], double(0.1f));
    EXPECT_EQ(all.f1[0], 1.0);
    const TunedThresholds one = tuneThresholds({{0.42f, 0.1f}}, {{1, 0}});
    EXPECT_EQ(one.thresholds, (std::vector<double>{double(0.42f), 0.5}));
}

TEST(MultiLabelMetrics, FalsePositiveConfusionCountsPerTrueLabel)
{
    // Thresholds 0.5. Image 0: true {0, 1}, predicted {0, 2, 3}: FPs 2 and 3 in rows 0 and 1.
    // Image 1: true {2}, predicted {0}: row 2, column 0. Image 2: no labels, predicted {1, 3}.
    // Image 3: true {3}, predicted {3}: no false positive.
    const MultiLabelScores scores = {
        {0.9f, 0.2f, 0.6f, 0.5f}, {0.7f, 0.1f, 0.3f, 0.2f}, {0.1f, 0.8f, 0.2f, 0.9f}, {0.1f, 0.1f, 0.1f, 0.9f}};
    const MultiLabelTargets targets = {{1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}, {0, 0, 0, 1}};
    const FalsePositiveConfusion fp = falsePositiveConfusion(scores, targets, {0.5, 0.5, 0.5, 0.5});
    const std::vector<std::vector<std::int64_t>> expected = {
        {0, 0, 1, 1}, {0, 0, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 0}};
    EXPECT_EQ(fp.counts, expected);
    EXPECT_EQ(fp.withoutTrueLabels, (std::vector<std::int64_t>{0, 1, 0, 1}));
}

TEST(MultiLabelMetrics, TargetsFromLabelSets)
{
    EXPECT_EQ(targetsFromLabelSets({{0, 2}, {}, {1, 1}}, 3),
              (MultiLabelTargets{{1, 0, 1}, {0, 0, 0}, {0, 1, 0}}));
    EXPECT_NE(errorOf([] { targetsFromLabelSets({{3}}, 3); }).find("outside [0, 3)"), std::string::npos);
    EXPECT_FALSE(errorOf([] { targetsFromLabelSets({{0}}, 0); }).empty());
}

TEST(MultiLabelMetrics, RejectsBadInput)
{
    const MultiLabelScores scores = {{0.1f, 0.2f}, {0.3f, 0.4f}};
    const MultiLabelTargets targets = {{0, 1}, {1, 0}};
    // No images: the number of labels is unknown, so every matrix function refuses.
    std::string message = errorOf([] { meanAveragePrecision({}, {}); });
    EXPECT_NE(message.find("multilabel metrics: no images"), std::string::npos) << message;
    EXPECT_FALSE(errorOf([] { tuneThresholds({}, {}); }).empty());
    EXPECT_FALSE(errorOf([] { precisionRecallF1({}, {}, {}); }).empty());
    EXPECT_FALSE(errorOf([] { meanAveragePrecision({{}}, {{}}); }).empty()); // no labels
    // Ragged rows, shapes that differ, targets other than 0/1, NaN scores, wrong thresholds.
    EXPECT_FALSE(errorOf([] { meanAveragePrecision({{0.1f, 0.2f}, {0.3f}}, {{0, 1}, {1}}); }).empty());
    EXPECT_FALSE(errorOf([&] { meanAveragePrecision(scores, {{0, 1}}); }).empty());
    EXPECT_FALSE(errorOf([&] { meanAveragePrecision(scores, {{0, 1}, {1}}); }).empty());
    message = errorOf([&] { meanAveragePrecision(scores, {{0, 2}, {1, 0}}); });
    EXPECT_NE(message.find("expected 0 or 1"), std::string::npos) << message;
    EXPECT_FALSE(errorOf([&] { meanAveragePrecision({{0.1f, std::nanf("")}, {0.3f, 0.4f}}, targets); }).empty());
    EXPECT_FALSE(errorOf([&] { precisionRecallF1(scores, targets, {0.5}); }).empty());
    EXPECT_FALSE(errorOf([&] { falsePositiveConfusion(scores, targets, {0.5, std::nan("")}); }).empty());
    EXPECT_FALSE(errorOf([] { averagePrecision({0.1f, 0.2f}, {1}); }).empty());
    EXPECT_FALSE(errorOf([] { precisionRecallCurve({0.1f}, {7}); }).empty());
}
