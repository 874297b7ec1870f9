#include "common/project_runs.h"

#include "engine/run/run_folder.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace lathe::ui {

QStringList listRunFolders(const QString &runsDir)
{
    QStringList runs;
    const QDir dir(runsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = QDir::cleanPath(dir.absoluteFilePath(name));
        if (QFileInfo::exists(QDir(path).filePath(QStringLiteral("config.json"))))
            runs << path;
    }
    return runs;
}

QStringList listCheckpoints(const QString &runDir)
{
    const std::vector<engine::CheckpointEntry> entries = engine::listCheckpoints(runDir.toStdString());
    QStringList names;
    if (std::any_of(entries.begin(), entries.end(), [](const engine::CheckpointEntry &e) { return e.best; }))
        names << QStringLiteral("best");
    if (std::any_of(entries.begin(), entries.end(), [](const engine::CheckpointEntry &e) { return e.last; }))
        names << QStringLiteral("last");
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) // by step, newest first
        if (it->name.rfind("step-", 0) == 0)
            names << QString::fromStdString(it->name);
    return names;
}

bool chooseRunCheckpoint(QComboBox *runCombo, QComboBox *checkpointCombo, const QString &runDir, const QString &checkpoint)
{
    const int run = runCombo->findData(runDir);
    if (run < 0)
        return false;
    runCombo->setCurrentIndex(run); // the page lists the run's checkpoints meanwhile
    if (checkpoint.isEmpty())
        return true;
    int at = checkpointCombo->findData(checkpoint);
    if (at < 0) { // a checkpoint file: offered as given
        checkpointCombo->addItem(QFileInfo(checkpoint).completeBaseName(), checkpoint);
        at = checkpointCombo->count() - 1;
    }
    checkpointCombo->setCurrentIndex(at);
    return true;
}

} // namespace lathe::ui
