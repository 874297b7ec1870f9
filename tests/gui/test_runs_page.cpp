// The Runs page on run folders written without the GUI (the engine's RunFolder, as lathe-cli
// writes them, and checkpoint files laid out as checkpoint_io.h documents): names, tags and
// notes saved in the run folder and read back, filtering by text and tag, marking a checkpoint
// best, deleting one, the Evaluate/Export hand-offs, and the newest stored evaluation's column
// (top-1 for a single-label run, mAP for a multi-label one, whose val_map columns are named).
// On real small runs (small_run.h): the checkpoint table's epochs and metric columns, the
// dataset column, the Evaluate and Export pages preselecting the newest finished run and
// following the Runs page's selection, and a paused run's state; the overlaid curves of two
// real runs: the legend off the points, the extreme points inside the axes, the dark theme's
// colours. With LATHE_RUNS_OVERLAY_SHOTS=DIR it
// also saves the page with the overlay there, light and dark (runs-overlay-<theme>.png).
// qcustomplot.h (plot_checks.h) uses the bare signals/slots keywords; before any Qt header.
#undef QT_NO_KEYWORDS
#include "common/theme.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/inference/evaluation.h"
#include "engine/run/run_folder.h"
#include "engine/training/trainer.h"
#include "evaluate/evaluate_page.h"
#include "export/export_page.h"
#include "plot_checks.h"
#include "runs/run_filter_model.h"
#include "runs/run_overlay_plot.h"
#include "runs/run_table_model.h"
#include "runs/runs_page.h"
#include "shell/main_window.h"
#include "workspace/evaluation_store.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/settings.h"
#include "workspace/train_job.h"
#include "small_run.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <memory>

using namespace lathe;
using lathe::ui::RunsPage;
using lathe::ui::RunTableModel;
namespace fs = std::filesystem;

namespace {

void writeText(const fs::path &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// Checkpoint step-<step> with its sidecar (the tensor bytes do not matter to the page).
nlohmann::json writeStep(const fs::path &run, int step, double valTop1)
{
    const fs::path folder = run / "checkpoints";
    const std::string stem = "step-" + std::to_string(step);
    const std::string model(1000 + step, 'm');
    writeText(folder / (stem + ".safetensors"), model);
    // One step an epoch: the sidecar's epoch is the epochs completed (where training continues).
    nlohmann::json sidecar = {{"format_version", 1}, {"step", step}, {"epoch", step}, {"metrics", {{"val_top1", valTop1}}}};
    sidecar["files"]["model"] = {{"name", stem + ".safetensors"}, {"sha256", std::string(64, '0')}, {"bytes", model.size()}};
    writeText(folder / (stem + ".json"), sidecar.dump());
    return sidecar;
}

void writeAlias(const fs::path &run, const std::string &alias, int step, nlohmann::json sidecar)
{
    const fs::path folder = run / "checkpoints";
    fs::create_hard_link(folder / ("step-" + std::to_string(step) + ".safetensors"), folder / (alias + ".safetensors"));
    sidecar["files"]["model"]["name"] = alias + ".safetensors";
    if (alias == "best") {
        sidecar["best_metric"] = "val_top1";
        sidecar["best_value"] = sidecar["metrics"]["val_top1"];
    }
    writeText(folder / (alias + ".json"), sidecar.dump());
}

// A finished two-epoch run, as the trainer leaves it.
void writeRun(const QString &dir, const std::string &arch)
{
    {
        engine::RunFolder run = engine::RunFolder::create(dir.toStdString(), {{"model", {{"arch", arch}}}, {"optimizer", {{"epochs", 2}}}});
        run.appendMetrics({{"type", "epoch"}, {"epoch", 0}, {"step", 1}, {"val_top1", 0.5}});
        run.appendMetrics({{"type", "epoch"}, {"epoch", 1}, {"step", 2}, {"val_top1", 0.75}});
        run.appendMetrics({{"type", "finished"}});
    }
    const fs::path run = dir.toStdString();
    writeStep(run, 1, 0.5);
    const nlohmann::json second = writeStep(run, 2, 0.75);
    writeAlias(run, "best", 2, second);
    writeAlias(run, "last", 2, second);
}

} // namespace

class TestRunsPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<workspace::Project> m_project;
    QString m_resnet;
    QString m_mobilenet;
    // The real runs' project, its dataset and runs.
    QString m_realFolder;
    std::unique_ptr<workspace::Project> m_real;
    QString m_shards;
    QString m_fiveEpochs;
    QString m_oneEpoch;
    QString m_stopped;

