// Confident learning: hand-built cases with a known answer, parity with cleanlab 2.9 (the venv's,
// through tests/parity/cleanlab_issues.py) on random predictions with flipped labels, and the
// folds-run reader's refusals.

#include "engine/base/engine_error.h"
#include "engine/inference/label_issues.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>

using namespace lathe;
using engine::LabelQualityScore;

namespace {

// The message of the EngineError f throws ("" when it throws none).
template <class F>
std::string errorOf(F &&f)
{
    try {
        f();
    } catch (const engine::EngineError &e) {
        return e.what();
    }
    return {};
}

// Three classes, four clean examples each, and example 4 labelled 0 that looks like class 1.
struct SmallCase
{
    std::vector<std::vector<float>> probs;
    std::vector<int> labels;
};
SmallCase smallCase()
{
    SmallCase c;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 4; ++i) {
            std::vector<float> row(3, 0.1f);
            row[std::size_t(k)] = 0.8f;
            c.probs.push_back(row);
            c.labels.push_back(k);
        }
    c.probs.insert(c.probs.begin() + 4, {0.05f, 0.9f, 0.05f});
    c.labels.insert(c.labels.begin() + 4, 0);
    return c;
}

TEST(LabelIssues, FlagsTheOneMislabelledExample)
{
    const SmallCase c = smallCase();
    const engine::LabelIssueReport r = engine::findLabelIssues(c.probs, c.labels);
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0].index, 4u);
    EXPECT_EQ(r.issues[0].givenLabel, 0);
    EXPECT_EQ(r.issues[0].suggestedLabel, 1);
    EXPECT_DOUBLE_EQ(r.issues[0].score, double(0.05f));
    // Class 0's threshold: (4 x 0.8 + 0.05) / 5; the example counts as confidently class 1.
    EXPECT_NEAR(r.thresholds[0], (4 * double(0.8f) + double(0.05f)) / 5, 1e-12);
    EXPECT_DOUBLE_EQ(r.thresholds[1], double(0.8f));
    const std::vector<std::vector<std::int64_t>> joint = {{4, 1, 0}, {0, 4, 0}, {0, 0, 4}};
    EXPECT_EQ(r.confidentJoint, joint);

    const engine::LabelIssueReport m = engine::findLabelIssues(c.probs, c.labels, LabelQualityScore::NormalizedMargin);
    ASSERT_EQ(m.issues.size(), 1u);
    EXPECT_NEAR(m.issues[0].score, (double(0.05f) - double(0.9f) + 1) / 2, 1e-15);
}

TEST(LabelIssues, CleanDataHasNoIssuesAndTheJointKeepsTheLabelCounts)
{
    std::vector<std::vector<float>> probs;
    std::vector<int> labels;
    for (int i = 0; i < 30; ++i) {
        const int k = i % 3;
        std::vector<float> row(3, 0.2f);
        row[std::size_t(k)] = 0.6f;
        probs.push_back(row);
        labels.push_back(k);
    }
    const engine::LabelIssueReport r = engine::findLabelIssues(probs, labels);
    EXPECT_TRUE(r.issues.empty());
    for (const auto &row : r.confidentJoint) {
        std::int64_t sum = 0;
        for (std::int64_t v : row)
            sum += v;
        EXPECT_EQ(sum, 10);
    }
}

TEST(LabelIssues, AClassOfOneExampleKeepsIt)
{
    SmallCase c = smallCase();
    // Class 2 keeps one example, which looks like class 0: min_examples_per_class = 1 keeps it.
    c.probs.resize(9);
    c.labels.resize(9);
    c.probs.push_back({0.9f, 0.05f, 0.05f});
    c.labels.push_back(2);
    const engine::LabelIssueReport r = engine::findLabelIssues(c.probs, c.labels);
    for (const engine::LabelIssue &issue : r.issues)
        EXPECT_NE(issue.index, 9u);
    ASSERT_EQ(r.issues.size(), 1u);
    EXPECT_EQ(r.issues[0].index, 4u);
}

