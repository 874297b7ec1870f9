// The learning-rate finder and the batch-size finder on real Fashion-MNIST shards made in the
// test: the range test's curve, its stop at divergence, its suggestions against the curve, the
// exact restore of the model and optimizer (also after a cancel); the suggestion rules on known
// curves; the batch search, its CPU memory limit and its caps by the dataset and max_batch.
#include "engine/base/engine_error.h"
#include "engine/base/task_control.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/models/weights_io.h"
#include "engine/training/batch_size_finder.h"
#include "engine/training/lr_finder.h"
#include "engine/training/memory_estimate.h"
#include "engine/training/optimizer_factory.h"
#include "engine/training/training_rig.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <iostream>

using namespace lathe;

namespace {

class FinderTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        at::set_num_threads(1); // a shared 2-core machine: more threads only spin against each other
        s_dir = new test::TempDir();
        s_small = makeShards("small", 16);
        s_tiny = makeShards("tiny", 2);
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }
    static std::string makeShards(const std::string &name, int perClass)
    {
        engine::DemoDataOptions demo;
        demo.outDir = s_dir->file(name + "-images");
        demo.perClass = perClass;
        demo.testPerClass = 1;
        engine::writeDemoData(demo);
        engine::ConvertOptions options;
        options.scan.root = demo.outDir;
        options.scan.nearDuplicateDistance = 0;
        options.outDir = s_dir->file(name + "-shards");
        options.shardRecords = 64;
        return engine::convertFolder(options).outDir;
    }

    // resnet18 on 1-channel 32x32 Fashion-MNIST, SGD with momentum, no augmentation.
    static engine::RunConfig config(const std::string &shards)
    {
        engine::RunConfig c;
        c.data.shards = shards;
        c.data.valSplit = "test";
        c.data.imageSize = 32;
        c.data.augment = {};
        c.data.workers = 1;
        c.model.arch = "resnet18";
        c.model.inChannels = 1;
        c.optimizer.batchSize = 16;
        c.featureCache.mode = "off";
        c.seed = 3;
        return c;
    }

    static engine::NamedTensors copyOf(const engine::NamedTensors &tensors)
    {
        engine::NamedTensors out;
        for (const auto &[name, t] : tensors)
            out.emplace_back(name, t.clone());
        return out;
    }

    static void expectIdentical(const engine::NamedTensors &a, const engine::NamedTensors &b)
    {
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].first, b[i].first);
            EXPECT_TRUE(torch::equal(a[i].second, b[i].second)) << a[i].first << " changed";
        }
    }

    // A rig with optimizer state (momentum buffers) from one real step, so that restoring it is
    // more than restoring an empty state.
    static std::unique_ptr<engine::TrainingRig> steppedRig()
    {
        auto rig = std::make_unique<engine::TrainingRig>(config(s_small));
        rig->clearGradients();
        torch::manual_seed(1);
        rig->forwardBackward(torch::randn({8, 1, 32, 32}), torch::randint(10, {8}, torch::kInt64));
        rig->step(0.01);
        return rig;
    }

    static test::TempDir *s_dir;
    static std::string s_small;
    static std::string s_tiny;
};

test::TempDir *FinderTest::s_dir = nullptr;
std::string FinderTest::s_small;
std::string FinderTest::s_tiny;

} // namespace

TEST_F(FinderTest, RangeTestRestoresModelAndOptimizerExactly)
{
    std::unique_ptr<engine::TrainingRig> rig = steppedRig();
    const engine::NamedTensors weights = copyOf(engine::stateDict(*rig->model));
    const engine::NamedTensors state = copyOf(engine::optimizerState(*rig->optimizer, rig->groups));
    ASSERT_FALSE(state.empty());
    const double lr = rig->optimizer->param_groups().front().options().get_lr();

    // Meanwhile the weights really move: the test would prove nothing otherwise.
    bool moved = false;
    engine::LrFinderOptions options;
    options.steps = 12;
    options.startLr = 1e-3;
    options.endLr = 0.1;
    options.onPoint = [&](const engine::LrFinderPoint &, int index) {
        if (index == 10)
            moved = !torch::equal(engine::stateDict(*rig->model).front().second, weights.front().second);
    };
    const engine::LrFinderResult r = engine::findLearningRate(*rig, options);
    EXPECT_EQ(r.stepsDone, 12);
    EXPECT_TRUE(moved);

    expectIdentical(engine::stateDict(*rig->model), weights); // parameters and buffers (BatchNorm statistics)
    expectIdentical(engine::optimizerState(*rig->optimizer, rig->groups), state);
    EXPECT_EQ(rig->optimizer->param_groups().front().options().get_lr(), lr);
    EXPECT_TRUE(rig->model->is_training());
}

