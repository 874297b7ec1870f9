// The trainer end to end on real Fashion-MNIST shards made in the test: learning, exact resume
// (after cancel and after a simulated kill -9), 2 Gloo ranks == 1 rank with twice the batch,
// early stopping, NaN detection, bf16, freezing, the feature cache, bad configs and cancel.
#include "engine/base/engine_error.h"
#include "engine/base/runtime_info.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/formats/safetensors.h"
#include "engine/models/model_builder.h"
#include "engine/pipeline/augmentation.h"
#include "engine/run/run_folder.h"
#include "engine/training/device_feed.h"
#include "engine/training/trainer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>

namespace fs = std::filesystem;
using namespace lathe;
using nlohmann::json;

namespace {

class TrainerTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        s_dir = new test::TempDir();
        s_small = makeShards("small", 16, 5);
        s_large = makeShards("large", 100, 20);
        // One torch thread and one pipeline worker: on a shared 2-core machine more threads
        // only spin against each other.
    }
    static void TearDownTestSuite()
    {
        delete s_dir;
        s_dir = nullptr;
    }
    static std::string makeShards(const std::string &name, int perClass, int testPerClass)
    {
        engine::DemoDataOptions demo;
        demo.outDir = s_dir->file(name + "-images");
        demo.perClass = perClass;
        demo.testPerClass = testPerClass;
        engine::writeDemoData(demo);
        engine::ConvertOptions options;
        options.scan.root = demo.outDir;
        options.scan.nearDuplicateDistance = 0;
        options.outDir = s_dir->file(name + "-shards");
        options.shardRecords = 64;
        return engine::convertFolder(options).outDir;
    }

    // A small, fast run: resnet18 on 1-channel 32x32 images, no augmentation.
    static engine::RunConfig smallConfig()
    {
        engine::RunConfig c;
        c.data.shards = s_small;
        c.data.valSplit = "test";
        c.data.imageSize = 32;
        c.data.augment = {};
        c.data.workers = 1;
        c.model.arch = "resnet18";
        c.model.inChannels = 1;
        c.optimizer.batchSize = 16;
        c.optimizer.epochs = 2;
        c.optimizer.lr = 0.05;
        c.schedule.name = "cosine";
        c.checkpoints.keep = 20;
        c.featureCache.mode = "off";
        c.seed = 7;
        return c;
    }

    // One CPU rank of batch 16 with plain SGD at a constant, small rate: float sums over 16 images
    // in one pass and over 8 + 8 in two differ in their last bits (how much depends on the CPU's
    // convolution kernels: AVX-512 ones differ more), and a small rate keeps that from growing.
    static engine::RunConfig oneRankOf16()
    {
        engine::RunConfig c = smallConfig();
        c.optimizer.epochs = 1;
        c.optimizer.momentum = 0;
        c.optimizer.weightDecay = 0;
        c.optimizer.batchSize = 16;
        c.optimizer.lr = 0.005;
        c.schedule.name = "constant";
        c.data.valSplit = "";
        c.checkpoints.bestMetric = "train_loss";
        return c;
    }
    // The same run as two CPU ranks of batch 8 (Gloo): the same images in each step.
    static engine::RunConfig twoRanksOf8(engine::RunConfig c)
    {
        c.optimizer.batchSize = 8;
        c.devices = {"cpu", "cpu"};
        return c;
    }

    std::string runDir(const std::string &name) const { return (m_tmp.path() / name).string(); }

    static engine::NamedTensors lastModel(const std::string &run)
    {
        return engine::readSafetensors(run + "/checkpoints/last.safetensors");
    }

    static void expectSameTensors(const engine::NamedTensors &a, const engine::NamedTensors &b, double atol,
                                  double rtol = 1e-5)
    {
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].first, b[i].first);
            if (!a[i].second.is_floating_point()) {
                EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
                continue;
            }
            EXPECT_TRUE(torch::allclose(a[i].second, b[i].second, rtol, atol))
                << a[i].first << " max diff " << (a[i].second - b[i].second).abs().max().item<double>();
        }
    }

    static std::map<std::int64_t, double> stepLosses(const std::string &run)
    {
        std::map<std::int64_t, double> out;
        for (const json &e : engine::readMetrics(run))
            if (e.value("type", "") == "step")
                out[e.at("step").get<std::int64_t>()] = e.at("loss").get<double>();
        return out;
    }

    static std::vector<json> events(const std::string &run, const std::string &type)
    {
        std::vector<json> out;
        for (const json &e : engine::readMetrics(run))
            if (e.value("type", "") == type)
                out.push_back(e);
        return out;
    }

    static torch::Tensor find(const engine::NamedTensors &tensors, const std::string &name)
    {
        for (const auto &e : tensors)
            if (e.first == name)
                return e.second;
        ADD_FAILURE() << "no tensor " << name;
        return {};
    }

    static test::TempDir *s_dir;
    static std::string s_small;
    static std::string s_large;
    test::TempDir m_tmp;
};

