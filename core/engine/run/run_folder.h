#pragma once

#include "engine/formats/tensorboard_writer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

// A training run's folder: the contract between the engine, the GUI, the CLI, TensorBoard and
// a user's own scripts (DESIGN.md §2-§3). Its file names are in run_layout.h; .lock is locked
// while a RunFolder object writes the run, and a dead process (even kill -9) releases it, so
// readers tell "running" from "interrupted".
//
// Events in metrics.jsonl (run_events.h): every object has "type" (one of kAllEventTypes) and
// "time" (seconds since the Unix epoch, added when absent). Metric values sit at the top level
// of the event, under the names the run config uses ("train_loss", "val_loss", "val_top1", ...),
// next to "step" and "epoch".
//
// A RunFolder writes; one process at a time: create() and open() take the lock and throw when
// another RunFolder (in this or another process) holds it. Thread-safe. Movable.
class RunFolder
{
public:
    // dir must not exist or be an empty folder. Creates it and checkpoints/, writes config.json
    // atomically (temp + fsync + rename).
    static RunFolder create(const std::string &dir, const nlohmann::json &config);
    // An existing run, to continue writing it (resume): config.json must parse. A truncated
    // last line in metrics.jsonl (a kill mid-write) is cut off first, so appended events start
    // on a line of their own.
    static RunFolder open(const std::string &dir);

    RunFolder(RunFolder &&) noexcept;
    RunFolder &operator=(RunFolder &&) noexcept;
    ~RunFolder();

    const std::string &dir() const;
    nlohmann::json config() const;
    std::string checkpointsDir() const;

    // One line in metrics.jsonl, handed to the kernel at once (flushed, not fsynced): a killed
    // process loses nothing already appended. Throws EngineError for an event that is not an
    // object or has no known "type".
    void appendMetrics(const nlohmann::json &event);
    // A line in log.txt, prefixed with the local time ("2026-11-29 12:34:56.789 ").
    void log(const std::string &line);
    // The run's TensorBoard writer, created on first use.
    TensorBoardWriter &tensorboard();

private:
    struct Impl;
    explicit RunFolder(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// Every event of runDir/metrics.jsonl, in order (empty when the file does not exist). A last
// line cut short by a kill is dropped; any other line that is not a JSON object is an
// EngineError naming the file and the line number, as is a line over 1 MiB.
std::vector<nlohmann::json> readMetrics(const std::string &runDir);

// A whole small file (config.json, a checkpoint sidecar); EngineError naming the file when it
// cannot be read or is larger than limit bytes.
std::string readSmallFile(const std::string &path, std::uintmax_t limit);

// A run at a glance (the Runs page).
struct RunInfo
{
    std::string dir;
    // "running" (a RunFolder holds the lock), else from the last end event: "finished",
    // "failed", "cancelled"; "interrupted" when the run has no end event after its last start
    // (killed, crashed, power loss) — it resumes from its last checkpoint.
    std::string state;
    std::string message;           // "failed": the reason
    std::string arch;              // config model.arch
    std::int64_t totalEpochs = 0;  // config optimizer.epochs
    std::int64_t lastEpoch = -1;   // "epoch" of the last epoch event
    std::int64_t lastStep = -1;    // highest "step" of any event
    double startTime = 0;          // "time" of the first event
    double lastTime = 0;           // "time" of the last event
    nlohmann::json lastEpochEvent; // the last epoch event (null when none)
    // config checkpoints.best_metric (default "val_top1"); lower is better when it ends in "loss".
    std::string bestMetric;
    std::optional<double> bestValue; // best over the epoch events, else best.json's
    std::int64_t bestEpoch = -1; // 0-based, as epoch events count (the first epoch is 0)
    std::int64_t bestStep = -1;
    std::int64_t bestCheckpointStep = -1; // the step best.* holds (-1: none)
    std::int64_t lastCheckpointStep = -1; // the step last.* holds (-1: none)
};

// Throws EngineError when runDir has no readable config.json or metrics.jsonl is malformed.
RunInfo readRunInfo(const std::string &runDir);

// Whether a metric improves when it goes down: its name ends in "loss".
bool metricLowerIsBetter(const std::string &metric);

// What a user wrote about a run: runDir/annotations.json, {"version": 1, "display_name": "",
// "notes": "", "tags": []}. Kept in the run folder (not the project database) so runs copied
// between machines or written by lathe-cli carry them too; the trainer never touches the file.
struct RunAnnotations
{
    std::string displayName; // empty: the folder name
    std::string notes;
    std::vector<std::string> tags;
};

// Empty annotations when the file does not exist; EngineError naming the file when it is not
// JSON or a field has the wrong type.
RunAnnotations readRunAnnotations(const std::string &runDir);
// Written atomically (temp + fsync + rename). Tags are trimmed; empty and repeated ones dropped.
void writeRunAnnotations(const std::string &runDir, const RunAnnotations &annotations);

// One checkpoint of a run as the Runs page lists it (checkpoint_io.h describes the files).
struct CheckpointEntry
{
    std::string name;    // "step-<n>"; "best" or "last" when only that alias still holds its step
    std::string sidecar; // full paths
    std::string model;
    std::int64_t step = -1;
    std::int64_t epoch = -1;
    nlohmann::json metrics;   // the sidecar's metrics object
    std::uintmax_t bytes = 0; // model and training-state files
    bool best = false;        // best.* holds this step
    bool last = false;        // last.* holds this step
    bool chosenByUser = false; // best.* was set by markBestCheckpoint, not by the metric
    std::string problem;      // why the checkpoint is incomplete (a file missing or cut short); empty when fine
};

// The checkpoints of runDir, by step (sidecars only: no tensor is read).
std::vector<CheckpointEntry> listCheckpoints(const std::string &runDir);
// Makes checkpoint `name` ("step-<n>" or "last") the run's best.*: best.safetensors becomes a
// link to its model file and best.json records it with "chosen_by_user": true, best_metric the
// run's policy metric and best_value that checkpoint's value of it. Evaluate and export of
// "best" then take it; a later (resumed) run replaces it only with a checkpoint that beats that
// value, as it would any best. Refused while the run is running (the trainer owns best.* then).
void markBestCheckpoint(const std::string &runDir, const std::string &name);
// Deletes step checkpoint `name` ("step-<n>"): its sidecar first, then its tensor files. best.*
// and last.* are links of their own and keep their data. Refused for best/last themselves and,
// while the run is running, for the newest checkpoint (the one it resumes from).
void deleteCheckpoint(const std::string &runDir, const std::string &name);

} // namespace lathe::engine