TEST_F(FinderTest, CurveRisesInLrFallsThenDivergesAndTheSuggestionsLieBetween)
{
    engine::LrFinderOptions options;
    options.steps = 80;
    options.startLr = 1e-5;
    int progressCalls = 0;
    double lastFraction = 0;
    engine::TaskControl control;
    control.progress = [&](double fraction, const std::string &) {
        ++progressCalls;
        lastFraction = fraction;
    };
    const engine::LrFinderResult r = engine::findLearningRate(config(s_small), options, control);
    std::cout << engine::lrFinderResultToJson(r).dump() << '\n';

    ASSERT_GE(r.points.size(), 20u);
    EXPECT_EQ(r.stepsPlanned, 80);
    EXPECT_EQ(r.batchSize, 16);
    EXPECT_EQ(r.device, "cpu");
    EXPECT_DOUBLE_EQ(r.points.front().lr, 1e-5);
    for (std::size_t i = 1; i < r.points.size(); ++i) {
        EXPECT_GT(r.points[i].lr, r.points[i - 1].lr);
        // Exponential: the same ratio between neighbours.
        EXPECT_NEAR(std::log(r.points[i].lr / r.points[i - 1].lr), std::log(1e6) / 79, 1e-9);
    }
    // The first smoothed value is the first loss itself (bias correction), near ln(10) for 10 classes.
    EXPECT_NEAR(r.points.front().smoothed, r.points.front().loss, 1e-9);
    EXPECT_NEAR(r.points.front().loss, std::log(10.0), 1.0);
    EXPECT_EQ(progressCalls, r.stepsDone);
    EXPECT_LE(lastFraction, 1.0);

    // SGD at lr up to 10 blows the loss up before the last step.
    EXPECT_EQ(r.stoppedEarly, "diverged");
    EXPECT_LT(r.stepsDone, 80);
    double best = r.points.front().smoothed;
    for (std::size_t i = 0; i + 1 < r.points.size(); ++i)
        best = std::min(best, r.points[i].smoothed);
    EXPECT_GT(r.points.back().smoothed, 4 * best);
    const double divergedLr = r.points.back().lr;

    // Where the smoothed loss starts falling: the last point before its minimum that is still at
    // the level of the trimmed curve's start.
    std::size_t minimum = std::size_t(r.trimStart);
    for (std::size_t i = std::size_t(r.trimStart); i < r.points.size(); ++i)
        if (r.points[i].smoothed < r.points[minimum].smoothed)
            minimum = i;
    std::size_t fall = std::size_t(r.trimStart);
    for (std::size_t i = fall; i < minimum; ++i)
        if (r.points[i].smoothed >= 0.99 * r.points[std::size_t(r.trimStart)].smoothed)
            fall = i;
    const double fallLr = r.points[fall].lr;
    std::cout << "falls from lr " << fallLr << ", minimum at lr " << r.points[minimum].lr << ", diverged at lr "
              << divergedLr << '\n';
    ASSERT_EQ(r.suggestions.size(), 2u);
    for (const char *rule : {"steepest", "valley"}) {
        const engine::LrSuggestion *s = r.suggestion(rule);
        ASSERT_NE(s, nullptr) << rule;
        std::cout << rule << ": lr " << s->lr << '\n';
        EXPECT_GE(s->lr, fallLr) << rule;
        EXPECT_LE(s->lr, divergedLr) << rule;
        EXPECT_LE(s->lr, r.points[minimum].lr) << rule << " suggests a rate past the loss's minimum";
        EXPECT_DOUBLE_EQ(s->lr, r.points[std::size_t(s->index)].lr);
    }
}

