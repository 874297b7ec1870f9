// run_layout.h and run_events.h: the run folder's names, what makes a folder a run, the event
// types, and that docs/formats.md documents exactly those event types.
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

using namespace lathe;
using lathe::test::sourceRoot;
namespace layout = lathe::engine::run_layout;
using lathe::test::errorOf;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The event types docs/formats.md documents: the first column of the table that follows the
// paragraph on metrics.jsonl ("| `step` | ... |").
std::multiset<std::string> documentedEventTypes()
{
    std::ifstream in(sourceRoot() + "/docs/formats.md");
    EXPECT_TRUE(in) << "docs/formats.md not found under " << sourceRoot();
    std::multiset<std::string> types;
    std::string line;
    bool inSection = false;
    bool inTable = false;
    while (std::getline(in, line)) {
        if (!inSection) {
            inSection = line.rfind("**`metrics.jsonl`**", 0) == 0;
            continue;
        }
        const bool tableRow = line.rfind("|", 0) == 0;
        if (inTable && !tableRow)
            break; // the end of the table
        if (!tableRow)
            continue;
        inTable = true;
        // "| `name` | when | fields |": the header ("| `type` |") and the rule ("|---|") are skipped.
        if (line.rfind("| `", 0) != 0)
            continue;
        const std::size_t end = line.find('`', 3);
        const std::string name = line.substr(3, end - 3);
        if (name != "type")
            types.insert(name);
    }
    EXPECT_TRUE(inTable) << "docs/formats.md: no table after **`metrics.jsonl`**";
    return types;
}

} // namespace

TEST(RunLayout, PathsInsideTheRunFolder)
{
    const std::string run = "/runs/r1";
    EXPECT_EQ(layout::configPath(run), "/runs/r1/config.json");
    EXPECT_EQ(layout::metricsPath(run), "/runs/r1/metrics.jsonl");
    EXPECT_EQ(layout::logPath(run), "/runs/r1/log.txt");
    EXPECT_EQ(layout::annotationsPath(run), "/runs/r1/annotations.json");
    EXPECT_EQ(layout::lockPath(run), "/runs/r1/.lock");
    EXPECT_EQ(layout::checkpointsPath(run), "/runs/r1/checkpoints");
    EXPECT_EQ(layout::lastSidecarPath(run), "/runs/r1/checkpoints/last.json");
    EXPECT_EQ(layout::bestSidecarPath(run), "/runs/r1/checkpoints/best.json");
    EXPECT_EQ(std::string(layout::kTensorBoardPrefix), "events.out.tfevents.");
}

TEST(RunLayout, StepStems)
{
    EXPECT_EQ(layout::stepStem(120), "step-120");
    EXPECT_EQ(layout::stepOfStem("step-120"), 120);
    EXPECT_EQ(layout::stepOfStem("step-0"), 0);
    EXPECT_EQ(layout::stepOfStem("step-999999999999999999"), 999999999999999999); // 18 digits
    for (const char *notAStep : {"step-", "step-1234567890123456789", "step--1", "step-1a", "step-1.json", "Step-1",
                                 "best", "last", "", " step-1"})
        EXPECT_EQ(layout::stepOfStem(notAStep), -1) << notAStep;
}

TEST(RunLayout, ARunFolderHoldsAConfig)
{
    TempDir tmp;
    EXPECT_FALSE(engine::isRunFolder(tmp.file("missing")));
    EXPECT_FALSE(engine::isRunFolder(tmp.path().string())); // an empty folder
    EXPECT_FALSE(engine::isRunFolder(""));
    fs::create_directories(tmp.file("odd/config.json")); // a folder of that name is not a config
    EXPECT_FALSE(engine::isRunFolder(tmp.file("odd")));

    const std::string run = tmp.file("run");
    engine::RunFolder::create(run, {{"version", 1}});
    EXPECT_TRUE(engine::isRunFolder(run));
    EXPECT_TRUE(fs::is_directory(layout::checkpointsPath(run)));
}

TEST(RunEvents, TheKnownTypes)
{
    const std::set<std::string> all(engine::kAllEventTypes.begin(), engine::kAllEventTypes.end());
    EXPECT_EQ(all, (std::set<std::string>{"step", "epoch", "checkpoint", "log", "finished", "failed", "cancelled",
                                          "resumed", "overflow_skipped"}));
    EXPECT_EQ(all.size(), engine::kAllEventTypes.size()); // no type twice
    for (const std::string &type : all)
        EXPECT_TRUE(engine::isEventType(type)) << type;
    EXPECT_FALSE(engine::isEventType("summary"));
    EXPECT_FALSE(engine::isEventType(""));
    EXPECT_TRUE(engine::isEndEventType("finished"));
    EXPECT_TRUE(engine::isEndEventType("failed"));
    EXPECT_TRUE(engine::isEndEventType("cancelled"));
    EXPECT_FALSE(engine::isEndEventType("resumed"));
    EXPECT_FALSE(engine::isEndEventType("step"));
}

TEST(RunEvents, TheRunFolderTakesExactlyTheKnownTypes)
{
    TempDir tmp;
    engine::RunFolder run = engine::RunFolder::create(tmp.file("run"), {{"version", 1}});
    for (const char *type : engine::kAllEventTypes)
        EXPECT_NO_THROW(run.appendMetrics({{engine::event_key::kType, type}})) << type;
    const std::string error = errorOf([&] { run.appendMetrics({{"type", "summary"}}); });
    EXPECT_NE(error.find("event type must be one of step, epoch, checkpoint, log, finished, failed, cancelled, resumed, "
                         "overflow_skipped (got \"summary\")"),
              std::string::npos)
        << error;
    EXPECT_EQ(engine::readMetrics(run.dir()).size(), engine::kAllEventTypes.size());
}

TEST(RunEvents, DocsListExactlyTheEngineEventTypes)
{
    const std::multiset<std::string> documented = documentedEventTypes();
    const std::multiset<std::string> engineTypes(engine::kAllEventTypes.begin(), engine::kAllEventTypes.end());
    EXPECT_EQ(documented, engineTypes) << "docs/formats.md's metrics.jsonl table must list each type in run_events.h once";
}
