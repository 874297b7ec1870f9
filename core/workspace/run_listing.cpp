#include "workspace/run_listing.h"

#include "engine/run/run_events.h"
#include "engine/run/run_layout.h"
#include "engine/tune/study_state.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPair>
#include <QRegularExpression>

#include <algorithm>

namespace lathe::workspace {
namespace {

// The folder name of runDir's config data.shards. readRunInfo has read the config already; the
// dataset is a detail of the listing, so a config it cannot take leaves it empty.
QString datasetOf(const QString &runDir)
{
    try {
        const nlohmann::json config = nlohmann::json::parse(
            engine::readSmallFile(engine::run_layout::configPath(runDir.toStdString()), std::uintmax_t(16) << 20));
        const nlohmann::json::json_pointer shards("/data/shards");
        if (config.is_object() && config.contains(shards) && config[shards].is_string())
            return QFileInfo(QDir::cleanPath(QString::fromStdString(config[shards].get<std::string>()))).fileName();
    } catch (const std::exception &) {
    }
    return {};
}

} // namespace

QVector<ListedRun> listRuns(const QString &runsDir, RunDetail detail)
{
    QVector<ListedRun> runs;
    const auto add = [&runs, detail](const QDir &parent, const QString &folder, const QString &name) {
        ListedRun run;
        run.dir = QDir::cleanPath(parent.absoluteFilePath(folder));
        run.name = name;
        try {
            run.info = engine::readRunInfo(run.dir.toStdString());
            run.dataset = datasetOf(run.dir);
        } catch (const std::exception &e) {
            run.problem = QString::fromUtf8(e.what());
            run.info.dir = run.dir.toStdString();
            run.info.state = engine::run_state::kFailed; // shown as a run that failed
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
    };
    const QDir dir(runsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (engine::isRunFolder(dir.filePath(name).toStdString())) {
            add(dir, name, name);
            continue;
        }
        const QDir group(dir.filePath(name));
        // A study's trials are runs too, named study/trial.
        if (group.exists(QLatin1String(engine::kStudyFile))) {
            for (const QString &trial : group.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                if (engine::isRunFolder(group.filePath(trial).toStdString()))
                    add(group, trial, name + QLatin1Char('/') + trial);
            continue;
        }
        // So are a cross-validation's folds (engine::crossValidate: fold-1 ... fold-K, before and
        // after its folds.json), named folder/fold-N, fold 2 before fold 10.
        QVector<QPair<int, QString>> folds;
        static const QRegularExpression foldName(QStringLiteral("^fold-([1-9][0-9]*)$"));
        for (const QString &fold : group.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QRegularExpressionMatch match = foldName.match(fold);
            if (match.hasMatch() && engine::isRunFolder(group.filePath(fold).toStdString()))
                folds.append({match.captured(1).toInt(), fold});
        }
        std::sort(folds.begin(), folds.end());
        for (const auto &fold : folds)
            add(group, fold.second, name + QLatin1Char('/') + fold.second);
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

bool isTrained(const ListedRun &run)
{
    // last.* is written with every checkpoint; the listed names also count for a run whose last.*
    // is gone.
    const bool checkpoint = run.info.lastCheckpointStep >= 0 || !run.checkpoints.isEmpty();
    return run.problem.isEmpty() && checkpoint && (run.info.state == engine::run_state::kFinished || run.info.lastEpoch >= 0);
}

int defaultRunIndex(const QVector<ListedRun> &runs)
{
    const auto newer = [&runs](int a, int b) { // whether runs[a] started after runs[b]
        const ListedRun &x = runs.at(a);
        const ListedRun &y = runs.at(b);
        return x.info.startTime != y.info.startTime ? x.info.startTime > y.info.startTime : x.name > y.name;
    };
    int finished = -1;
    int trained = -1;
    for (int i = 0; i < runs.size(); ++i) {
        if (!isTrained(runs.at(i)))
            continue;
        if (trained < 0 || newer(i, trained))
            trained = i;
        if (runs.at(i).info.state == engine::run_state::kFinished && (finished < 0 || newer(i, finished)))
            finished = i;
    }
    return finished >= 0 ? finished : trained;
}

QString runStateText(const QString &state)
{
    struct Name
    {
        const char *state;
        const char *text;
    };
    // One translation context for the state names, wherever they are shown.
    static const Name names[] = {
        {engine::run_state::kRunning, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Running")},
        {kPausedState, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Paused")},
        {engine::run_state::kFinished, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Finished")},
        {engine::run_state::kFailed, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Failed")},
        {engine::run_state::kCancelled, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Stopped")},
        {engine::run_state::kInterrupted, QT_TRANSLATE_NOOP("lathe::workspace::RunState", "Interrupted")},
    };
    for (const Name &name : names)
        if (state == QLatin1String(name.state))
            return QCoreApplication::translate("lathe::workspace::RunState", name.text);
    return state;
}

} // namespace lathe::workspace
