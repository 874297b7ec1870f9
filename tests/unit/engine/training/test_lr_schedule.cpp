#include "engine/base/engine_error.h"
#include "engine/training/lr_schedule.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

using lathe::engine::EngineError;
using lathe::engine::LrSchedule;
using lathe::engine::ScheduleConfig;

namespace {

constexpr double kPi = 3.14159265358979323846;

ScheduleConfig config(const std::string &name)
{
    ScheduleConfig c;
    c.name = name;
    c.warmupEpochs = 0;
    return c;
}

// The per-step value of a case in tests/parity/lr_schedule_reference.py, from its JSON config.
ScheduleConfig configFromJson(const nlohmann::json &j)
{
    ScheduleConfig c = config(j.at("name").get<std::string>());
    c.warmupEpochs = j.value("warmup_epochs", 0.0);
    c.warmupStartFactor = j.value("warmup_start_factor", c.warmupStartFactor);
    c.stepSize = j.value("step_size", c.stepSize);
    c.milestones = j.value("milestones", c.milestones);
    c.gamma = j.value("gamma", c.gamma);
    c.minLr = j.value("min_lr", c.minLr);
    c.restartEpochs = j.value("restart_epochs", c.restartEpochs);
    c.restartMultiplier = j.value("restart_multiplier", c.restartMultiplier);
    c.maxLr = j.value("max_lr", c.maxLr);
    c.pctStart = j.value("pct_start", c.pctStart);
    c.divFactor = j.value("div_factor", c.divFactor);
    c.finalDivFactor = j.value("final_div_factor", c.finalDivFactor);
    c.plateauMetric = j.value("plateau_metric", c.plateauMetric);
    c.plateauFactor = j.value("plateau_factor", c.plateauFactor);
    c.plateauPatience = j.value("plateau_patience", c.plateauPatience);
    c.plateauThreshold = j.value("plateau_threshold", c.plateauThreshold);
    return c;
}

} // namespace

TEST(LrSchedule, ConstantIsOneAndLrScalesByBase)
{
    LrSchedule s(config("constant"), 0.3, 10, 5);
    EXPECT_EQ(s.totalSteps(), 50);
    for (std::int64_t step : {0, 1, 17, 49, 50, 1000}) {
        EXPECT_DOUBLE_EQ(s.factorAt(step), 1.0);
        EXPECT_DOUBLE_EQ(s.lrAt(step), 0.3);
    }
}

TEST(LrSchedule, StepDecaysAtEpochBoundaries)
{
    ScheduleConfig c = config("step");
    c.stepSize = 2;
    c.gamma = 0.1;
    LrSchedule s(c, 1.0, 10, 10);
    for (std::int64_t step = 0; step < 100; ++step)
        EXPECT_NEAR(s.factorAt(step), std::pow(0.1, double(step / 20)), 1e-15) << step;
    EXPECT_DOUBLE_EQ(s.factorAt(19), 1.0);
    EXPECT_NEAR(s.factorAt(20), 0.1, 1e-15);
}

TEST(LrSchedule, MultiStepCountsMilestonesReached)
{
    ScheduleConfig c = config("multi_step");
    c.milestones = {3, 7};
    c.gamma = 0.5;
    LrSchedule s(c, 1.0, 4, 10);
    for (std::int64_t step = 0; step < 40; ++step) {
        const int passed = (step >= 12 ? 1 : 0) + (step >= 28 ? 1 : 0);
        EXPECT_DOUBLE_EQ(s.factorAt(step), std::pow(0.5, passed)) << step;
    }
}

TEST(LrSchedule, ExponentialIsGammaToTheFractionalEpoch)
{
    ScheduleConfig c = config("exponential");
    c.gamma = 0.9;
    LrSchedule s(c, 1.0, 8, 6);
    for (std::int64_t step = 0; step < 48; ++step)
        EXPECT_NEAR(s.factorAt(step), std::pow(0.9, step / 8.0), 1e-14) << step;
    EXPECT_NEAR(s.factorAt(16), 0.81, 1e-14); // PyTorch's per-epoch value at each epoch start
}