test::TempDir *TrainerTest::s_dir = nullptr;
std::string TrainerTest::s_small;
std::string TrainerTest::s_large;

TEST_F(TrainerTest, ShortRealRunLearnsAndWritesTheRunFolder)
{
    engine::RunConfig c = smallConfig();
    c.data.shards = s_large;
    c.data.augment = {{"horizontal_flip", 0.5, json::object()}};
    c.optimizer.name = "adamw";
    c.optimizer.lr = 2e-3;
    c.optimizer.weightDecay = 0.01;
    c.optimizer.batchSize = 32;
    c.optimizer.epochs = 2;
    c.checkpoints.everyEpochs = 0;
    const std::string run = runDir("real");
    const json summary = engine::train(c, run);
    std::cout << "short real run summary: " << summary.dump() << '\n';
    EXPECT_EQ(summary.at("status"), "finished");
    EXPECT_EQ(summary.at("epochs"), 2);
    const std::vector<json> epochs = events(run, "epoch");
    ASSERT_EQ(epochs.size(), 2u);
    const double top1 = epochs.back().at("val_top1").get<double>();
    // Measured 0.72 on this machine (resnet18 from scratch, 1000 images, 2 epochs); chance is 0.1.
    EXPECT_GE(top1, 0.6);
    EXPECT_LT(epochs.back().at("train_loss").get<double>(), epochs.front().at("train_loss").get<double>());
    EXPECT_EQ(epochs.back().at("per_class_accuracy").size(), 10u);
    EXPECT_TRUE(epochs.back().contains("val_top5"));
    EXPECT_TRUE(fs::exists(run + "/config.json"));
    EXPECT_TRUE(fs::exists(run + "/metrics.jsonl"));
    EXPECT_TRUE(fs::exists(run + "/log.txt"));
    EXPECT_TRUE(fs::exists(run + "/checkpoints/last.json"));
    EXPECT_TRUE(fs::exists(run + "/checkpoints/best.safetensors"));
    bool tfevents = false;
    for (const auto &entry : fs::directory_iterator(run))
        tfevents = tfevents || entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
    EXPECT_TRUE(tfevents);
    EXPECT_FALSE(events(run, "step").empty());
    for (const json &e : events(run, "step")) {
        EXPECT_TRUE(e.contains("images_per_s"));
        EXPECT_TRUE(e.contains("input_wait_fraction"));
        EXPECT_EQ(e.at("total_steps"), summary.at("steps")); // what the Train page's ETA uses
    }
    EXPECT_EQ(events(run, "finished").size(), 1u);
    // The effective config: the dataset's class count.
    const json config = json::parse(std::ifstream(run + "/config.json"));
    EXPECT_EQ(config.at("model").at("head").at("num_classes"), 10);
}