    // Trained in this order (so each starts after the one before): a finished 5-epoch run with
    // a checkpoint after each epoch, a finished 1-epoch run, and a run stopped after its first
    // step (one checkpoint, no epoch completed).
    void trainRealRuns()
    {
        engine::DemoDataOptions demo;
        demo.outDir = m_tmp.filePath(QStringLiteral("images")).toStdString();
        demo.perClass = 4;
        demo.valPerClass = 2;
        demo.testPerClass = 0;
        engine::writeDemoData(demo);
        m_realFolder = m_tmp.filePath(QStringLiteral("real"));
        m_real = workspace::Project::create(m_realFolder, QStringLiteral("Real"));
        engine::ConvertOptions convert;
        convert.scan.root = demo.outDir;
        convert.scan.nearDuplicateDistance = 0;
        convert.outDir = QDir(m_real->datasetsDir()).filePath(QStringLiteral("demo")).toStdString();
        m_shards = QString::fromStdString(engine::convertFolder(convert).outDir);

        const QDir runs(m_real->runsDir());
        m_fiveEpochs = QDir::cleanPath(runs.filePath(QStringLiteral("a-five-epochs")));
        m_oneEpoch = QDir::cleanPath(runs.filePath(QStringLiteral("b-one-epoch")));
        m_stopped = QDir::cleanPath(runs.filePath(QStringLiteral("c-stopped")));
        engine::RunConfig config = smallRunConfig(m_shards.toStdString(), "val");
        config.optimizer.epochs = 5;
        config.checkpoints.everyEpochs = 1;
        config.checkpoints.keep = 5;
        QCOMPARE(engine::train(config, m_fiveEpochs.toStdString()).value("status", std::string()), std::string("finished"));
        config.optimizer.epochs = 1;
        QCOMPARE(engine::train(config, m_oneEpoch.toStdString()).value("status", std::string()), std::string("finished"));
        engine::TrainControl stop;
        stop.stopAfterStep = 1;
        QCOMPARE(engine::train(config, m_stopped.toStdString(), stop).value("status", std::string()), std::string("cancelled"));
    }

    static void waitRefreshed(RunsPage &page)
    {
        QSignalSpy refreshed(&page, &RunsPage::refreshed);
        page.refresh();
        QVERIFY(refreshed.wait());
    }

    static void selectRun(RunsPage &page, const QString &dir)
    {
        QSignalSpy loaded(&page, &RunsPage::selectionLoaded);
        page.selectRuns({dir});
        QVERIFY(loaded.wait());
    }

    static int rowOf(RunsPage &page, const QString &dir) { return page.model()->indexOf(dir); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_project = workspace::Project::create(m_tmp.filePath(QStringLiteral("project")), QStringLiteral("runs"));
        m_resnet = QDir(m_project->runsDir()).filePath(QStringLiteral("20261201-100000-resnet18"));
        m_mobilenet = QDir(m_project->runsDir()).filePath(QStringLiteral("20261201-110000-mobilenet_v3_small"));
        writeRun(m_resnet, "resnet18");
        writeRun(m_mobilenet, "mobilenet_v3_small");
        // Annotations another tool (or a user with an editor) wrote.
        writeText(fs::path(m_mobilenet.toStdString()) / "annotations.json",
                  R"({"version": 1, "display_name": "small net", "notes": "from the CLI", "tags": ["mobile"]})");
        trainRealRuns();
    }

    void annotationsAreSavedInTheRunFolder()
    {
        RunsPage page;
        page.setProject(m_project.get());
        waitRefreshed(page);
        QCOMPARE(page.model()->rowCount(), 2);
        // Written without the GUI: shown.
        const RunTableModel::Row &mobile = page.model()->row(rowOf(page, m_mobilenet));
        QCOMPARE(mobile.name(), QStringLiteral("small net"));
        QCOMPARE(mobile.tags, QStringList{QStringLiteral("mobile")});
        QCOMPARE(mobile.notes, QStringLiteral("from the CLI"));

        // Rename and tag in the table, as a double-click edit does.
        QSignalSpy saved(&page, &RunsPage::annotationsSaved);
        QAbstractItemModel *view = page.view()->model();
        const int row = page.filterModel()->mapFromSource(page.model()->index(rowOf(page, m_resnet), 0)).row();
        QVERIFY(view->setData(view->index(row, RunTableModel::Name), QStringLiteral("baseline")));
        QVERIFY(saved.wait());
        QCOMPARE(saved.last().at(1).toString(), QString());
        QVERIFY(view->setData(view->index(row, RunTableModel::Tags), QStringLiteral("resnet, fast, resnet")));
        QVERIFY(saved.wait());
        // Notes in the Notes tab.
        selectRun(page, m_resnet);
        page.notesEdit()->setPlainText(QStringLiteral("first try\nlr 0.01"));
        QTest::mouseClick(page.saveNotesButton(), Qt::LeftButton);
        QVERIFY(saved.wait());

        // In the run folder, for every reader.
        const engine::RunAnnotations a = engine::readRunAnnotations(m_resnet.toStdString());
        QCOMPARE(a.displayName, std::string("baseline"));
        QCOMPARE(a.tags, (std::vector<std::string>{"resnet", "fast"}));
        QCOMPARE(a.notes, std::string("first try\nlr 0.01"));

        // And back after a reload, in a new page.
        RunsPage again;
        again.setProject(m_project.get());
        waitRefreshed(again);
        const RunTableModel::Row &r = again.model()->row(rowOf(again, m_resnet));
        QCOMPARE(r.name(), QStringLiteral("baseline"));
        QCOMPARE(r.tags, (QStringList{QStringLiteral("resnet"), QStringLiteral("fast")}));
        QCOMPARE(again.model()->data(again.model()->index(rowOf(again, m_resnet), RunTableModel::Notes)).toString(),
                 QStringLiteral("first try"));
    }