TEST(LabelIssues, RefusesBadInput)
{
    const SmallCase c = smallCase();
    const auto expectError = [](const std::string &message, const std::string &part) {
        EXPECT_NE(message.find("label issues: "), std::string::npos) << message;
        EXPECT_NE(message.find(part), std::string::npos) << message;
    };
    expectError(errorOf([] { engine::findLabelIssues({}, {}); }), "no examples");
    {
        auto probs = c.probs;
        probs[3].push_back(0.0f);
        expectError(errorOf([&] { engine::findLabelIssues(probs, c.labels); }), "row 3 has 4 probabilities");
    }
    {
        auto labels = c.labels;
        labels[2] = 3;
        expectError(errorOf([&] { engine::findLabelIssues(c.probs, labels); }), "row 2: label 3");
        labels[2] = -1;
        expectError(errorOf([&] { engine::findLabelIssues(c.probs, labels); }), "row 2: label -1");
    }
    {
        auto probs = c.probs;
        probs[1] = {1.2f, -0.1f, -0.1f};
        expectError(errorOf([&] { engine::findLabelIssues(probs, c.labels); }), "not in [0, 1]");
        probs[1] = {std::nanf(""), 0.5f, 0.5f};
        expectError(errorOf([&] { engine::findLabelIssues(probs, c.labels); }), "not in [0, 1]");
        probs[1] = {0.2f, 0.2f, 0.2f};
        expectError(errorOf([&] { engine::findLabelIssues(probs, c.labels); }), "sum to 0.6");
    }
    {
        auto labels = c.labels;
        std::replace(labels.begin(), labels.end(), 2, 1);
        expectError(errorOf([&] { engine::findLabelIssues(c.probs, labels); }), "class 2 has no examples");
    }
    expectError(errorOf([&] { engine::findLabelIssues(c.probs, std::vector<int>(3, 0)); }), "labels");
    expectError(errorOf([] { engine::findLabelIssues({{1.0f}}, {0}); }), "at least 2 classes");
    expectError(errorOf([] { engine::labelQualityScoreFromName("entropy"); }), "entropy");
    expectError(errorOf([] { engine::findMultiLabelIssues({{0.5f, 0.5f}}, {{2}}); }), "label 2");
}

TEST(LabelIssues, MultiLabelToggleSuggestion)
{
    // Class 0 is on for the first 10, off for the rest; example 3 lacks it but looks like it has it.
    std::vector<std::vector<float>> probs;
    std::vector<std::vector<int>> labels;
    for (int i = 0; i < 20; ++i) {
        const bool on = i < 10;
        probs.push_back({on ? 0.9f : 0.1f, i % 2 ? 0.85f : 0.15f});
        std::vector<int> set;
        if (on && i != 3)
            set.push_back(0);
        if (i % 2)
            set.push_back(1);
        labels.push_back(set);
    }
    const engine::MultiLabelIssueReport r = engine::findMultiLabelIssues(probs, labels);
    ASSERT_EQ(r.issues.size(), 1u);
    const engine::MultiLabelIssue &issue = r.issues[0];
    EXPECT_EQ(issue.index, 3u);
    EXPECT_EQ(issue.givenLabels, std::vector<int>({1}));
    EXPECT_EQ(issue.suggestedLabels, std::vector<int>({0, 1}));
    EXPECT_EQ(issue.flaggedClasses, std::vector<int>({0}));
    // Scores {0.85, 0.1} high to low: 0.8 x 0.1 + 0.2 x 0.85.
    EXPECT_NEAR(issue.score, 0.8 * (1 - double(0.9f)) + (1 - 0.8) * double(0.85f), 1e-12);
    ASSERT_EQ(r.confidentJoints.size(), 2u);
    ASSERT_EQ(r.thresholds.size(), 2u);
}

