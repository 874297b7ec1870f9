#include "workspace/run_listing.h"

#include "engine/run/run_events.h"
#include "engine/run/run_layout.h"

#include <QDir>

#include <algorithm>

namespace lathe::workspace {

QVector<ListedRun> listRuns(const QString &runsDir, RunDetail detail)
{
    QVector<ListedRun> runs;
    const QDir dir(runsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        ListedRun run;
        run.dir = QDir::cleanPath(dir.absoluteFilePath(name));
        if (!engine::isRunFolder(run.dir.toStdString()))
            continue;
        run.name = name;
        try {
            run.info = engine::readRunInfo(run.dir.toStdString());
        } catch (const std::exception &e) {
            run.problem = QString::fromUtf8(e.what());
            run.info.dir = run.dir.toStdString();
            run.info.state = engine::event_type::kFailed; // shown as a run that failed
            run.info.message = e.what();
        }
        if (detail == RunDetail::Checkpoints) {
            try {
                run.checkpoints = checkpointChoices(run.dir);
            } catch (const std::exception &e) {
                if (run.problem.isEmpty())
                    run.problem = QString::fromUtf8(e.what());
            }
        }
        runs.append(run);
    }
    return runs;
}

QStringList checkpointChoices(const QString &runDir)
{
    const std::vector<engine::CheckpointEntry> entries = engine::listCheckpoints(runDir.toStdString());
    QStringList names;
    if (std::any_of(entries.begin(), entries.end(), [](const engine::CheckpointEntry &e) { return e.best; }))
        names << QString::fromLatin1(engine::run_layout::kBestAlias);
    if (std::any_of(entries.begin(), entries.end(), [](const engine::CheckpointEntry &e) { return e.last; }))
        names << QString::fromLatin1(engine::run_layout::kLastAlias);
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) // by step, newest first
        if (engine::run_layout::stepOfStem(it->name) >= 0)
            names << QString::fromStdString(it->name);
    return names;
}

} // namespace lathe::workspace
