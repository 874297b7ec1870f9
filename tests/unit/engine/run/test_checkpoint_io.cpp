// Checkpoints: round trip, keep-K, best/last, crash leftovers, hostile sidecars, and a model
// file that torchvision loads with strict=True.
#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/base/sha256.h"
#include "engine/models/model_builder.h"
#include "engine/models/weights_io.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_folder.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace lathe;
using lathe::test::sourceRoot;
using engine::CheckpointPolicy;
using engine::NamedTensors;
using lathe::test::errorOf;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

nlohmann::json readJson(const std::string &path)
{
    return nlohmann::json::parse(readFile(path));
}

std::vector<std::string> listDir(const fs::path &dir)
{
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

torch::Tensor find(const NamedTensors &tensors, const std::string &name)
{
    for (const auto &[n, t] : tensors)
        if (n == name)
            return t;
    return {};
}

// A small model state whose values say which step wrote it.
NamedTensors modelAt(std::int64_t step)
{
    return {{"fc.weight", torch::full({3, 4}, static_cast<float>(step))},
            {"fc.bias", torch::arange(3, torch::kFloat32) + static_cast<float>(step)},
            {"bn.num_batches_tracked", torch::tensor(step, torch::kLong)}};
}

NamedTensors stateAt(std::int64_t step)
{
    return {{"optimizer.fc.weight.momentum_buffer", torch::full({3, 4}, -static_cast<float>(step))},
            {"scaler.scale", torch::tensor(65536.0f)},
            {"ema.fc.weight", torch::full({3, 4}, 0.5f * static_cast<float>(step))}};
}

nlohmann::json metaAt(std::int64_t step, const nlohmann::json &metrics = nlohmann::json::object())
{
    return {{"epoch", step / 10},
            {"batch_in_epoch", step % 10},
            {"scheduler", {{"name", "cosine"}, {"last_epoch", step}}},
            {"rng", {{"seed", 42}, {"generator", "opaque state " + std::to_string(step)}}},
            {"metrics", metrics}};
}

void expectSameTensors(const NamedTensors &a, const NamedTensors &b)
{
    ASSERT_EQ(a.size(), b.size());
    for (const auto &[name, t] : a) {
        const torch::Tensor other = find(b, name);
        ASSERT_TRUE(other.defined()) << name;
        EXPECT_EQ(other.dtype(), t.dtype()) << name;
        EXPECT_TRUE(torch::equal(other, t)) << name;
    }
}

std::int64_t modelStep(const NamedTensors &model)
{
    return find(model, "bn.num_batches_tracked").item<std::int64_t>();
}

} // namespace