TEST_F(TrainerTest, ResumeAfterCancelContinuesExactly)
{
    engine::RunConfig c = smallConfig();
    c.data.augment = engine::standardAugmentations(); // random crops: the pipeline's seeds must line up
    c.ema.enabled = true;
    c.ema.decay = 0.9;
    c.optimizer.nesterov = true;
    engine::TrainControl control;
    control.stepEventEvery = 1;
    const std::string straight = runDir("straight");
    const json a = engine::train(c, straight, control);
    ASSERT_EQ(a.at("status"), "finished");
    const std::int64_t total = a.at("steps").get<std::int64_t>();
    ASSERT_GE(total, 10);

    const std::string split = runDir("split");
    engine::TrainControl first = control;
    first.stopAfterStep = 7; // mid epoch 1 with 9 or 10 steps per epoch
    const json b1 = engine::train(c, split, first);
    EXPECT_EQ(b1.at("status"), "cancelled");
    EXPECT_EQ(b1.at("steps"), 7);
    const json b2 = engine::resume(split, control);
    EXPECT_EQ(b2.at("status"), "finished");
    EXPECT_EQ(b2.at("steps"), total);
    EXPECT_EQ(events(split, "resumed").size(), 1u);

    expectSameTensors(lastModel(straight), lastModel(split), 1e-6);
    const auto la = stepLosses(straight);
    const auto lb = stepLosses(split);
    ASSERT_EQ(la.size(), std::size_t(total));
    ASSERT_EQ(lb.size(), std::size_t(total));
    for (const auto &[step, loss] : la)
        EXPECT_NEAR(lb.at(step), loss, 1e-5 * std::max(1.0, std::abs(loss))) << "step " << step;
    const auto ea = events(straight, "epoch");
    const auto eb = events(split, "epoch");
    ASSERT_EQ(ea.size(), eb.size());
    EXPECT_NEAR(ea.back().at("val_loss").get<double>(), eb.back().at("val_loss").get<double>(), 1e-5);
    EXPECT_NEAR(ea.front().at("train_loss").get<double>(), eb.front().at("train_loss").get<double>(), 1e-5);
}

TEST_F(TrainerTest, ResumeAfterKillFromLastCompleteCheckpoint)
{
    engine::RunConfig c = smallConfig();
    c.model.arch = "mobilenet_v3_small"; // small checkpoints (several are written); dropout seeded per step
    c.checkpoints.everySteps = 4;
    c.optimizer.momentum = 0.9;
    const std::string straight = runDir("kill-straight");
    const json a = engine::train(c, straight);
    ASSERT_EQ(a.at("status"), "finished");
    const std::int64_t total = a.at("steps").get<std::int64_t>();

    // A copy of the run as a kill -9 after step 4's checkpoint leaves it: later checkpoints
    // gone, a half-written one left behind, metrics.jsonl cut mid-line.
    const std::string killed = runDir("killed");
    fs::copy(straight, killed, fs::copy_options::recursive);
    for (const auto &entry : fs::directory_iterator(killed + "/checkpoints")) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("step-4.", 0) != 0)
            fs::remove(entry.path());
    }
    test::writeRaw(killed + "/checkpoints/step-8.safetensors.tmp", {1, 2, 3});
    test::writeRaw(killed + "/checkpoints/step-8.safetensors", {1, 2, 3});
    {
        std::ofstream(killed + "/metrics.jsonl", std::ios::app) << "{\"type\": \"step\", \"ste";
    }
    const json b = engine::resume(killed);
    EXPECT_EQ(b.at("status"), "finished");
    EXPECT_EQ(b.at("steps"), total);
    const auto resumed = events(killed, "resumed");
    ASSERT_EQ(resumed.size(), 1u);
    EXPECT_EQ(resumed.front().at("step"), 4);
    expectSameTensors(lastModel(straight), lastModel(killed), 1e-6);
}

