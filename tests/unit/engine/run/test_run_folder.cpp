// The run folder: config.json, metrics.jsonl, log.txt, TensorBoard event files (read back with
// our TFRecord reader and generated protos, and cross-checked by an independent Python decoder
// through TensorBoard's own EventFileLoader), the run lock and the run summary.
#include "engine/base/engine_error.h"
#include "engine/formats/tensorboard_writer.h"
#include "engine/formats/tfrecord_reader.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"
#include "event.pb.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include <sys/wait.h>
#include <unistd.h>

using namespace lathe;
using lathe::test::sourceRoot;
using engine::RunFolder;
using lathe::test::errorOf;
using lathe::test::runCommand;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void appendRaw(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::app).write(bytes.data(), std::streamsize(bytes.size()));
}

std::vector<std::string> eventFiles(const fs::path &dir)
{
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(dir)) {
        if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
            files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<tensorflow::Event> readEvents(const std::string &path)
{
    engine::TFRecordReader reader(path); // checks both CRCs of every record
    std::vector<tensorflow::Event> events;
    std::string record;
    while (reader.next(record)) {
        tensorflow::Event event;
        EXPECT_TRUE(event.ParseFromString(record));
        events.push_back(event);
    }
    return events;
}

nlohmann::json sampleConfig()
{
    return {{"version", 1},
            {"data", {{"shards", "/data/flowers"}}},
            {"model", {{"arch", "resnet18"}}},
            {"optimizer", {{"epochs", 12}}},
            {"checkpoints", {{"best_metric", "val_loss"}}}};
}

} // namespace

TEST(RunFolder, CreateWritesConfigAndCheckpointsFolder)
{
    TempDir tmp;
    const std::string dir = tmp.file("runs/run-1");
    {
        RunFolder run = RunFolder::create(dir, sampleConfig());
        EXPECT_EQ(run.dir(), dir);
        EXPECT_EQ(run.config(), sampleConfig());
        EXPECT_EQ(run.checkpointsDir(), dir + "/checkpoints");
        EXPECT_TRUE(fs::is_directory(dir + "/checkpoints"));
    }
    EXPECT_EQ(nlohmann::json::parse(readFile(dir + "/config.json")), sampleConfig());
    // No temporary file of the atomic write is left behind.
    for (const auto &e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();

    // Never written over.
    EXPECT_NE(errorOf([&] { RunFolder::create(dir, sampleConfig()); }).find("not empty"), std::string::npos);
    // An existing empty folder is fine; a file is not.
    fs::create_directories(tmp.file("empty"));
    EXPECT_NO_THROW(RunFolder::create(tmp.file("empty"), {{"version", 1}}));
    std::ofstream(tmp.file("file")) << "x";
    EXPECT_NE(errorOf([&] { RunFolder::create(tmp.file("file"), nlohmann::json::object()); }).find("not a folder"), std::string::npos);
    EXPECT_NE(errorOf([&] { RunFolder::create(tmp.file("arr"), nlohmann::json::array()); }).find("JSON object"),
              std::string::npos);
}

TEST(RunFolder, OpenChecksConfigAndHoldsTheLock)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    {
        RunFolder run = RunFolder::create(dir, sampleConfig());
        // A second writer, in this process or another, is refused while the first lives.
        const std::string error = errorOf([&] { RunFolder::open(dir); });
        EXPECT_NE(error.find("in use"), std::string::npos) << error;
        EXPECT_EQ(engine::readRunInfo(dir).state, "running");
        // Moving keeps the lock with the object.
        RunFolder moved = std::move(run);
        EXPECT_EQ(engine::readRunInfo(dir).state, "running");
    }
    EXPECT_EQ(engine::readRunInfo(dir).state, "interrupted");
    RunFolder reopened = RunFolder::open(dir);
    EXPECT_EQ(reopened.config(), sampleConfig());

    EXPECT_NE(errorOf([&] { RunFolder::open(tmp.file("missing")); }).find("not a folder"), std::string::npos);
    fs::create_directories(tmp.file("noconfig"));
    EXPECT_NE(errorOf([&] { RunFolder::open(tmp.file("noconfig")); }).find("config.json: missing"), std::string::npos);
    fs::create_directories(tmp.file("badconfig"));
    std::ofstream(tmp.file("badconfig/config.json")) << "{\"version\": 1,";
    const std::string bad = errorOf([&] { RunFolder::open(tmp.file("badconfig")); });
    EXPECT_NE(bad.find("badconfig/config.json: not valid JSON"), std::string::npos) << bad;
}

