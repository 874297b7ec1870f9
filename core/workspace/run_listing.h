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
    // With RunDetail::Checkpoints: checkpointChoices(dir); empty when the run has none or they
    // cannot be read (problem then says why).
    QStringList checkpoints;
    QString problem; // empty when the run could be read
};

// What listRuns reads of each run: its RunInfo, and with Checkpoints its checkpoints too.
enum class RunDetail { Info, Checkpoints };

// The runs of runsDir (its sub-folders that engine::isRunFolder accepts), by folder name; none
// when runsDir does not exist. Reads every run's files: call it off the GUI thread. A run that
// cannot be read never makes the listing fail; it is listed with its problem.
QVector<ListedRun> listRuns(const QString &runsDir, RunDetail detail = RunDetail::Info);

// The checkpoints of runDir that exist, as a user picks them and resolveCheckpoint names them:
// "best" and "last" (engine::listCheckpoints), then the kept "step-<n>", newest first. Reads
// the disk like listRuns. Throws EngineError when a sidecar cannot be read.
QStringList checkpointChoices(const QString &runDir);

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ListedRun)