TEST(CheckpointIo, RoundTripOfTensorsAndMeta)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    engine::RunFolder::create(run, {{"version", 1}, {"seed", 7}});
    const nlohmann::json meta = metaAt(25, {{"val_top1", 0.75}, {"val_loss", 0.5}});
    const std::string sidecar = engine::writeCheckpoint(run, 25, meta, modelAt(25), stateAt(25), {3, "val_top1"});
    EXPECT_EQ(sidecar, run + "/checkpoints/step-25.json");

    const nlohmann::json written = readJson(sidecar);
    EXPECT_EQ(written["format_version"], engine::kCheckpointFormatVersion);
    EXPECT_EQ(written["step"], 25);
    for (const char *key : {"epoch", "batch_in_epoch", "scheduler", "rng", "metrics"})
        EXPECT_EQ(written[key], meta[key]) << key;
    EXPECT_EQ(written["config_sha256"], engine::sha256Hex(readFile(run + "/config.json").data(), readFile(run + "/config.json").size()));
    EXPECT_GT(written["wall_time"].get<double>(), 1.6e9);
    for (const char *kind : {"model", "state"}) {
        const nlohmann::json &f = written["files"][kind];
        const std::string bytes = readFile(run + "/checkpoints/" + f["name"].get<std::string>());
        EXPECT_EQ(f["bytes"], bytes.size()) << kind;
        EXPECT_EQ(f["sha256"], engine::sha256Hex(bytes.data(), bytes.size())) << kind;
    }
    EXPECT_EQ(written["files"]["model"]["name"], "step-25.safetensors");
    EXPECT_EQ(written["files"]["state"]["name"], "step-25.state.safetensors");

    // From the sidecar or the model file; with and without SHA-256 verification.
    for (const std::string &path : {sidecar, run + "/checkpoints/step-25.safetensors", run + "/checkpoints/step-25.state.safetensors"}) {
        for (bool verify : {false, true}) {
            const engine::CheckpointData data = engine::loadCheckpoint(path, verify);
            EXPECT_EQ(data.meta, written);
            EXPECT_EQ(data.sidecarPath, sidecar);
            expectSameTensors(data.model, modelAt(25));
            expectSameTensors(data.state, stateAt(25));
        }
    }
    // The model file holds the model only: no training state under it.
    const NamedTensors modelFile = engine::readSafetensors(run + "/checkpoints/step-25.safetensors");
    EXPECT_EQ(modelFile.size(), 3u);

    const auto latest = engine::loadLatestCheckpoint(run);
    ASSERT_TRUE(latest.has_value());
    EXPECT_EQ(latest->meta["step"], 25);
    EXPECT_EQ(latest->sidecarPath, sidecar);

    // Without training state: no state file, state comes back empty.
    engine::writeCheckpoint(run, 30, metaAt(30), modelAt(30), {}, {3, ""});
    EXPECT_FALSE(fs::exists(run + "/checkpoints/step-30.state.safetensors"));
    const engine::CheckpointData noState = engine::loadCheckpoint(run + "/checkpoints/step-30.json");
    EXPECT_TRUE(noState.state.empty());
    EXPECT_FALSE(noState.meta["files"].contains("state"));
    EXPECT_FALSE(fs::exists(run + "/checkpoints/last.state.safetensors"));

    // meta without the trainer's fields still gives a complete sidecar.
    engine::writeCheckpoint(run, 31, nullptr, modelAt(31), stateAt(31), {});
    const nlohmann::json bare = readJson(run + "/checkpoints/step-31.json");
    EXPECT_EQ(bare["epoch"], 0);
    EXPECT_EQ(bare["batch_in_epoch"], 0);
    EXPECT_TRUE(bare["rng"].is_object());

    EXPECT_NE(errorOf([&] { engine::writeCheckpoint(run, -1, {}, modelAt(1), {}, {}); }).find("step must be >= 0"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::writeCheckpoint(run, 1, {}, {}, {}, {}); }).find("model's tensors"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::writeCheckpoint(run, 1, nlohmann::json::array(), modelAt(1), {}, {}); }).find("JSON object"),
              std::string::npos);
}

