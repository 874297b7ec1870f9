// What a user adds to a run folder (annotations.json) and the checkpoint management of the Runs
// page: listing, marking best and deleting, on checkpoint files laid out as checkpoint_io.h
// documents them.
#include "engine/base/engine_error.h"
#include "engine/run/run_folder.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace lathe;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

void writeText(const fs::path &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// A step checkpoint as writeCheckpoint leaves it (the tensor files' contents do not matter here).
nlohmann::json writeStep(const fs::path &run, std::int64_t step, double valTop1)
{
    const fs::path folder = run / "checkpoints";
    fs::create_directories(folder);
    const std::string stem = "step-" + std::to_string(step);
    const std::string model(100 + std::size_t(step), 'm');
    writeText(folder / (stem + ".safetensors"), model);
    writeText(folder / (stem + ".state.safetensors"), std::string(50, 's'));
    nlohmann::json sidecar = {{"format_version", 1}, {"step", step}, {"epoch", step / 10}, {"metrics", {{"val_top1", valTop1}}}};
    sidecar["files"]["model"] = {{"name", stem + ".safetensors"}, {"sha256", std::string(64, '0')}, {"bytes", model.size()}};
    sidecar["files"]["state"] = {{"name", stem + ".state.safetensors"}, {"sha256", std::string(64, '0')}, {"bytes", 50}};
    writeText(folder / (stem + ".json"), sidecar.dump());
    return sidecar;
}

// An alias (best/last) as writeAlias makes it: a hard link and a sidecar naming it.
void writeAlias(const fs::path &run, const std::string &alias, std::int64_t step, const nlohmann::json &sidecar)
{
    const fs::path folder = run / "checkpoints";
    fs::remove(folder / (alias + ".safetensors"));
    fs::create_hard_link(folder / ("step-" + std::to_string(step) + ".safetensors"), folder / (alias + ".safetensors"));
    nlohmann::json j = sidecar;
    j["source"] = "step-" + std::to_string(step) + ".safetensors";
    j["files"]["model"]["name"] = alias + ".safetensors";
    j["files"].erase("state");
    if (alias == "best") {
        j["best_metric"] = "val_top1";
        j["best_value"] = sidecar["metrics"]["val_top1"];
    }
    writeText(folder / (alias + ".json"), j.dump());
}

std::string runWithCheckpoints(const TempDir &tmp)
{
    const std::string dir = tmp.file("run");
    engine::RunFolder::create(dir, {{"checkpoints", {{"best_metric", "val_top1"}}}});
    writeStep(dir, 10, 0.5);
    const nlohmann::json s20 = writeStep(dir, 20, 0.8);
    const nlohmann::json s30 = writeStep(dir, 30, 0.7);
    writeAlias(dir, "best", 20, s20);
    writeAlias(dir, "last", 30, s30);
    return dir;
}

} // namespace

TEST(RunAnnotations, RoundTripAndCleanTags)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    engine::RunFolder::create(dir, nlohmann::json::object());
    EXPECT_TRUE(engine::readRunAnnotations(dir).displayName.empty()); // no file yet
    engine::RunAnnotations a;
    a.displayName = "  baseline  ";
    a.notes = "lr 0.1 diverged\nretry with warm-up";
    a.tags = {"resnet", " fast ", "", "resnet"};
    engine::writeRunAnnotations(dir, a);
    const engine::RunAnnotations b = engine::readRunAnnotations(dir);
    EXPECT_EQ(b.displayName, "baseline");
    EXPECT_EQ(b.notes, a.notes);
    EXPECT_EQ(b.tags, (std::vector<std::string>{"resnet", "fast"}));
    // No temp file left behind.
    for (const auto &e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

TEST(RunAnnotations, BadFilesNameTheFile)
{
    TempDir tmp;
    const std::string dir = tmp.file("run");
    fs::create_directories(dir);
    writeText(fs::path(dir) / "annotations.json", "{not json");
    try {
        engine::readRunAnnotations(dir);
        FAIL() << "no error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("annotations.json"), std::string::npos) << e.what();
    }
    writeText(fs::path(dir) / "annotations.json", R"({"tags": "one"})");
    EXPECT_THROW(engine::readRunAnnotations(dir), engine::EngineError);
    EXPECT_THROW(engine::writeRunAnnotations(tmp.file("missing"), {}), engine::EngineError);
}

TEST(Checkpoints, ListedWithBestAndLast)
{
    TempDir tmp;
    const std::string dir = runWithCheckpoints(tmp);
    const std::vector<engine::CheckpointEntry> list = engine::listCheckpoints(dir);
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0].name, "step-10");
    EXPECT_EQ(list[1].step, 20);
    EXPECT_TRUE(list[1].best);
    EXPECT_FALSE(list[1].chosenByUser);
    EXPECT_TRUE(list[2].last);
    EXPECT_EQ(list[2].bytes, 130u + 50u);
    EXPECT_DOUBLE_EQ(list[2].metrics["val_top1"].get<double>(), 0.7);
    EXPECT_TRUE(list[0].problem.empty());
    EXPECT_EQ(fs::path(list[0].model).filename(), "step-10.safetensors");

    // A model file cut short is reported, not hidden.
    writeText(fs::path(dir) / "checkpoints" / "step-10.safetensors", "short");
    EXPECT_FALSE(engine::listCheckpoints(dir)[0].problem.empty());
}

