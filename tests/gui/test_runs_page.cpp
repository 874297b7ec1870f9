// The Runs page on run folders written without the GUI (the engine's RunFolder, as lathe-cli
// writes them, and checkpoint files laid out as checkpoint_io.h documents): names, tags and
// notes saved in the run folder and read back, filtering by text and tag, marking a checkpoint
// best, deleting one, and the Evaluate/Export hand-offs.
#include "engine/run/run_folder.h"
#include "runs/run_filter_model.h"
#include "runs/run_table_model.h"
#include "runs/runs_page.h"
#include "workspace/project.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
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
    nlohmann::json sidecar = {{"format_version", 1}, {"step", step}, {"epoch", step - 1}, {"metrics", {{"val_top1", valTop1}}}};
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
        QCOMPARE(table->item(1, 5)->text(), QStringLiteral("best, last"));

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
        QCOMPARE(table->item(0, 5)->text(), QStringLiteral("best (chosen)"));
        QCOMPARE(table->item(1, 5)->text(), QStringLiteral("last"));

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
    }
};

QTEST_MAIN(TestRunsPage)
#include "test_runs_page.moc"