TEST_F(TrainerTest, TwoGlooRanksEqualOneRankWithTwiceTheBatch)
{
    engine::RunConfig one = oneRankOf16();
    one.model.freeze.freezeBatchNorm = true; // batch statistics would differ between B and 2B
    engine::RunConfig two = twoRanksOf8(one);
    const std::string r1 = runDir("one-rank");
    const std::string r2 = runDir("two-ranks");
    const json a = engine::train(one, r1);
    const json b = engine::train(two, r2);
    ASSERT_EQ(a.at("steps"), b.at("steps"));
    ASSERT_GE(a.at("steps").get<int>(), 5);
    expectSameTensors(lastModel(r1), lastModel(r2), 2e-5, 1e-4);
    // And the weights did move: not trivially equal.
    torch::manual_seed(one.seed);
    engine::ModelSpec spec = one.model;
    spec.head.numClasses = 10;
    const engine::BuiltModel init = engine::buildModel(spec);
    const torch::Tensor w0 = init.classifier->named_parameters()["fc.weight"];
    EXPECT_FALSE(torch::allclose(w0, find(lastModel(r1), "fc.weight")));
}

// distributed.sync_batch_norm: with BatchNorm training, two ranks of batch B normalise with the
// statistics of both halves together, so they equal one rank of batch 2B (the running
// statistics included), as PyTorch's SyncBatchNorm makes DDP do. Two steps: batch statistics of
// 16 images at 1x1 pixel (ResNet's last stage at 32 px) amplify float rounding about a
// hundredfold a step, so longer runs drift apart by rounding alone.
TEST_F(TrainerTest, TwoGlooRanksWithSyncBatchNormEqualOneRankWithTwiceTheBatch)
{
    const engine::RunConfig one = oneRankOf16();
    engine::RunConfig two = twoRanksOf8(one);
    two.distributed.syncBatchNorm = true;
    engine::TrainControl control;
    control.stopAfterStep = 2;
    const std::string r1 = runDir("one-rank-bn");
    const std::string r2 = runDir("two-ranks-sync-bn");
    engine::train(one, r1, control);
    engine::train(two, r2, control);
    expectSameTensors(lastModel(r1), lastModel(r2), 1e-5, 1e-4);
    bool said = false;
    for (const json &e : events(r2, "log"))
        said |= e.at("message").get<std::string>() ==
                "distributed.sync_batch_norm: 20 BatchNorm layers normalise with the statistics of all 2 ranks' batches";
    EXPECT_TRUE(said);
    // Without it, each rank's own statistics give another model.
    two.distributed.syncBatchNorm = false;
    const std::string r3 = runDir("two-ranks-own-bn");
    engine::train(two, r3, control);
    EXPECT_FALSE(torch::allclose(find(lastModel(r1), "layer1.0.bn1.running_var"),
                                 find(lastModel(r3), "layer1.0.bn1.running_var"), 1e-4, 1e-5));
}

TEST_F(TrainerTest, EarlyStoppingStopsAtPatience)
{
    engine::RunConfig c = smallConfig();
    c.optimizer.epochs = 8;
    c.earlyStopping.enabled = true;
    c.earlyStopping.metric = "val_top1";
    c.earlyStopping.patience = 2;
    c.earlyStopping.minDelta = 1; // an accuracy cannot improve by more: only the first epoch counts
    const std::string run = runDir("early");
    const json s = engine::train(c, run);
    EXPECT_EQ(s.at("status"), "finished");
    EXPECT_TRUE(s.at("stopped_early").get<bool>());
    EXPECT_EQ(s.at("epochs"), 3);
    EXPECT_EQ(events(run, "epoch").size(), 3u);
}

TEST_F(TrainerTest, NonFiniteLossFailsNamingTheStep)
{
    engine::RunConfig c = smallConfig();
    c.model.arch = "mobilenet_v3_small";
    c.optimizer.lr = 1e10;
    c.optimizer.momentum = 0;
    c.schedule.name = "constant";
    c.checkpoints.everySteps = 1;
    const std::string run = runDir("nan");
    try {
        engine::train(c, run);
        FAIL() << "expected a failure";
    } catch (const engine::EngineError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("at step "), std::string::npos) << what;
        EXPECT_NE(what.find("loss is"), std::string::npos) << what;
    }
    // Read every 4 steps (cuda.host_sync_steps), the failure names the steps it lies in.
    c.cuda.hostSyncSteps = 4;
    try {
        engine::train(c, runDir("nan-every-4"));
        FAIL() << "expected a failure";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("loss is not finite in steps "), std::string::npos) << e.what();
    }
    const auto failed = events(run, "failed");
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_NE(failed.front().at("message").get<std::string>().find("at step"), std::string::npos);
    EXPECT_TRUE(fs::exists(run + "/checkpoints/last.json")); // the last good step is kept
}

