// The study runner on real Fashion-MNIST shards made in the test (tiny runs of 1-2 epochs):
// trials are run folders with the trial's parameters, parallel trials overlap, a memory budget
// that holds one trial runs them one at a time, a trial that cannot report the metric fails
// with the reason and the study goes on, the base run config round-trips, and a cancelled
// study leaves its trial running to be resumed.
#include "engine/base/engine_error.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/tune/study_runner.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

using namespace lathe;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

class StudyRunnerTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir = new test::TempDir();
        engine::DemoDataOptions demo;
        demo.outDir = s_dir->file("images");
        demo.perClass = 4;
        demo.testPerClass = 1;
        engine::writeDemoData(demo);
        engine::ConvertOptions options;
        options.scan.root = demo.outDir;
        options.scan.nearDuplicateDistance = 0;
        options.outDir = s_dir->file("shards");
        s_shards = engine::convertFolder(options).outDir;
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }

    // A 1-epoch resnet18 on 1-channel 16x16 images: a trial takes about a second.
    static json baseConfig()
    {
        engine::RunConfig c;
        c.data.shards = s_shards;
        c.data.valSplit = "test";
        c.data.imageSize = 16;
        c.data.augment = {};
        c.data.workers = 1;
        c.model.arch = "resnet18";
        c.model.inChannels = 1;
        c.optimizer.batchSize = 8;
        c.optimizer.epochs = 1;
        c.featureCache.mode = "off";
        return engine::runConfigToJson(c);
    }

    static engine::SearchSpace space(int trials)
    {
        return engine::parseSearchSpace(
            {{"version", 1},
             {"params", {{"optimizer.lr", {{"type", "log_uniform"}, {"low", 1e-3}, {"high", 1e-1}}}}},
             {"budget", {{"trials", trials}}}});
    }

    // Runs a study and records its events.
    struct Recorded
    {
        std::vector<json> events;
        json ended;
        std::vector<std::string> types() const
        {
            std::vector<std::string> t;
            for (const json &e : events)
                if (e["type"] != "trial_event")
                    t.push_back(e["type"]);
            return t;
        }
    };
    static Recorded run(engine::Study &study, engine::StudyRunOptions options)
    {
        Recorded r;
        std::mutex mutex;
        options.onEvent = [&](const json &e) {
            std::lock_guard<std::mutex> lock(mutex);
            r.events.push_back(e);
        };
        r.ended = engine::runStudy(study, options);
        return r;
    }

    static inline test::TempDir *s_dir = nullptr;
    static inline std::string s_shards;
};

TEST_F(StudyRunnerTest, TrialsAreRunFoldersWithTheirParameters)
{
    const std::string folder = s_dir->file("plain");
    auto study = engine::createStudy(folder, baseConfig(), space(2), engine::strategyFromName("random"));
    EXPECT_EQ(engine::readStudyBaseConfig(folder), engine::runConfigToJson(engine::parseRunConfig(baseConfig())));
    engine::StudyRunOptions options;
    options.skipMemoryEstimate = true;
    const Recorded r = run(*study, options);
    EXPECT_EQ(r.ended["status"], "finished");
    EXPECT_EQ(r.ended["trials"], 2);
    const engine::StudyState state = study->state();
    ASSERT_EQ(state.trials.size(), 2u);
    for (const engine::Trial &t : state.trials) {
        EXPECT_EQ(t.state, engine::TrialState::Completed) << t.error;
        ASSERT_TRUE(t.value.has_value());
        EXPECT_EQ(t.intermediate.size(), 1u);
        const engine::RunConfig trained =
            engine::readRunConfig((fs::path(folder) / t.runFolder / "config.json").string());
        EXPECT_DOUBLE_EQ(trained.optimizer.lr, t.params["optimizer.lr"].get<double>());
    }
    EXPECT_EQ(r.ended["best_trial"], study->bestTrial()->id);
    // Each trial: started, its epoch, ended; then the study.
    EXPECT_EQ(r.types(), (std::vector<std::string>{"trial_started", "trial_epoch", "trial_ended", "trial_started",
                                                   "trial_epoch", "trial_ended", "study_ended"}));
    // A second study in the folder is refused.
    EXPECT_THROW(engine::createStudy(folder, baseConfig(), space(2), engine::strategyFromName("random")),
                 engine::EngineError);
}

