// The Export page end to end on real data: Fashion-MNIST demo images converted to shards in a
// project, a short real training run (resnet18, 32x32, one epoch), then exports through the
// page's JobManager: the report table against report.json and the files on disk, the record in
// the project database and the history of a page opened afresh, the hand-off from other pages,
// a failed export (recorded with its reason), a cancelled one (not recorded), latencies not
// measured saying why, and a typed relative folder shown as the folder written.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "export/export_page.h"
#include "workspace/export_store.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "small_run.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using lathe::ui::ExportPage;

class TestExportPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saysWhatIsUnavailable();
    void exportsVerifiesAndRecords();
    void reopenedPageListsTheExport();
    void handOffSelectsRunAndCheckpoint();
    void failedExportIsRecordedWithItsReason();
    void cancelledExportIsNotRecorded();
    void shownFolderIsTheOneWritten();

private:
    std::unique_ptr<ExportPage> openPage();
    QString cell(int row, int column) const;

    QTemporaryDir m_tmp;
    QString m_run;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    std::unique_ptr<ExportPage> m_page;
    qint64 m_exportId = 0;
};

void TestExportPage::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    DemoProject demo = makeDemoProject(m_tmp.path(), QStringLiteral("Export"), demoCounts(6, 2, 0));
    m_project = std::move(demo.project);
    QCOMPARE(trainSmallRun(*m_project, demo.converted.outDir, "val", &m_run), std::string("finished"));

    m_jobs = new workspace::JobManager(1, this);
    m_page = openPage();
    QVERIFY(m_page);
}

void TestExportPage::cleanupTestCase()
{
    m_page.reset();
}

std::unique_ptr<ExportPage> TestExportPage::openPage()
{
    auto page = std::make_unique<ExportPage>(m_jobs);
    page->resize(1400, 900);
    page->show();
    QSignalSpy runs(page.get(), &ExportPage::runsLoaded);
    QSignalSpy history(page.get(), &ExportPage::historyLoaded);
    page->setProject(m_project.get());
    if ((runs.isEmpty() && !runs.wait(20000)) || (history.isEmpty() && !history.wait(20000)))
        return nullptr;
    if (page->runs() != QStringList{m_run})
        return nullptr;
    return page;
}

QString TestExportPage::cell(int row, int column) const
{
    return m_page->reportModel()->index(row, column).data().toString();
}

void TestExportPage::saysWhatIsUnavailable()
{
    ExportPage page(m_jobs);
    QVERIFY(page.statusText().contains(QStringLiteral("Open a project")));
    QVERIFY(!page.exportButton()->isEnabled());

    QSignalSpy runs(&page, &ExportPage::runsLoaded);
    auto empty = workspace::Project::create(m_tmp.filePath(QStringLiteral("empty")), QStringLiteral("Empty"));
    page.setProject(empty.get());
    QTRY_VERIFY(!runs.isEmpty());
    QVERIFY(page.runs().isEmpty());
    QVERIFY(page.statusText().contains(QStringLiteral("No runs yet")));
    QVERIFY(!page.exportButton()->isEnabled());
    page.setProject(nullptr);
}