TEST(RunFolder, MetricsLinesParseBack)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    RunFolder run = RunFolder::create(dir, sampleConfig());
    const std::vector<nlohmann::json> events{
        {{"type", "step"}, {"step", 1}, {"epoch", 0}, {"loss", 2.5}, {"lr", 0.01}},
        {{"type", "log"}, {"message", "line with \"quotes\"\nand a newline"}},
        {{"type", "epoch"}, {"step", 10}, {"epoch", 0}, {"train_loss", 1.5}, {"val_loss", 1.25}, {"val_top1", 0.5}},
        {{"type", "checkpoint"}, {"step", 10}, {"path", "checkpoints/step-10.json"}, {"time", 1234.5}},
        // What the trainer writes when the fp16 loss scaler skips a step.
        {{"type", "overflow_skipped"}, {"step", 10}, {"epoch", 0}, {"scale", 32768.0}, {"skipped_total", 1}},
        {{"type", "finished"}, {"step", 10}},
    };
    for (const auto &e : events)
        run.appendMetrics(e);
    const std::vector<nlohmann::json> back = engine::readMetrics(dir);
    ASSERT_EQ(back.size(), events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        nlohmann::json expected = events[i];
        ASSERT_TRUE(back[i].contains("time"));
        EXPECT_GT(back[i]["time"].get<double>(), 1e9 * (i == 3 ? 0 : 1)); // added when absent: now
        if (!expected.contains("time"))
            expected["time"] = back[i]["time"];
        EXPECT_EQ(back[i], expected) << i;
    }
    // One object per line.
    const std::string text = readFile(dir + "/metrics.jsonl");
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(events.size()));

    EXPECT_NE(errorOf([&] { run.appendMetrics({{"type", "bogus"}}); }).find("event type must be one of"), std::string::npos);
    EXPECT_NE(errorOf([&] { run.appendMetrics({{"step", 3}}); }).find("got none"), std::string::npos);
    EXPECT_NE(errorOf([&] { run.appendMetrics(nlohmann::json::array({1, 2})); }).find("JSON object"), std::string::npos);
    EXPECT_EQ(engine::readMetrics(dir).size(), events.size()); // refused events wrote nothing
    EXPECT_TRUE(engine::readMetrics(tmp.file("nothing-here")).empty());
}

TEST(RunFolder, TruncatedLastLineIsToleratedAndCutOnOpen)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    {
        RunFolder run = RunFolder::create(dir, sampleConfig());
        for (int i = 1; i <= 3; ++i)
            run.appendMetrics({{"type", "step"}, {"step", i}});
    }
    // What a kill mid-write leaves: part of a line, no newline.
    const std::string fragment = "{\"type\":\"step\",\"st";
    appendRaw(dir + "/metrics.jsonl", fragment);
    std::vector<nlohmann::json> events = engine::readMetrics(dir);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[2]["step"], 3);

    // A resumed run continues on a line of its own: the fragment is cut off first.
    {
        RunFolder run = RunFolder::open(dir);
        run.appendMetrics({{"type", "resumed"}, {"step", 3}});
        run.appendMetrics({{"type", "step"}, {"step", 4}});
    }
    events = engine::readMetrics(dir);
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[3]["type"], "resumed");
    EXPECT_EQ(events[4]["step"], 4);
    EXPECT_NE(readFile(dir + "/log.txt").find("removed a truncated last line (" + std::to_string(fragment.size()) + " bytes)"),
              std::string::npos);

    // A complete last object without its newline is kept.
    appendRaw(dir + "/metrics.jsonl", "{\"type\":\"finished\",\"step\":4}");
    EXPECT_EQ(engine::readMetrics(dir).size(), 6u);

    // Damage anywhere else is an error naming the file and the line.
    appendRaw(dir + "/metrics.jsonl", "\n{\"type\": garbage}\n{\"type\":\"step\"}\n");
    std::string error = errorOf([&] { engine::readMetrics(dir); });
    EXPECT_NE(error.find("metrics.jsonl: line 7: not a JSON object"), std::string::npos) << error;

    // A line that is JSON but not an object.
    const std::string other = tmp.file("other");
    fs::create_directories(other);
    appendRaw(other + "/metrics.jsonl", "{\"type\":\"step\"}\n[1,2]\n");
    error = errorOf([&] { engine::readMetrics(other); });
    EXPECT_NE(error.find("line 2: not a JSON object"), std::string::npos) << error;

    // An absurd line is refused, not read into memory whole.
    const std::string huge = tmp.file("huge");
    fs::create_directories(huge);
    appendRaw(huge + "/metrics.jsonl", "{\"type\":\"step\"}\n" + std::string(std::size_t(3) << 20, 'x'));
    error = errorOf([&] { engine::readMetrics(huge); });
    EXPECT_NE(error.find("line 2: longer than 1 MiB"), std::string::npos) << error;
}