// ---- parity with cleanlab ------------------------------------------------------------------

struct ParityCase
{
    bool multi = false;
    LabelQualityScore rankBy = LabelQualityScore::SelfConfidence;
    std::vector<std::vector<float>> probs;
    std::vector<int> labels;                   // single-label
    std::vector<std::vector<int>> labelSets;   // multi-label
};

// Softmax of a noisy logit vector peaked at the true class, some rows flat, ~8% of the given
// labels flipped to another class.
ParityCase singleLabelCase(unsigned seed, LabelQualityScore rankBy)
{
    std::mt19937 rng(seed);
    ParityCase c;
    c.rankBy = rankBy;
    const int k = 3 + int(rng() % 8) + (seed % 4 == 3 ? 40 : 0);
    const int n = 200 + int(rng() % 800) + (k > 20 ? 2000 : 0);
    std::normal_distribution<double> noise(0, 1);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < n; ++i) {
        const int truth = i < k ? i : int(rng() % unsigned(k));
        const double peak = unit(rng) < 0.1 ? 0.3 : 1.5 + 2 * unit(rng);
        std::vector<double> logits(static_cast<std::size_t>(k));
        for (double &l : logits)
            l = noise(rng);
        logits[std::size_t(truth)] += peak;
        double sum = 0;
        for (double &l : logits)
            sum += (l = std::exp(l));
        std::vector<float> row;
        for (double l : logits)
            row.push_back(float(l / sum));
        c.probs.push_back(row);
        int given = truth;
        if (i >= k && unit(rng) < 0.08)
            given = (truth + 1 + int(rng() % unsigned(k - 1))) % k;
        c.labels.push_back(given);
    }
    return c;
}

// Independent sigmoids; each class on for ~30% of the examples, ~5% of memberships flipped.
ParityCase multiLabelCase(unsigned seed, LabelQualityScore rankBy)
{
    std::mt19937 rng(seed);
    ParityCase c;
    c.multi = true;
    c.rankBy = rankBy;
    const int k = 2 + int(rng() % 6);
    const int n = 300 + int(rng() % 500);
    std::normal_distribution<double> noise(0, 1.2);
    std::uniform_real_distribution<double> unit(0, 1);
    for (int i = 0; i < n; ++i) {
        std::vector<float> row;
        std::vector<int> set;
        for (int j = 0; j < k; ++j) {
            // The first rows make every class both present and absent somewhere.
            const bool on = i < 2 * k ? (i % 2 == 0) == (i / 2 == j) : unit(rng) < 0.3;
            row.push_back(float(1 / (1 + std::exp(-((on ? 2.0 : -2.0) + noise(rng))))));
            const bool given = i >= 2 * k && unit(rng) < 0.05 ? !on : on;
            if (given)
                set.push_back(j);
        }
        c.probs.push_back(row);
        c.labelSets.push_back(set);
    }
    return c;
}

nlohmann::json caseJson(const ParityCase &c)
{
    nlohmann::json probs = nlohmann::json::array();
    for (const auto &row : c.probs) {
        nlohmann::json r = nlohmann::json::array();
        for (float p : row)
            r.push_back(double(p)); // exactly the float, in 17 digits
        probs.push_back(r);
    }
    return {{"task", c.multi ? "multi_label" : "single_label"},
            {"rank_by", engine::labelQualityScoreName(c.rankBy)},
            {"labels", c.multi ? nlohmann::json(c.labelSets) : nlohmann::json(c.labels)},
            {"probs", probs}};
}