TEST(CheckpointIo, KeepKDeletesOldOnesAndLastIsNewest)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const std::string ck = run + "/checkpoints";
    for (std::int64_t step = 10; step <= 60; step += 10) {
        engine::writeCheckpoint(run, step, metaAt(step), modelAt(step), stateAt(step), {3, ""});
        const nlohmann::json last = readJson(ck + "/last.json");
        EXPECT_EQ(last["step"], step);
        EXPECT_EQ(last["source"], "step-" + std::to_string(step) + ".safetensors");
        const engine::CheckpointData data = engine::loadCheckpoint(ck + "/last.json", true);
        EXPECT_EQ(modelStep(data.model), step);
        expectSameTensors(data.state, stateAt(step));
    }
    EXPECT_EQ(listDir(ck), (std::vector<std::string>{"last.json", "last.safetensors", "last.state.safetensors",
                                                      "step-40.json", "step-40.safetensors", "step-40.state.safetensors",
                                                      "step-50.json", "step-50.safetensors", "step-50.state.safetensors",
                                                      "step-60.json", "step-60.safetensors", "step-60.state.safetensors"}));
    const auto latest = engine::loadLatestCheckpoint(run);
    ASSERT_TRUE(latest);
    EXPECT_EQ(latest->meta["step"], 60);
    EXPECT_EQ(latest->sidecarPath, ck + "/step-60.json");

    // keep 0: only last.* (and best.*) stay, and resuming uses last.
    const std::string run0 = tmp.file("run0");
    for (std::int64_t step : {5, 6}) {
        const std::string holder = engine::writeCheckpoint(run0, step, metaAt(step), modelAt(step), stateAt(step), {0, ""});
        EXPECT_EQ(holder, run0 + "/checkpoints/last.json");
    }
    EXPECT_EQ(listDir(run0 + "/checkpoints"), (std::vector<std::string>{"last.json", "last.safetensors", "last.state.safetensors"}));
    const auto fromLast = engine::loadLatestCheckpoint(run0);
    ASSERT_TRUE(fromLast);
    EXPECT_EQ(fromLast->meta["step"], 6);
    EXPECT_EQ(modelStep(fromLast->model), 6);
    expectSameTensors(fromLast->state, stateAt(6));
}

TEST(CheckpointIo, BestFollowsALossDownward)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const std::string ck = run + "/checkpoints";
    const double losses[] = {1.0, 0.5, 0.7, 0.3, 0.9};
    const std::int64_t expectedBest[] = {1, 2, 2, 4, 4};
    for (int i = 0; i < 5; ++i) {
        const std::int64_t step = i + 1;
        engine::writeCheckpoint(run, step, metaAt(step, {{"val_loss", losses[i]}, {"val_top1", 0.1 * i}}), modelAt(step),
                                stateAt(step), {1, "val_loss"});
        const nlohmann::json best = readJson(ck + "/best.json");
        EXPECT_EQ(best["step"], expectedBest[i]) << i;
        EXPECT_EQ(best["best_metric"], "val_loss");
        EXPECT_EQ(best["best_value"], losses[expectedBest[i] - 1]);
        // Still loadable after keep 1 deleted its step files.
        const engine::CheckpointData data = engine::loadCheckpoint(ck + "/best.safetensors", true);
        EXPECT_EQ(modelStep(data.model), expectedBest[i]) << i;
        EXPECT_TRUE(data.state.empty()); // best holds the model only
    }
    EXPECT_FALSE(fs::exists(ck + "/step-4.json"));
    EXPECT_EQ(engine::resolveCheckpoint(run, "best").step, 4);

    // A checkpoint without the metric (or with NaN) leaves best alone.
    engine::writeCheckpoint(run, 6, metaAt(6, {{"val_top1", 0.9}}), modelAt(6), {}, {1, "val_loss"});
    engine::writeCheckpoint(run, 7, metaAt(7, {{"val_loss", std::nan("")}}), modelAt(7), {}, {1, "val_loss"});
    EXPECT_EQ(readJson(ck + "/best.json")["step"], 4);
    EXPECT_EQ(readJson(ck + "/last.json")["step"], 7);
}

TEST(CheckpointIo, BestFollowsAnAccuracyUpward)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const double top1[] = {0.1, 0.5, 0.4, 0.6, 0.2};
    const std::int64_t expectedBest[] = {10, 20, 20, 40, 40};
    for (int i = 0; i < 5; ++i) {
        const std::int64_t step = 10 * (i + 1);
        engine::writeCheckpoint(run, step, metaAt(step, {{"val_top1", top1[i]}, {"val_loss", 1.0 - top1[i]}}),
                                modelAt(step), stateAt(step), {2, "val_top1"});
        EXPECT_EQ(readJson(run + "/checkpoints/best.json")["step"], expectedBest[i]) << i;
    }
    EXPECT_EQ(modelStep(engine::loadCheckpoint(run + "/checkpoints/best.json").model), 40);
    // Another metric than the one best.json follows (the config changed at a resume) starts afresh.
    engine::writeCheckpoint(run, 60, metaAt(60, {{"val_top1", 0.0}, {"val_loss", 5.0}}), modelAt(60), {}, {2, "val_loss"});
    EXPECT_EQ(readJson(run + "/checkpoints/best.json")["step"], 60);
    EXPECT_EQ(readJson(run + "/checkpoints/best.json")["best_metric"], "val_loss");
}