void TestExportPage::exportsVerifiesAndRecords()
{
    QCOMPARE(m_page->currentRun(), m_run);
    QCOMPARE(m_page->currentCheckpoint(), QStringLiteral("best"));
    // The default folder: <project>/exports/<run>-<checkpoint>-<time stamp>.
    QVERIFY(QDir::fromNativeSeparators(m_page->outputFolder())
                .startsWith(QDir(m_project->exportsDir()).filePath(QStringLiteral("run-1-best-"))));

    m_page->formatCheck(QStringLiteral("onnx"))->setChecked(true);
    m_page->formatCheck(QStringLiteral("onnx-int8"))->setChecked(true);
    m_page->formatCheck(QStringLiteral("safetensors"))->setChecked(true);
    QVERIFY(m_page->calibImagesSpin()->isEnabled());
    // The TFLite INT8 file's input/output type is asked only when it is chosen.
    QVERIFY(!m_page->int8IoCombo()->isEnabled());
    m_page->formatCheck(QStringLiteral("tflite-int8"))->setChecked(true);
    QVERIFY(m_page->int8IoCombo()->isEnabled());
    m_page->int8IoCombo()->setCurrentIndex(m_page->int8IoCombo()->findData(QStringLiteral("int8")));
    m_page->calibImagesSpin()->setValue(8);
    m_page->calibMethodCombo()->setCurrentIndex(m_page->calibMethodCombo()->findData(QStringLiteral("percentile")));
    QCOMPARE(m_page->checkedFormats(), (QStringList{QStringLiteral("onnx"), QStringLiteral("onnx-int8"),
                                                    QStringLiteral("tflite-int8"), QStringLiteral("safetensors")}));

    QSignalSpy finished(m_page.get(), &ExportPage::exportFinished);
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    QVERIFY(m_page->exportButton()->isEnabled());
    QTest::mouseClick(m_page->exportButton(), Qt::LeftButton);
    QVERIFY(m_page->isExporting());
    QVERIFY(m_page->cancelButton()->isEnabled());
    QVERIFY(!m_page->exportButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    m_exportId = finished.first().at(0).toLongLong();
    QVERIFY(m_exportId > 0);
    QVERIFY(!m_page->isExporting());
    QCOMPARE(m_page->shownExportId(), m_exportId);

    // report.json on disk and the table agree, row for row.
    const QString outDir = m_page->shownFolder();
    QFile reportFile(QDir(outDir).filePath(QStringLiteral("report.json")));
    QVERIFY(reportFile.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll()).object();
    const QJsonArray artifacts = report.value(QStringLiteral("artifacts")).toArray();
    QCOMPARE(artifacts.size(), 4);
    QCOMPARE(m_page->reportModel()->rowCount(), 4);
    const QStringList formats = {QStringLiteral("onnx"), QStringLiteral("onnx-int8"), QStringLiteral("tflite-int8"),
                                 QStringLiteral("safetensors")};
    for (int row = 0; row < 4; ++row) {
        const QJsonObject a = artifacts.at(row).toObject();
        QCOMPARE(cell(row, ExportPage::FormatColumn), formats.at(row));
        QCOMPARE(cell(row, ExportPage::FileColumn), a.value(QStringLiteral("file")).toString());
        QVERIFY2(QFile::exists(QDir(outDir).filePath(cell(row, ExportPage::FileColumn))),
                 qPrintable(cell(row, ExportPage::FileColumn)));
        QVERIFY(!cell(row, ExportPage::SizeColumn).isEmpty());
        QVERIFY(!cell(row, ExportPage::MaxDiffColumn).isEmpty());
        QVERIFY(!cell(row, ExportPage::AgreementColumn).isEmpty());
        const bool passed = a.value(QStringLiteral("status")).toString() == QLatin1String("passed");
        QCOMPARE(cell(row, ExportPage::StatusColumn), passed ? QStringLiteral("passed") : QStringLiteral("failed"));
        // A failed check says why (INT8 of a one-epoch model may lose more than a point).
        QCOMPARE(cell(row, ExportPage::ReasonColumn).isEmpty(), passed);
        // Latency where the engine measured it; where not (not every runtime is timed) the cell
        // says so, and why in its tool tip.
        const QJsonObject latency = a.value(QStringLiteral("latency")).toObject();
        for (const auto &[column, key] : {qMakePair(int(ExportPage::Latency1Column), QStringLiteral("batch1_ms_per_image")),
                                          qMakePair(int(ExportPage::Latency32Column), QStringLiteral("batch32_ms_per_image"))}) {
            const QModelIndex index = m_page->reportModel()->index(row, column);
            if (latency.value(key).isDouble()) {
                QCOMPARE(index.data().toString(), QLocale().toString(latency.value(key).toDouble(), 'f', 2));
            } else {
                QCOMPARE(index.data().toString(), QStringLiteral("not measured"));
                QVERIFY2(index.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Not measured: ")),
                         qPrintable(index.data(Qt::ToolTipRole).toString()));
            }
        }
        QCOMPARE(cell(row, ExportPage::AccuracyColumn).isEmpty(),
                 !a.value(QStringLiteral("accuracy")).toObject().value(QStringLiteral("top1")).isDouble());
    }
    // FP32 ONNX and safetensors reproduce the model; INT8 is measured on the validation images.
    QCOMPARE(cell(0, ExportPage::StatusColumn), QStringLiteral("passed"));
    QCOMPARE(cell(3, ExportPage::StatusColumn), QStringLiteral("passed"));
    QCOMPARE(cell(0, ExportPage::FileColumn), QStringLiteral("model.onnx"));
    // The TFLite INT8 file as asked: int8 pixels in, int8 scores out; labels.txt beside it.
    const QJsonObject tflite = artifacts.at(2).toObject();
    QCOMPARE(tflite.value(QStringLiteral("input")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("INT8"));
    QCOMPARE(tflite.value(QStringLiteral("output")).toObject().value(QStringLiteral("type")).toString(), QStringLiteral("INT8"));
    QVERIFY(QFile::exists(QDir(outDir).filePath(QStringLiteral("labels.txt"))));
    // INT8 is checked by the reference runtime, which is not timed; safetensors holds weights only.
    const auto whyNoLatency = [this](int row) {
        return m_page->reportModel()->index(row, ExportPage::Latency1Column).data(Qt::ToolTipRole).toString();
    };
    QVERIFY2(whyNoLatency(1).contains(QStringLiteral("reference runtime")), qPrintable(whyNoLatency(1)));
    QVERIFY2(whyNoLatency(2).contains(QStringLiteral("LiteRT")), qPrintable(whyNoLatency(2)));
    QVERIFY2(whyNoLatency(3).contains(QStringLiteral("weights file")), qPrintable(whyNoLatency(3)));
    QVERIFY(!cell(1, ExportPage::AccuracyColumn).isEmpty());
    QVERIFY(QFile::exists(QDir(outDir).filePath(QStringLiteral("model.json"))));
    QVERIFY(m_page->openFolderButton()->isEnabled());

    // Recorded in the project database.
    const QVector<workspace::StoredExport> stored = workspace::ExportStore::list(m_project->databasePath());
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().id, m_exportId);
    QCOMPARE(stored.first().runDir, m_run);
    QCOMPARE(stored.first().checkpoint, QStringLiteral("best"));
    QCOMPARE(stored.first().formats, formats);
    QCOMPARE(stored.first().outDir, QDir::cleanPath(outDir));
    QCOMPARE(stored.first().ok, report.value(QStringLiteral("status")).toString() == QLatin1String("passed"));
    QCOMPARE(QJsonDocument::fromJson(stored.first().reportJson.toUtf8()).object().value(QStringLiteral("artifacts")).toArray(),
             artifacts);
    // The page's history follows, the new export selected.
    QTRY_COMPARE(m_page->historyModel()->rowCount(), 1);
    QCOMPARE(m_page->historyView()->currentIndex().row(), 0);
    // The next export gets a folder of its own.
    QVERIFY(QDir::cleanPath(QDir::fromNativeSeparators(m_page->outputFolder())) != QDir::cleanPath(outDir));
}

void TestExportPage::reopenedPageListsTheExport()
{
    QVERIFY(m_exportId > 0);
    std::unique_ptr<ExportPage> page = openPage();
    QVERIFY(page);
    QCOMPARE(page->historyModel()->rowCount(), 1);
    QCOMPARE(page->historyModel()->index(0, 0).data(Qt::UserRole).toLongLong(), m_exportId);
    QCOMPARE(page->historyModel()->index(0, 3).data().toString(), QStringLiteral("onnx, onnx-int8, tflite-int8, safetensors"));
    QCOMPARE(page->reportModel()->rowCount(), 0);
    QVERIFY(!page->copyPathButton()->isEnabled());

    QSignalSpy shown(page.get(), &ExportPage::reportShown);
    page->historyView()->selectRow(0);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(page->shownExportId(), m_exportId);
    QCOMPARE(page->reportModel()->rowCount(), 4);
    QCOMPARE(page->reportModel()->index(3, ExportPage::FormatColumn).data().toString(), QStringLiteral("safetensors"));
    QCOMPARE(page->shownFolder(), m_page->shownFolder());
    QVERIFY(page->copyPathButton()->isEnabled());
    QTest::mouseClick(page->copyPathButton(), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), QDir::toNativeSeparators(page->shownFolder()));
}

