// The Tune page end to end on real data: Fashion-MNIST demo images converted to shards in a
// project, then a real three-trial study (random sampling, ASHA) of the learning rate started
// from the page: live trial rows while it runs, Stop after the first trial ends (the study keeps
// it and says how to go on), Continue Study to the budget, the charts and Train This Config
// Fully (the best trial's learning rate with the base's epochs); a page opened afresh shows the
// study from its folder. The setup refuses a space without a varied field or with a bad range,
// naming the field.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/tune/study_state.h"
#include "small_run.h"
#include "tune/search_space_editor.h"
#include "tune/study_charts.h"
#include "tune/trial_table_model.h"
#include "tune/tune_page.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/tune_job.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

#include <memory>

using namespace lathe;
using lathe::ui::TunePage;

class TestTunePage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void setupNamesWhatIsWrong();
    void runsStopsAndContinuesAStudy();
    void trainThisConfigFullyTakesTheBestTrial();
    void reopenedPageShowsTheStudy();

private:
    std::unique_ptr<TunePage> openPage();
    int ended(const engine::StudyState &state) const;

    QTemporaryDir m_tmp;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    nlohmann::json m_base;
    std::unique_ptr<TunePage> m_page;
    QString m_study;
};

void TestTunePage::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    DemoProject demo = makeDemoProject(m_tmp.path(), QStringLiteral("Tune"), demoCounts(6, 2, 0));
    m_project = std::move(demo.project);
    engine::RunConfig config = smallRunConfig(demo.converted.outDir, "val");
    config.optimizer.epochs = 5; // what Train This Config Fully keeps; trials train 2
    m_base = engine::runConfigToJson(config);
    m_jobs = new workspace::JobManager(1, this);
    m_page = openPage();
}

std::unique_ptr<TunePage> TestTunePage::openPage()
{
    auto page = std::make_unique<TunePage>(m_jobs);
    page->setBaseConfigProvider([this] { return m_base; });
    page->setProject(m_project.get());
    page->resize(1400, 900);
    page->show();
    return page;
}

int TestTunePage::ended(const engine::StudyState &state) const
{
    int n = 0;
    for (const engine::Trial &t : state.trials)
        n += t.state != engine::TrialState::Running;
    return n;
}

void TestTunePage::setupNamesWhatIsWrong()
{
    ui::SearchSpaceEditor *space = m_page->spaceEditor();
    QVERIFY(m_page->setupErrorLabel()->text().contains(QStringLiteral("Tick at least one field")));
    QVERIFY(!m_page->startButton()->isEnabled());

    // The learning rate's range starts around the Train page's value (0.05).
    space->varyToggle(QStringLiteral("optimizer.lr"))->click();
    QCOMPARE(space->lowEdit(QStringLiteral("optimizer.lr"))->text(), QStringLiteral("0.005"));
    QCOMPARE(space->highEdit(QStringLiteral("optimizer.lr"))->text(), QStringLiteral("0.5"));
    QVERIFY2(m_page->setupProblem().isEmpty(), qPrintable(m_page->setupProblem()));
    QVERIFY(m_page->startButton()->isEnabled());

    space->highEdit(QStringLiteral("optimizer.lr"))->setText(QStringLiteral("0.001"));
    QVERIFY(m_page->setupErrorLabel()->text().contains(QStringLiteral("optimizer.lr")));
    QVERIFY(!m_page->startButton()->isEnabled());
    space->highEdit(QStringLiteral("optimizer.lr"))->setText(QStringLiteral("0.5"));

    // Momentum with the optimiser varied is searched only for the optimisers that use it.
    space->varyToggle(QStringLiteral("optimizer.name"))->click();
    space->varyToggle(QStringLiteral("optimizer.momentum"))->click();
    const nlohmann::json params = space->params();
    QCOMPARE(params["optimizer.momentum"]["when"]["optimizer.name"], nlohmann::json::array({"sgd"}));
    QVERIFY(m_page->setupProblem().isEmpty());
    space->varyToggle(QStringLiteral("optimizer.name"))->click();
    space->varyToggle(QStringLiteral("optimizer.momentum"))->click();
    QCOMPARE(space->params().size(), size_t(1));
}