// What kill -9 at the wrong moments leaves: the newest complete checkpoint is found, the rest
// is skipped with notes and cleaned up by the next write.
TEST(CheckpointIo, LatestSkipsWhatAKillLeftBehind)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const std::string ck = run + "/checkpoints";
    EXPECT_FALSE(engine::loadLatestCheckpoint(run)); // no checkpoints folder
    fs::create_directories(ck);
    EXPECT_FALSE(engine::loadLatestCheckpoint(run)); // empty

    const CheckpointPolicy keepAll{10, ""};
    engine::writeCheckpoint(run, 100, metaAt(100), modelAt(100), stateAt(100), keepAll);
    engine::writeCheckpoint(run, 200, metaAt(200), modelAt(200), stateAt(200), keepAll);
    // step 500: complete when written, then its model file cut short (last.* links to it too).
    engine::writeCheckpoint(run, 500, metaAt(500), modelAt(500), stateAt(500), keepAll);
    fs::resize_file(ck + "/step-500.safetensors", fs::file_size(ck + "/step-500.safetensors") - 10);
    if (!fs::equivalent(ck + "/step-500.safetensors", ck + "/last.safetensors")) // a copy, not a hard link
        fs::resize_file(ck + "/last.safetensors", fs::file_size(ck + "/last.safetensors") - 10);
    // step 300: a temporary file of an interrupted write.
    writeFile(ck + "/.step-300.safetensors.tmp-1234", "partial");
    // step 400: tensor files renamed in place, killed before the sidecar.
    fs::copy_file(ck + "/step-200.safetensors", ck + "/step-400.safetensors");
    fs::copy_file(ck + "/step-200.state.safetensors", ck + "/step-400.state.safetensors");
    // step 600: a sidecar naming a file that is not there.
    nlohmann::json ghost = readJson(ck + "/step-200.json");
    ghost["step"] = 600;
    ghost["files"]["model"]["name"] = "step-600.safetensors";
    writeFile(ck + "/step-600.json", ghost.dump());
    // step 700: a sidecar cut short.
    writeFile(ck + "/step-700.json", "{\"format_version\": 1, \"st");

    std::vector<std::string> notes;
    const auto latest = engine::loadLatestCheckpoint(run, &notes);
    ASSERT_TRUE(latest);
    EXPECT_EQ(latest->meta["step"], 200);
    EXPECT_EQ(modelStep(latest->model), 200);
    std::string all;
    for (const auto &n : notes)
        all += n + "\n";
    for (const char *expected : {"step-700.json: not valid JSON", "step-600.json: files.model names step-600.safetensors, which is missing",
                                 "step-500.safetensors has", "cut short or replaced", ".step-300.safetensors.tmp-1234: ignored",
                                 "step-400.json: missing, so step 400 is ignored", "last.json: last.safetensors has"})
        EXPECT_NE(all.find(expected), std::string::npos) << expected << "\nnotes:\n" << all;

    // A corrupt tensor file of the right size: caught by verify (SHA-256), or by the reader.
    std::string bytes = readFile(ck + "/step-200.safetensors");
    bytes[bytes.size() - 1] ^= 0x55;
    writeFile(ck + "/step-200.safetensors.bad", bytes);
    fs::rename(ck + "/step-200.safetensors", ck + "/step-200.safetensors.good");
    fs::rename(ck + "/step-200.safetensors.bad", ck + "/step-200.safetensors");
    notes.clear();
    const auto verified = engine::loadLatestCheckpoint(run, &notes, true);
    ASSERT_TRUE(verified);
    EXPECT_EQ(verified->meta["step"], 100);
    fs::rename(ck + "/step-200.safetensors.good", ck + "/step-200.safetensors");

    // The resumed run writes step 300: leftovers and the abandoned newer steps go away.
    engine::writeCheckpoint(run, 300, metaAt(300), modelAt(300), stateAt(300), {3, ""});
    EXPECT_EQ(listDir(ck), (std::vector<std::string>{"last.json", "last.safetensors", "last.state.safetensors",
                                                      "step-100.json", "step-100.safetensors", "step-100.state.safetensors",
                                                      "step-200.json", "step-200.safetensors", "step-200.state.safetensors",
                                                      "step-300.json", "step-300.safetensors", "step-300.state.safetensors"}));
    notes.clear();
    EXPECT_EQ(engine::loadLatestCheckpoint(run, &notes)->meta["step"], 300);
    EXPECT_TRUE(notes.empty());

    // Sidecars exist but none is usable: an error, never a silent fresh start.
    const std::string broken = tmp.file("broken");
    engine::writeCheckpoint(broken, 1, metaAt(1), modelAt(1), {}, {0, ""});
    fs::remove(broken + "/checkpoints/last.safetensors");
    const std::string error = errorOf([&] { engine::loadLatestCheckpoint(broken); });
    EXPECT_NE(error.find("no usable checkpoint"), std::string::npos) << error;
    EXPECT_NE(error.find("last.safetensors, which is missing"), std::string::npos) << error;

    // Only leftovers, no sidecar: nothing to resume.
    const std::string leftovers = tmp.file("leftovers");
    fs::create_directories(leftovers + "/checkpoints");
    writeFile(leftovers + "/checkpoints/step-1.safetensors", "x");
    writeFile(leftovers + "/checkpoints/.step-2.safetensors.tmp-9", "x");
    EXPECT_FALSE(engine::loadLatestCheckpoint(leftovers));
}

