// Engine work as the workspace's Job runs it, under ThreadSanitizer (build-tsan/): the work on a
// job thread, its progress and events read by another thread (the GUI's stand-in), pause, resume
// and cancel sent from that thread. Conversion has its writer threads; training has two CPU ranks
// (c10d Gloo) and their input pipelines. Any report ends the test (TSAN_OPTIONS halt_on_error).

#include "engine/base/engine_error.h"
#include "engine/base/task_control.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace lathe;
using nlohmann::json;

namespace {

// What a Job keeps for the GUI: the last progress report, and the events, behind one mutex.
struct Watched
{
    std::mutex mutex;
    std::condition_variable changed;
    double fraction = 0;
    std::string status;
    std::vector<json> events;
    int reports = 0;

    void report(double f, const std::string &s)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            fraction = f;
            status = s;
            ++reports;
        }
        changed.notify_all();
    }
    void event(const json &e)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            events.push_back(e);
        }
        changed.notify_all();
    }
    int countOf(const std::string &type)
    {
        int n = 0;
        for (const json &e : events)
            n += e.value("type", "") == type ? 1 : 0;
        return n;
    }
};

std::string writeDemo(const test::TempDir &dir, int perClass)
{
    engine::DemoDataOptions demo;
    demo.outDir = dir.file("images");
    demo.perClass = perClass;
    demo.testPerClass = 0;
    engine::writeDemoData(demo);
    return demo.outDir;
}

engine::ConvertOptions convertOptions(const std::string &images, const fs::path &out)
{
    engine::ConvertOptions options;
    options.scan.root = images;
    options.scan.nearDuplicateDistance = 0;
    options.scan.threads = 2;
    options.outDir = out.string();
    options.shardRecords = 16;
    return options;
}

TEST(TsanJobs, ConversionOnAJobThreadWatchedAndCancelledFromOutside)
{
    test::TempDir dir;
    const std::string images = writeDemo(dir, 30);

    // Watched to the end: the watcher reads every report while the writers run.
    {
        Watched watched;
        engine::TaskControl control;
        control.progress = [&](double f, const std::string &s) { watched.report(f, s); };
        engine::ConvertResult result;
        std::thread job([&] { result = engine::convertFolder(convertOptions(images, dir.path() / "whole"), control); });
        double seen = 0;
        while (seen < 1.0) {
            std::unique_lock<std::mutex> lock(watched.mutex);
            watched.changed.wait_for(lock, std::chrono::milliseconds(50));
            seen = watched.fraction;
        }
        job.join();
        EXPECT_TRUE(fs::exists(fs::path(result.outDir) / "dataset.json"));
        EXPECT_GT(watched.reports, 1);
    }

    // Cancelled from the watcher once shards are being written (past the scan's 30 %).
    Watched watched;
    engine::TaskControl control;
    control.progress = [&](double f, const std::string &s) { watched.report(f, s); };
    bool cancelled = false;
    std::thread job([&] {
        try {
            engine::convertFolder(convertOptions(images, dir.path() / "cancelled"), control);
        } catch (const engine::Cancelled &) {
            cancelled = true;
        }
    });
    {
        std::unique_lock<std::mutex> lock(watched.mutex);
        watched.changed.wait(lock, [&] { return watched.fraction > 0.3; });
    }
    control.cancel.cancel();
    job.join();
    EXPECT_TRUE(cancelled);
    EXPECT_FALSE(fs::exists(dir.path() / "cancelled"));
}

TEST(TsanJobs, TwoRankTrainingOnAJobThreadPausedResumedAndCancelledFromOutside)
{
    test::TempDir dir;
    const std::string images = writeDemo(dir, 8);
    const std::string shards = engine::convertFolder(convertOptions(images, dir.path() / "shards")).outDir;

    engine::RunConfig c;
    c.data.shards = shards;
    c.data.valSplit = "";
    c.data.imageSize = 32;
    c.data.augment = {};
    c.data.workers = 2;
    c.model.arch = "resnet18";
    c.model.inChannels = 1;
    c.optimizer.batchSize = 8;
    c.optimizer.epochs = 50;
    c.checkpoints.bestMetric = "train_loss";
    c.featureCache.mode = "off";
    c.devices = {"cpu", "cpu"};
    c.seed = 3;

    Watched watched;
    engine::TrainControl control;
    control.stepEventEvery = 1;
    control.onEvent = [&](const json &e) { watched.event(e); };
    json summary;
    std::thread job([&] { summary = engine::train(c, dir.file("run"), control); });

    std::unique_lock<std::mutex> lock(watched.mutex);
    watched.changed.wait(lock, [&] { return watched.countOf("step") >= 2; });
    lock.unlock();
    control.pause.pause();
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // let the ranks reach the pause
    control.pause.resume();
    lock.lock();
    const int before = watched.countOf("step");
    watched.changed.wait(lock, [&] { return watched.countOf("step") > before; });
    lock.unlock();
    control.cancel.cancel();
    job.join();

    EXPECT_EQ(summary.at("status"), "cancelled");
    lock.lock();
    EXPECT_EQ(watched.countOf("cancelled"), 1);
    EXPECT_GE(watched.countOf("checkpoint"), 1);
}

} // namespace