TEST(LrSchedule, CosineReachesMinLrAtTheEndOfTheRun)
{
    ScheduleConfig c = config("cosine");
    c.minLr = 0.001;
    LrSchedule s(c, 0.1, 10, 10);
    for (std::int64_t step = 0; step <= 100; ++step) {
        const double expected = 0.001 + (0.1 - 0.001) * (1 + std::cos(kPi * step / 100.0)) / 2;
        EXPECT_NEAR(s.lrAt(step), expected, 1e-15) << step;
    }
    EXPECT_NEAR(s.lrAt(50), 0.0505, 1e-15);
    EXPECT_NEAR(s.lrAt(100), 0.001, 1e-15);
    EXPECT_NEAR(s.lrAt(500), 0.001, 1e-15); // past the end: the end value
}

TEST(LrSchedule, WarmupIsLinearThenTheMainScheduleRunsOverTheRest)
{
    ScheduleConfig c = config("cosine");
    c.warmupEpochs = 2;
    c.warmupStartFactor = 0;
    LrSchedule s(c, 1.0, 5, 12);
    EXPECT_EQ(s.warmupSteps(), 10);
    for (std::int64_t step = 0; step < 10; ++step)
        EXPECT_NEAR(s.factorAt(step), step / 10.0, 1e-15) << step;
    // Cosine over the remaining 50 steps.
    for (std::int64_t step = 10; step <= 60; ++step)
        EXPECT_NEAR(s.factorAt(step), (1 + std::cos(kPi * (step - 10) / 50.0)) / 2, 1e-15) << step;

    // Step decays count epochs from the end of the warm-up.
    ScheduleConfig st = config("step");
    st.warmupEpochs = 1.5;
    st.warmupStartFactor = 0.2;
    st.stepSize = 1;
    st.gamma = 0.5;
    LrSchedule s2(st, 1.0, 4, 5);
    EXPECT_EQ(s2.warmupSteps(), 6);
    EXPECT_NEAR(s2.factorAt(0), 0.2, 1e-15);
    EXPECT_NEAR(s2.factorAt(3), 0.2 + 0.8 * 3 / 6.0, 1e-15);
    EXPECT_DOUBLE_EQ(s2.factorAt(6), 1.0);
    EXPECT_DOUBLE_EQ(s2.factorAt(9), 1.0);
    EXPECT_DOUBLE_EQ(s2.factorAt(10), 0.5);
    EXPECT_DOUBLE_EQ(s2.factorAt(14), 0.25);

    // A warm-up of a fraction of a step still lasts one step.
    ScheduleConfig tiny = config("constant");
    tiny.warmupEpochs = 0.01;
    tiny.warmupStartFactor = 0.5;
    LrSchedule s3(tiny, 1.0, 10, 2);
    EXPECT_EQ(s3.warmupSteps(), 1);
    EXPECT_DOUBLE_EQ(s3.factorAt(0), 0.5);
    EXPECT_DOUBLE_EQ(s3.factorAt(1), 1.0);
}

TEST(LrSchedule, CosineRestartsFollowSgdrPeriods)
{
    ScheduleConfig c = config("cosine_restarts");
    c.restartEpochs = 2;
    c.restartMultiplier = 2;
    c.minLr = 0;
    LrSchedule s(c, 1.0, 4, 14); // periods: epochs [0,2), [2,6), [6,14)
    auto expected = [](double epoch) {
        double start = 0, period = 2;
        while (epoch >= start + period) {
            start += period;
            period *= 2;
        }
        return (1 + std::cos(kPi * (epoch - start) / period)) / 2;
    };
    for (std::int64_t step = 0; step < 56; ++step)
        EXPECT_NEAR(s.factorAt(step), expected(step / 4.0), 1e-12) << step;
    EXPECT_DOUBLE_EQ(s.factorAt(8), 1.0);   // restart at epoch 2
    EXPECT_DOUBLE_EQ(s.factorAt(24), 1.0);  // restart at epoch 6
    EXPECT_NEAR(s.factorAt(16), 0.5, 1e-12); // the middle of [2,6)

    c.restartMultiplier = 1;
    c.restartEpochs = 3;
    LrSchedule flat(c, 1.0, 2, 9);
    for (std::int64_t step = 0; step < 18; ++step)
        EXPECT_NEAR(flat.factorAt(step), (1 + std::cos(kPi * std::fmod(step / 2.0, 3.0) / 3.0)) / 2, 1e-12) << step;
}