TEST(CheckpointIo, HostileSidecarsAreRefusedWithReasons)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const std::string ck = run + "/checkpoints";
    engine::writeCheckpoint(run, 1, metaAt(1), modelAt(1), stateAt(1), {5, ""});
    const nlohmann::json good = readJson(ck + "/step-1.json");
    writeFile(tmp.file("secret.safetensors"), readFile(ck + "/step-1.safetensors"));

    struct Case
    {
        const char *what;
        std::function<void(nlohmann::json &)> edit;
        const char *message;
    };
    const std::vector<Case> cases{
        {"escape", [](nlohmann::json &j) { j["files"]["model"]["name"] = "../../secret.safetensors"; }, "is not a file name in the checkpoint folder"},
        {"absolute", [](nlohmann::json &j) { j["files"]["model"]["name"] = "/etc/passwd"; }, "is not a file name"},
        {"negative bytes", [](nlohmann::json &j) { j["files"]["model"]["bytes"] = -5; }, "files.model.bytes is missing or not a non-negative integer"},
        {"string bytes", [](nlohmann::json &j) { j["files"]["state"]["bytes"] = "12"; }, "files.state.bytes"},
        {"sha", [](nlohmann::json &j) { j["files"]["model"]["sha256"] = "abc"; }, "sha256 is missing or not 64 hex digits"},
        {"no model", [](nlohmann::json &j) { j["files"].erase("model"); }, "files.model is missing"},
        {"version", [](nlohmann::json &j) { j["format_version"] = 99; }, "format_version 99 is not supported"},
        {"no version", [](nlohmann::json &j) { j.erase("format_version"); }, "format_version is missing"},
        {"step", [](nlohmann::json &j) { j["step"] = 2; }, "records step 2, its name says 1"},
        {"array", [](nlohmann::json &j) { j = nlohmann::json::array(); }, "not a JSON object"},
    };
    for (const Case &c : cases) {
        nlohmann::json j = good;
        c.edit(j);
        writeFile(ck + "/step-1.json", j.dump());
        const std::string error = errorOf([&] { engine::loadCheckpoint(ck + "/step-1.json"); });
        EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": " << error;
        EXPECT_NE(error.find("step-1.json"), std::string::npos) << c.what << ": " << error;
    }
    EXPECT_NE(errorOf([&] { engine::loadCheckpoint(tmp.file("secret.safetensors")); }).find("no sidecar secret.json"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { engine::loadCheckpoint(tmp.file("weights.pth")); }).find("not a checkpoint file"), std::string::npos);
    writeFile(ck + "/step-1.json", std::string(100, '\0'));
    EXPECT_NE(errorOf([&] { engine::loadCheckpoint(ck + "/step-1.json"); }).find("not valid JSON"), std::string::npos);
}