// The CUDA step's options on the CPU: sums read by the host every 3 steps instead of every step
// and cuda.graphs (refused on the CPU, with the reason in the log) give exactly the same run.
TEST_F(TrainerTest, DeviceSideSumsReadEveryFewStepsGiveTheSameRun)
{
    engine::RunConfig c = smallConfig();
    c.optimizer.clipGradNorm = 1.0; // clipped on the device too
    const std::string eager = runDir("sync-every-step");
    engine::train(c, eager);
    c.cuda.hostSyncSteps = 3;
    c.cuda.graphs = true;
    const std::string deferred = runDir("sync-every-3");
    engine::train(c, deferred);
    expectSameTensors(lastModel(eager), lastModel(deferred), 0, 0);
    const auto a = events(eager, "epoch"), b = events(deferred, "epoch");
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (const char *key : {"train_loss", "train_top1", "val_loss", "val_top1"})
        for (std::size_t i = 0; i < a.size(); ++i)
            EXPECT_EQ(a[i].at(key), b[i].at(key)) << key << " of epoch " << i;
    bool refused = false;
    for (const json &e : events(deferred, "log"))
        refused |= e.at("message").get<std::string>().find("cuda.graphs: not used, the step runs eagerly: the device is cpu") == 0;
    EXPECT_TRUE(refused);
    for (const json &e : events(deferred, "step")) // no GPU, no GPU figures
        EXPECT_FALSE(e.contains("gpu_memory_allocated_mib")) << e.dump();
}

// data.device_normalize: uint8 batches normalised by DeviceFeed equal the pipeline's float32
// normalisation, and a run trained on them learns as the pipeline-normalised one does.
TEST_F(TrainerTest, NormalizingOnTheDeviceMatchesThePipeline)
{
    engine::PipelineOptions o;
    o.datasetDir = s_small;
    o.split = "test";
    o.transform.train = false;
    o.transform.imageSize = 32;
    o.transform.resizeSize = 32;
    o.transform.channels = 1;
    o.transform.channelsLast = true;
    o.batchSize = 8;
    o.threads = 1;
    o.shuffle = false;
    engine::PipelineOptions bytes = o;
    bytes.transform.uint8Output = true;
    engine::PipelineSource floats(o);
    engine::DeviceFeed fed(std::make_unique<engine::PipelineSource>(bytes), torch::kCPU, true, o.transform.mean,
                           o.transform.std, 1);
    floats.start(0, 0);
    fed.start(0, 0);
    int batches = 0;
    while (std::optional<engine::Batch> x = floats.next()) {
        const std::optional<engine::Batch> y = fed.next();
        ASSERT_TRUE(y);
        EXPECT_EQ(y->images.scalar_type(), torch::kFloat32);
        EXPECT_TRUE(y->images.is_contiguous(at::MemoryFormat::ChannelsLast));
        EXPECT_TRUE(torch::allclose(x->images, y->images, 1e-5, 1e-5))
            << "batch " << batches << ": max diff " << (x->images - y->images).abs().max().item<double>();
        EXPECT_TRUE(x->labels.equal(y->labels));
        ++batches;
    }
    EXPECT_FALSE(fed.next());
    EXPECT_EQ(batches, 50 / 8);

    // The first step's loss (same weights, same batch): equal but for float rounding. Later steps
    // drift apart as training amplifies the rounding.
    engine::RunConfig c = smallConfig();
    c.optimizer.epochs = 1;
    c.data.deviceNormalize = "off";
    const std::string off = runDir("normalize-off");
    engine::train(c, off);
    c.data.deviceNormalize = "on";
    const std::string on = runDir("normalize-on");
    const json summary = engine::train(c, on);
    EXPECT_EQ(summary.at("status"), "finished");
    ASSERT_TRUE(stepLosses(off).count(1) && stepLosses(on).count(1));
    EXPECT_NEAR(stepLosses(on).at(1), stepLosses(off).at(1), 1e-5 * stepLosses(off).at(1));
}