TEST_F(StudyRunnerTest, ParallelTrialsOverlapUnlessMemoryHoldsOne)
{
    auto order = [](const Recorded &r) {
        std::vector<std::string> o;
        for (const json &e : r.events)
            if (e["type"] == "trial_started" || e["type"] == "trial_ended")
                o.push_back(e["type"].get<std::string>().substr(6) + std::to_string(e["trial"].get<int>()));
        return o;
    };
    engine::StudyRunOptions options;
    options.parallel = 2;
    options.devices = {"cpu"};
    options.skipMemoryEstimate = true;
    auto both = engine::createStudy(s_dir->file("parallel"), baseConfig(), space(2), engine::strategyFromName("random"));
    const Recorded together = run(*both, options);
    ASSERT_EQ(order(together).size(), 4u);
    EXPECT_EQ(order(together)[0], "started0");
    EXPECT_EQ(order(together)[1], "started1"); // the second starts before the first ends

    // A budget below one trial's estimate: the second waits for the first (and says so).
    options.skipMemoryEstimate = false;
    options.cpuMemoryBudget = 1;
    auto one = engine::createStudy(s_dir->file("one-at-a-time"), baseConfig(), space(2), engine::strategyFromName("random"));
    const Recorded serial = run(*one, options);
    EXPECT_EQ(order(serial), (std::vector<std::string>{"started0", "ended0", "started1", "ended1"}));
    bool told = false;
    for (const json &e : serial.events)
        told = told || (e["type"] == "study_log" && e["message"].get<std::string>().find("waits") != std::string::npos);
    EXPECT_TRUE(told);
    for (const engine::Trial &t : one->state().trials)
        EXPECT_EQ(t.state, engine::TrialState::Completed) << t.error;
}

TEST_F(StudyRunnerTest, ATrialWithoutTheMetricFailsAndTheStudyGoesOn)
{
    json base = baseConfig();
    base["data"]["val_split"] = ""; // no validation: no val_top1
    auto study = engine::createStudy(s_dir->file("no-val"), base, space(2), engine::strategyFromName("random"));
    engine::StudyRunOptions options;
    options.skipMemoryEstimate = true;
    const Recorded r = run(*study, options);
    EXPECT_EQ(r.ended["trials"], 2);
    EXPECT_TRUE(r.ended["best_trial"].is_null());
    for (const engine::Trial &t : study->state().trials) {
        EXPECT_EQ(t.state, engine::TrialState::Failed);
        EXPECT_NE(t.error.find("val_top1"), std::string::npos) << t.error;
        EXPECT_NE(t.error.find("validation split"), std::string::npos) << t.error;
    }
}

TEST_F(StudyRunnerTest, ACancelledStudyLeavesItsTrialRunningAndResumesIt)
{
    const std::string folder = s_dir->file("cancelled");
    json base = baseConfig();
    base["optimizer"]["epochs"] = 2;
    base["checkpoints"]["every_steps"] = 1;
    {
        auto study = engine::createStudy(folder, base, space(1), engine::strategyFromName("random"));
        engine::StudyRunOptions options;
        options.skipMemoryEstimate = true;
        engine::CancelToken cancel = options.cancel;
        // Stop at the first checkpoint of trial 0.
        options.onEvent = [cancel](const json &e) {
            if (e["type"] == "trial_event" && e["event"]["type"] == "checkpoint")
                cancel.cancel();
        };
        const json ended = engine::runStudy(*study, options);
        EXPECT_EQ(ended["status"], "cancelled");
        EXPECT_EQ(study->trial(0).state, engine::TrialState::Running);
    }
    auto study = engine::Study::open(folder);
    engine::StudyRunOptions options;
    options.skipMemoryEstimate = true;
    const Recorded r = run(*study, options);
    EXPECT_EQ(r.ended["status"], "finished");
    EXPECT_EQ(r.ended["trials"], 1);
    const engine::Trial t = study->trial(0);
    EXPECT_EQ(t.state, engine::TrialState::Completed) << t.error;
    EXPECT_EQ(t.intermediate.size(), 2u);
    bool resumed = false;
    for (const json &e : r.events)
        resumed = resumed || (e["type"] == "trial_started" && e["resumed"] == true);
    EXPECT_TRUE(resumed);
}

TEST_F(StudyRunnerTest, TrialConfigsNameTheTrialAndTheField)
{
    engine::Trial t;
    t.id = 4;
    t.params = {{"optimizer.batch_size", 0}};
    const std::string error = test::errorOf([&] { engine::trialRunConfig(baseConfig(), t, 0); });
    EXPECT_NE(error.find("trial 4: "), std::string::npos) << error;
    EXPECT_NE(error.find("optimizer.batch_size"), std::string::npos) << error;
    t.params = {{"optimizer.lr", 0.01}};
    EXPECT_EQ(engine::trialRunConfig(baseConfig(), t, 7).optimizer.epochs, 7);
    EXPECT_EQ(engine::trialRunConfig(baseConfig(), t, 0).optimizer.epochs, 1);
}

} // namespace