TEST(RunFolder, LogLinesCarryTimestamps)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    {
        RunFolder run = RunFolder::create(dir, sampleConfig());
        run.log("epoch 1 done");
        run.log("two\nlines");
    }
    const std::string text = readFile(dir + "/log.txt");
    const std::regex line(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (.*))");
    std::vector<std::string> bodies;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(l, m, line)) << l;
        bodies.push_back(m[1]);
    }
    EXPECT_EQ(bodies, (std::vector<std::string>{"epoch 1 done", "two", "lines"}));
}

TEST(TensorBoardWriter, EventsReadBackWithCrcsAndProtos)
{
    TempDir tmp;
    const std::string dir = tmp.path().string();
    std::string path;
    {
        engine::TensorBoardWriter writer(dir);
        path = writer.path();
        writer.addScalar("train/loss", 2.5, 1, 1700000000.25);
        writer.addScalar("train/loss", 0.0, 2, 1700000001.0); // a zero must still be present
        writer.addScalar("val/top1", -0.125, 1234567890123LL, 1700000002.0);
        writer.addScalar("lr", 1e-3, 3);
        writer.flush();
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    EXPECT_TRUE(std::regex_match(fs::path(path).filename().string(),
                                 std::regex(R"(events\.out\.tfevents\.\d{10}\.)" + std::regex_replace(std::string(host), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"))))
        << path;
    ASSERT_EQ(eventFiles(dir), std::vector<std::string>{path});

    const std::vector<tensorflow::Event> events = readEvents(path);
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].what_case(), tensorflow::Event::kFileVersion);
    EXPECT_EQ(events[0].file_version(), "brain.Event:2");
    EXPECT_GT(events[0].wall_time(), 1.6e9);
    struct Expected
    {
        const char *tag;
        float value;
        std::int64_t step;
        double wallTime;
    };
    const Expected expected[] = {{"train/loss", 2.5f, 1, 1700000000.25},
                                 {"train/loss", 0.0f, 2, 1700000001.0},
                                 {"val/top1", -0.125f, 1234567890123LL, 1700000002.0},
                                 {"lr", 1e-3f, 3, 0}};
    for (int i = 0; i < 4; ++i) {
        const tensorflow::Event &e = events[i + 1];
        ASSERT_EQ(e.what_case(), tensorflow::Event::kSummary) << i;
        ASSERT_EQ(e.summary().value_size(), 1);
        const auto &v = e.summary().value(0);
        EXPECT_EQ(v.tag(), expected[i].tag);
        EXPECT_EQ(v.value_case(), tensorflow::Summary::Value::kSimpleValue) << i;
        EXPECT_EQ(v.simple_value(), expected[i].value);
        EXPECT_EQ(e.step(), expected[i].step);
        if (expected[i].wallTime > 0)
            EXPECT_EQ(e.wall_time(), expected[i].wallTime);
        else
            EXPECT_GT(e.wall_time(), 1.6e9); // now
    }
}

TEST(TensorBoardWriter, SecondWriterGetsItsOwnFile)
{
    TempDir tmp;
    engine::TensorBoardWriter a(tmp.path().string());
    engine::TensorBoardWriter b(tmp.path().string());
    EXPECT_NE(a.path(), b.path());
    a.addScalar("x", 1, 1);
    b.addScalar("x", 2, 1);
    EXPECT_EQ(readEvents(a.path()).size(), 2u);
    EXPECT_EQ(readEvents(b.path()).size(), 2u);
    EXPECT_NE(errorOf([&] { a.addScalar("", 1, 1); }).find("needs a tag"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::TensorBoardWriter(tmp.file("no/such/folder")); }).find("cannot create"),
              std::string::npos);
}

// TensorBoard itself (the venv's tensorboard package, its EventFileLoader) reads our file.
TEST(TensorBoardWriter, TensorBoardReadsOurFile)
{
    const std::string script = sourceRoot() + "/tests/parity/tensorboard_read.py";
    ASSERT_TRUE(fs::exists(script)) << script;
    TempDir tmp;
    std::string path;
    {
        engine::TensorBoardWriter writer(tmp.path().string());
        path = writer.path();
        for (int step = 0; step < 5; ++step) {
            writer.addScalar("train/loss", 1.0 / (step + 1), step, 1700000000 + step);
            writer.addScalar("val/top1", step * 0.25, step, 1700000000 + step);
        }
    }
    const std::string command = "'" + lathe::test::python() + "' '" + script + "' events '" + path + "'";
    int status = 0;
    const std::string err = tmp.file("tensorboard.err");
    const std::string out = runCommand(command + " 2>'" + err + "'", &status);
    ASSERT_EQ(status, 0) << out << readFile(err);
    const nlohmann::json events = nlohmann::json::parse(out);
    ASSERT_EQ(events.size(), 11u) << out;
    EXPECT_EQ(events[0]["file_version"], "brain.Event:2");
    for (int step = 0; step < 5; ++step) {
        const nlohmann::json &loss = events[1 + 2 * step];
        const nlohmann::json &top1 = events[2 + 2 * step];
        EXPECT_EQ(loss["tag"], "train/loss");
        EXPECT_EQ(loss["step"], step);
        EXPECT_EQ(loss["value"].get<double>(), static_cast<double>(static_cast<float>(1.0 / (step + 1))));
        EXPECT_EQ(loss["wall_time"].get<double>(), 1700000000.0 + step);
        EXPECT_EQ(top1["tag"], "val/top1");
        EXPECT_EQ(top1["value"].get<double>(), step * 0.25);
    }

    // A flipped bit in the last record fails its CRC: TensorBoard stops before it (it treats a
    // bad record at the end as one still being written), so our CRCs are what it checks.
    std::string bytes = readFile(path);
    bytes[bytes.size() - 6] ^= 0x01;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    const std::string damaged = runCommand(command + " 2>/dev/null", &status);
    if (status == 0) {
        EXPECT_EQ(nlohmann::json::parse(damaged).size(), 10u) << damaged;
    }
}

TEST(RunFolder, TensorboardBesideMetrics)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    RunFolder run = RunFolder::create(dir, sampleConfig());
    engine::TensorBoardWriter &tb = run.tensorboard();
    EXPECT_EQ(&tb, &run.tensorboard()); // one writer per run folder
    tb.addScalar("loss", 1, 1);
    tb.flush();
    const auto files = eventFiles(dir);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(readEvents(files[0]).size(), 2u);
}

// A real kill -9 of a writing process: what it appended survives, the lock is released.
TEST(RunFolder, KilledWriterLosesNothingAppended)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        RunFolder run = RunFolder::create(dir, sampleConfig());
        for (int i = 1; i <= 20; ++i) {
            run.appendMetrics({{"type", "step"}, {"step", i}, {"loss", 1.0 / i}});
            run.tensorboard().addScalar("train/loss", 1.0 / i, i);
        }
        run.log("about to be killed");
        ::raise(SIGKILL);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));

    const std::vector<nlohmann::json> events = engine::readMetrics(dir);
    ASSERT_EQ(events.size(), 20u);
    EXPECT_EQ(events.back()["step"], 20);
    const auto files = eventFiles(dir);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(readEvents(files[0]).size(), 21u);
    EXPECT_NE(readFile(dir + "/log.txt").find("about to be killed"), std::string::npos);

    const engine::RunInfo info = engine::readRunInfo(dir);
    EXPECT_EQ(info.state, "interrupted");
    EXPECT_EQ(info.lastStep, 20);
    EXPECT_NO_THROW(RunFolder::open(dir)); // the dead process's lock is gone
}