    void filterByTextAndTag()
    {
        RunsPage page;
        page.setProject(m_project.get());
        waitRefreshed(page);
        QAbstractItemModel *view = page.view()->model();
        QCOMPARE(view->rowCount(), 2);
        page.filterEdit()->setText(QStringLiteral("BASELINE"));
        QCOMPARE(view->rowCount(), 1);
        QCOMPARE(view->index(0, RunTableModel::Name).data().toString(), QStringLiteral("baseline"));
        page.filterEdit()->setText(QStringLiteral("mobilenet cli")); // folder name and notes: every word
        QCOMPARE(view->rowCount(), 1);
        page.filterEdit()->setText(QStringLiteral("nothing like this"));
        QCOMPARE(view->rowCount(), 0);
        page.filterEdit()->clear();
        QCOMPARE(view->rowCount(), 2);

        // Tags: every tag of the project is offered.
        QCOMPARE(page.tagFilter()->count(), 4); // all, fast, mobile, resnet
        page.tagFilter()->setCurrentIndex(page.tagFilter()->findData(QStringLiteral("mobile")));
        QCOMPARE(view->rowCount(), 1);
        QCOMPARE(view->index(0, RunTableModel::Name).data().toString(), QStringLiteral("small net"));
        page.filterEdit()->setText(QStringLiteral("baseline"));
        QCOMPARE(view->rowCount(), 0);
        page.tagFilter()->setCurrentIndex(0);
        QCOMPARE(view->rowCount(), 1);
    }

    void checkpointsMarkBestDeleteAndHandOff()
    {
        RunsPage page;
        page.setProject(m_project.get());
        waitRefreshed(page);
        selectRun(page, m_mobilenet);
        QTableWidget *table = page.checkpoints();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(page.checkpointName(0), QStringLiteral("step-1"));
        QCOMPARE(table->item(1, RunsPage::CheckpointKept)->text(), QStringLiteral("best, last"));
        QCOMPARE(table->item(1, RunsPage::CheckpointEpoch)->text(), QStringLiteral("2"));
        QCOMPARE(page.checkpointMetrics(), QStringList{QStringLiteral("val_top1")});
        QCOMPARE(table->item(1, RunsPage::CheckpointMetrics)->text(), QStringLiteral("%1 %").arg(QLocale().toString(75.0, 'f', 2)));

        // Evaluate and Export hand the checkpoint's weights file over.
        page.selectCheckpoint(QStringLiteral("step-2"));
        const QString step2 = QDir(m_mobilenet).filePath(QStringLiteral("checkpoints/step-2.safetensors"));
        QSignalSpy evaluate(&page, &RunsPage::evaluateCheckpointRequested);
        QSignalSpy exportSpy(&page, &RunsPage::exportCheckpointRequested);
        QTest::mouseClick(page.evaluateButton(), Qt::LeftButton);
        QTest::mouseClick(page.exportButton(), Qt::LeftButton);
        QCOMPARE(evaluate.size(), 1);
        QCOMPARE(evaluate.first().at(0).toString(), m_mobilenet);
        QCOMPARE(evaluate.first().at(1).toString(), step2);
        QCOMPARE(exportSpy.size(), 1);
        QCOMPARE(exportSpy.first().at(1).toString(), step2);
        QVERIFY(!page.markBestButton()->isEnabled()); // already best

        // Mark the first checkpoint best.
        QSignalSpy changed(&page, &RunsPage::checkpointsChanged);
        QSignalSpy loaded(&page, &RunsPage::selectionLoaded);
        page.selectCheckpoint(QStringLiteral("step-1"));
        QVERIFY(page.markBestButton()->isEnabled());
        QTest::mouseClick(page.markBestButton(), Qt::LeftButton);
        QVERIFY(changed.wait());
        QCOMPARE(changed.first().at(0).toString(), QString());
        QVERIFY(loaded.wait());
        const fs::path folder = fs::path(m_mobilenet.toStdString()) / "checkpoints";
        QVERIFY(fs::equivalent(folder / "best.safetensors", folder / "step-1.safetensors"));
        QCOMPARE(table->item(0, RunsPage::CheckpointKept)->text(), QStringLiteral("best (chosen)"));
        QCOMPARE(table->item(1, RunsPage::CheckpointKept)->text(), QStringLiteral("last"));

        // Delete it, after confirming: its own files go, best.* keeps the data.
        page.selectCheckpoint(QStringLiteral("step-1"));
        QVERIFY(page.deleteCheckpointButton()->isEnabled());
        QTest::mouseClick(page.deleteCheckpointButton(), Qt::LeftButton);
        auto *question = page.findChild<QMessageBox *>(QStringLiteral("deleteCheckpointQuestion"));
        QVERIFY(question);
        QVERIFY(question->text().contains(QStringLiteral("best")));
        changed.clear();
        question->button(QMessageBox::Yes)->click();
        QVERIFY(changed.wait());
        QVERIFY(loaded.wait());
        QVERIFY(!fs::exists(folder / "step-1.json"));
        QVERIFY(!fs::exists(folder / "step-1.safetensors"));
        QCOMPARE(fs::file_size(folder / "best.safetensors"), std::uintmax_t(1001));
        // The list: best alone (its step file is gone), then step-2.
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(page.checkpointName(0), QStringLiteral("best"));
        page.selectCheckpoint(QStringLiteral("best"));
        QVERIFY(!page.deleteCheckpointButton()->isEnabled());
        QVERIFY(page.evaluateButton()->isEnabled());
        evaluate.clear();
        QTest::mouseClick(page.evaluateButton(), Qt::LeftButton);
        QCOMPARE(evaluate.first().at(1).toString(), QDir(m_mobilenet).filePath(QStringLiteral("checkpoints/best.safetensors")));
    }