TEST(CheckpointIo, ResolveNamesAndFiles)
{
    TempDir tmp;
    const std::string run = tmp.file("run");
    const std::string ck = run + "/checkpoints";
    for (std::int64_t step : {1, 2, 3})
        engine::writeCheckpoint(run, step, metaAt(step, {{"val_top1", step == 2 ? 0.9 : 0.1}}), modelAt(step), stateAt(step),
                                {3, "val_top1"});
    EXPECT_EQ(engine::resolveCheckpoint(run, "best").sidecar, ck + "/best.json");
    EXPECT_EQ(engine::resolveCheckpoint(run, "best").model, ck + "/best.safetensors");
    EXPECT_EQ(engine::resolveCheckpoint(run, "best").step, 2);
    EXPECT_EQ(engine::resolveCheckpoint(run, "last").sidecar, ck + "/last.json");
    EXPECT_EQ(engine::resolveCheckpoint(run, "last").step, 3);
    EXPECT_EQ(engine::resolveCheckpoint(run, "latest").sidecar, ck + "/step-3.json");
    EXPECT_EQ(engine::resolveCheckpoint(run, "step-1").model, ck + "/step-1.safetensors");
    EXPECT_EQ(engine::resolveCheckpoint(run, "2").step, 2);
    EXPECT_EQ(engine::resolveCheckpoint(run, ck + "/step-1.safetensors").sidecar, ck + "/step-1.json");
    EXPECT_EQ(engine::resolveCheckpoint(run, "step-3.state.safetensors").sidecar, ck + "/step-3.json");

    // last.* missing (being replaced): the newest complete step.
    fs::remove(ck + "/last.json");
    EXPECT_EQ(engine::resolveCheckpoint(run, "last").sidecar, ck + "/step-3.json");

    // Plain weights files (an export's model.safetensors beside its model.json): no sidecar.
    writeFile(tmp.file("model.safetensors"), readFile(ck + "/step-1.safetensors"));
    writeFile(tmp.file("model.json"), R"({"arch": "resnet18", "labels": ["a"]})");
    const engine::CheckpointRef bare = engine::resolveCheckpoint(run, tmp.file("model.safetensors"));
    EXPECT_TRUE(bare.sidecar.empty());
    EXPECT_EQ(bare.model, tmp.file("model.safetensors"));
    EXPECT_EQ(bare.step, -1);

    EXPECT_NE(errorOf([&] { engine::resolveCheckpoint(run, "step-9"); }).find("step-9.json: missing"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::resolveCheckpoint(run, "nonsense"); }).find("no such checkpoint"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::resolveCheckpoint(tmp.file("nobest"), "best"); }).find("best.json: missing"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::resolveCheckpoint(tmp.file("nobest"), "latest"); }).find("no complete checkpoint"),
              std::string::npos);
}

