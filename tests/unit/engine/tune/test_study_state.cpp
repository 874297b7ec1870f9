// study.json: exact round trips, field-naming errors, and a study that resumes (after its object
// is dropped, and after kill -9) with the same next suggestions as one never interrupted.
#include "engine/tune/study.h"
#include "engine/tune/study_state.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace lathe;
using json = nlohmann::json;
using lathe::test::errorOf;

namespace {

engine::SearchSpace studySpace(int trials = 30)
{
    engine::SearchSpace space = engine::parseSearchSpace(json::parse(R"({
      "params": {
        "optimizer.lr": {"type": "log_uniform", "low": 1e-4, "high": 1e-1},
        "optimizer.name": {"type": "choice", "values": ["sgd", "adamw"]},
        "optimizer.momentum": {"type": "uniform", "low": 0.5, "high": 0.99, "when": {"optimizer.name": "sgd"}},
        "optimizer.batch_size": {"type": "int_uniform", "low": 16, "high": 128, "log": true}
      },
      "budget": {"epochs": 9},
      "metric": "val_top1"
    })"));
    space.budget.trials = trials;
    return space;
}

// A trial's synthetic learning curve: val_top1 after epoch e.
double curve(const json &params, int epoch)
{
    double q = 1 - std::abs(std::log10(params["optimizer.lr"].get<double>()) + 2) / 3;
    if (params.contains("optimizer.momentum"))
        q -= std::abs(params["optimizer.momentum"].get<double>() - 0.9);
    else
        q -= 0.1;
    q -= std::abs(std::log2(params["optimizer.batch_size"].get<double>()) - 5) / 20;
    return q * (1 - std::exp(-epoch / 3.0));
}

// Trains a trial on the curve from epoch `from` as a runner would: report each epoch, stop when
// pruned, complete at the last.
void runTrial(engine::Study &study, const engine::Trial &trial, int from = 1)
{
    const int epochs = study.maxEpochs();
    for (int e = from; e <= epochs; ++e)
        if (study.reportEpoch(trial.id, e, curve(trial.params, e)).prune)
            return;
    study.completeTrial(trial.id, curve(trial.params, epochs));
}

// Runs a study to its budget: the trials it ends with.
std::vector<engine::Trial> runAll(engine::Study &study)
{
    while (const auto t = study.startTrial())
        runTrial(study, *t);
    return study.state().trials;
}

engine::StudyState sampleState()
{
    engine::StudyState s;
    s.space = studySpace(12);
    s.strategy = engine::resolvedStrategy(s.space, engine::strategyFromName("tpe+asha"));
    s.strategy.seed = 18446744073709551615ULL; // the largest seed survives JSON
    engine::Trial a;
    a.id = 0;
    a.params = {{"optimizer.lr", 0.1 + 0.2 - 0.25}, {"optimizer.name", "adamw"}, {"optimizer.batch_size", 17}};
    a.state = engine::TrialState::Completed;
    a.intermediate = {{1, 0.1 + 0.2}, {2, 1e-300}, {3, 0.7}};
    a.value = 0.7;
    a.rung = 1;
    a.runFolder = engine::Study::runFolderName(0);
    engine::Trial b = a;
    b.id = 1;
    b.params = {{"optimizer.lr", 1e-4}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.99},
                {"optimizer.batch_size", 128}};
    b.state = engine::TrialState::Pruned;
    b.value.reset();
    b.intermediate = {{1, 0.123456789012345678}};
    b.rung = 0;
    b.runFolder = engine::Study::runFolderName(1);
    engine::Trial c = b;
    c.id = 2;
    c.state = engine::TrialState::Failed;
    c.error = "out of memory on cuda:0 \xff";
    c.intermediate.clear();
    c.rung = -1;
    engine::Trial d = b;
    d.id = 3;
    d.state = engine::TrialState::Running;
    d.bracket = 2;
    s.trials = {a, b, c, d};
    return s;
}

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string stateError(const json &doc)
{
    return errorOf([&] { engine::parseStudyState(doc); });
}

} // namespace