    void aRunningRunKeepsItsNewestCheckpoint()
    {
        engine::RunFolder running = engine::RunFolder::open(m_resnet.toStdString()); // as a trainer holds it
        RunsPage page;
        page.setProject(m_project.get());
        waitRefreshed(page);
        QCOMPARE(page.model()->row(rowOf(page, m_resnet)).state, QStringLiteral("running"));
        selectRun(page, m_resnet);
        page.selectCheckpoint(QStringLiteral("step-2"));
        QVERIFY(!page.deleteCheckpointButton()->isEnabled());
        page.selectCheckpoint(QStringLiteral("step-1"));
        QVERIFY(page.deleteCheckpointButton()->isEnabled());
        QVERIFY(!page.markBestButton()->isEnabled());
        QVERIFY(page.evaluateButton()->isEnabled());
        // Paused by the workbench: nothing in the folder says so; the page is told.
        const QModelIndex state = page.model()->index(rowOf(page, m_resnet), RunTableModel::State);
        QCOMPARE(state.data().toString(), QStringLiteral("Running"));
        page.setRunPaused(m_resnet + QStringLiteral("/"), true);
        QCOMPARE(state.data().toString(), QStringLiteral("Paused"));
        waitRefreshed(page);
        QCOMPARE(page.model()->index(rowOf(page, m_resnet), RunTableModel::State).data().toString(), QStringLiteral("Paused"));
        page.setRunPaused(m_resnet, false);
        QCOMPARE(page.model()->index(rowOf(page, m_resnet), RunTableModel::State).data().toString(), QStringLiteral("Running"));
    }

    // A 5-epoch run with a checkpoint after each epoch: epochs 1 to 5, each with the metrics of
    // that epoch's event, one column per metric; every run's dataset and state.
    void checkpointsShowTheirEpochAndMetrics()
    {
        RunsPage page;
        page.setProject(m_real.get());
        waitRefreshed(page);
        QCOMPARE(page.model()->rowCount(), 3);
        for (int row = 0; row < 3; ++row)
            QCOMPARE(page.model()->index(row, RunTableModel::Dataset).data().toString(), QStringLiteral("demo"));
        QCOMPARE(page.model()->index(rowOf(page, m_fiveEpochs), RunTableModel::State).data().toString(), QStringLiteral("Finished"));
        QCOMPARE(page.model()->index(rowOf(page, m_stopped), RunTableModel::State).data().toString(), QStringLiteral("Stopped"));
        QCOMPARE(page.model()->index(rowOf(page, m_fiveEpochs), RunTableModel::Epochs).data().toString(), QStringLiteral("5 of 5"));

        selectRun(page, m_fiveEpochs);
        QTableWidget *table = page.checkpoints();
        QCOMPARE(table->rowCount(), 5);
        const QStringList metrics = page.checkpointMetrics();
        QCOMPARE(metrics.first(), QStringLiteral("val_top1"));
        for (const char *name : {"val_loss", "train_top1", "train_loss"})
            QVERIFY2(metrics.contains(QLatin1String(name)), name);
        QCOMPARE(table->columnCount(), RunsPage::CheckpointMetrics + metrics.size());
        const int valLoss = RunsPage::CheckpointMetrics + int(metrics.indexOf(QStringLiteral("val_loss")));
        QCOMPARE(table->horizontalHeaderItem(RunsPage::CheckpointMetrics)->text(), QStringLiteral("Val top-1"));
        QCOMPARE(table->horizontalHeaderItem(valLoss)->text(), QStringLiteral("Val loss"));

        std::vector<nlohmann::json> epochs; // the run's epoch events, epoch 0 to 4
        for (const nlohmann::json &event : engine::readMetrics(m_fiveEpochs.toStdString()))
            if (event.value("type", std::string()) == "epoch")
                epochs.push_back(event);
        QCOMPARE(epochs.size(), std::size_t(5));
        for (int row = 0; row < 5; ++row) {
            QCOMPARE(table->item(row, RunsPage::CheckpointEpoch)->text(), QString::number(row + 1));
            const nlohmann::json &epoch = epochs[std::size_t(row)];
            QCOMPARE(epoch.at("epoch").get<int>(), row);
            QCOMPARE(table->item(row, valLoss)->text(), RunTableModel::metricText(QStringLiteral("val_loss"), epoch.at("val_loss").get<double>()));
            QVERIFY(table->item(row, RunsPage::CheckpointMetrics)->text().endsWith(QStringLiteral(" %")));
        }
        QVERIFY(table->item(4, RunsPage::CheckpointKept)->text().contains(QStringLiteral("last")));
    }

