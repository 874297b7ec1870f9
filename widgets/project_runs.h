#pragma once

#include <QStringList>

namespace lathe::ui {

// The runs of a project's runs folder: its sub-folders that hold a config.json, by name,
// absolute and clean. Reads the disk: call it off the GUI thread.
QStringList listRunFolders(const QString &runsDir);

// The checkpoints of a run that exist, as resolveCheckpoint names them: "best" and "last" (by
// their sidecars), then the kept "step-<n>", newest first. Reads the disk like listRunFolders.
QStringList listCheckpoints(const QString &runDir);

} // namespace lathe::ui