TEST(StudyState, RoundTripsExactly)
{
    engine::StudyState s = sampleState();
    const json doc = engine::studyStateToJson(s);
    engine::StudyState back = engine::parseStudyState(doc);
    EXPECT_EQ(back.strategy, s.strategy);
    EXPECT_EQ(engine::searchSpaceToJson(back.space), engine::searchSpaceToJson(s.space));
    ASSERT_EQ(back.trials.size(), s.trials.size());
    for (std::size_t i = 0; i < s.trials.size(); ++i)
        EXPECT_EQ(back.trials[i], s.trials[i]) << i;
    EXPECT_EQ(back.trials[0].intermediate.at(1), 0.1 + 0.2);
    EXPECT_EQ(back.trials[0].intermediate.at(2), 1e-300);

    // Through the file: the same, and written again it is the same bytes.
    test::TempDir tmp;
    const std::string path = tmp.file(engine::kStudyFile);
    engine::writeStudyState(path, back);
    const engine::StudyState reread = engine::readStudyState(path);
    EXPECT_EQ(reread.trials[2].error, "out of memory on cuda:0 \xEF\xBF\xBD"); // U+FFFD for the bad byte
    back.trials[2].error = reread.trials[2].error;
    for (std::size_t i = 0; i < s.trials.size(); ++i)
        EXPECT_EQ(reread.trials[i], back.trials[i]) << i;
    const std::string bytes = readText(path);
    engine::writeStudyState(path, reread);
    EXPECT_EQ(readText(path), bytes);
    EXPECT_NE(bytes.find("\"state\": \"pruned\""), std::string::npos);
    // Only study.json is in the folder: the temporary of the atomic write is gone.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()), std::filesystem::directory_iterator()), 1);
}

TEST(StudyState, ErrorsNameTheField)
{
    const json good = engine::studyStateToJson(sampleState());
    json doc = good;
    doc["version"] = 9;
    EXPECT_EQ(stateError(doc), "study.version: this study is from a newer Lathe (version 9, this one reads up to 1)");
    doc = good;
    doc["trials"][1]["state"] = "stopped";
    EXPECT_EQ(stateError(doc),
              "study.trials[1].state: must be one of running, completed, pruned, failed (got \"stopped\")");
    doc = good;
    doc["trials"][1]["id"] = 7;
    EXPECT_EQ(stateError(doc), "study.trials[1].id: expected 1 (trials are listed by id from 0) (got 7)");
    doc = good;
    doc["trials"][0]["params"]["optimizer.lr"] = 3;
    EXPECT_EQ(stateError(doc), "study.trials[0].params.\"optimizer.lr\": 3 is outside [0.0001, 0.1]");
    doc = good;
    doc["trials"][0].erase("value");
    EXPECT_EQ(stateError(doc), "study.trials[0].value: missing (a completed trial has its final metric)");
    doc = good;
    doc["trials"][1]["value"] = 0.5;
    EXPECT_EQ(stateError(doc), "study.trials[1].value: only a completed trial has a final metric (this one is pruned)");
    doc = good;
    doc["trials"][1]["intermediate"]["first"] = 0.5;
    EXPECT_EQ(stateError(doc), "study.trials[1].intermediate.first: expected an epoch number from 1 as the key");
    doc = good;
    doc["trials"][1]["run_folder"] = "../elsewhere";
    EXPECT_EQ(stateError(doc),
              "study.trials[1].run_folder: expected a folder name inside the study folder (got \"../elsewhere\")");
    doc = good;
    doc["strategy"]["sampler"] = "bayes";
    EXPECT_EQ(stateError(doc), "study.strategy.sampler: must be one of tpe, random, grid (got \"bayes\")");
    doc = good;
    doc["strategy"]["pruner_options"]["reduction_factor"] = 1;
    EXPECT_EQ(stateError(doc), "study.strategy.pruner_options.reduction_factor: must be >= 2 (got 1)");
    doc = good;
    doc["space"]["params"]["optimizer.lr"]["low"] = 0;
    EXPECT_EQ(stateError(doc), "study.space.params.\"optimizer.lr\".low: must be > 0 for log_uniform (got 0)");
    doc = good;
    doc.erase("trials");
    EXPECT_EQ(stateError(doc), "study.trials: missing");

    test::TempDir tmp;
    const std::string path = tmp.file(engine::kStudyFile);
    std::ofstream(path) << "{\"version\": 1, \"trials\": [";
    EXPECT_EQ(errorOf([&] { engine::readStudyState(path); }), path + ": not valid JSON");
}