// The same issues as cleanlab, in its order except among scores equal within 1e-9.
void expectSameRanking(const std::vector<std::size_t> &ours, const std::vector<double> &ourScores,
                       const nlohmann::json &peer, const std::string &what)
{
    const std::vector<std::size_t> theirs = peer["issues"].get<std::vector<std::size_t>>();
    const std::vector<double> scores = peer["scores"].get<std::vector<double>>();
    EXPECT_EQ(std::set<std::size_t>(ours.begin(), ours.end()), std::set<std::size_t>(theirs.begin(), theirs.end()))
        << what;
    ASSERT_EQ(ours.size(), theirs.size()) << what;
    for (std::size_t r = 0; r < ours.size(); ++r) {
        EXPECT_NEAR(ourScores[r], scores[ours[r]], 1e-12) << what << " rank " << r;
        if (ours[r] != theirs[r]) {
            EXPECT_NEAR(scores[ours[r]], scores[theirs[r]], 1e-9)
                << what << " rank " << r << ": " << ours[r] << " vs cleanlab's " << theirs[r];
        }
    }
}

// Lathe's joint against cleanlab's: equal, or where cleanlab's rounding met a tie (its choice
// then rests on numpy's unstable argsort), the same row totals and no entry more than one apart.
void expectSameJoint(const nlohmann::json &ours, const nlohmann::json &peer, const std::string &what)
{
    if (!peer["ambiguous"].get<bool>()) {
        EXPECT_EQ(ours, peer["confident_joint"]) << what;
        return;
    }
    const auto a = ours.get<std::vector<std::vector<std::int64_t>>>();
    const auto b = peer["confident_joint"].get<std::vector<std::vector<std::int64_t>>>();
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t g = 0; g < a.size(); ++g) {
        ASSERT_EQ(a[g].size(), b[g].size()) << what;
        std::int64_t sumA = 0, sumB = 0;
        for (std::size_t t = 0; t < a[g].size(); ++t) {
            sumA += a[g][t];
            sumB += b[g][t];
            EXPECT_LE(std::abs(a[g][t] - b[g][t]), 1) << what << " [" << g << "][" << t << "]";
        }
        EXPECT_EQ(sumA, sumB) << what << " row " << g;
    }
}