    // The newest finished run is preselected on Evaluate and Export, not the newer run stopped
    // at its first step; they follow the run selected on the Runs page while it is trained,
    // until the user picks a run on the page itself.
    void evaluateAndExportFollowTheRunsPage()
    {
        workspace::Settings settings(m_tmp.filePath(QStringLiteral("follow.conf")));
        ui::MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(m_realFolder));
        ui::EvaluatePage *evaluate = window.evaluatePage();
        ui::ExportPage *exportPage = window.exportPage();
        QTRY_COMPARE_WITH_TIMEOUT(evaluate->currentRun(), m_oneEpoch, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(exportPage->currentRun(), m_oneEpoch, 20000);
        QCOMPARE(evaluate->currentCheckpoint(), QStringLiteral("best"));

        RunsPage *runs = window.runsPage();
        QTRY_COMPARE_WITH_TIMEOUT(runs->model()->rowCount(), 3, 20000);
        runs->selectRuns({m_fiveEpochs});
        QCOMPARE(evaluate->currentRun(), m_fiveEpochs);
        QCOMPARE(exportPage->currentRun(), m_fiveEpochs);
        runs->selectRuns({m_stopped}); // nothing to evaluate: they stay
        QCOMPARE(evaluate->currentRun(), m_fiveEpochs);
        QCOMPARE(exportPage->currentRun(), m_fiveEpochs);

        // The user picks the next run in Evaluate's list (a-five-epochs, b-one-epoch, c-stopped).
        window.showPage(ui::MainWindow::EvaluatePage);
        QTest::keyClick(evaluate->runCombo(), Qt::Key_Down);
        QCOMPARE(evaluate->currentRun(), m_oneEpoch);
        runs->selectRuns({m_oneEpoch});
        runs->selectRuns({m_fiveEpochs});
        QCOMPARE(exportPage->currentRun(), m_fiveEpochs);
        QCOMPARE(evaluate->currentRun(), m_oneEpoch);
    }