TEST(Study, RecordsEveryTrialEvent)
{
    test::TempDir tmp;
    const std::string folder = tmp.file("study");
    auto study = engine::Study::create(folder, studySpace(3), engine::strategyFromName("random+asha"));
    EXPECT_EQ(study->maxEpochs(), 9);
    EXPECT_NE(errorOf([&] { engine::Study::create(folder, studySpace(3), engine::strategyFromName("tpe")); })
                  .find("a study exists here already"),
              std::string::npos);
    const engine::Trial t = *study->startTrial();
    EXPECT_EQ(t.id, 0);
    EXPECT_EQ(t.runFolder, "trial-0000");
    EXPECT_EQ(engine::readStudyState(study->statePath()).trials.at(0).state, engine::TrialState::Running);
    study->reportEpoch(0, 1, 0.25);
    EXPECT_EQ(engine::readStudyState(study->statePath()).trials.at(0).intermediate, (std::map<int, double>{{1, 0.25}}));
    EXPECT_NE(errorOf([&] { study->reportEpoch(0, 1, 0.3); }).find("epoch 1 reported after epoch 1"), std::string::npos);
    study->completeTrial(0, 0.5);
    EXPECT_NE(errorOf([&] { study->reportEpoch(0, 2, 0.3); }).find("trial 0 is completed, not running"),
              std::string::npos);
    const engine::Trial u = *study->startTrial();
    study->failTrial(u.id, "diverged");
    const engine::Trial v = *study->startTrial();
    EXPECT_FALSE(study->startTrial()); // the budget: 3 trials
    study->reportEpoch(v.id, 1, 0.1);  // behind trial 0 at rung 0 (epoch 1): pruned
    const engine::StudyState s = engine::readStudyState(study->statePath());
    EXPECT_EQ(s.trials.at(0).state, engine::TrialState::Completed);
    EXPECT_EQ(s.trials.at(0).rung, 0);
    EXPECT_EQ(s.trials.at(1).state, engine::TrialState::Failed);
    EXPECT_EQ(s.trials.at(1).error, "diverged");
    EXPECT_EQ(s.trials.at(2).state, engine::TrialState::Pruned);
    EXPECT_EQ(s.trials.at(2).rung, 0);
    EXPECT_EQ(study->bestTrial()->id, 0);
    EXPECT_EQ(s.strategy.prunerOptions["max_resource"], 9);
}

TEST(Study, AReopenedStudyMakesTheSameNextSuggestions)
{
    for (const char *strategy : {"tpe", "tpe+asha", "random+hyperband", "tpe+median"}) {
        SCOPED_TRACE(strategy);
        test::TempDir tmp;
        engine::StrategyConfig config = engine::strategyFromName(strategy);
        config.seed = 42;
        auto reference = engine::Study::create(tmp.file("reference"), studySpace(), config);
        const std::vector<engine::Trial> expected = runAll(*reference);
        ASSERT_EQ(expected.size(), 30u);

        // Dropped (as if killed) between trials, and in the middle of one.
        const std::string folder = tmp.file("resumed");
        {
            auto study = engine::Study::create(folder, studySpace(), config);
            for (int i = 0; i < 12; ++i)
                runTrial(*study, *study->startTrial());
        }
        {
            auto study = engine::Study::open(folder);
            EXPECT_EQ(study->state().trials.size(), 12u);
            const engine::Trial t = *study->startTrial();
            study->reportEpoch(t.id, 1, curve(t.params, 1));
        }
        auto study = engine::Study::open(folder);
        const engine::StudyState s = study->state();
        ASSERT_EQ(s.trials.size(), 13u);
        const engine::Trial interrupted = s.trials.back();
        EXPECT_EQ(interrupted.lastEpoch(), 1);
        // The runner resumes the interrupted trial from its checkpoint (epoch 2), then goes on.
        if (interrupted.state == engine::TrialState::Running)
            runTrial(*study, interrupted, 2);
        const std::vector<engine::Trial> resumed = runAll(*study);
        ASSERT_EQ(resumed.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            EXPECT_EQ(resumed[i], expected[i]) << "trial " << i;
    }
}

// kill -9 of a process in the middle of a study: study.json holds every event reported before
// the kill, and the study continues as the uninterrupted one.
TEST(Study, SurvivesKill9)
{
    test::TempDir tmp;
    engine::StrategyConfig config = engine::strategyFromName("tpe+asha");
    config.seed = 9;
    const std::string folder = tmp.file("killed");
    const engine::SearchSpace space = studySpace(400);
    engine::Study::create(folder, space, config);

    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        try {
            auto study = engine::Study::open(folder);
            runAll(*study);
        } catch (...) {
        }
        _exit(0);
    }
    const std::string path = (std::filesystem::path(folder) / engine::kStudyFile).string();
    for (int i = 0; i < 3000; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        try {
            if (engine::readStudyState(path).trials.size() >= 15)
                break;
        } catch (const engine::EngineError &) {
            ADD_FAILURE() << "study.json unreadable while written";
        }
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child finished its 400 trials before the kill";

    auto study = engine::Study::open(folder);
    const engine::StudyState killed = study->state();
    ASSERT_GE(killed.trials.size(), 15u);
    // Finish what was running, as a runner resuming from checkpoints would, then compare with a
    // study never interrupted, trial by trial.
    for (const engine::Trial &t : killed.trials)
        if (t.state == engine::TrialState::Running)
            runTrial(*study, t, t.lastEpoch() + 1);
    for (int i = 0; i < 5; ++i)
        if (const auto t = study->startTrial())
            runTrial(*study, *t);
    const std::vector<engine::Trial> resumed = study->state().trials;

    engine::SearchSpace referenceSpace = space;
    referenceSpace.budget.trials = static_cast<int>(resumed.size());
    auto reference = engine::Study::create(tmp.file("reference"), referenceSpace, config);
    const std::vector<engine::Trial> expected = runAll(*reference);
    ASSERT_EQ(resumed.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(resumed[i], expected[i]) << "trial " << i;
}
