// "Convert to Shards" on the Data page, on a real image folder: the convert dialog (options,
// validation as typed), the ConvertJob on the page's JobManager, the Shards tab against the
// dataset.json the engine wrote, Open Converted Dataset on good and malformed files, and a
// cancelled conversion that leaves no output folder.
#include "data/convert_dialog.h"
#include "data/data_page.h"
#include "data/shard_counts_model.h"
#include "data/shard_table_model.h"
#include "engine/dataset/demo_data.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/shard_manifest.h"

#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using lathe::ui::ConvertDialog;
using lathe::ui::DataPage;
using lathe::ui::ShardTableModel;
using lathe::workspace::ConvertJob;
using lathe::workspace::Job;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QVERIFY2(QDir().mkpath(QFileInfo(path).absolutePath()), qPrintable(path));
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(path));
    file.write(bytes);
}

QJsonObject readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace

class TestConvert : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    QString m_imagesDir;
    int m_usable = 0;
    std::unique_ptr<workspace::JobManager> m_jobs;
    std::unique_ptr<workspace::Project> m_project;
    std::unique_ptr<DataPage> m_page;
    QString m_converted; // the folder the conversion wrote

    static void acceptDialog(QWidget *parent, const QString &objectName, const QString &path)
    {
        QTRY_VERIFY(parent->findChild<QFileDialog *>(objectName) && parent->findChild<QFileDialog *>(objectName)->isVisible());
        auto *dialog = parent->findChild<QFileDialog *>(objectName);
        dialog->selectFile(path);
        QMetaObject::invokeMethod(dialog, "accept", Qt::DirectConnection); // protected in QFileDialog
    }

    QPushButton *button(const char *name) const { return m_page->findChild<QPushButton *>(QLatin1String(name)); }

    ConvertDialog *openConvertDialog()
    {
        QTest::mouseClick(button("convertButton"), Qt::LeftButton);
        ConvertDialog *dialog = m_page->convertDialog();
        return dialog && dialog->isVisible() ? dialog : nullptr;
    }

    void closeMessageBoxes()
    {
        for (QMessageBox *box : m_page->findChildren<QMessageBox *>())
            box->close();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_imagesDir = m_tmp.filePath(QStringLiteral("images"));
        engine::DemoDataOptions options;
        options.outDir = m_imagesDir.toStdString();
        options.perClass = 3;
        options.testPerClass = 1;
        const engine::DemoDataResult demo = engine::writeDemoData(options);
        QCOMPARE(demo.trainImages, 30);
        QCOMPARE(demo.testImages, 10);
        // One file no decoder accepts: it is left out of the shards, with its reason.
        writeFile(QDir(m_imagesDir).filePath(QStringLiteral("train/%1/empty.png").arg(QString::fromStdString(demo.classes.front()))), {});
        m_usable = demo.trainImages + demo.testImages;

        m_project = workspace::Project::create(m_tmp.filePath(QStringLiteral("project")), QStringLiteral("Convert"));
        m_jobs = std::make_unique<workspace::JobManager>(2);
        m_page = std::make_unique<DataPage>(m_jobs.get());
        m_page->resize(1100, 760);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));

        QSignalSpy loaded(m_page.get(), &DataPage::datasetLoaded);
        m_page->setProject(m_project.get());
        QVERIFY(loaded.wait(20000));
        QCOMPARE(loaded.first().first().toInt(), 0);
        QVERIFY(!button("convertButton")->isEnabled()); // no dataset yet

        QSignalSpy finished(m_page.get(), &DataPage::importFinished);
        QTest::mouseClick(button("emptyImportButton"), Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("importFolderDialog"), m_imagesDir);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(finished.wait(60000));
        QTRY_VERIFY(m_page->currentDatasetId() > 0);
        QCOMPARE(finished.first().first().value<workspace::ImportSummary>().ok, m_usable);
        QTRY_VERIFY(button("convertButton")->isEnabled());
        // Not converted yet: the button says it is the next step, the Shards tab offers it too.
        QCOMPARE(button("convertButton")->text(), QStringLiteral("Next: Convert to Shards…"));
        m_page->tabs()->setCurrentIndex(DataPage::ShardsTab);
        QVERIFY(m_page->shardManifest().isNull());
        QVERIFY(button("shardsConvertButton")->isVisible() && button("shardsConvertButton")->isEnabled());
        QVERIFY(m_page->findChild<QLabel *>(QStringLiteral("notConvertedLabel"))->text().contains(QStringLiteral("not converted yet")));
        m_page->tabs()->setCurrentIndex(DataPage::ImagesTab);
    }

    void convertsBySevenRecordsPerShard()
    {
        ConvertDialog *dialog = openConvertDialog();
        QVERIFY(dialog);
        auto *outDir = dialog->findChild<QLineEdit *>(QStringLiteral("outputFolderEdit"));
        m_converted = QDir(m_project->datasetsDir()).filePath(QStringLiteral("images"));
        QCOMPARE(QDir::fromNativeSeparators(outDir->text()), m_converted);
        // The folder has train and test folders: they decide the splits, the fractions do not.
        QVERIFY(!dialog->findChild<QDoubleSpinBox *>(QStringLiteral("valPercentSpin"))->isEnabled());
        QVERIFY(!dialog->findChild<QDoubleSpinBox *>(QStringLiteral("testPercentSpin"))->isEnabled());
        QVERIFY(!dialog->findChild<QLabel *>(QStringLiteral("splitNote"))->text().isEmpty());
        QVERIFY(dialog->problem().isEmpty());
        QVERIFY(dialog->convertButton()->isEnabled());
        // A second click raises the same dialog.
        QTest::mouseClick(button("convertButton"), Qt::LeftButton);
        QCOMPARE(m_page->findChildren<ConvertDialog *>().size(), 1);

        dialog->findChild<QRadioButton *>(QStringLiteral("shardByRecordsRadio"))->setChecked(true);
        dialog->findChild<QSpinBox *>(QStringLiteral("shardRecordsSpin"))->setValue(7);
        QCOMPARE(dialog->params().shardRecords, 7);

        QSignalSpy ended(m_jobs.get(), &workspace::JobManager::jobEnded);
        QSignalSpy converted(m_page.get(), &DataPage::convertFinished);
        QSignalSpy shown(m_page.get(), &DataPage::shardsLoaded);
        QTest::mouseClick(dialog->convertButton(), Qt::LeftButton);
        QTRY_VERIFY(!m_page->convertDialog()); // accepted, closed and deleted
        QVERIFY(m_page->isConverting());
        QVERIFY(!button("convertButton")->isEnabled());
        QVERIFY(ended.wait(120000));
        auto *job = ended.first().first().value<Job *>();
        QVERIFY2(job->state() == Job::State::Finished, qPrintable(job->errorMessage()));
        QTRY_COMPARE(converted.count(), 1);
        QTRY_COMPARE(shown.count(), 1);
        QVERIFY(!m_page->isConverting());
        QVERIFY(button("convertButton")->isEnabled());

        const workspace::ConvertSummary summary = converted.first().first().value<workspace::ConvertSummary>();
        QCOMPARE(summary.outDir, m_converted);
        QCOMPARE(summary.records, qint64(m_usable));
        QCOMPARE(summary.rejected, qint64(1));
        QCOMPARE(summary.classes.size(), 10);

        const QString manifestPath = QDir(m_converted).filePath(QStringLiteral("dataset.json"));
        QVERIFY(QFileInfo::exists(manifestPath));
        QCOMPARE(shown.first().first().toString(), manifestPath);
        const QJsonObject json = readJson(manifestPath);
        QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("lathe-shards"));
        const QJsonArray shards = json.value(QStringLiteral("shards")).toArray();

        // The table lists exactly the manifest's shards.
        ShardTableModel *model = m_page->shardModel();
        QCOMPARE(model->rowCount(), shards.size());
        QCOMPARE(summary.shards, qint64(shards.size()));
        qint64 records = 0;
        qint64 bytes = 0;
        QMap<QString, int> shardsPerSplit;
        for (int row = 0; row < shards.size(); ++row) {
            const QJsonObject shard = shards.at(row).toObject();
            const workspace::ShardManifest::Shard &shown = model->shard(row);
            QCOMPARE(shown.file, shard.value(QStringLiteral("file")).toString());
            QCOMPARE(shown.split, shard.value(QStringLiteral("split")).toString());
            QCOMPARE(shown.records, shard.value(QStringLiteral("records")).toInteger());
            QCOMPARE(shown.bytes, shard.value(QStringLiteral("bytes")).toInteger());
            QCOMPARE(shown.sha256, shard.value(QStringLiteral("sha256")).toString());
            QCOMPARE(model->index(row, ShardTableModel::FileColumn).data().toString(), shown.file);
            QCOMPARE(model->index(row, ShardTableModel::Sha256Column).data().toString(), shown.sha256);
            QVERIFY(shown.records >= 1 && shown.records <= 7);
            QCOMPARE(QFileInfo(QDir(m_converted).filePath(shown.file)).size(), shown.bytes);
            QVERIFY(QFileInfo::exists(QDir(m_converted).filePath(shown.index)));
            records += shown.records;
            bytes += shown.bytes;
            ++shardsPerSplit[shown.split];
        }
        QCOMPARE(records, qint64(m_usable));
        QCOMPARE(summary.bytes, bytes);
        QCOMPARE(shardsPerSplit.value(QStringLiteral("train")), 5); // 30 records, 7 a shard
        QCOMPARE(shardsPerSplit.value(QStringLiteral("test")), 2);  // 10 records

        // Counts per class and split, with totals.
        const workspace::ShardManifest &manifest = m_page->shardManifest();
        QCOMPARE(manifest.records, qint64(m_usable));
        QCOMPARE(manifest.splitRecords(QStringLiteral("train")), 30);
        QCOMPARE(manifest.splitRecords(QStringLiteral("test")), 10);
        QCOMPARE(manifest.rejected.size(), 1);
        ui::ShardCountsModel *counts = m_page->shardCountsModel();
        QCOMPARE(counts->rowCount(), 10 + 1);
        const int totalColumn = counts->columnCount() - 1;
        QCOMPARE(counts->count(10, totalColumn), qint64(m_usable));
        for (int row = 0; row < 10; ++row)
            QCOMPARE(counts->count(row, totalColumn), 4); // 3 training + 1 test image per class
        QCOMPARE(counts->index(10, totalColumn).data().toString(), QLocale().toString(m_usable));

        QCOMPARE(m_page->tabs()->currentIndex(), int(DataPage::ShardsTab));
        const QString text = m_page->findChild<QLabel *>(QStringLiteral("shardsSummary"))->text();
        QVERIFY2(text.contains(QDir::toNativeSeparators(m_converted)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("40 records")), qPrintable(text));
        QVERIFY(!button("shardsConvertButton")->isVisible());
        QCOMPARE(button("convertButton")->text(), QStringLiteral("Convert to Shards…")); // done: no longer "Next"

        // Three training images per class and no validation split: said above the shards.
        const QStringList warnings = m_page->shardWarnings();
        QCOMPARE(warnings.size(), 2);
        QVERIFY2(warnings.at(0).contains(QStringLiteral("\"train\" is tiny: 30 images for 10 class")), qPrintable(warnings.at(0)));
        QVERIFY2(warnings.at(1).contains(QStringLiteral("\"val\" has no images")), qPrintable(warnings.at(1)));
        auto *banner = m_page->findChild<QLabel *>(QStringLiteral("shardWarnings"));
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains(QStringLiteral("is tiny")), qPrintable(banner->text()));

        // The catalog remembers the conversion as the dataset's shards.
        QTRY_COMPARE(workspace::Catalog(m_project->database()).dataset(m_page->currentDatasetId()).shardsDir, m_converted);
    }

    void dialogRefusesANonEmptyFolder()
    {
        ConvertDialog *dialog = openConvertDialog();
        QVERIFY(dialog);
        auto *outDir = dialog->findChild<QLineEdit *>(QStringLiteral("outputFolderEdit"));
        // The default skips the folder the first conversion filled.
        QCOMPARE(QDir::fromNativeSeparators(outDir->text()), QDir(m_project->datasetsDir()).filePath(QStringLiteral("images-2")));
        QVERIFY(dialog->convertButton()->isEnabled());

        QTest::keyClick(outDir, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(outDir, QDir::toNativeSeparators(m_converted));
        QVERIFY(!dialog->convertButton()->isEnabled());
        auto *problem = dialog->findChild<QLabel *>(QStringLiteral("convertProblem"));
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(QStringLiteral("not empty")), qPrintable(problem->text()));
        QVERIFY(problem->text().contains(QDir::toNativeSeparators(m_converted)));

        outDir->setText(QDir(m_imagesDir).filePath(QStringLiteral("shards")));
        QVERIFY(!dialog->convertButton()->isEnabled());
        QVERIFY2(problem->text().contains(QStringLiteral("inside the image folder")), qPrintable(problem->text()));
        outDir->clear();
        QVERIFY(!dialog->convertButton()->isEnabled());
        outDir->setText(m_tmp.filePath(QStringLiteral("elsewhere")));
        QVERIFY(dialog->convertButton()->isEnabled());
        QVERIFY(!problem->isVisible());
        dialog->reject();
        QTRY_VERIFY(!m_page->convertDialog());
    }

    void dialogRefusesFractionsOfOneOrMore()
    {
        workspace::DatasetInfo info;
        info.name = QStringLiteral("flat");
        info.sourceDir = m_imagesDir;
        info.folderSplits = false;
        ConvertDialog dialog(info, m_tmp.filePath(QStringLiteral("flat-shards")));
        auto *val = dialog.findChild<QDoubleSpinBox *>(QStringLiteral("valPercentSpin"));
        auto *test = dialog.findChild<QDoubleSpinBox *>(QStringLiteral("testPercentSpin"));
        QVERIFY(val->isEnabled() && test->isEnabled());
        QVERIFY(dialog.convertButton()->isEnabled());
        val->setValue(60);
        test->setValue(40);
        QVERIFY(!dialog.convertButton()->isEnabled());
        QVERIFY2(dialog.problem().contains(QStringLiteral("below 100")), qPrintable(dialog.problem()));
        test->setValue(30);
        QVERIFY(dialog.convertButton()->isEnabled());
        QCOMPARE(dialog.params().valFraction, 0.6);
        QCOMPARE(dialog.params().testFraction, 0.3);
        QCOMPARE(dialog.params().shardRecords, 0); // by size unless records are chosen
        QCOMPARE(dialog.params().shardSizeMb, 64);
        QCOMPARE(dialog.params().maxSide, 0);      // no re-encode unless asked
        dialog.findChild<QCheckBox *>(QStringLiteral("reencodeCheck"))->setChecked(true);
        QVERIFY(dialog.findChild<QSpinBox *>(QStringLiteral("maxSideSpin"))->isEnabled());
        QCOMPARE(dialog.params().maxSide, 1024);
        QCOMPARE(dialog.params().quality, 90);
    }

    void opensAConvertedDataset()
    {
        // Open Converted Dataset shows the chosen dataset.json (here the one already shown).
        QSignalSpy shown(m_page.get(), &DataPage::shardsLoaded);
        QTest::mouseClick(button("openShardsButton"), Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("openShardsDialog"), QDir(m_converted).filePath(QStringLiteral("dataset.json")));
        if (QTest::currentTestFailed())
            return;
        QVERIFY(shown.wait(20000));
        QCOMPARE(m_page->shardModel()->rowCount(), readJson(QDir(m_converted).filePath(QStringLiteral("dataset.json")))
                                                         .value(QStringLiteral("shards")).toArray().size());
    }

    void malformedManifestIsReported_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not JSON") << QByteArray("{\"format\": \"lathe-shards\", ") << QStringLiteral("JSON");
        QTest::newRow("not a Lathe dataset") << QByteArray(R"({"format": "other", "version": 1})")
                                             << QStringLiteral("format");
        QTest::newRow("no shards") << QByteArray(R"({"format": "lathe-shards", "version": 1, "source": "/x",
            "created": "2026-01-01T00:00:00Z", "classes": ["a"], "counts": {}, "records": 0, "reencoded": 0,
            "report": {"scanned": 0, "ok": 0, "rejected": []}})")
                                   << QStringLiteral("shards");
        QTest::newRow("records not a number") << QByteArray(R"({"format": "lathe-shards", "version": 1, "source": "/x",
            "created": "2026-01-01T00:00:00Z", "classes": ["a"], "counts": {}, "shards": [], "records": "many",
            "reencoded": 0, "report": {"scanned": 0, "ok": 0, "rejected": []}})")
                                              << QStringLiteral("records");
    }

    void malformedManifestIsReported()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, reason);
        const QString path = m_tmp.filePath(QStringLiteral("bad-%1/dataset.json").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'))));
        writeFile(path, json);
        const int shownBefore = m_page->shardModel()->rowCount();
        QSignalSpy error(m_page.get(), &DataPage::errorOccurred);
        QTest::mouseClick(button("openShardsButton"), Qt::LeftButton);
        acceptDialog(m_page.get(), QStringLiteral("openShardsDialog"), path);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(error.wait(20000));
        const QString message = error.first().first().toString();
        QVERIFY2(message.contains(QDir::toNativeSeparators(path)), qPrintable(message));
        QVERIFY2(message.contains(reason), qPrintable(message));
        QCOMPARE(m_page->findChild<QLabel *>(QStringLiteral("dataStatus"))->text(), message);
        QCOMPARE(m_page->shardModel()->rowCount(), shownBefore); // what was shown stays
        closeMessageBoxes();
    }

    void aFileNotNamedDatasetJsonIsRefused()
    {
        const QString path = m_tmp.filePath(QStringLiteral("other.json"));
        writeFile(path, "{}");
        QSignalSpy error(m_page.get(), &DataPage::errorOccurred);
        m_page->openConvertedDataset(path);
        QVERIFY(error.wait(20000));
        QVERIFY(error.first().first().toString().contains(QDir::toNativeSeparators(path)));
        closeMessageBoxes();
    }

    void aCancelledConversionLeavesNoFolder()
    {
        const QString many = m_tmp.filePath(QStringLiteral("many"));
        engine::DemoDataOptions options;
        options.outDir = many.toStdString();
        options.perClass = 100;
        options.testPerClass = 0;
        QCOMPARE(engine::writeDemoData(options).trainImages, 1000);

        const QString parent = m_tmp.filePath(QStringLiteral("cancel"));
        QVERIFY(QDir().mkpath(parent));
        ConvertJob::Params params;
        params.sourceDir = many;
        params.outDir = QDir(parent).filePath(QStringLiteral("out"));
        params.shardRecords = 10;

        // Cancel at the first progress report, as a user would from the jobs panel.
        Job *started = nullptr;
        auto added = connect(m_jobs.get(), &workspace::JobManager::jobAdded, this, [&](Job *job) {
            started = job;
            connect(job, &Job::progressChanged, this, [this, job] { m_jobs->cancel(job); });
        });
        QSignalSpy cancelled(m_page.get(), &DataPage::convertCancelled);
        QSignalSpy finished(m_page.get(), &DataPage::convertFinished);
        m_page->startConvert(params);
        disconnect(added);
        QVERIFY(started);
        QVERIFY(cancelled.wait(120000));
        QCOMPARE(finished.count(), 0);
        QCOMPARE(started->state(), Job::State::Cancelled);
        QVERIFY(!m_page->isConverting());
        QVERIFY(!QFileInfo::exists(params.outDir));
        // Nor a temporary folder beside it.
        QCOMPARE(QDir(parent).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
        QVERIFY(m_page->findChild<QLabel *>(QStringLiteral("dataStatus"))->text().contains(QStringLiteral("cancelled")));
    }

    void cleanupTestCase()
    {
        m_page.reset();
        m_jobs.reset(); // waits for whatever still runs
        m_project.reset();
    }
};

QTEST_MAIN(TestConvert)
#include "test_convert.moc"