void TestTunePage::runsStopsAndContinuesAStudy()
{
    m_page->samplerPicker()->setCurrentIndex(m_page->samplerPicker()->findData(QStringLiteral("random")));
    m_page->prunerPicker()->setCurrentIndex(m_page->prunerPicker()->findData(QStringLiteral("asha")));
    m_page->trialsEdit()->setValue(3);
    m_page->epochsEdit()->setValue(2);
    m_page->seedEdit()->setValue(3);
    m_page->nameEdit()->setText(QStringLiteral("study-lr"));
    m_study = QDir::cleanPath(QDir(m_project->runsDir()).filePath(QStringLiteral("study-lr")));
    QVERIFY(m_page->startButton()->isEnabled());
    QSignalSpy started(m_page.get(), &TunePage::studyStarted);
    m_page->startButton()->click();
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.at(0).at(0).toString(), m_study);
    QPointer<workspace::TuneJob> job = m_page->currentJob();
    QVERIFY(job);
    QVERIFY(!m_page->startButton()->isEnabled());

    // Live: the study is shown as soon as it exists, its first trial as a row.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->trialModel()->rowCount() >= 1, 60000);
    QCOMPARE(m_page->shownStudy(), m_study);
    QCOMPARE(m_page->studyPicker()->currentText(), QStringLiteral("study-lr"));
    QVERIFY(m_page->stopButton()->isEnabled());
    QCOMPARE(m_page->trialModel()->headerData(ui::TrialTableModel::FirstParamColumn, Qt::Horizontal).toString(),
             QStringLiteral("Learning rate"));

    // Stop once the first trial has ended: the running one keeps its checkpoint.
    QTRY_VERIFY_WITH_TIMEOUT(ended(m_page->trialModel()->study()) >= 1, 120000);
    QSignalSpy studyEnded(m_page.get(), &TunePage::studyEnded);
    m_page->stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(studyEnded.count() == 1, 120000);
    QVERIFY(job.isNull() || job->state() == workspace::Job::State::Cancelled);
    QVERIFY(m_page->statusLabel()->text().contains(QStringLiteral("Continue Study")));
    const engine::StudyState stopped =
        engine::readStudyState(QDir(m_study).filePath(QLatin1String(engine::kStudyFile)).toStdString());
    QVERIFY(ended(stopped) >= 1);
    QVERIFY(int(stopped.trials.size()) <= 3);
    QCOMPARE(m_page->startButton()->text(), QStringLiteral("Continue Study"));
    QVERIFY(m_page->startButton()->isEnabled());
    QVERIFY(!m_page->spaceEditor()->isEnabled() || !m_page->samplerPicker()->isEnabled());

    // Continue: the finished trials stay as they were, the study runs to its budget.
    m_page->startButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(studyEnded.count() == 2, 240000);
    const engine::StudyState done = m_page->trialModel()->study();
    QCOMPARE(int(done.trials.size()), 3);
    QCOMPARE(ended(done), 3);
    for (const engine::Trial &before : stopped.trials)
        if (before.state != engine::TrialState::Running)
            QVERIFY(done.trials[size_t(before.id)] == before);
    for (const engine::Trial &t : done.trials) {
        QVERIFY(t.state == engine::TrialState::Completed || t.state == engine::TrialState::Pruned);
        QVERIFY(QFileInfo::exists(QDir(m_study).filePath(QString::fromStdString(t.runFolder) + QStringLiteral("/config.json"))));
    }
    QCOMPARE(m_page->trialModel()->rowCount(), 3);

    // The charts show every trial.
    ui::StudyCharts *charts = m_page->charts();
    QVERIFY(charts->bestSoFarPlot()->graphCount() >= 1);
    QVERIFY(charts->curvesPlot()->graphCount() >= 3);
    QVERIFY(charts->parallelPlot()->graphCount() >= 3);
}

void TestTunePage::trainThisConfigFullyTakesTheBestTrial()
{
    const engine::StudyState state = m_page->trialModel()->study();
    const engine::Trial *best = nullptr;
    for (const engine::Trial &t : state.trials)
        if (t.state == engine::TrialState::Completed && (!best || *t.value > *best->value))
            best = &t;
    QVERIFY(best);
    QVERIFY(m_page->trainBestButton()->isEnabled());
    QList<nlohmann::json> requested; // nlohmann::json is no Qt metatype: no QSignalSpy
    connect(m_page.get(), &TunePage::trainRequested, this, [&](const nlohmann::json &c) { requested << c; });
    m_page->trainBestButton()->click();
    QCOMPARE(requested.size(), 1);
    const nlohmann::json config = requested.front();
    QCOMPARE(config["optimizer"]["lr"].get<double>(), best->params["optimizer.lr"].get<double>());
    QCOMPARE(config["optimizer"]["epochs"].get<int>(), 5);
    QCOMPARE(config["data"]["shards"], m_base["data"]["shards"]);
    engine::validateRunConfig(engine::parseRunConfig(config));
}

void TestTunePage::reopenedPageShowsTheStudy()
{
    std::unique_ptr<TunePage> page = openPage();
    QVERIFY(page->selectStudy(m_study));
    QCOMPARE(page->trialModel()->rowCount(), 3);
    QCOMPARE(page->startButton()->text(), QStringLiteral("Continue Study"));
    QVERIFY(page->spaceEditor()->isVaried(QStringLiteral("optimizer.lr")));
    QVERIFY(!page->spaceEditor()->isVaried(QStringLiteral("optimizer.name")));
    QCOMPARE(page->samplerPicker()->currentData().toString(), QStringLiteral("random"));
    QCOMPARE(page->trialsEdit()->value(), 3);
    QVERIFY(page->trainBestButton()->isEnabled());
    QVERIFY(page->statusLabel()->text().contains(QStringLiteral("best: trial")));
}

QTEST_MAIN(TestTunePage)
#include "test_tune_page.moc"