TEST_F(TrainerTest, Bf16AutocastTrains)
{
    engine::RunConfig c = smallConfig();
    c.precision = "bf16";
    c.optimizer.epochs = 1;
    const std::string run = runDir("bf16");
    const json s = engine::train(c, run);
    EXPECT_EQ(s.at("status"), "finished");
    const auto epochs = events(run, "epoch");
    ASSERT_EQ(epochs.size(), 1u);
    EXPECT_TRUE(std::isfinite(epochs.front().at("train_loss").get<double>()));
    EXPECT_TRUE(std::isfinite(epochs.front().at("val_loss").get<double>()));
    // Weights stay float32 (autocast computes in bf16, the master weights are not cast).
    EXPECT_EQ(find(lastModel(run), "fc.weight").scalar_type(), torch::kFloat32);
}

TEST_F(TrainerTest, FreezingPoliciesTrainOnlyWhatTheyShould)
{
    engine::RunConfig c = smallConfig();
    c.optimizer.epochs = 1;
    c.optimizer.weightDecay = 0;
    c.model.freeze.policy = engine::FreezePolicy::UpToStage;
    c.model.freeze.frozenStages = 2; // stem, layer1
    const std::string run = runDir("up-to-stage");
    engine::train(c, run);
    torch::manual_seed(c.seed);
    engine::ModelSpec spec = c.model;
    spec.head.numClasses = 10;
    const engine::BuiltModel init = engine::buildModel(spec);
    const engine::NamedTensors trained = lastModel(run);
    auto params = init.classifier->named_parameters();
    EXPECT_TRUE(torch::equal(params["conv1.weight"], find(trained, "conv1.weight")));
    EXPECT_TRUE(torch::equal(params["layer1.0.conv1.weight"], find(trained, "layer1.0.conv1.weight")));
    EXPECT_TRUE(torch::equal(params["layer1.1.bn2.weight"], find(trained, "layer1.1.bn2.weight")));
    // Frozen stages keep their BatchNorm statistics too.
    auto buffers = init.classifier->named_buffers();
    EXPECT_TRUE(torch::equal(buffers["layer1.0.bn1.running_mean"], find(trained, "layer1.0.bn1.running_mean")));
    EXPECT_FALSE(torch::equal(params["layer2.0.conv1.weight"], find(trained, "layer2.0.conv1.weight")));
    EXPECT_FALSE(torch::equal(params["fc.weight"], find(trained, "fc.weight")));

    c.model.freeze.policy = engine::FreezePolicy::HeadOnly;
    const std::string head = runDir("head-only");
    engine::train(c, head);
    const engine::NamedTensors headTrained = lastModel(head);
    EXPECT_TRUE(torch::equal(params["layer4.1.conv2.weight"], find(headTrained, "layer4.1.conv2.weight")));
    EXPECT_TRUE(torch::equal(params["conv1.weight"], find(headTrained, "conv1.weight")));
    EXPECT_FALSE(torch::equal(params["fc.weight"], find(headTrained, "fc.weight")));
}

