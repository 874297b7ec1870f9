// The Train page on a real multi-label dataset (Fashion-MNIST demo images with a labels file:
// each image its garment, "feet" for footwear, "dark" for every third image): a single run
// started with Start trains to the end and measures val_map; Cross-Validate runs a real 2-fold
// cross-validation (ResNet-18, one channel, 32 px, one epoch) through the JobManager, with
// progress per fold, the Start button held while it runs, folds.json (two fold metrics, their
// mean and std) and oof_predictions.jsonl (one row per training image, with its label set) in a
// folder of the runs folder that listFoldsRuns finds, each fold's curves drawn live from its
// start, and the mean shown on the page. Stop ends
// the job cancelled with fold-1 checkpointed, and Continue finishes the same folder. With
// LATHE_TRAIN_CV_SCREENSHOT=FILE.png it also saves the page with the finished result.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/run/run_folder.h"
#include "train/augmentation_editor.h"
#include "train/run_config_form.h"
#include "train/train_page.h"
#include "train/training_curves.h"
#include "workspace/cross_validation_job.h"
#include "workspace/job_manager.h"
#include "workspace/label_issues_job.h"
#include "workspace/project.h"

#include "small_run.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

using namespace lathe;
using lathe::ui::TrainPage;
namespace fs = std::filesystem;