    // A project whose only run stopped at its first step: nothing is preselected, and the pages
    // say why.
    void anUntrainedRunIsNeverPreselected()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("untrained"));
        auto project = workspace::Project::create(folder, QStringLiteral("Untrained"));
        fs::copy(m_stopped.toStdString(), (fs::path(project->runsDir().toStdString()) / "c-stopped"), fs::copy_options::recursive);
        workspace::JobManager jobs(1);
        ui::EvaluatePage evaluate(&jobs);
        ui::ExportPage exportPage(&jobs);
        QSignalSpy evaluateLoaded(&evaluate, &ui::EvaluatePage::runsLoaded);
        QSignalSpy exportLoaded(&exportPage, &ui::ExportPage::runsLoaded);
        evaluate.setProject(project.get());
        exportPage.setProject(project.get());
        QVERIFY(!evaluateLoaded.isEmpty() || evaluateLoaded.wait(20000));
        QVERIFY(!exportLoaded.isEmpty() || exportLoaded.wait(20000));
        QCOMPARE(evaluate.runs().size(), 1);
        QVERIFY(evaluate.currentRun().isEmpty());
        QVERIFY(exportPage.currentRun().isEmpty());
        const QString summary = evaluate.findChild<QLabel *>(QStringLiteral("evaluationSummary"))->text();
        QVERIFY2(summary.contains(QStringLiteral("No run is chosen")), qPrintable(summary));
        QVERIFY2(exportPage.statusText().contains(QStringLiteral("No run is chosen")), qPrintable(exportPage.statusText()));
        QVERIFY(!exportPage.exportButton()->isEnabled());
    }

    // The workbench pauses a training job: the Runs page shows the run as Paused, then Running
    // again, and Stopped once the job ends.
    void aPausedJobShowsItsRunAsPaused()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("paused"));
        workspace::Project::create(folder, QStringLiteral("Paused"));
        workspace::Settings settings(m_tmp.filePath(QStringLiteral("paused.conf")));
        ui::MainWindow window(&settings);
        QVERIFY(window.openProject(folder));
        RunsPage *runs = window.runsPage();

        workspace::TrainJob::Params params;
        params.runDir = QDir::cleanPath(QDir(window.project()->runsDir()).filePath(QStringLiteral("d-paused")));
        params.config = smallRunConfig(m_shards.toStdString(), "val");
        params.config.optimizer.epochs = 1000; // it never ends by itself here
        auto *job = new workspace::TrainJob(params);
        QSignalSpy ended(job, &workspace::Job::ended);
        window.jobManager()->start(job);
        job->pause(); // before its first step
        const auto shownState = [&]() -> QString {
            QSignalSpy refreshed(runs, &RunsPage::refreshed);
            runs->refresh();
            if (!refreshed.wait(20000))
                return QStringLiteral("(not refreshed)");
            const int row = runs->model()->indexOf(params.runDir);
            return row < 0 ? QString() : runs->model()->index(row, RunTableModel::State).data().toString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(shownState(), QStringLiteral("Paused"), 60000);
        job->resumeRun();
        QCOMPARE(runs->model()->index(runs->model()->indexOf(params.runDir), RunTableModel::State).data().toString(),
                 QStringLiteral("Running"));
        job->requestCancel();
        QVERIFY(ended.wait(120000));
        QCOMPARE(shownState(), QStringLiteral("Stopped"));
    }
    // Last: it switches the application's theme. The 5-epoch and the 1-epoch run overlaid: the
    // legend above the axes (never over the newest epochs), every metric's extreme points
    // inside the axis ranges, and the plot in the dark palette after a switch, then light again.
    void overlayKeepsPointsInViewInBothThemes()
    {
        RunsPage page;
        page.resize(1200, 800);
        page.setProject(m_real.get());
        waitRefreshed(page);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy loaded(&page, &RunsPage::selectionLoaded);
        page.selectRuns({m_fiveEpochs, m_oneEpoch});
        QVERIFY(loaded.wait());
        ui::RunOverlayPlot *overlay = page.overlay();
        QVERIFY(overlay->isVisible());
        QCustomPlot *plot = overlay->plot();
        QCOMPARE(overlay->graphCount(), 2);
        QCOMPARE(plot->legend->itemCount(), 2);
        QVERIFY(plot->legend->visible());
        QCOMPARE(overlay->pointCount(0) + overlay->pointCount(1), 6); // 5 epochs and 1
        auto *metric = overlay->findChild<QComboBox *>();
        QVERIFY(metric);
        for (int i = 0; i < metric->count(); ++i) {
            metric->setCurrentIndex(i);
            QVERIFY2(overlay->pointCount(0) + overlay->pointCount(1) == 6, qPrintable(overlay->metric()));
            plot_checks::checkLegendAndPadding(plot);
            // The newest epoch (5) inside the range, not on its edge.
            QVERIFY2(plot->xAxis->range().upper > 5 && plot->xAxis->range().lower < 1, qPrintable(overlay->metric()));
        }
        metric->setCurrentIndex(0);
        const QString dir = qEnvironmentVariable("LATHE_RUNS_OVERLAY_SHOTS");

        ui::applyTheme(QStringLiteral("dark"));
        QTRY_VERIFY(plot_checks::backgroundOf(plot).lightness() < 100);
        plot_checks::checkDarkPlot(plot);
        plot_checks::checkLegendAndPadding(plot);
        if (!dir.isEmpty()) {
            plot->replot();
            QVERIFY(page.grab().save(QStringLiteral("%1/runs-overlay-dark.png").arg(dir)));
        }

        ui::applyTheme(QStringLiteral("light"));
        QTRY_VERIFY(plot_checks::backgroundOf(plot).lightness() > 150);
        plot_checks::checkPlotColours(plot);
        QVERIFY(plot->xAxis->tickLabelColor().lightness() < 100);
        if (!dir.isEmpty()) {
            plot->replot();
            QVERIFY(page.grab().save(QStringLiteral("%1/runs-overlay-light.png").arg(dir)));
        }
    }

    // A cross-validation's folds and a study's trials are named by their folder and the run's
    // ("cv/fold-1", "study/trial-0000"), in the table and the curves' legend; a display name
    // equal to that name is no display name.
    void foldsAndTrialsAreNamedWithTheirFolder()
    {
        auto project = workspace::Project::create(m_tmp.filePath(QStringLiteral("groups")), QStringLiteral("groups"));
        const QDir runs(project->runsDir());
        const QString fold1 = QDir::cleanPath(runs.filePath(QStringLiteral("cv/fold-1")));
        const QString fold2 = QDir::cleanPath(runs.filePath(QStringLiteral("cv/fold-2")));
        const QString trial = QDir::cleanPath(runs.filePath(QStringLiteral("study/trial-0000")));
        for (const QString &dir : {fold1, fold2, trial})
            writeRun(dir, "resnet18");
        writeText(fs::path(runs.filePath(QStringLiteral("study/study.json")).toStdString()), "{}");

        RunsPage page;
        page.setProject(project.get());
        waitRefreshed(page);
        QCOMPARE(page.model()->rowCount(), 3);
        for (const auto &[dir, name] : {std::pair{fold1, QStringLiteral("cv/fold-1")}, std::pair{fold2, QStringLiteral("cv/fold-2")},
                                        std::pair{trial, QStringLiteral("study/trial-0000")}}) {
            const int row = rowOf(page, dir);
            QVERIFY2(row >= 0, qPrintable(dir));
            QCOMPARE(page.model()->row(row).name(), name);
            QCOMPARE(page.model()->data(page.model()->index(row, RunTableModel::Name)).toString(), name);
        }
        page.model()->setAnnotations(rowOf(page, fold1), QStringLiteral("cv/fold-1"), QString(), {});
        QCOMPARE(page.model()->row(rowOf(page, fold1)).displayName, QString());

        QSignalSpy loaded(&page, &RunsPage::selectionLoaded);
        page.selectRuns({fold1, fold2});
        QVERIFY(loaded.wait());
        QCustomPlot *plot = page.overlay()->plot();
        QStringList legend;
        for (int i = 0; i < plot->graphCount(); ++i)
            legend << plot->graph(i)->name();
        legend.sort();
        QCOMPARE(legend, (QStringList{QStringLiteral("cv/fold-1"), QStringLiteral("cv/fold-2")}));
    }

    // The Evaluation column: the newest stored evaluation of each run, top-1 for a single-label
    // run and mAP (macro) for a multi-label one, the header and tool tips saying which; a
    // multi-label run's best metric and checkpoint columns name val_map and its companions.
    void evaluationColumnSaysTopOneOrMap()
    {
        auto project = workspace::Project::create(m_tmp.filePath(QStringLiteral("evaluations")), QStringLiteral("evals"));
        const QString single = QDir(project->runsDir()).filePath(QStringLiteral("single"));
        const QString multi = QDir(project->runsDir()).filePath(QStringLiteral("multi"));
        const QString none = QDir(project->runsDir()).filePath(QStringLiteral("unevaluated"));
        writeRun(single, "resnet18");
        writeRun(none, "resnet18");
        {
            engine::RunFolder run = engine::RunFolder::create(
                multi.toStdString(),
                {{"model", {{"arch", "resnet18"}}}, {"optimizer", {{"epochs", 1}}}, {"checkpoints", {{"best_metric", "val_map"}}}});
            run.appendMetrics({{"type", "epoch"}, {"epoch", 0}, {"step", 1}, {"val_top1", 0.5}, {"val_map", 0.7125},
                               {"val_map_micro", 0.75}, {"val_f1", 0.625}, {"thresholds", {0.3, 0.6}}});
            run.appendMetrics({{"type", "finished"}});
        }
        const fs::path folder = fs::path(multi.toStdString()) / "checkpoints";
        const std::string model(1001, 'm');
        writeText(folder / "step-1.safetensors", model);
        nlohmann::json sidecar = {{"format_version", 1}, {"step", 1}, {"epoch", 1}, {"task", "multi_label"},
                                  {"metrics", {{"val_top1", 0.5}, {"val_map", 0.7125}, {"val_map_micro", 0.75},
                                               {"val_f1", 0.625}, {"thresholds", {0.3, 0.6}}}}};
        sidecar["files"]["model"] = {{"name", "step-1.safetensors"}, {"sha256", std::string(64, '0')}, {"bytes", model.size()}};
        writeText(folder / "step-1.json", sidecar.dump());

        // Single-label: an older evaluation, then the one shown (3 of 4 right).
        engine::EvalResult top;
        top.classes = {"cat", "dog"};
        std::vector<int> labels = {0, 1, 1, 0};
        std::vector<std::vector<float>> probs = {{0.9f, 0.1f}, {0.2f, 0.8f}, {0.7f, 0.3f}, {0.6f, 0.4f}};
        top.metrics = engine::computeMetrics(labels, probs, top.classes);
        for (std::size_t i = 0; i < labels.size(); ++i) {
            engine::Prediction p;
            p.record = i;
            p.label = labels[i];
            p.labels = {labels[i]};
            p.topClasses = {probs[i][0] >= probs[i][1] ? 0 : 1};
            p.topProbs = {std::max(probs[i][0], probs[i][1])};
            top.predictions.push_back(p);
        }
        const QString db = project->databasePath();
        engine::EvalResult older = top;
        older.predictions.resize(1);
        workspace::EvaluationStore::store(db, single, QStringLiteral("last"), QStringLiteral("val"), older);
        workspace::EvaluationStore::store(db, single, QStringLiteral("best"), QStringLiteral("test"), top);
        // Multi-label: the engine's metrics of these scores (the top class of each image is one of
        // its labels, which a "top-1" would count as right).
        engine::EvalResult ml;
        ml.classes = {"sky", "bird"};
        const std::vector<std::vector<int>> sets = {{0, 1}, {0}, {1}, {0}};
        ml.probabilities = {{0.9f, 0.8f}, {0.7f, 0.4f}, {0.2f, 0.3f}, {0.4f, 0.5f}};
        ml.metrics = engine::computeMultiLabelMetrics(sets, ml.probabilities, ml.classes, {0.3, 0.6});
        for (std::size_t i = 0; i < sets.size(); ++i) {
            engine::Prediction p;
            p.record = i;
            p.label = sets[i].front();
            p.labels = sets[i];
            p.topClasses = {ml.probabilities[i][0] >= ml.probabilities[i][1] ? 0 : 1};
            p.topProbs = {std::max(ml.probabilities[i][0], ml.probabilities[i][1])};
            ml.predictions.push_back(p);
        }
        const double map = ml.metrics.at("map").get<double>();
        workspace::EvaluationStore::store(db, multi, QStringLiteral("best"), QStringLiteral("val"), ml);

        RunsPage page;
        page.setProject(project.get());
        waitRefreshed(page);
        QCOMPARE(page.model()->rowCount(), 3);
        QCOMPARE(page.model()->headerData(RunTableModel::Evaluation, Qt::Horizontal).toString(), QStringLiteral("Eval top-1 / mAP"));
        const QString header = page.model()->headerData(RunTableModel::Evaluation, Qt::Horizontal, Qt::ToolTipRole).toString();
        QVERIFY2(header.contains(QStringLiteral("top-1 accuracy for a single-label run")) &&
                     header.contains(QStringLiteral("mAP (mean average precision over labels, macro) for a multi-label run")),
                 qPrintable(header));
        const auto cell = [&page](const QString &dir, int role = Qt::DisplayRole) {
            return page.model()->index(rowOf(page, dir), RunTableModel::Evaluation).data(role).toString();
        };
        QCOMPARE(cell(single), QStringLiteral("top-1 %1 %").arg(QLocale().toString(75.0, 'f', 2)));
        QVERIFY2(cell(single, Qt::ToolTipRole).startsWith(QStringLiteral("Top-1 accuracy")), qPrintable(cell(single, Qt::ToolTipRole)));
        QVERIFY2(cell(single, Qt::ToolTipRole).contains(QStringLiteral("Checkpoint best on the test split (4 image")),
                 qPrintable(cell(single, Qt::ToolTipRole)));
        QCOMPARE(cell(multi), QStringLiteral("mAP %1").arg(QLocale().toString(map, 'f', 3)));
        QVERIFY2(cell(multi, Qt::ToolTipRole).startsWith(QStringLiteral("mAP (mean average precision over labels, macro)")),
                 qPrintable(cell(multi, Qt::ToolTipRole)));
        QVERIFY(!cell(multi).contains(QStringLiteral("top-1")));
        QCOMPARE(page.model()->row(rowOf(page, multi)).evaluation.map, map);
        QVERIFY(page.model()->row(rowOf(page, multi)).evaluation.multiLabel());
        QCOMPARE(cell(none), QString());
        QVERIFY(cell(none, Qt::ToolTipRole).startsWith(QStringLiteral("Not evaluated yet")));
        // Sorting by the column puts the unevaluated run last (descending).
        QCOMPARE(page.model()->index(rowOf(page, none), RunTableModel::Evaluation).data(Qt::UserRole).toDouble(), -1.0);

        // The multi-label run's best metric, and its checkpoint's metric columns.
        QCOMPARE(page.model()->index(rowOf(page, multi), RunTableModel::Best).data().toString(),
                 QStringLiteral("Val mAP %1").arg(QLocale().toString(0.7125, 'f', 3)));
        selectRun(page, multi);
        const QStringList metrics = page.checkpointMetrics();
        QCOMPARE(metrics, (QStringList{QStringLiteral("val_top1"), QStringLiteral("val_map"), QStringLiteral("val_map_micro"),
                                       QStringLiteral("val_f1")}));
        QTableWidget *table = page.checkpoints();
        QCOMPARE(table->horizontalHeaderItem(RunsPage::CheckpointMetrics + 1)->text(), QStringLiteral("Val mAP"));
        QCOMPARE(table->item(0, RunsPage::CheckpointMetrics + 1)->text(), QLocale().toString(0.7125, 'f', 3));
        QCOMPARE(table->horizontalHeaderItem(RunsPage::CheckpointMetrics + 3)->text(), QStringLiteral("Val F1 (micro)"));
        // The overlay offers the multi-label run's validation mAP, and only while it shows such a run.
        auto *metric = page.overlay()->findChild<QComboBox *>();
        QVERIFY(metric);
        const int mapIndex = metric->findData(QStringLiteral("val_map"));
        QVERIFY(mapIndex >= 0);
        metric->setCurrentIndex(mapIndex);
        QCOMPARE(page.overlay()->metric(), QStringLiteral("val_map"));
        QCOMPARE(page.overlay()->pointCount(0), 1);
        selectRun(page, single);
        QCOMPARE(metric->findData(QStringLiteral("val_map")), -1);
        QCOMPARE(page.overlay()->metric(), QStringLiteral("val_top1"));
        QCOMPARE(page.overlay()->pointCount(0), 2);

        // A newer evaluation shows once the page reads them again (as it does when shown).
        engine::EvalResult better = top;
        for (engine::Prediction &p : better.predictions)
            p.topClasses = {p.label};
        workspace::EvaluationStore::store(db, single, QStringLiteral("best"), QStringLiteral("val"), better);
        page.refreshEvaluations();
        QTRY_COMPARE(cell(single), QStringLiteral("top-1 %1 %").arg(QLocale().toString(100.0, 'f', 2)));
        QCOMPARE(cell(multi), QStringLiteral("mAP %1").arg(QLocale().toString(map, 'f', 3)));
    }
};

QTEST_MAIN(TestRunsPage)
#include "test_runs_page.moc"