TEST_F(TrainerTest, FeatureCacheTrainsTheHeadAsTheUncachedPath)
{
    engine::RunConfig c = smallConfig();
    c.data.shards = s_large;
    c.optimizer.epochs = 2;
    c.optimizer.batchSize = 32;
    c.model.freeze.policy = engine::FreezePolicy::HeadOnly;
    c.featureCache.mode = "off";
    const std::string plain = runDir("uncached");
    const json a = engine::train(c, plain);
    EXPECT_FALSE(a.at("feature_cache").get<bool>());
    c.featureCache.mode = "auto";
    const std::string cached = runDir("cached");
    const json b = engine::train(c, cached);
    EXPECT_TRUE(b.at("feature_cache").get<bool>());
    EXPECT_EQ(a.at("steps"), b.at("steps"));
    expectSameTensors(lastModel(plain), lastModel(cached), 1e-5, 1e-4);
    const auto ea = events(plain, "epoch");
    const auto eb = events(cached, "epoch");
    ASSERT_EQ(ea.size(), 2u);
    ASSERT_EQ(eb.size(), 2u);
    EXPECT_NEAR(ea.back().at("val_top1").get<double>(), eb.back().at("val_top1").get<double>(), 1e-9);
    EXPECT_TRUE(eb.back().value("feature_cache", false));
    bool logged = false;
    for (const json &e : events(cached, "log"))
        logged = logged || e.contains("feature_cache");
    EXPECT_TRUE(logged);
    // Not asserted (timings): the speed-up of a head-only epoch on cached embeddings.
    std::cout << "feature cache: uncached epoch " << ea.back().at("seconds") << " s, cached epoch "
              << eb.back().at("seconds") << " s, speed-up "
              << ea.back().at("seconds").get<double>() / std::max(1e-6, eb.back().at("seconds").get<double>())
              << "x\n";
}

TEST_F(TrainerTest, InvalidConfigsAreRejectedNamingTheField)
{
    const auto expectError = [this](engine::RunConfig c, const std::string &field) {
        try {
            engine::train(c, runDir("invalid-" + std::to_string(std::rand())));
            ADD_FAILURE() << "expected an error naming " << field;
        } catch (const engine::EngineError &e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    engine::RunConfig c = smallConfig();
    c.optimizer.lr = -1;
    expectError(c, "optimizer.lr");
    c = smallConfig();
    c.precision = "fp16";
    expectError(c, "precision");
    c = smallConfig();
    c.data.balance = "oversample"; // not a choice (the samplers are balanced_sampler and sqrt_sampler)
    expectError(c, "data.balance");
    c = smallConfig();
    c.data.deviceNormalize = "on"; // uint8 batches cannot be mixed
    c.data.augment = engine::parseAugmentations(json::array({{{"type", "mixup"}, {"alpha", 0.2}}}));
    expectError(c, "data.device_normalize");
    c = smallConfig();
    c.data.shards = m_tmp.file("missing");
    expectError(c, "dataset.json");
    c = smallConfig();
    c.optimizer.batchSize = 4096;
    expectError(c, "optimizer.batch_size");
    c = smallConfig();
    c.model.weightsPath = "zoo";
    ::setenv("LATHE_WEIGHTS_CACHE", m_tmp.file("empty-cache").c_str(), 1);
    ::setenv("HOME", m_tmp.file("no-home").c_str(), 1);
    ::unsetenv("XDG_CACHE_HOME");
    try {
        engine::train(c, runDir("zoo"));
        ADD_FAILURE() << "expected an error for zoo weights that are not downloaded";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("model"), std::string::npos) << e.what();
    }
}

TEST_F(TrainerTest, CancelReturnsPromptlyWithACheckpoint)
{
    engine::RunConfig c = smallConfig();
    c.optimizer.epochs = 50;
    engine::TrainControl control;
    control.stepEventEvery = 1;
    std::atomic<int> steps{0};
    engine::CancelToken cancel = control.cancel;
    control.onEvent = [&](const json &e) {
        if (e.value("type", "") == "step" && ++steps == 2)
            cancel.cancel();
    };
    const std::string run = runDir("cancel");
    const json s = engine::train(c, run, control);
    EXPECT_EQ(s.at("status"), "cancelled");
    EXPECT_EQ(s.at("steps"), 2);
    EXPECT_EQ(events(run, "cancelled").size(), 1u);
    const auto ckpts = events(run, "checkpoint");
    ASSERT_FALSE(ckpts.empty());
    EXPECT_EQ(ckpts.back().at("reason"), "cancel");
    EXPECT_EQ(ckpts.back().at("step"), 2);
}

} // namespace
