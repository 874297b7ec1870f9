#pragma once

#include <QStringList>

class QComboBox;

namespace lathe::ui {

// The runs of a project's runs folder: its sub-folders that hold a config.json, by name,
// absolute and clean. Reads the disk: call it off the GUI thread.
QStringList listRunFolders(const QString &runsDir);

// The checkpoints of a run that exist, as resolveCheckpoint names them: "best" and "last" (by
// engine::listCheckpoints), then the kept "step-<n>", newest first. Reads the disk like listRunFolders.
QStringList listCheckpoints(const QString &runDir);

// Selects runDir in runCombo (item data: run folders), then checkpoint in checkpointCombo (item
// data: checkpoint names), adding a checkpoint file that is not listed under its base name.
// false when runDir is not in runCombo.
bool chooseRunCheckpoint(QComboBox *runCombo, QComboBox *checkpointCombo, const QString &runDir, const QString &checkpoint);

} // namespace lathe::ui