TEST(Checkpoints, MarkBestRepointsBest)
{
    TempDir tmp;
    const std::string dir = runWithCheckpoints(tmp);
    engine::markBestCheckpoint(dir, "step-10");
    const fs::path folder = fs::path(dir) / "checkpoints";
    EXPECT_TRUE(fs::equivalent(folder / "best.safetensors", folder / "step-10.safetensors"));
    std::ifstream in(folder / "best.json");
    const nlohmann::json best = nlohmann::json::parse(in);
    EXPECT_EQ(best["step"], 10);
    EXPECT_EQ(best["best_metric"], "val_top1");
    EXPECT_DOUBLE_EQ(best["best_value"].get<double>(), 0.5);
    EXPECT_TRUE(best["chosen_by_user"].get<bool>());
    EXPECT_EQ(best["files"]["model"]["name"], "best.safetensors");
    EXPECT_FALSE(best["files"].contains("state"));
    const std::vector<engine::CheckpointEntry> list = engine::listCheckpoints(dir);
    EXPECT_TRUE(list[0].best && list[0].chosenByUser);
    EXPECT_FALSE(list[1].best);
    EXPECT_THROW(engine::markBestCheckpoint(dir, "step-99"), engine::EngineError);
    EXPECT_THROW(engine::markBestCheckpoint(dir, "../x"), engine::EngineError);
}

TEST(Checkpoints, DeleteKeepsBestAndLastData)
{
    TempDir tmp;
    const std::string dir = runWithCheckpoints(tmp);
    const fs::path folder = fs::path(dir) / "checkpoints";
    engine::deleteCheckpoint(dir, "step-20"); // best.* links to it
    EXPECT_FALSE(fs::exists(folder / "step-20.json"));
    EXPECT_FALSE(fs::exists(folder / "step-20.safetensors"));
    EXPECT_FALSE(fs::exists(folder / "step-20.state.safetensors"));
    EXPECT_EQ(fs::file_size(folder / "best.safetensors"), 120u);
    // best now stands alone in the list, as "best".
    const std::vector<engine::CheckpointEntry> list = engine::listCheckpoints(dir);
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[1].name, "best");
    EXPECT_TRUE(list[1].best);
    EXPECT_TRUE(list[1].problem.empty()) << list[1].problem;
    EXPECT_THROW(engine::deleteCheckpoint(dir, "best"), engine::EngineError);
    EXPECT_THROW(engine::deleteCheckpoint(dir, "last"), engine::EngineError);
    EXPECT_THROW(engine::deleteCheckpoint(dir, "step-20"), engine::EngineError); // already gone
}

TEST(Checkpoints, ARunningRunKeepsItsNewestAndItsBest)
{
    TempDir tmp;
    const std::string dir = runWithCheckpoints(tmp);
    engine::RunFolder running = engine::RunFolder::open(dir); // holds the run lock as a trainer does
    try {
        engine::deleteCheckpoint(dir, "step-30");
        FAIL() << "deleted the newest checkpoint of a running run";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("running"), std::string::npos) << e.what();
    }
    EXPECT_THROW(engine::markBestCheckpoint(dir, "step-10"), engine::EngineError);
    engine::deleteCheckpoint(dir, "step-10"); // an older one may go
    EXPECT_EQ(engine::listCheckpoints(dir).size(), 2u);
}