void TestExportPage::handOffSelectsRunAndCheckpoint()
{
    std::unique_ptr<ExportPage> page = openPage();
    QVERIFY(page);
    QStringList checkpoints;
    for (int i = 0; i < page->checkpointCombo()->count(); ++i)
        checkpoints << page->checkpointCombo()->itemData(i).toString();
    QVERIFY(checkpoints.contains(QStringLiteral("best")));
    QVERIFY(checkpoints.contains(QStringLiteral("last")));
    QVERIFY(!checkpoints.filter(QStringLiteral("step-")).isEmpty());

    page->selectCheckpoint(m_run, QStringLiteral("last"));
    QCOMPARE(page->currentRun(), m_run);
    QCOMPARE(page->currentCheckpoint(), QStringLiteral("last"));
    QVERIFY(QFileInfo(QDir::fromNativeSeparators(page->outputFolder())).fileName().startsWith(QStringLiteral("run-1-last-")));

    // Before the runs are listed: applied once they are.
    ExportPage fresh(m_jobs);
    QSignalSpy runs(&fresh, &ExportPage::runsLoaded);
    fresh.setProject(m_project.get());
    fresh.selectCheckpoint(m_run + QStringLiteral("/"), checkpoints.filter(QStringLiteral("step-")).first());
    QTRY_VERIFY(runs.size() >= 1);
    QTRY_COMPARE(fresh.currentCheckpoint(), checkpoints.filter(QStringLiteral("step-")).first());
    QCOMPARE(fresh.currentRun(), m_run);
}