TEST(RunInfo, StatesAndBestMetric)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    {
        RunFolder run = RunFolder::create(dir, sampleConfig()); // best_metric val_loss: lower is better
        run.appendMetrics({{"type", "step"}, {"step", 5}, {"epoch", 0}, {"time", 100.0}});
        run.appendMetrics({{"type", "epoch"}, {"step", 10}, {"epoch", 0}, {"val_loss", 0.9}, {"val_top1", 0.6}, {"time", 110.0}});
        run.appendMetrics({{"type", "epoch"}, {"step", 20}, {"epoch", 1}, {"val_loss", 0.4}, {"val_top1", 0.7}, {"time", 120.0}});
        run.appendMetrics({{"type", "epoch"}, {"step", 30}, {"epoch", 2}, {"val_loss", 0.5}, {"val_top1", 0.8}, {"time", 130.0}});
        run.appendMetrics({{"type", "failed"}, {"step", 30}, {"message", "out of memory"}, {"time", 131.0}});
    }
    engine::RunInfo info = engine::readRunInfo(dir);
    EXPECT_EQ(info.state, "failed");
    EXPECT_EQ(info.message, "out of memory");
    EXPECT_EQ(info.arch, "resnet18");
    EXPECT_EQ(info.totalEpochs, 12);
    EXPECT_EQ(info.lastEpoch, 2);
    EXPECT_EQ(info.lastStep, 30);
    EXPECT_EQ(info.startTime, 100.0);
    EXPECT_EQ(info.lastTime, 131.0);
    EXPECT_EQ(info.bestMetric, "val_loss");
    ASSERT_TRUE(info.bestValue.has_value());
    EXPECT_EQ(*info.bestValue, 0.4);
    EXPECT_EQ(info.bestEpoch, 1);
    EXPECT_EQ(info.bestStep, 20);
    EXPECT_EQ(info.lastEpochEvent["val_top1"], 0.8);

    {
        RunFolder run = RunFolder::open(dir);
        run.appendMetrics({{"type", "resumed"}, {"step", 30}});
    }
    EXPECT_EQ(engine::readRunInfo(dir).state, "interrupted");
    EXPECT_TRUE(engine::readRunInfo(dir).message.empty());
    {
        RunFolder run = RunFolder::open(dir);
        run.appendMetrics({{"type", "finished"}, {"step", 40}});
    }
    EXPECT_EQ(engine::readRunInfo(dir).state, "finished");
    EXPECT_EQ(engine::readRunInfo(dir).lastStep, 40);

    // Higher is better for anything not ending in "loss"; the default metric is val_top1.
    const std::string acc = tmp.file("acc");
    {
        RunFolder run = RunFolder::create(acc, {{"version", 1}});
        run.appendMetrics({{"type", "epoch"}, {"step", 1}, {"epoch", 0}, {"val_top1", 0.3}});
        run.appendMetrics({{"type", "epoch"}, {"step", 2}, {"epoch", 1}, {"metrics", {{"val_top1", 0.9}}}});
        run.appendMetrics({{"type", "epoch"}, {"step", 3}, {"epoch", 2}, {"val_top1", 0.5}});
        run.appendMetrics({{"type", "cancelled"}, {"step", 3}});
    }
    info = engine::readRunInfo(acc);
    EXPECT_EQ(info.state, "cancelled");
    EXPECT_EQ(info.bestMetric, "val_top1");
    EXPECT_EQ(info.bestValue.value_or(-1), 0.9);
    EXPECT_EQ(info.bestEpoch, 1);

    // No epoch event holds the metric (no validation split): best comes from best.json, whose
    // "epoch" is the one in progress when it was written: the epoch after the best one.
    const std::string sidecar = tmp.file("sidecar");
    {
        RunFolder run = RunFolder::create(sidecar, {{"version", 1}});
        run.appendMetrics({{"type", "epoch"}, {"step", 8}, {"epoch", 0}, {"train_loss", 0.7}});
        run.appendMetrics({{"type", "finished"}, {"step", 8}});
    }
    fs::create_directories(fs::path(engine::run_layout::bestSidecarPath(sidecar)).parent_path());
    std::ofstream(engine::run_layout::bestSidecarPath(sidecar))
        << R"({"step": 8, "epoch": 1, "batch_in_epoch": 0, "best_metric": "train_loss", "best_value": 0.7})";
    info = engine::readRunInfo(sidecar);
    EXPECT_EQ(info.bestMetric, "train_loss");
    EXPECT_EQ(info.bestValue.value_or(-1), 0.7);
    EXPECT_EQ(info.bestEpoch, 0); // as epoch events count it
    EXPECT_EQ(info.bestStep, 8);

    EXPECT_TRUE(engine::metricLowerIsBetter("train_loss"));
    EXPECT_FALSE(engine::metricLowerIsBetter("val_top5"));

    // Not a run.
    fs::create_directories(tmp.file("plain"));
    EXPECT_NE(errorOf([&] { engine::readRunInfo(tmp.file("plain")); }).find("config.json: missing"), std::string::npos);
}