TEST(LrSchedule, OneCycleHasTwoCosinePhasesAndIgnoresWarmup)
{
    ScheduleConfig c = config("one_cycle");
    c.maxLr = 1.0;
    c.pctStart = 0.25;
    c.divFactor = 10;
    c.finalDivFactor = 100;
    c.warmupEpochs = 3; // one_cycle has its own warm-up
    LrSchedule s(c, 0.5, 10, 4);
    EXPECT_EQ(s.warmupSteps(), 0);
    const double phase1End = 0.25 * 40 - 1; // 9
    auto anneal = [](double a, double b, double pct) { return b + (a - b) / 2 * (1 + std::cos(kPi * pct)); };
    for (std::int64_t step = 0; step < 40; ++step) {
        const double expected = step <= phase1End ? anneal(0.1, 1.0, step / phase1End)
                                                  : anneal(1.0, 0.001, (step - phase1End) / (39 - phase1End));
        EXPECT_NEAR(s.lrAt(step), expected, 1e-15) << step;
    }
    EXPECT_NEAR(s.lrAt(0), 0.1, 1e-15);
    EXPECT_NEAR(s.lrAt(9), 1.0, 1e-15);
    EXPECT_NEAR(s.lrAt(39), 0.001, 1e-15);
    EXPECT_NEAR(s.factorAt(9), 2.0, 1e-15); // relative to the base lr 0.5

    c.maxLr = 0; // max_lr = lr
    LrSchedule s2(c, 0.5, 10, 4);
    EXPECT_NEAR(s2.lrAt(9), 0.5, 1e-15);
}

TEST(LrSchedule, PlateauReducesAfterPatienceEpochsWithoutImprovement)
{
    ScheduleConfig c = config("plateau");
    c.plateauMetric = "val_loss";
    c.plateauPatience = 2;
    c.plateauFactor = 0.5;
    c.plateauThreshold = 0.01;
    LrSchedule s(c, 1.0, 10, 20);
    s.reportEpoch(0, 1.0);
    s.reportEpoch(1, 0.995); // within the 1% threshold: no improvement (1 bad epoch)
    s.reportEpoch(2, 1.2);   // 2 bad epochs = patience: not yet
    EXPECT_DOUBLE_EQ(s.factorAt(35), 1.0);
    s.reportEpoch(3, 1.1); // 3 > patience: reduce
    EXPECT_DOUBLE_EQ(s.factorAt(45), 0.5);
    EXPECT_DOUBLE_EQ(s.factorAt(0), 0.5); // no warm-up: the current factor from the start
    s.reportEpoch(4, 0.5); // improvement resets the count
    s.reportEpoch(5, 0.6);
    s.reportEpoch(6, 0.6);
    EXPECT_DOUBLE_EQ(s.factorAt(70), 0.5);
    s.reportEpoch(6, 0.6); // a repeated epoch is ignored
    EXPECT_DOUBLE_EQ(s.factorAt(70), 0.5);
    s.reportEpoch(7, 0.6);
    EXPECT_DOUBLE_EQ(s.factorAt(80), 0.25);

    // Accuracies are maximised.
    c.plateauMetric = "val_top1";
    c.plateauPatience = 0;
    LrSchedule acc(c, 1.0, 10, 20);
    acc.reportEpoch(0, 0.5);
    acc.reportEpoch(1, 0.6);
    EXPECT_DOUBLE_EQ(acc.factorAt(20), 1.0);
    acc.reportEpoch(2, 0.55);
    EXPECT_DOUBLE_EQ(acc.factorAt(30), 0.5);
    EXPECT_TRUE(LrSchedule::isMinimizedMetric("train_loss"));
    EXPECT_FALSE(LrSchedule::isMinimizedMetric("val_top1"));
}