TEST_F(FinderTest, HugeEndLrStopsEarly)
{
    engine::LrFinderOptions options;
    options.steps = 40;
    options.startLr = 1e-2;
    options.endLr = 1e6;
    const engine::LrFinderResult r = engine::findLearningRate(config(s_small), options);
    EXPECT_TRUE(r.stoppedEarly == "diverged" || r.stoppedEarly == "non_finite") << r.stoppedEarly;
    EXPECT_LT(r.stepsDone, 40);
    for (const engine::LrFinderPoint &p : r.points)
        EXPECT_TRUE(std::isfinite(p.loss) && std::isfinite(p.smoothed));
}

TEST_F(FinderTest, CancelStopsTheRangeTestAndRestores)
{
    std::unique_ptr<engine::TrainingRig> rig = steppedRig();
    const engine::NamedTensors weights = copyOf(engine::stateDict(*rig->model));
    engine::TaskControl control;
    int points = 0;
    engine::LrFinderOptions options;
    options.steps = 50;
    options.onPoint = [&](const engine::LrFinderPoint &, int index) {
        points = index + 1;
        if (index == 3)
            control.cancel.cancel();
    };
    EXPECT_THROW(engine::findLearningRate(*rig, options, control), engine::Cancelled);
    EXPECT_EQ(points, 4);
    expectIdentical(engine::stateDict(*rig->model), weights);
}

TEST_F(FinderTest, BadOptionsAreRefusedByName)
{
    engine::LrFinderOptions options;
    options.steps = 1;
    try {
        engine::findLearningRate(config(s_small), options);
        FAIL() << "steps 1 accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("steps"), std::string::npos) << e.what();
    }
    options.steps = 10;
    options.endLr = options.startLr;
    EXPECT_THROW(engine::findLearningRate(config(s_small), options), engine::EngineError);
}

// The rules on curves whose answer is known.
TEST(LrSuggestionRules, SteepestAndValleyOnKnownCurves)
{
    // Smoothed loss 2 flat, then falling by 0.1, 0.1, 0.5 (the steepest, from index 12), 0.1, then rising.
    std::vector<double> s = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1.9, 1.8, 1.7, 1.2, 1.1, 1.15, 1.3, 1.6, 2.5, 4, 6, 9};
    std::vector<engine::LrFinderPoint> p;
    for (std::size_t i = 0; i < s.size(); ++i)
        p.push_back({1e-4 * std::pow(10.0, double(i) / 4), s[i], s[i]});
    const std::vector<engine::LrSuggestion> r = engine::suggestLearningRates(p, 0, int(p.size()));
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].rule, "steepest");
    EXPECT_EQ(r[0].index, 12);
    EXPECT_DOUBLE_EQ(r[0].lr, p[12].lr);
    // The longest decreasing run: 2 (index 9), 1.9, 1.8, 1.7, 1.2, 1.1 (index 14): span 5 steps,
    // int(5/3) + int(5/6) = 1 step in from index 9.
    EXPECT_EQ(r[1].rule, "valley");
    EXPECT_EQ(r[1].index, 10);

    // A curve falling all the way: the valley is all of it (span 29): 9 + 4 = 13 steps in.
    std::vector<engine::LrFinderPoint> down;
    for (int i = 0; i < 30; ++i)
        down.push_back({std::pow(10.0, -6 + i / 5.0), 3.0 - i * 0.05, 3.0 - i * 0.05});
    const std::vector<engine::LrSuggestion> d = engine::suggestLearningRates(down, 0, 30);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[1].index, 13);

    // Too few points for a slope: no suggestion.
    EXPECT_TRUE(engine::suggestLearningRates(down, 5, 7).empty());
    int begin = 0, end = 0;
    engine::trimRange(100, 100, begin, end);
    EXPECT_EQ(begin, 10);
    EXPECT_EQ(end, 95);
    engine::trimRange(100, 12, begin, end);
    EXPECT_EQ(begin, 3);
    EXPECT_EQ(end, 9);
}