TEST(LabelIssues, MatchesCleanlab)
{
    std::vector<ParityCase> cases;
    for (unsigned seed = 1; seed <= 8; ++seed)
        for (LabelQualityScore s : {LabelQualityScore::SelfConfidence, LabelQualityScore::NormalizedMargin}) {
            cases.push_back(singleLabelCase(seed, s));
            cases.push_back(multiLabelCase(100 + seed, s));
        }
    // Lathe's answers first: cleanlab prunes with Lathe's confident joint (find_label_issues'
    // confident_joint argument), which is its own unless rounding met a tie (expectSameJoint).
    std::vector<engine::LabelIssueReport> single(cases.size());
    std::vector<engine::MultiLabelIssueReport> multi(cases.size());
    const test::TempDir dir;
    nlohmann::json doc = nlohmann::json::array();
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const ParityCase &c = cases[i];
        nlohmann::json item = caseJson(c);
        if (!c.multi) {
            single[i] = engine::findLabelIssues(c.probs, c.labels, c.rankBy);
            item["confident_joint"] = single[i].confidentJoint;
        } else {
            multi[i] = engine::findMultiLabelIssues(c.probs, c.labelSets, c.rankBy);
            item["confident_joint"] = multi[i].confidentJoints;
        }
        doc.push_back(item);
    }
    std::ofstream(dir.file("cases.json")) << doc.dump();

    int status = -1;
    const std::string output = test::runCommand("'" + test::python() + "' '"
                                                    + test::parityScript("cleanlab_issues.py").string() + "' '"
                                                    + dir.file("cases.json") + "'",
                                                &status);
    ASSERT_EQ(status, 0) << output;
    const nlohmann::json peer = nlohmann::json::parse(output);
    ASSERT_EQ(peer.size(), cases.size());

    std::size_t flagged = 0, exact = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const ParityCase &c = cases[i];
        const std::string what = std::string(c.multi ? "multi-label" : "single-label") + " case " + std::to_string(i)
                                 + " (" + engine::labelQualityScoreName(c.rankBy) + ")";
        std::vector<std::size_t> indices;
        std::vector<double> scores;
        if (!c.multi) {
            const engine::LabelIssueReport &r = single[i];
            for (const engine::LabelIssue &issue : r.issues) {
                indices.push_back(issue.index);
                scores.push_back(issue.score);
            }
            expectSameJoint(nlohmann::json(r.confidentJoint), peer[i], what);
            const std::vector<double> thresholds = peer[i]["thresholds"].get<std::vector<double>>();
            ASSERT_EQ(r.thresholds.size(), thresholds.size()) << what;
            for (std::size_t k = 0; k < thresholds.size(); ++k)
                EXPECT_EQ(r.thresholds[k], thresholds[k]) << what << " class " << k;
        } else {
            const engine::MultiLabelIssueReport &r = multi[i];
            for (const engine::MultiLabelIssue &issue : r.issues) {
                indices.push_back(issue.index);
                scores.push_back(issue.score);
            }
            expectSameJoint(nlohmann::json(r.confidentJoints), peer[i], what);
            const auto thresholds = peer[i]["thresholds"].get<std::vector<std::array<double, 2>>>();
            ASSERT_EQ(r.thresholds.size(), thresholds.size()) << what;
            for (std::size_t k = 0; k < thresholds.size(); ++k)
                for (std::size_t b = 0; b < 2; ++b)
                    EXPECT_EQ(r.thresholds[k][b], thresholds[k][b]) << what << " class " << k;
        }
        expectSameRanking(indices, scores, peer[i], what);
        flagged += indices.size();
        exact += !peer[i]["ambiguous"].get<bool>();
    }
    // The cases do flag examples (a parity of empty sets would prove little), and many meet no
    // rounding tie, so there the whole of cleanlab's default path is compared (ties are common
    // with many classes: equal counts in a row calibrate to equal remainders).
    EXPECT_GT(flagged, cases.size() * 5);
    EXPECT_GE(exact, cases.size() / 2);
}

// ---- folds runs ----------------------------------------------------------------------------

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

const char *kFoldsJson = R"({"task": "single_label", "classes": ["cat", "dog", "owl"], "folds": 2,
  "metric": "val_top1", "fold_metrics": [0.9, 0.8], "mean": 0.85, "std": 0.05, "runs": ["fold-1", "fold-2"]})";

std::string oofLine(int fold, const std::string &file, int label, const std::string &probs)
{
    return R"({"fold": )" + std::to_string(fold) + R"(, "filename": ")" + file + R"(", "sha256": "ab12", "label": )"
           + std::to_string(label) + R"(, "probs": )" + probs + "}\n";
}

TEST(LabelIssues, ReadsAFoldsRun)
{
    const test::TempDir dir;
    writeText(dir.file("folds.json"), kFoldsJson);
    writeText(dir.file("oof_predictions.jsonl"), oofLine(1, "cat/1.jpg", 0, "[0.8, 0.1, 0.1]") + "\n"
                                                     + oofLine(2, "dog/1.jpg", 1, "[0.1, 0.8, 0.1]"));
    const engine::FoldsRun run = engine::readFoldsRun(dir.path().string());
    EXPECT_EQ(run.task, "single_label");
    EXPECT_EQ(run.classes, std::vector<std::string>({"cat", "dog", "owl"}));
    EXPECT_EQ(run.folds, 2);
    EXPECT_EQ(run.metric, "val_top1");
    EXPECT_EQ(run.foldMetrics, std::vector<double>({0.9, 0.8}));
    ASSERT_EQ(run.rows.size(), 2u);
    EXPECT_EQ(run.rows[1].fold, 2);
    EXPECT_EQ(run.rows[1].filename, "dog/1.jpg");
    EXPECT_EQ(run.rows[1].sha256, "ab12");
    EXPECT_EQ(run.rows[1].labels, std::vector<int>({1}));
    EXPECT_EQ(run.rows[1].probs, std::vector<float>({0.1f, 0.8f, 0.1f}));
    // A class without examples reaches findLabelIssues, which names it.
    EXPECT_NE(errorOf([&] { engine::findLabelIssuesInRun(run); }).find("class 2 has no examples"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::findMultiLabelIssuesInRun(run); }).find("not multi_label"), std::string::npos);

    writeText(dir.file("folds.json"), R"({"task": "multi_label", "classes": ["a", "b"], "folds": 1})");
    writeText(dir.file("oof_predictions.jsonl"),
              R"({"fold": 1, "filename": "x.jpg", "sha256": "", "labels": [1, 0, 1], "probs": [0.7, 0.9]})"
              "\n");
    const engine::FoldsRun multi = engine::readFoldsRun(dir.path().string());
    ASSERT_EQ(multi.rows.size(), 1u);
    EXPECT_EQ(multi.rows[0].labels, std::vector<int>({0, 1}));
}