TEST(LrSchedule, PlateauIgnoresEpochsInsideTheWarmupAndKeepsItsRamp)
{
    ScheduleConfig c = config("plateau");
    c.plateauPatience = 0;
    c.warmupEpochs = 2;
    c.warmupStartFactor = 0.1;
    LrSchedule s(c, 1.0, 10, 10);
    s.reportEpoch(0, 1.0);
    s.reportEpoch(1, 2.0); // worse, but still warming up: ignored
    EXPECT_DOUBLE_EQ(s.factorAt(25), 1.0);
    s.reportEpoch(2, 1.0);
    s.reportEpoch(3, 1.5); // first bad epoch after the warm-up, patience 0: reduce
    EXPECT_NEAR(s.factorAt(35), 0.1, 1e-15);
    EXPECT_NEAR(s.factorAt(10), 0.1 + 0.9 * 0.5, 1e-15); // the warm-up ramp is unchanged

    const auto curve = s.curve(11);
    ASSERT_EQ(curve.size(), 11u);
    EXPECT_EQ(curve.front().first, 0);
    EXPECT_EQ(curve.back().first, 99);
    EXPECT_NEAR(curve.front().second, 0.1, 1e-15);
    EXPECT_NEAR(curve[5].second, 0.1, 1e-15); // flat after the warm-up
}

TEST(LrSchedule, StateSaveAndLoadResumesTheSameCurve)
{
    ScheduleConfig c = config("plateau");
    c.plateauPatience = 1;
    c.plateauFactor = 0.3;
    const std::vector<double> metrics{1.0, 0.9, 0.95, 0.97, 0.8, 0.85, 0.86, 0.87, 0.5, 0.6, 0.7, 0.8};
    LrSchedule straight(c, 0.1, 5, 12);
    LrSchedule first(c, 0.1, 5, 12);
    for (int e = 0; e < 5; ++e) {
        straight.reportEpoch(e, metrics[e]);
        first.reportEpoch(e, metrics[e]);
    }
    const std::string saved = first.state().dump(); // as the checkpoint sidecar stores it
    LrSchedule resumed(c, 0.1, 5, 12);
    resumed.loadState(nlohmann::json::parse(saved));
    EXPECT_EQ(resumed.state(), first.state());
    resumed.reportEpoch(4, 100.0); // replayed epoch after resume: ignored
    for (int e = 5; e < 12; ++e) {
        straight.reportEpoch(e, metrics[e]);
        resumed.reportEpoch(e, metrics[e]);
        EXPECT_EQ(resumed.lrAt(e * 5), straight.lrAt(e * 5)) << e;
    }
    EXPECT_LT(straight.factorAt(59), 0.3); // it did reduce twice
    EXPECT_EQ(resumed.state(), straight.state());

    // Stateless schedules save their name only; a state saved for another schedule is refused.
    LrSchedule cosine(config("cosine"), 0.1, 5, 12);
    EXPECT_NO_THROW(cosine.loadState(cosine.state()));
    auto message = lathe::test::errorOf([&] { cosine.loadState(first.state()); });
    EXPECT_NE(message.find("scheduler state"), std::string::npos) << message;
    EXPECT_NE(message.find("plateau"), std::string::npos) << message;
    message = lathe::test::errorOf([&] { resumed.loadState(nlohmann::json{{"name", "plateau"}, {"factor", "x"}}); });
    EXPECT_NE(message.find("factor"), std::string::npos) << message;
    message = lathe::test::errorOf([&] { resumed.loadState(nlohmann::json::array()); });
    EXPECT_FALSE(message.empty());
}

