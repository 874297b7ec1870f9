// A newcomer's first hour, through the main window: a new demo project starts from the recipe
// for this machine, the pre-flight check estimates the run's time and offers the quick recipe
// for a run that would take long, blocked states offer their next step as a button, and
// "from scratch" is one click.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "evaluate/evaluate_page.h"
#include "model/model_page.h"
#include "shell/main_window.h"
#include "train/preflight_panel.h"
#include "train/run_config_form.h"
#include "train/train_page.h"
#include "workspace/demo_project_job.h"
#include "workspace/project.h"
#include "workspace/quick_recipe.h"
#include "workspace/settings.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace lathe;
using lathe::ui::MainWindow;

class TestFirstHour : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;

    QString settingsPath() const { return m_tmp.filePath(QStringLiteral("lathe.conf")); }

    static QString comboValue(ui::TrainPage *page, const char *field)
    {
        auto *combo = qobject_cast<QComboBox *>(page->findChild<ui::RunConfigForm *>()->editor(QLatin1String(field)));
        return combo ? combo->currentData().toString() : QString();
    }

    // A project with one small converted dataset (3 training and 1 validation image per class).
    QString convertedProject(const QString &name)
    {
        const QString folder = m_tmp.filePath(name);
        auto project = workspace::Project::create(folder, name);
        engine::DemoDataOptions demo;
        demo.outDir = m_tmp.filePath(name + QStringLiteral("-images")).toStdString();
        demo.perClass = 3;
        demo.valPerClass = 1;
        demo.testPerClass = 0;
        engine::writeDemoData(demo);
        engine::ConvertOptions convert;
        convert.scan.root = demo.outDir;
        convert.outDir = QDir(project->datasetsDir()).filePath(QStringLiteral("fm")).toStdString();
        engine::convertFolder(convert);
        return folder;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_tmp.isValid());
    }

    // A new demo project opens with the recipe for this machine (no GPU here: the quick CPU one).
    void newDemoStartsFromTheRecipe()
    {
        const QString root = m_tmp.filePath(QStringLiteral("demo"));
        engine::DemoDataOptions images; // a small image folder, reused by the demo job
        images.outDir = workspace::DemoProjectJob::imagesFolder(root).toStdString();
        images.perClass = 3;
        images.valPerClass = 1;
        images.testPerClass = 0;
        engine::writeDemoData(images);

        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QSignalSpy opened(&window, &MainWindow::projectOpened);
        window.startDemo(root);
        QVERIFY(opened.wait(60000));
        // The recipe's epochs are sized to this machine from its timed steps; recipe.json has the same.
        QFile recipeFile(QDir(window.project()->folder()).filePath(QStringLiteral("recipe.json")));
        QVERIFY(recipeFile.open(QIODevice::ReadOnly));
        const nlohmann::json recipe = nlohmann::json::parse(recipeFile.readAll().toStdString());
        QVERIFY(recipe["optimizer"]["epochs"] >= workspace::kQuickRecipeMinEpochs);
        QVERIFY(recipe["optimizer"]["epochs"] <= workspace::kQuickRecipeMaxEpochs);
        QVERIFY(workspace::quickCpuRecipe().isFollowedBy(recipe));
        QTRY_COMPARE(window.modelPage()->weightsSource(), ui::ModelPage::Scratch);
        QCOMPARE(window.modelPage()->arch(), QStringLiteral("resnet18"));
        QCOMPARE(window.trainPage()->imageSizeEdit()->value(), 32);
        QCOMPARE(comboValue(window.trainPage(), "optimizer.name"), QStringLiteral("adamw"));
        QCOMPARE(comboValue(window.trainPage(), "schedule.name"), QStringLiteral("one_cycle"));
        const nlohmann::json config = window.trainPage()->runConfig();
        QVERIFY(config["optimizer"]["epochs"] == recipe["optimizer"]["epochs"]);
        QVERIFY(config["optimizer"]["batch_size"] == recipe["optimizer"]["batch_size"]);
        QVERIFY(config["data"]["augment"] == recipe["data"]["augment"]);
        QVERIFY(workspace::quickCpuRecipe().isFollowedBy(config)); // so the pre-flight never offers it again
        nlohmann::json changed = config;
        changed["optimizer"]["epochs"] = 9; // the epochs follow the machine: still the recipe
        QVERIFY(workspace::quickCpuRecipe().isFollowedBy(changed));
        changed["optimizer"]["lr"] = 0.1;
        QVERIFY(!workspace::quickCpuRecipe().isFollowedBy(changed));
    }

    // The epochs that fit the quick recipe's 4 minutes, within 3 to 6.
    void quickRecipeEpochsFollowTheMachine()
    {
        QCOMPARE(workspace::quickCpuEpochs(0), workspace::kQuickRecipeMaxEpochs); // not measured
        QCOMPARE(workspace::quickCpuEpochs(30), 6);  // a fast machine: the most
        QCOMPARE(workspace::quickCpuEpochs(55), 4);  // 240 s / 55 s
        QCOMPARE(workspace::quickCpuEpochs(75), 3);
        QCOMPARE(workspace::quickCpuEpochs(400), 3); // a slow one: the fewest that reach 85%
        QCOMPARE(workspace::quickCpuRecipe(4).config["optimizer"]["epochs"].get<int>(), 4);
        QVERIFY(workspace::quickCpuRecipe(4, 57.4).description.contains(QStringLiteral("57 s")));
    }

    // Before conversion the Train page's pre-flight says what to do and its button goes there;
    // the Evaluate page offers the Train page while no run is trained.
    void blockedStatesOfferTheNextStep()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("empty"));
        workspace::Project::create(folder, QStringLiteral("empty"));
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(folder));
        window.showPage(MainWindow::TrainPage);
        auto *preflight = window.trainPage()->findChild<ui::PreflightPanel *>();
        QCOMPARE(window.trainPage()->preflightProblem().next, ui::PreflightProblem::NextStep::ConvertShards);
        QTRY_VERIFY(preflight->nextStepButton()->isVisible());
        QVERIFY(preflight->nextStepButton()->text().contains(QStringLiteral("Convert to Shards")));
        QTest::mouseClick(preflight->nextStepButton(), Qt::LeftButton);
        QCOMPARE(window.currentPage(), MainWindow::DataPage);

        window.showPage(MainWindow::EvaluatePage);
        QTRY_VERIFY(window.evaluatePage()->trainNextButton()->isVisible());
        QTest::mouseClick(window.evaluatePage()->trainNextButton(), Qt::LeftButton);
        QCOMPARE(window.currentPage(), MainWindow::TrainPage);
    }

    // Missing pretrained weights: the pre-flight offers "from scratch", one click sets it.
    void missingWeightsOfferFromScratch()
    {
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(convertedProject(QStringLiteral("weights"))));
        window.modelPage()->setWeightsSource(ui::ModelPage::Zoo); // not in the (empty) cache
        window.showPage(MainWindow::TrainPage);
        QTRY_COMPARE(window.trainPage()->preflightProblem().next, ui::PreflightProblem::NextStep::TrainFromScratch);
        auto *preflight = window.trainPage()->findChild<ui::PreflightPanel *>();
        QTRY_VERIFY(preflight->nextStepButton()->isVisible());
        QTest::mouseClick(preflight->nextStepButton(), Qt::LeftButton);
        QCOMPARE(window.modelPage()->weightsSource(), ui::ModelPage::Scratch);
        QTRY_VERIFY(window.trainPage()->preflight().isEmpty());
        QTRY_VERIFY(!preflight->nextStepButton()->isVisible()); // the banner goes with its cause
    }

    // The time estimate comes from measured steps and scales with the work; a long run gets the
    // quick recipe offered, and taking it shortens the estimate.
    void timeEstimateAndTheQuickRecipe()
    {
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(convertedProject(QStringLiteral("time"))));
        window.modelPage()->setWeightsSource(ui::ModelPage::Scratch);
        window.modelPage()->setArch(QStringLiteral("resnet18"));
        window.showPage(MainWindow::TrainPage);
        ui::TrainPage *page = window.trainPage();
        auto *preflight = page->findChild<ui::PreflightPanel *>();
        page->imageSizeEdit()->setValue(64);
        auto *epochs = qobject_cast<QSpinBox *>(page->findChild<ui::RunConfigForm *>()->editor(QStringLiteral("optimizer.epochs")));
        // 30 training images: batch 8 makes 3 real steps an epoch (a batch above 30 would leave no
        // whole batch, and only validation to time), and only a huge epoch count makes it long.
        qobject_cast<QSpinBox *>(page->findChild<ui::RunConfigForm *>()->editor(QStringLiteral("optimizer.batch_size")))->setValue(8);
        epochs->setValue(100000);
        QTRY_VERIFY_WITH_TIMEOUT(preflight->timeEstimate() > 0, 120000);
        QVERIFY2(preflight->timeLabel()->text().contains(QStringLiteral("Time on this CPU")),
                 qPrintable(preflight->timeLabel()->text()));
        QTRY_VERIFY2_WITH_TIMEOUT(preflight->timeEstimate() > ui::PreflightPanel::kOfferRecipeSeconds,
                                  qPrintable(preflight->timeLabel()->text()), 120000); // the estimate for 100,000 epochs
        QTRY_VERIFY(preflight->recipeButton()->isVisible());
        const double longRun = preflight->timeEstimate();
        QTest::mouseClick(preflight->recipeButton(), Qt::LeftButton);
        QCOMPARE(page->imageSizeEdit()->value(), 32);
        QCOMPARE(epochs->value(), 6);
        QTRY_VERIFY_WITH_TIMEOUT(preflight->timeEstimate() > 0 && preflight->timeEstimate() < longRun / 1000, 120000);
        QTRY_VERIFY(!preflight->recipeButton()->isVisible());
    }
};

QTEST_MAIN(TestFirstHour)
#include "test_first_hour.moc"