TEST(LabelIssues, RefusesMalformedFoldsRuns)
{
    const test::TempDir dir;
    const std::string d = dir.path().string();
    const std::string folds = dir.file("folds.json"), oof = dir.file("oof_predictions.jsonl");
    const auto refusal = [&d] { return errorOf([&d] { engine::readFoldsRun(d); }); };
    const auto expectRefusal = [&](const std::string &where, const std::string &part) {
        const std::string message = refusal();
        EXPECT_NE(message.find(where), std::string::npos) << message;
        EXPECT_NE(message.find(part), std::string::npos) << message;
    };

    expectRefusal(folds, "not found");
    writeText(folds, "{\"task\": ");
    expectRefusal(folds, "not valid JSON");
    writeText(folds, R"({"task": "regression", "classes": ["a", "b"], "folds": 2})");
    expectRefusal(folds + ": task", "single_label");
    writeText(folds, R"({"task": "single_label", "classes": ["a", 3], "folds": 2})");
    expectRefusal(folds + ": classes[1]", "string");
    writeText(folds, R"({"task": "single_label", "classes": ["a", "b"]})");
    expectRefusal(folds, "missing \"folds\"");
    writeText(folds, R"({"task": "single_label", "classes": ["a", "b", "c"], "folds": 2})");
    expectRefusal(oof, "cannot open");

    const std::string good = oofLine(1, "a.jpg", 0, "[0.8, 0.1, 0.1]");
    const auto expectLine = [&](const std::string &line3, const std::string &part) {
        writeText(oof, good + good + line3 + good);
        expectRefusal(oof + ":3: ", part);
    };
    expectLine("{\"fold\": 1,\n", "not valid JSON");
    expectLine("[1, 2]\n", "object");
    expectLine(oofLine(3, "a.jpg", 0, "[0.8, 0.1, 0.1]"), "fold");
    expectLine(oofLine(0, "a.jpg", 0, "[0.8, 0.1, 0.1]"), "fold");
    expectLine(oofLine(1, "a.jpg", 3, "[0.8, 0.1, 0.1]"), "label");
    expectLine(oofLine(1, "a.jpg", 0, "[0.8, 0.2]"), "probs has 2 values, expected 3");
    expectLine(oofLine(1, "a.jpg", 0, "[1.8, -0.4, -0.4]"), "probs[0]");
    expectLine(oofLine(1, "a.jpg", 0, "[0.8, 0.8, 0.8]"), "sum to 2.4");
    expectLine(oofLine(1, "a.jpg", 0, R"([0.8, "0.1", 0.1])"), "probs[1]");
    expectLine(R"({"fold": 1, "filename": "a.jpg", "probs": [0.8, 0.1, 0.1]})"
               "\n",
               "missing \"label\"");
    writeText(oof, "\n");
    expectRefusal(oof, "no predictions");
}

} // namespace