TEST(LrSchedule, CurveSpansTheRun)
{
    LrSchedule s(config("cosine"), 0.1, 7, 3);
    const auto curve = s.curve(5);
    ASSERT_EQ(curve.size(), 5u);
    EXPECT_EQ(curve.front().first, 0);
    EXPECT_EQ(curve.back().first, 20);
    for (const auto &[step, lr] : curve)
        EXPECT_DOUBLE_EQ(lr, s.lrAt(step));
    EXPECT_EQ(s.curve(1000).size(), 21u); // never more points than steps
}

TEST(LrSchedule, InvalidSettingsNameTheField)
{
    auto message = lathe::test::errorOf([] { LrSchedule(config("linear"), 0.1, 10, 10); });
    EXPECT_NE(message.find("schedule.name"), std::string::npos) << message;
    ScheduleConfig c = config("step");
    c.stepSize = 0;
    message = lathe::test::errorOf([&] { LrSchedule(c, 0.1, 10, 10); });
    EXPECT_NE(message.find("schedule.step_size"), std::string::npos) << message;
    c = config("multi_step");
    c.milestones = {5, 3};
    message = lathe::test::errorOf([&] { LrSchedule(c, 0.1, 10, 10); });
    EXPECT_NE(message.find("schedule.milestones"), std::string::npos) << message;
    c = config("plateau");
    c.plateauFactor = 1;
    message = lathe::test::errorOf([&] { LrSchedule(c, 0.1, 10, 10); });
    EXPECT_NE(message.find("schedule.plateau_factor"), std::string::npos) << message;
    c = config("cosine");
    c.warmupStartFactor = 2;
    message = lathe::test::errorOf([&] { LrSchedule(c, 0.1, 10, 10); });
    EXPECT_NE(message.find("schedule.warmup_start_factor"), std::string::npos) << message;
    EXPECT_FALSE(lathe::test::errorOf([] { LrSchedule(config("cosine"), 0.1, 0, 10); }).empty());
    EXPECT_FALSE(lathe::test::errorOf([] { LrSchedule(config("cosine"), 0.0, 10, 10); }).empty());
    EXPECT_FALSE(lathe::test::errorOf([] { LrSchedule(config("cosine"), 0.1, 10, 0); }).empty());
}

TEST(LrSchedule, MatchesPyTorchSchedulers)
{
    const lathe::test::PeerRun peer = lathe::test::runParityScript("lr_schedule_reference.py");
    ASSERT_EQ(peer.status, 0) << peer.output;
    const nlohmann::json reference = nlohmann::json::parse(peer.output);
    int compared = 0;
    double worst = 0;
    for (const auto &c : reference.at("cases")) {
        const std::string id = c.at("id");
        LrSchedule s(configFromJson(c.at("config")), c.at("base_lr").get<double>(),
                     c.at("steps_per_epoch").get<std::int64_t>(), c.at("epochs").get<int>());
        if (c.contains("metrics")) {
            const auto &metrics = c.at("metrics");
            const auto &expected = c.at("lr_after_epoch");
            for (std::size_t e = 0; e < metrics.size(); ++e) {
                s.reportEpoch(int(e), metrics[e].get<double>());
                const std::int64_t nextStep = std::int64_t(e + 1) * s.totalSteps() / c.at("epochs").get<int>();
                EXPECT_NEAR(s.lrAt(nextStep), expected[e].get<double>(), 1e-15) << id << " epoch " << e;
                ++compared;
            }
            continue;
        }
        const auto &lrs = c.at("lrs");
        ASSERT_EQ(std::int64_t(lrs.size()), s.totalSteps()) << id;
        for (std::size_t step = 0; step < lrs.size(); ++step) {
            const double ref = lrs[step].get<double>();
            const double diff = std::abs(s.lrAt(std::int64_t(step)) - ref);
            worst = std::max(worst, diff / std::max(ref, 1e-12));
            EXPECT_NEAR(s.lrAt(std::int64_t(step)), ref, 1e-12 + 1e-9 * ref) << id << " step " << step;
            ++compared;
        }
    }
    EXPECT_GT(compared, 1000);
    std::printf("compared %d learning rates with torch %s, worst relative difference %.3g\n", compared,
                reference.at("torch").get<std::string>().c_str(), worst);
}
