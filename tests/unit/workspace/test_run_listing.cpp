// The runs of a runs folder as the Evaluate, Export and Runs pages list them
// (workspace::listRuns, checkpointChoices): which folders are runs, their order, their state,
// their checkpoints, and a run that cannot be read listed as failed instead of failing the list.
#include "workspace/run_listing.h"
#include "fake_runs.h"

#include <QDir>
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
};

QTEST_MAIN(TestRunListing)
#include "test_run_listing.moc"