namespace {

QJsonObject readJsonObject(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QList<QJsonObject> readJsonLines(const QString &path)
{
    QList<QJsonObject> rows;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return rows;
    for (const QByteArray &line : file.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            rows.append(QJsonDocument::fromJson(line).object());
    return rows;
}

} // namespace

class TestTrainCrossValidation : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager m_jobs{1};
    int m_trainImages = 0;

    // The tiny real run every case trains: ResNet-18 from scratch on one channel at 32 pixels,
    // one epoch, no augmentation, a fixed seed.
    void setUp(TrainPage &page)
    {
        page.setModelSpecProvider([] {
            engine::ModelSpec spec;
            spec.arch = "resnet18";
            spec.inChannels = 1;
            spec.head.numClasses = 0; // the dataset's
            return spec;
        });
        page.setProject(m_project.get());
        QTRY_COMPARE(page.datasetPicker()->count(), 1);
        page.applyConfig({{"data", {{"augment", nlohmann::json::array()}, {"image_size", 32}}}});
        page.form()->setValues({{"optimizer", {{"epochs", 1}, {"batch_size", 16}, {"lr", 0.05}}},
                                {"data", {{"workers", 1}, {"val_split", "val"}}},
                                {"feature_cache", {{"mode", "off"}}},
                                {"seed", 7}});
        const nlohmann::json config = page.runConfig();
        QVERIFY(config["data"]["augment"].empty()); // no augmentation
        QCOMPARE(config["data"]["image_size"].get<int>(), 32);
        QTRY_VERIFY2(page.preflight().isEmpty(), qPrintable(page.preflight()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        DemoProject made = makeMultiLabelDemoProject(m_tmp.path(), QStringLiteral("Multi"), demoCounts(4, 2, 0));
        m_project = std::move(made.project);
        const engine::ConvertResult &converted = made.converted;
        QCOMPARE(converted.manifest.task, std::string("multi_label"));
        QCOMPARE(converted.manifest.classes.size(), std::size_t(12));
        for (const engine::ShardInfo &shard : converted.manifest.shards)
            if (shard.split == "train")
                m_trainImages += int(shard.records);
        QCOMPARE(m_trainImages, 40);
    }

    // Start on a multi-label dataset: one run, to the end, with the multi-label metrics.
    void startTrainsAMultiLabelRun()
    {
        TrainPage page(&m_jobs);
        setUp(page);
        QSignalSpy ended(&page, &TrainPage::runEnded);
        QVERIFY(page.startRun());
        const QString runDir = page.currentRunDir();
        QVERIFY(!page.startButton()->isEnabled());
        QVERIFY(!page.crossValidateButton()->isEnabled());
        QVERIFY(ended.wait(120000));
        QCOMPARE(ended.first().at(1).toString(), QStringLiteral("finished"));
        QVERIFY(page.startButton()->isEnabled());
        QVERIFY(page.crossValidateButton()->isEnabled());
        const engine::RunInfo info = engine::readRunInfo(runDir.toStdString());
        QCOMPARE(info.state, std::string("finished"));
        QVERIFY2(info.lastEpochEvent.contains("val_map"), info.lastEpochEvent.dump().c_str());
        QVERIFY(info.lastEpochEvent["val_map"].is_number());
        const double map = info.lastEpochEvent["val_map"].get<double>();
        QVERIFY(map >= 0 && map <= 1);
        const engine::RunConfig config =
            engine::readRunConfig(QDir(runDir).filePath(QStringLiteral("config.json")).toStdString());
        QCOMPARE(config.data.folds, 0); // a plain run, not a fold
    }

    void crossValidatesFromThePage()
    {
        TrainPage page(&m_jobs);
        setUp(page);
        QSignalSpy started(&page, &TrainPage::crossValidationStarted);
        QSignalSpy ended(&page, &TrainPage::crossValidationEnded);
        QCOMPARE(page.foldsEdit()->minimum(), 2);
        QCOMPARE(page.foldsEdit()->maximum(), 20);
        QCOMPARE(page.foldsEdit()->value(), 5);
        page.foldsEdit()->setValue(2);
        QTest::mouseClick(page.crossValidateButton(), Qt::LeftButton);
        workspace::CrossValidationJob *job = page.currentCrossValidation();
        QVERIFY2(job, qPrintable(page.statusLabel()->text()));
        QCOMPARE(started.size(), 1);
        const QString dir = page.currentCrossValidationDir();
        QCOMPARE(QFileInfo(dir).dir().absolutePath(), QDir(m_project->runsDir()).absolutePath());
        QVERIFY2(QFileInfo(dir).fileName().endsWith(QStringLiteral("-resnet18-cv2")), qPrintable(dir));
        // The jobs panel's list has it.
        QVERIFY(m_jobs.jobs().contains(job));
        QVERIFY2(job->title().contains(QStringLiteral("Cross-validation")), qPrintable(job->title()));
        QStringList statuses;
        connect(job, &workspace::Job::progressChanged, this, [&statuses](double, const QString &s) { statuses << s; });
        // No second training meanwhile.
        QVERIFY(!page.startButton()->isEnabled());
        QVERIFY(!page.crossValidateButton()->isEnabled());
        QVERIFY(page.stopButton()->isEnabled());
        QVERIFY(page.pauseButton()->isEnabled());
        QVERIFY(!page.startRun());
        QVERIFY(!page.startCrossValidation());
        QVERIFY(page.statusLabel()->text().contains(QStringLiteral("cross-validation is going on")));
        QVERIFY(!page.resumeRun(dir));

        QVERIFY(ended.wait(180000));
        QCOMPARE(ended.first().at(0).toString(), dir);
        QVERIFY2(ended.first().at(1).toString() == QStringLiteral("finished"), qPrintable(page.statusLabel()->text()));
        QVERIFY(!page.currentCrossValidation());
        QVERIFY(page.startButton()->isEnabled());
        QVERIFY(page.crossValidateButton()->isEnabled());
        QVERIFY(!page.stopButton()->isEnabled());
        QTRY_VERIFY2(!page.preflightLabel()->text().contains(QStringLiteral("going on")),
                     qPrintable(page.preflightLabel()->text()));
        QVERIFY(page.preflight().isEmpty());
        // Progress went fold by fold.
        const auto inFold2 = [](const QString &s) { return s.startsWith(QStringLiteral("Fold 2 of 2")); };
        QVERIFY2(std::any_of(statuses.begin(), statuses.end(), inFold2), qPrintable(statuses.join(QLatin1Char('|'))));
        QCOMPARE(job->state(), workspace::Job::State::Finished);
        // The Live tab drew the folds as they trained, each from its start: fold 2's one epoch
        // is all it holds at the end, with its steps.
        QCOMPARE(page.curves()->epochPoints(), 1);
        QVERIFY(page.curves()->stepPoints() > 0);

        // folds.json: two fold metrics, mAP for a multi-label dataset.
        const QJsonObject folds = readJsonObject(QDir(dir).filePath(QStringLiteral("folds.json")));
        QCOMPARE(folds.value(QStringLiteral("task")).toString(), QStringLiteral("multi_label"));
        QCOMPARE(folds.value(QStringLiteral("metric")).toString(), QStringLiteral("val_map"));
        QCOMPARE(folds.value(QStringLiteral("folds")).toInt(), 2);
        const QJsonArray metrics = folds.value(QStringLiteral("fold_metrics")).toArray();
        QCOMPARE(metrics.size(), 2);
        const double mean = (metrics[0].toDouble() + metrics[1].toDouble()) / 2;
        QVERIFY(std::abs(folds.value(QStringLiteral("mean")).toDouble() - mean) < 1e-9);
        for (const QString &run : {QStringLiteral("fold-1"), QStringLiteral("fold-2")})
            QCOMPARE(engine::readRunInfo(QDir(dir).filePath(run).toStdString()).state, std::string("finished"));

        // One out-of-fold row per training image, each with its label set and 12 probabilities.
        const QList<QJsonObject> rows = readJsonLines(QDir(dir).filePath(QStringLiteral("oof_predictions.jsonl")));
        QCOMPARE(rows.size(), m_trainImages);
        QSet<QString> files;
        for (const QJsonObject &row : rows) {
            files.insert(row.value(QStringLiteral("filename")).toString());
            QVERIFY(!row.value(QStringLiteral("labels")).toArray().isEmpty());
            QCOMPARE(row.value(QStringLiteral("probs")).toArray().size(), 12);
            const int fold = row.value(QStringLiteral("fold")).toInt();
            QVERIFY(fold == 1 || fold == 2);
        }
        QCOMPARE(files.size(), m_trainImages);

        // The job's result and the page: the mean, the spread, each fold, the folder.
        const std::optional<workspace::CrossValidationResult> result = page.lastCrossValidation();
        QVERIFY(result);
        QCOMPARE(result->foldsDir, dir);
        QCOMPARE(result->metric, QStringLiteral("val_map"));
        QCOMPARE(result->foldMetrics.size(), 2);
        QCOMPARE(result->mean, folds.value(QStringLiteral("mean")).toDouble());
        QCOMPARE(result->std, folds.value(QStringLiteral("std")).toDouble());
        QCOMPARE(result->runs, (QStringList{QStringLiteral("fold-1"), QStringLiteral("fold-2")}));
        const QString shown = page.crossValidationLabel()->text();
        QVERIFY(!page.crossValidationLabel()->isHidden());
        QVERIFY2(shown.contains(QStringLiteral("2-fold cross-validation: val_map ") + QString::number(result->mean, 'f', 3) +
                                QStringLiteral(" ± ") + QString::number(result->std, 'f', 3)),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QString::number(result->foldMetrics[0], 'f', 3)), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(dir).toHtmlEscaped()), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Suspected Label Errors")), qPrintable(shown));

        if (const QByteArray file = qgetenv("LATHE_TRAIN_CV_SCREENSHOT"); !file.isEmpty()) {
            page.resize(1280, 800);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            QVERIFY(page.grab().save(QString::fromLocal8Bit(file)));
        }

        // The Data page's Suspected Label Errors tab finds it.
        const QVector<workspace::FoldsRunEntry> listed = workspace::listFoldsRuns(m_project->runsDir());
        QVERIFY(std::any_of(listed.begin(), listed.end(), [&dir](const workspace::FoldsRunEntry &e) { return e.dir == dir; }));
    }

    // Stop during fold 1: the job ends cancelled, fold 1 keeps a checkpoint, no folds.json;
    // Continue (the result line's link) finishes the same folder.
    void stopsAndContinues()
    {
        TrainPage page(&m_jobs);
        setUp(page);
        page.foldsEdit()->setValue(2);
        QSignalSpy ended(&page, &TrainPage::crossValidationEnded);
        QVERIFY(page.startCrossValidation());
        workspace::CrossValidationJob *job = page.currentCrossValidation();
        QVERIFY(job);
        const QString dir = page.currentCrossValidationDir();
        // Paused before its first step (the trainer waits at each step), so Stop lands in fold 1.
        QTest::mouseClick(page.pauseButton(), Qt::LeftButton);
        QVERIFY(job->isPaused());
        QTRY_COMPARE(page.pauseButton()->text(), QStringLiteral("Resume"));
        const QString fold1 = QDir(dir).filePath(QStringLiteral("fold-1"));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(QDir(fold1).filePath(QStringLiteral("config.json"))), 60000);
        QCOMPARE(job->currentFold(), 1);
        QTest::mouseClick(page.stopButton(), Qt::LeftButton);
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().at(1).toString(), QStringLiteral("cancelled"));
        QCOMPARE(job->state(), workspace::Job::State::Cancelled);
        QVERIFY(page.startButton()->isEnabled());
        QCOMPARE(page.pauseButton()->text(), QStringLiteral("Pause"));
        QVERIFY(!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("folds.json"))));
        QVERIFY(!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("fold-2"))));
        const engine::RunInfo stopped = engine::readRunInfo(fold1.toStdString());
        QCOMPARE(stopped.state, std::string("cancelled"));
        QVERIFY(stopped.lastCheckpointStep >= 0);
        QVERIFY(!engine::listCheckpoints(fold1.toStdString()).empty());
        const QString shown = page.crossValidationLabel()->text();
        QVERIFY2(shown.contains(QStringLiteral("href=\"continue\"")), qPrintable(shown));
        // Not a folds run yet for the Suspected Label Errors tab.
        const QVector<workspace::FoldsRunEntry> listed = workspace::listFoldsRuns(m_project->runsDir());
        QVERIFY(std::none_of(listed.begin(), listed.end(), [&dir](const workspace::FoldsRunEntry &e) { return e.dir == dir; }));

        // Continue: the same folder, its own settings and fold count.
        page.foldsEdit()->setValue(7); // not what the folder uses
        QSignalSpy endedAgain(&page, &TrainPage::crossValidationEnded);
        Q_EMIT page.crossValidationLabel()->linkActivated(QStringLiteral("continue"));
        QVERIFY(page.currentCrossValidation());
        QVERIFY(page.currentCrossValidation()->params().resume);
        QCOMPARE(page.currentCrossValidationDir(), dir);
        QVERIFY(endedAgain.wait(180000));
        QVERIFY2(endedAgain.first().at(1).toString() == QStringLiteral("finished"), qPrintable(page.statusLabel()->text()));
        const QJsonObject folds = readJsonObject(QDir(dir).filePath(QStringLiteral("folds.json")));
        QCOMPARE(folds.value(QStringLiteral("folds")).toInt(), 2);
        QCOMPARE(folds.value(QStringLiteral("fold_metrics")).toArray().size(), 2);
        QCOMPARE(engine::readRunInfo(fold1.toStdString()).state, std::string("finished"));
        QCOMPARE(readJsonLines(QDir(dir).filePath(QStringLiteral("oof_predictions.jsonl"))).size(), m_trainImages);
        QVERIFY(page.lastCrossValidation());
        QVERIFY(page.crossValidationLabel()->text().contains(QStringLiteral("2-fold cross-validation")));
    }
};

QTEST_MAIN(TestTrainCrossValidation)
#include "test_train_cross_validation.moc"