// The model file is a torchvision state dict: Lathe loads it back cleanly as --weights, and
// torchvision loads it with strict=True (the venv's torch, torchvision and safetensors).
TEST(CheckpointIo, ModelFileLoadsIntoTorchvisionStrict)
{
    engine::ModelSpec spec;
    spec.arch = "resnet18";
    spec.head.numClasses = 5;
    engine::BuiltModel built = engine::buildModel(spec);
    TempDir tmp;
    const std::string run = tmp.file("run");
    const NamedTensors model = engine::stateDict(*built.classifier);
    engine::writeCheckpoint(run, 7, metaAt(7), model, {{"optimizer.state.0", torch::ones({2})}}, {3, ""});
    const std::string file = run + "/checkpoints/step-7.safetensors";

    // As --weights: every tensor matches a parameter or buffer of a fresh model.
    engine::BuiltModel fresh = engine::buildModel(spec);
    const engine::LoadReport report = engine::loadStateDict(*fresh.classifier, engine::readWeightsFile(file), &fresh.info);
    EXPECT_TRUE(report.clean()) << report.text();
    EXPECT_FALSE(report.headReplaced);
    EXPECT_EQ(static_cast<std::size_t>(report.loadedTensors), model.size());

    const std::string parity = sourceRoot() + "/tests/parity";
    ASSERT_TRUE(fs::exists(parity + "/safetensors_io.py"));
    const std::string script = tmp.file("strict.py");
    writeFile(script, "import sys\n"
                      "sys.path.insert(0, sys.argv[1])\n"
                      "import torch, torchvision, safetensors_io\n"
                      "torch.set_num_threads(1)\n"
                      "state = safetensors_io.load(sys.argv[2])\n"
                      "m = torchvision.models.resnet18(num_classes=5)\n"
                      "m.load_state_dict(state, strict=True)\n"
                      "print('fc', float(m.fc.weight.detach().double().sum()), 'keys', len(state))\n");
    const std::string command = "'" + lathe::test::python() + "' '" + script + "' '" + parity + "' '" + file + "' 2>&1";
    std::string out;
    FILE *pipe = ::popen(command.c_str(), "r");
    ASSERT_TRUE(pipe);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;)
        out.append(buf, n);
    ASSERT_EQ(::pclose(pipe), 0) << out;
    const double fcSum = find(model, "fc.weight").to(torch::kFloat64).sum().item<double>();
    double pySum = 0;
    int keys = 0;
    ASSERT_EQ(std::sscanf(out.c_str(), "fc %lf keys %d", &pySum, &keys), 2) << out;
    EXPECT_NEAR(pySum, fcSum, 1e-9);
    EXPECT_EQ(static_cast<std::size_t>(keys), model.size());
}

// checkpoint.sidecar_bytes and json.depth (engine/base/parse_limits.h) at the limit and one over:
// at the limit the sidecar is parsed (and refused for lacking its fields), over it it is not read.
TEST(CheckpointIo, SidecarLimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    TempDir tmp;
    const std::string path = tmp.file("step-1.json");
    const auto write = [&](const std::string &text) { std::ofstream(path, std::ios::binary) << text; };
    std::string text = "{}";
    text.resize(pl::kCheckpointSidecarBytes.value, ' ');
    write(text);
    std::string message = errorOf([&] { engine::checkCheckpoint(path); });
    EXPECT_NE(message.find("format_version"), std::string::npos) << message;
    EXPECT_EQ(message.find("over the limit"), std::string::npos) << message;
    write(text + " ");
    EXPECT_EQ(errorOf([&] { engine::checkCheckpoint(path); }),
              path + ": 67108865 bytes, over the limit checkpoint.sidecar_bytes = 67108864");
    text = {};

    const auto nested = [](std::uint64_t depth) {
        return R"({"x": )" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
    };
    write(nested(pl::kJsonDepth.value));
    message = errorOf([&] { engine::checkCheckpoint(path); });
    EXPECT_NE(message.find("format_version"), std::string::npos) << message;
    write(nested(pl::kJsonDepth.value + 1));
    EXPECT_EQ(errorOf([&] { engine::checkCheckpoint(path); }),
              path + ": JSON nested 65 levels deep, over the limit json.depth = 64");
}
