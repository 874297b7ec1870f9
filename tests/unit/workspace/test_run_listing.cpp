// The runs of a runs folder as the Evaluate, Export and Runs pages list them
// (workspace::listRuns, checkpointChoices): which folders are runs, their order, their state,
// their dataset, their checkpoints, and a run that cannot be read listed as failed instead of
// failing the list; which runs are trained and which one the pages show by default; the names
// of the run states.
#include "workspace/run_listing.h"
#include "engine/run/run_events.h"
#include "fake_runs.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace lathe;
using namespace lathe::workspace;

class TestRunListing : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsTheRunFoldersByName()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("b-run")), "mobilenet_v3_small"));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("a-run"))));
        QVERIFY(runs.mkpath(QStringLiteral("not-a-run/checkpoints"))); // no config.json
        QVERIFY(fake_runs::writeFile(runs.filePath(QStringLiteral("notes.txt")), "a file, not a folder\n"));

        const QVector<ListedRun> listed = listRuns(runs.path() + QStringLiteral("/"));
        QCOMPARE(listed.size(), 2);
        QCOMPARE(listed.at(0).name, QStringLiteral("a-run"));
        QCOMPARE(listed.at(0).dir, QDir::cleanPath(runs.filePath(QStringLiteral("a-run"))));
        QCOMPARE(listed.at(1).name, QStringLiteral("b-run"));
        QCOMPARE(listed.at(1).info.arch, std::string("mobilenet_v3_small"));
        for (const ListedRun &run : listed) {
            QVERIFY2(run.problem.isEmpty(), qPrintable(run.problem));
            QCOMPARE(run.info.state, std::string("finished"));
            QVERIFY(run.checkpoints.isEmpty()); // RunDetail::Info reads no checkpoint
        }
        QVERIFY(listRuns(tmp.filePath(QStringLiteral("missing"))).isEmpty());
    }

    void listsTheCheckpointsAUserCanPick()
    {
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("runs/r1"));
        QVERIFY(fake_runs::writeRun(run));
        QVERIFY(checkpointChoices(run).isEmpty()); // no checkpoints/ folder yet
        QVERIFY(fake_runs::writeCheckpoints(run, {2, 4, 6}, 4));
        const QStringList expected = {QStringLiteral("best"), QStringLiteral("last"), QStringLiteral("step-6"),
                                      QStringLiteral("step-4"), QStringLiteral("step-2")};
        QCOMPARE(checkpointChoices(run), expected);

        const QVector<ListedRun> listed = listRuns(tmp.filePath(QStringLiteral("runs")), RunDetail::Checkpoints);
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().checkpoints, expected);
    }

    void anUnreadableRunIsListedAsFailed()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("good"))));
        QVERIFY(fake_runs::writeFile(runs.filePath(QStringLiteral("broken/config.json")), "{not json"));

        const QVector<ListedRun> listed = listRuns(runs.path(), RunDetail::Checkpoints);
        QCOMPARE(listed.size(), 2);
        const ListedRun &broken = listed.at(0);
        QCOMPARE(broken.name, QStringLiteral("broken"));
        QVERIFY2(broken.problem.contains(QStringLiteral("config.json")), qPrintable(broken.problem));
        QCOMPARE(broken.info.state, std::string("failed"));
        QCOMPARE(QString::fromStdString(broken.info.message), broken.problem);
        QVERIFY(broken.checkpoints.isEmpty());
        QVERIFY(listed.at(1).problem.isEmpty());
    }

    void theDatasetIsTheShardsFolderName()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        QVERIFY(fake_runs::writeRunEvents(runs.filePath(QStringLiteral("flowers-run")), {}, "resnet18",
                                          {{"data", {{"shards", "/projects/p/datasets/flowers/"}}}}));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("no-data"))));
        const QVector<ListedRun> listed = listRuns(runs.path());
        QCOMPARE(listed.size(), 2);
        QCOMPARE(listed.at(0).dataset, QStringLiteral("flowers"));
        QCOMPARE(listed.at(1).dataset, QString());
    }

    // A study's trials are runs of the runs folder too, named study/trial; a folder that is
    // neither a run nor a study is not listed, nor what a study holds beside its trials.
    void studyTrialsAreListed()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("a-run"))));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("study-1/trial-0000"))));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("study-1/trial-0001"))));
        QVERIFY(runs.mkpath(QStringLiteral("study-1/notes")));
        QFile studyFile(runs.filePath(QStringLiteral("study-1/study.json")));
        QVERIFY(studyFile.open(QIODevice::WriteOnly));
        studyFile.write("{}");
        studyFile.close();
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("not-a-study/trial-0000"))));
        QStringList names;
        for (const ListedRun &run : listRuns(runs.path()))
            names << run.name;
        QCOMPARE(names, (QStringList{QStringLiteral("a-run"), QStringLiteral("study-1/trial-0000"),
                                     QStringLiteral("study-1/trial-0001")}));
    }

    // A cross-validation's folds are runs of the runs folder too, named folder/fold-N, by fold
    // number, while it runs (no folds.json yet) as after; other sub-folders of it are not runs.
    void crossValidationFoldsAreListed()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        for (const char *fold : {"cv/fold-10", "cv/fold-2", "cv/fold-1"})
            QVERIFY(fake_runs::writeRun(runs.filePath(QLatin1String(fold))));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("cv/fold-0"))));   // no fold 0
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("cv/fold-2b"))));  // not fold-N
        QVERIFY(runs.mkpath(QStringLiteral("cv/fold-3")));                          // not a run
        QVERIFY(fake_runs::writeFile(runs.filePath(QStringLiteral("cv/folds.json")), "{}\n"));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("z-run"))));
        QStringList names;
        for (const ListedRun &run : listRuns(runs.path())) {
            names << run.name;
            QVERIFY2(run.problem.isEmpty(), qPrintable(run.problem));
        }
        QCOMPARE(names, (QStringList{QStringLiteral("cv/fold-1"), QStringLiteral("cv/fold-2"),
                                     QStringLiteral("cv/fold-10"), QStringLiteral("z-run")}));
    }

    // A run is worth evaluating once it has a checkpoint and finished or completed an epoch; the
    // pages default to the newest finished one, else the newest trained one, else none.
    void trainedRunsAndTheDefaultRun()
    {
        QTemporaryDir tmp;
        const QDir runs(tmp.filePath(QStringLiteral("runs")));
        const auto event = [](const char *type, double time, int epoch = 0) {
            return nlohmann::json{{"type", type}, {"time", time}, {"step", 3}, {"epoch", epoch}};
        };
        const auto write = [&](const char *name, const std::vector<nlohmann::json> &events, bool checkpoint) {
            const QString dir = runs.filePath(QString::fromLatin1(name));
            return fake_runs::writeRunEvents(dir, events) && (!checkpoint || fake_runs::writeCheckpoints(dir, {3}, 3));
        };
        QVERIFY(write("a-finished", {event("epoch", 100), event("finished", 101)}, true));
        QVERIFY(write("b-finished", {event("epoch", 200), event("finished", 201)}, true));
        // Newer, but stopped within its first epoch: a checkpoint of a few steps.
        QVERIFY(write("c-stopped-early", {event("cancelled", 300)}, true));
        QVERIFY(write("d-stopped-later", {event("epoch", 400), event("cancelled", 401, 1)}, true));
        QVERIFY(write("e-finished-no-checkpoint", {event("epoch", 500), event("finished", 501)}, false));
        QVERIFY(write("f-interrupted", {event("epoch", 600)}, true));

        QVector<ListedRun> listed = listRuns(runs.path(), RunDetail::Checkpoints);
        QCOMPARE(listed.size(), 6);
        QList<bool> trained;
        for (const ListedRun &run : listed)
            trained << isTrained(run);
        QCOMPARE(trained, (QList<bool>{true, true, false, true, false, true}));
        QCOMPARE(defaultRunIndex(listed), 1); // b: the newest finished run
        listed.remove(0, 2);                  // no finished run left: the newest trained one, f
        QCOMPARE(defaultRunIndex(listed), 3);
        listed.remove(3);
        QCOMPARE(defaultRunIndex(listed), 1); // d
        listed.remove(1);
        QCOMPARE(listed.first().name, QStringLiteral("c-stopped-early"));
        QCOMPARE(defaultRunIndex(listed), -1); // only untrained runs: none
        QCOMPARE(defaultRunIndex({}), -1);
    }

    void runStatesHaveOneNameEach()
    {
        QCOMPARE(runStateText(QString::fromLatin1(engine::run_state::kRunning)), QStringLiteral("Running"));
        QCOMPARE(runStateText(QString::fromLatin1(kPausedState)), QStringLiteral("Paused"));
        QCOMPARE(runStateText(QString::fromLatin1(engine::run_state::kFinished)), QStringLiteral("Finished"));
        QCOMPARE(runStateText(QString::fromLatin1(engine::run_state::kFailed)), QStringLiteral("Failed"));
        QCOMPARE(runStateText(QString::fromLatin1(engine::run_state::kCancelled)), QStringLiteral("Stopped"));
        QCOMPARE(runStateText(QString::fromLatin1(engine::run_state::kInterrupted)), QStringLiteral("Interrupted"));
        QCOMPARE(runStateText(QStringLiteral("something new")), QStringLiteral("something new"));
    }
};

QTEST_MAIN(TestRunListing)
#include "test_run_listing.moc"
