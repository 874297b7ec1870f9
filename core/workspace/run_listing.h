#pragma once

#include "engine/run/run_folder.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// A run of a project's runs folder, as the Evaluate, Export and Runs pages list it.
struct ListedRun
{
    QString dir;  // absolute and clean
    QString name; // the folder's name
    // engine::readRunInfo's. A run that cannot be read is listed all the same, as a failed run:
    // info.state "failed", info.message and problem the reason.
    engine::RunInfo info;
    // The dataset it trains on: the folder name of its config's data.shards, as the Data and
    // Train pages name datasets; empty when the config names none.
    QString dataset;
    // With RunDetail::Checkpoints: checkpointChoices(dir); empty when the run has none or they
    // cannot be read (problem then says why).
    QStringList checkpoints;
    QString problem; // empty when the run could be read
};

// What listRuns reads of each run: its RunInfo, and with Checkpoints its checkpoints too.
enum class RunDetail { Info, Checkpoints };

// The runs of runsDir (its sub-folders that engine::isRunFolder accepts, the trials of its
// study folders, named "study/trial-NNNN", and the folds of its cross-validation folders, named
// "folder/fold-N"), by folder name; none
// when runsDir does not exist. Reads every run's files: call it off the GUI thread. A run that
// cannot be read never makes the listing fail; it is listed with its problem.
QVector<ListedRun> listRuns(const QString &runsDir, RunDetail detail = RunDetail::Info);

// The checkpoints of runDir that exist, as a user picks them and resolveCheckpoint names them:
// "best" and "last" (engine::listCheckpoints), then the kept "step-<n>", newest first. Reads
// the disk like listRuns. Throws EngineError when a sidecar cannot be read.
QStringList checkpointChoices(const QString &runDir);

// Whether a run has something to evaluate or export: it could be read, it has a checkpoint, and
// it finished or completed at least one epoch. A run stopped (or killed) before the end of its
// first epoch has only the weights of a few steps: it never counts.
bool isTrained(const ListedRun &run);

// The run the Evaluate and Export pages show when the user chose none: the newest trained run
// that finished, else the newest trained run (stopped, interrupted, running); "newest" by the
// time of its first event, then by folder name. -1 when no run is trained.
int defaultRunIndex(const QVector<ListedRun> &runs);

// A running run whose TrainJob the user paused. Only the workbench knows it (the run folder does
// not change), so it is a display state beside engine::run_state's, never a RunInfo::state.
inline constexpr const char *kPausedState = "paused";

// The name every page gives a run state (engine::run_state, or kPausedState), translated:
// Running, Paused, Finished, Failed, Stopped (cancelled: Stop or Ctrl+C), Interrupted. Any other
// text is returned as it is.
QString runStateText(const QString &state);

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ListedRun)