TEST(BatchSearch, DoublesThenBisects)
{
    std::vector<int> tried;
    const auto under = [&tried](int limit) {
        return [&tried, limit](int b) {
            tried.push_back(b);
            return b <= limit;
        };
    };
    bool capped = true;
    EXPECT_EQ(engine::searchBatchSize(2, 1000, under(37), &capped), 37);
    EXPECT_FALSE(capped);
    EXPECT_EQ(tried, (std::vector<int>{2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37}));
    tried.clear();
    EXPECT_EQ(engine::searchBatchSize(2, 20, under(37), &capped), 20);
    EXPECT_TRUE(capped);
    EXPECT_EQ(tried, (std::vector<int>{2, 4, 8, 16, 20}));
    tried.clear();
    EXPECT_EQ(engine::searchBatchSize(8, 100, under(3), &capped), 3); // the start itself too large
    EXPECT_EQ(tried, (std::vector<int>{8, 4, 2, 3}));
    EXPECT_EQ(engine::searchBatchSize(2, 100, under(0), &capped), 0);
    EXPECT_EQ(engine::searchBatchSize(64, 100, under(64), &capped), 64);
}

TEST_F(FinderTest, BatchFinderOnTheCpuKeepsTheEstimateWithinMaxMemory)
{
    const engine::RunConfig c = config(s_small);
    // The memory model first, without a limit that matters: the dataset caps it (160 records).
    engine::BatchSizeFinderOptions options;
    options.maxMemory = std::int64_t(1) << 40;
    const engine::BatchSizeResult open = engine::findBatchSize(c, options);
    EXPECT_EQ(open.batchSize, 160);
    EXPECT_EQ(open.stoppedBy, "dataset");
    EXPECT_FALSE(open.measured);
    ASSERT_GT(open.bytesPerImage, 0);
    ASSERT_GT(open.bytesFixed, 0);
    // The per-image part holds at least the measured activations of the engine's estimate.
    engine::RunConfig effective = c;
    effective.optimizer.batchSize = 8;
    const engine::MemoryEstimate estimate = engine::estimateTrainingMemory(effective, 10);
    EXPECT_GE(open.bytesPerImage, estimate.activationsPerImage);
    EXPECT_GE(open.bytesFixed, estimate.parameters + estimate.gradients + estimate.optimizerState);

    // A limit between batch 37 and 38.
    options.maxMemory = open.bytesFixed + 37 * open.bytesPerImage + open.bytesPerImage / 2;
    const engine::BatchSizeResult r = engine::findBatchSize(c, options);
    std::cout << engine::batchSizeResultToJson(r).dump() << '\n';
    EXPECT_EQ(r.batchSize, 37);
    EXPECT_EQ(r.stoppedBy, "memory");
    EXPECT_EQ(r.memoryLimit, options.maxMemory);
    bool sawFound = false, sawNext = false, sawPower = false;
    for (const engine::BatchSizeTrial &t : r.trials) {
        EXPECT_EQ(t.fits, t.bytes <= options.maxMemory) << t.batch;
        EXPECT_EQ(t.bytes, r.bytesFixed + t.batch * r.bytesPerImage);
        if (t.batch == 37)
            sawFound = t.fits;
        if (t.batch == 38)
            sawNext = !t.fits;
        if (t.batch == 64)
            sawPower = !t.fits;
    }
    EXPECT_TRUE(sawFound && sawNext && sawPower);

    // Not even batch 1: an error that says so.
    options.maxMemory = open.bytesFixed / 2;
    try {
        engine::findBatchSize(c, options);
        FAIL() << "a limit below the model's own size accepted";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("not even a batch of 1"), std::string::npos) << e.what();
    }
}

TEST_F(FinderTest, BatchFinderIsCappedByTheDatasetAndMaxBatch)
{
    engine::BatchSizeFinderOptions options;
    options.maxMemory = std::int64_t(1) << 40;
    engine::RunConfig c = config(s_tiny); // 20 training records
    engine::BatchSizeResult r = engine::findBatchSize(c, options);
    EXPECT_EQ(r.datasetCap, 20);
    EXPECT_EQ(r.batchSize, 20);
    EXPECT_EQ(r.stoppedBy, "dataset");
    // Two accumulated batches per optimizer step: each at most half the split.
    c.optimizer.accumulateSteps = 2;
    r = engine::findBatchSize(c, options);
    EXPECT_EQ(r.batchSize, 10);
    EXPECT_EQ(r.stoppedBy, "dataset");

    options.maxBatch = 12;
    r = engine::findBatchSize(config(s_small), options);
    EXPECT_EQ(r.batchSize, 12);
    EXPECT_EQ(r.stoppedBy, "max_batch");
    EXPECT_GT(engine::availableMemoryBytes(), 0);
}