void TestExportPage::failedExportIsRecordedWithItsReason()
{
    const QString missing = QDir(m_run).filePath(QStringLiteral("checkpoints/no-such.safetensors"));
    m_page->selectCheckpoint(m_run, missing);
    QCOMPARE(m_page->currentCheckpoint(), missing);
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    QSignalSpy history(m_page.get(), &ExportPage::historyLoaded);
    m_page->startExport();
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    QVERIFY(m_page->statusText().contains(QStringLiteral("no-such")));
    QTRY_VERIFY(!history.isEmpty());
    QCOMPARE(m_page->historyModel()->rowCount(), 2);
    QCOMPARE(m_page->historyModel()->index(0, 4).data().toString(), QStringLiteral("failed"));

    const QVector<workspace::StoredExport> stored = workspace::ExportStore::list(m_project->databasePath());
    QCOMPARE(stored.size(), 2);
    QVERIFY(!stored.first().ok);
    QCOMPARE(stored.first().checkpoint, missing);
    QVERIFY(stored.first().reportJson.contains(QStringLiteral("no-such")));
    m_page->historyView()->selectRow(0);
    QVERIFY(m_page->summaryText().contains(QStringLiteral("no-such")));
    QCOMPARE(m_page->reportModel()->rowCount(), 0);
}

void TestExportPage::cancelledExportIsNotRecorded()
{
    m_page->selectCheckpoint(m_run, QStringLiteral("best"));
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    QSignalSpy finished(m_page.get(), &ExportPage::exportFinished);
    m_page->startExport();
    QVERIFY(m_page->cancelButton()->isEnabled());
    QTest::mouseClick(m_page->cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || !finished.isEmpty(), 120000);
    QVERIFY(finished.isEmpty());
    QCOMPARE(failed.first().at(0).toString(), QStringLiteral("cancelled"));
    QVERIFY(m_page->statusText().contains(QStringLiteral("cancelled")));
    QVERIFY(!m_page->isExporting());
    QVERIFY(m_page->exportButton()->isEnabled());
    QCOMPARE(workspace::ExportStore::list(m_project->databasePath()).size(), 2);
}

// A folder typed as a relative path with "..": the page shows, records and opens the folder
// the engine wrote (under the project's exports folder), not the text as typed.
void TestExportPage::shownFolderIsTheOneWritten()
{
    m_page->selectCheckpoint(m_run, QStringLiteral("best"));
    for (const QString &format : {QStringLiteral("onnx"), QStringLiteral("onnx-int8"), QStringLiteral("torchscript")})
        m_page->formatCheck(format)->setChecked(false);
    m_page->formatCheck(QStringLiteral("safetensors"))->setChecked(true);
    QLineEdit *folder = m_page->outputEdit();
    folder->selectAll();
    QTest::keyClicks(folder, QStringLiteral("typed/../written here"));
    const QString written = QDir(m_project->exportsDir()).filePath(QStringLiteral("written here"));
    QCOMPARE(m_page->resolvedOutputFolder(), written);

    QSignalSpy finished(m_page.get(), &ExportPage::exportFinished);
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    m_page->startExport();
    QVERIFY(m_page->statusText().contains(QDir::toNativeSeparators(written)));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QCOMPARE(m_page->shownFolder(), written);
    QVERIFY(QFile::exists(QDir(written).filePath(QStringLiteral("report.json"))));
    QVERIFY(QFile::exists(QDir(written).filePath(cell(0, ExportPage::FileColumn))));
    QVERIFY(m_page->summaryText().contains(QDir::toNativeSeparators(written)));
    QCOMPARE(workspace::ExportStore::list(m_project->databasePath()).first().outDir, written);
    // A weights file is not timed, and says why.
    QCOMPARE(cell(0, ExportPage::Latency32Column), QStringLiteral("not measured"));
    QTest::mouseClick(m_page->copyPathButton(), Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), QDir::toNativeSeparators(written));
}

QTEST_MAIN(TestExportPage)
#include "test_export_page.moc"
