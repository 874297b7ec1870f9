// The run and checkpoint picker of the Evaluate and Export pages on run folders laid out by
// hand: what it lists (runs by name, unreadable ones marked, each run's checkpoints), which run
// it preselects (the newest finished one, never one stopped before its first epoch ended) and
// how it follows the Runs page until the user picks a run, that a listing and a change of run
// keep the choice, and select() for listed runs, runs that appear later, checkpoint files and
// folders that are no run.
#include "../unit/workspace/fake_runs.h"
#include "common/run_checkpoint_picker.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using lathe::ui::RunCheckpointPicker;

class TestRunCheckpointPicker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_runs = QDir(m_tmp.filePath(QStringLiteral("runs")));
        QVERIFY(fake_runs::writeRun(m_runs.filePath(QStringLiteral("a")), "resnet18"));
        QVERIFY(fake_runs::writeCheckpoints(m_runs.filePath(QStringLiteral("a")), {2, 4, 6}, 4));
        QVERIFY(fake_runs::writeRun(m_runs.filePath(QStringLiteral("b")), "convnext_tiny"));
        QVERIFY(fake_runs::writeCheckpoints(m_runs.filePath(QStringLiteral("b")), {3}, 3));
        QVERIFY(fake_runs::writeFile(m_runs.filePath(QStringLiteral("c/config.json")), "{not json"));
    }

    void listsRunsAndTheirCheckpoints()
    {
        RunCheckpointPicker picker(QStringLiteral("test"));
        QCOMPARE(picker.runCombo()->objectName(), QStringLiteral("testRun"));
        QCOMPARE(picker.checkpointCombo()->objectName(), QStringLiteral("testCheckpoint"));
        QVERIFY(!listed(picker, m_runs.path()).isEmpty());
        QCOMPARE(picker.runs(), (QStringList{run("a"), run("b"), run("c")}));
        QCOMPARE(picker.runCombo()->itemText(0), QStringLiteral("a (resnet18, Finished)"));
        QCOMPARE(picker.runCombo()->itemText(2), QStringLiteral("c (unreadable)"));
        QVERIFY(picker.runCombo()->itemData(2, Qt::ToolTipRole).toString().contains(QStringLiteral("config.json")));
        QCOMPARE(picker.currentRun(), run("b")); // finished at the same time as a: the later name
        QVERIFY(picker.selectRun(run("a")));
        QCOMPARE(checkpoints(picker), (QStringList{QStringLiteral("best"), QStringLiteral("last"), QStringLiteral("step-6"),
                                                    QStringLiteral("step-4"), QStringLiteral("step-2")}));
        QCOMPARE(picker.checkpointCombo()->itemText(2), QStringLiteral("Step 6"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("best"));

        // A run that cannot be read offers nothing to evaluate or export.
        QSignalSpy changed(&picker, &RunCheckpointPicker::selectionChanged);
        QVERIFY(picker.selectRun(run("c") + QStringLiteral("/")));
        QCOMPARE(changed.count(), 1);
        QVERIFY(picker.currentCheckpoint().isEmpty());

        picker.setRunsDir(QString());
        QVERIFY(picker.runs().isEmpty());
        QVERIFY(picker.currentRun().isEmpty());
    }

    void keepsTheChoice()
    {
        RunCheckpointPicker picker(QStringLiteral("test"));
        listed(picker, m_runs.path());
        QSignalSpy changed(&picker, &RunCheckpointPicker::selectionChanged);
        picker.select(run("a"), QStringLiteral("last"));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("last"));
        // Another run: the same checkpoint name when it has one.
        picker.runCombo()->setCurrentIndex(1);
        QCOMPARE(picker.currentRun(), run("b"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("last"));
        picker.select(run("a"), QStringLiteral("step-4"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("step-4"));
        picker.runCombo()->setCurrentIndex(1);
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("best")); // b has no step-4
        // A listing keeps the run and the checkpoint.
        picker.select(run("a"), QStringLiteral("step-2"));
        QSignalSpy loaded(&picker, &RunCheckpointPicker::runsLoaded);
        picker.refresh();
        QVERIFY(loaded.wait());
        QCOMPARE(picker.currentRun(), run("a"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("step-2"));
    }

    // A finished run, a newer one stopped before its first epoch ended (it has a checkpoint of
    // its first step) and an older finished one: the newest finished run is preselected; the
    // picker follows the runs it is told of (the Runs page's selection) while they are trained,
    // until the user picks a run; another runs folder forgets that pick.
    void preselectsTheNewestFinishedRunAndFollows()
    {
        const QDir runs(m_tmp.filePath(QStringLiteral("preselect")));
        const auto stopped = [](double time) {
            return std::vector<nlohmann::json>{nlohmann::json{{"type", "step"}, {"time", time}, {"step", 1}, {"epoch", 0}},
                                               nlohmann::json{{"type", "cancelled"}, {"time", time + 1}, {"step", 1}, {"epoch", 0}}};
        };
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("old")), "resnet18", 100));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("old")), {3}, 3));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("mid")), "resnet18", 200));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("mid")), {3}, 3));
        QVERIFY(fake_runs::writeRunEvents(runs.filePath(QStringLiteral("new-stopped")), stopped(300)));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("new-stopped")), {1}, 1));
        const auto at = [&runs](const char *name) { return QDir::cleanPath(runs.filePath(QString::fromLatin1(name))); };

        RunCheckpointPicker picker(QStringLiteral("test"));
        QCOMPARE(listed(picker, runs.path()).size(), 3); // mid, new-stopped, old
        QCOMPARE(picker.currentRun(), at("mid"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("best"));
        QVERIFY(picker.noRunReason().isEmpty());

        // The Runs page's selection: followed when trained.
        QSignalSpy changed(&picker, &RunCheckpointPicker::selectionChanged);
        picker.followRun(at("old"));
        QCOMPARE(picker.currentRun(), at("old"));
        QCOMPARE(changed.count(), 1);
        picker.followRun(at("new-stopped"));
        QCOMPARE(picker.currentRun(), at("old"));
        // A listing keeps the followed run.
        QSignalSpy loaded(&picker, &RunCheckpointPicker::runsLoaded);
        picker.refresh();
        QVERIFY(loaded.wait());
        QCOMPARE(picker.currentRun(), at("old"));

        // The user picks a run in the combo (old -> new-stopped -> mid): it stays.
        QTest::keyClick(picker.runCombo(), Qt::Key_Up);
        QTest::keyClick(picker.runCombo(), Qt::Key_Up);
        QCOMPARE(picker.currentRun(), at("mid"));
        QVERIFY(picker.userPickedRun());
        picker.followRun(at("old"));
        QCOMPARE(picker.currentRun(), at("mid"));
        // A run that finishes later is not taken over the user's pick either.
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("newest")), "resnet18", 400));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("newest")), {3}, 3));
        picker.refresh();
        QVERIFY(loaded.wait());
        QCOMPARE(picker.currentRun(), at("mid"));

        // Another runs folder (another project), and back: the pick is forgotten; the newest
        // finished run is preselected, and a run listed only after it is followed is taken.
        listed(picker, m_runs.path());
        listed(picker, runs.path());
        QVERIFY(!picker.userPickedRun());
        QCOMPARE(picker.currentRun(), at("newest"));
        QVERIFY(fake_runs::writeRun(runs.filePath(QStringLiteral("later")), "resnet18", 500));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("later")), {3}, 3));
        picker.followRun(at("later"));
        QVERIFY(loaded.wait());
        QCOMPARE(picker.currentRun(), at("later"));
    }

    // When no run is trained, none is preselected and noRunReason() says why.
    void preselectsNoUntrainedRun()
    {
        const QDir runs(m_tmp.filePath(QStringLiteral("untrained")));
        QVERIFY(fake_runs::writeRunEvents(runs.filePath(QStringLiteral("stopped")),
                                          {nlohmann::json{{"type", "cancelled"}, {"time", 100.0}, {"step", 1}, {"epoch", 0}}}));
        QVERIFY(fake_runs::writeCheckpoints(runs.filePath(QStringLiteral("stopped")), {1}, 1));
        RunCheckpointPicker picker(QStringLiteral("test"));
        QCOMPARE(listed(picker, runs.path()).size(), 1);
        QVERIFY(picker.currentRun().isEmpty());
        QVERIFY(picker.currentCheckpoint().isEmpty());
        QVERIFY2(picker.noRunReason().contains(QStringLiteral("completed an epoch")), qPrintable(picker.noRunReason()));
        picker.followRun(runs.filePath(QStringLiteral("stopped")));
        QVERIFY(picker.currentRun().isEmpty());
        // The user may still pick it.
        QTest::keyClick(picker.runCombo(), Qt::Key_Down);
        QCOMPARE(picker.currentRun(), QDir::cleanPath(runs.filePath(QStringLiteral("stopped"))));
        QVERIFY(picker.noRunReason().isEmpty());
    }

    void selectsFilesNewRunsAndRefusesOthers()
    {
        RunCheckpointPicker picker(QStringLiteral("test"));
        listed(picker, m_runs.path());

        // A checkpoint file, e.g. from the Runs page: offered under its name.
        const QString file = QDir(run("b")).filePath(QStringLiteral("checkpoints/step-3.safetensors"));
        picker.select(run("b"), file);
        QCOMPARE(picker.currentRun(), run("b"));
        QCOMPARE(picker.currentCheckpoint(), file);
        QCOMPARE(picker.currentCheckpointText(), QStringLiteral("step-3"));

        // A run that ended after the listing: listed again, then chosen.
        QVERIFY(fake_runs::writeRun(m_runs.filePath(QStringLiteral("d"))));
        QVERIFY(fake_runs::writeCheckpoints(m_runs.filePath(QStringLiteral("d")), {1, 2}, 1));
        QSignalSpy loaded(&picker, &RunCheckpointPicker::runsLoaded);
        QSignalSpy problem(&picker, &RunCheckpointPicker::problem);
        picker.select(m_runs.filePath(QStringLiteral("d/")), QStringLiteral("step-1"));
        QVERIFY(loaded.wait());
        QCOMPARE(picker.currentRun(), run("d"));
        QCOMPARE(picker.currentCheckpoint(), QStringLiteral("step-1"));
        QVERIFY(problem.isEmpty());

        // A folder that is no run: said so, the choice stays.
        picker.select(m_tmp.filePath(QStringLiteral("elsewhere")), QStringLiteral("best"));
        QVERIFY(loaded.wait());
        QCOMPARE(problem.count(), 1);
        QVERIFY(problem.first().first().toString().contains(QStringLiteral("elsewhere")));
        QCOMPARE(picker.currentRun(), run("d"));
    }

private:
    QString run(const char *name) const { return QDir::cleanPath(m_runs.filePath(QString::fromLatin1(name))); }

    static QStringList listed(RunCheckpointPicker &picker, const QString &runsDir)
    {
        QSignalSpy loaded(&picker, &RunCheckpointPicker::runsLoaded);
        picker.setRunsDir(runsDir);
        if (loaded.isEmpty() && !loaded.wait(20000))
            return {};
        return picker.runs();
    }

    static QStringList checkpoints(const RunCheckpointPicker &picker)
    {
        QStringList names;
        for (int i = 0; i < picker.checkpointCombo()->count(); ++i)
            names << picker.checkpointCombo()->itemData(i).toString();
        return names;
    }

    QTemporaryDir m_tmp;
    QDir m_runs;
};

QTEST_MAIN(TestRunCheckpointPicker)
#include "test_run_checkpoint_picker.moc"
