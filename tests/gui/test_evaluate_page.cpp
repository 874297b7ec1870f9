// The Evaluate page end to end on real data: Fashion-MNIST demo images imported into a
// project's catalog and converted to shards, a short real training run (resnet18, 32x32, one
// epoch), then the EvaluateJob through the page's JobManager and every view checked against
// the stored predictions and the dataset's own counts: the confusion matrix and a click on a
// cell, the per-class table, the highest-loss gallery, Grad-CAM, relabel/exclude in the
// catalog, prediction of new files (good and bad) and the CSV/JSON exports.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "evaluate/calibration_plot.h"
#include "evaluate/class_metrics_model.h"
#include "evaluate/confusion_matrix_view.h"
#include "evaluate/evaluate_page.h"
#include "evaluate/grad_cam_view.h"
#include "evaluate/prediction_gallery_model.h"
#include "workspace/catalog.h"
#include "workspace/evaluation_store.h"
#include "workspace/import_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/project_connection.h"
#include "small_run.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QListView>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>

using namespace lathe;
using lathe::ui::EvaluatePage;
using lathe::ui::PredictionGalleryModel;

class TestEvaluatePage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void evaluatesAndStores();
    void cliEvalPrintsThePagesNumbers();
    void confusionMatrixClickListsThatCell();
    void perClassTableMatchesTheSplit();
    void highestLossGalleryIsSorted();
    void gradCamOfAGalleryImage();
    void relabelAndExcludeReachTheCatalog();
    void predictsFilesWithPerFileErrors();
    void classifyingIsAJobThatCancels();
    void savesMetrics();
    void reopensTheStoredEvaluation();

private:
    EvaluatePage *openPage();
    // The newest job whose title starts with prefix (nullptr: none).
    workspace::Job *lastJob(const QString &prefix) const;
    std::set<std::string> storedFilenames(int trueClass, int predictedClass) const;

    QTemporaryDir m_tmp;
    QString m_images;
    QString m_shards;
    QString m_run;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    EvaluatePage *m_page = nullptr;
    engine::DatasetManifest m_manifest;
    workspace::StoredEvaluation m_stored;
};

workspace::Job *TestEvaluatePage::lastJob(const QString &prefix) const
{
    const QList<workspace::Job *> &jobs = m_jobs->jobs();
    for (auto it = jobs.crbegin(); it != jobs.crend(); ++it)
        if ((*it)->title().startsWith(prefix))
            return *it;
    return nullptr;
}

void TestEvaluatePage::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    engine::DemoDataOptions counts;
    counts.perClass = 8;
    counts.testPerClass = 4;
    engine::ConvertOptions convert;
    convert.shardRecords = 16; // several shards per split: record positions cross shard boundaries
    DemoProject demo = makeDemoProject(m_tmp.path(), QStringLiteral("Eval"), counts, convert);
    m_project = std::move(demo.project);
    m_images = demo.images;
    m_shards = QString::fromStdString(demo.converted.outDir);
    m_manifest = demo.converted.manifest;

    workspace::ImportJob::Params import;
    import.databasePath = m_project->databasePath();
    import.sourceDir = m_images;
    import.name = QStringLiteral("demo");
    const workspace::ImportSummary summary = workspace::ImportJob::importFolder(import, {});
    QCOMPARE(summary.ok, 120);
    QCOMPARE(trainSmallRun(*m_project, m_shards.toStdString(), "test", &m_run), std::string("finished"));

    m_jobs = new workspace::JobManager(1, this);
    m_page = openPage();
    QVERIFY(m_page);
}

void TestEvaluatePage::cleanupTestCase()
{
    delete m_page;
    m_page = nullptr;
}

EvaluatePage *TestEvaluatePage::openPage()
{
    auto *page = new EvaluatePage(m_jobs);
    page->resize(1400, 900);
    page->show();
    QSignalSpy runs(page, &EvaluatePage::runsLoaded);
    page->setProject(m_project.get());
    if (runs.isEmpty() && !runs.wait(20000))
        return nullptr;
    if (page->runs() != QStringList{QDir::cleanPath(m_run)} || !page->selectRun(m_run))
        return nullptr;
    page->checkpointCombo()->setCurrentIndex(page->checkpointCombo()->findData(QStringLiteral("best")));
    page->splitCombo()->setCurrentIndex(page->splitCombo()->findData(QStringLiteral("test")));
    return page;
}

std::set<std::string> TestEvaluatePage::storedFilenames(int trueClass, int predictedClass) const
{
    std::set<std::string> names;
    for (const engine::Prediction &p : m_stored.result.predictions)
        if (p.label == trueClass && !p.topClasses.empty() && p.topClasses.front() == predictedClass)
            names.insert(p.filename);
    return names;
}

void TestEvaluatePage::evaluatesAndStores()
{
    QSignalSpy loaded(m_page, &EvaluatePage::evaluationLoaded);
    QSignalSpy failed(m_page, &EvaluatePage::evaluationFailed);
    QVERIFY(m_page->evaluateButton()->isEnabled());
    QTest::mouseClick(m_page->evaluateButton(), Qt::LeftButton);
    QVERIFY(m_page->isEvaluating());
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || (!loaded.isEmpty() && loaded.last().at(0).toLongLong() > 0), 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    const qint64 id = loaded.last().at(0).toLongLong();
    QCOMPARE(m_page->evaluation().id, id);

    // What the job stored is what the page shows.
    m_stored = workspace::EvaluationStore::load(m_project->databasePath(), id);
    QCOMPARE(m_stored.runDir, QDir::cleanPath(m_run));
    QCOMPARE(m_stored.split, QStringLiteral("test"));
    QCOMPARE(m_stored.checkpoint, QStringLiteral("best"));
    QCOMPARE(m_stored.result.predictions.size(), std::size_t(40));
    QCOMPARE(m_page->evaluation().result.predictions.size(), std::size_t(40));
    QCOMPARE(m_stored.result.classes, m_manifest.classes);
    for (std::size_t i = 0; i < m_stored.result.predictions.size(); ++i) {
        const engine::Prediction &a = m_stored.result.predictions[i];
        const engine::Prediction &b = m_page->evaluation().result.predictions[i];
        QCOMPARE(a.record, quint64(i));
        QCOMPARE(a.filename, b.filename);
        QCOMPARE(a.label, b.label);
        QCOMPARE(a.topClasses, b.topClasses);
        QCOMPARE(a.topClasses.size(), std::size_t(5));
    }
    QCOMPARE(workspace::EvaluationStore::latest(m_project->databasePath(), m_run, QStringLiteral("best"),
                                                QStringLiteral("test"), false),
             id);
    QCOMPARE(workspace::EvaluationStore::latest(m_project->databasePath(), m_run, QStringLiteral("best"),
                                                QStringLiteral("test"), true),
             qint64(0));

    // The confusion matrix sums to the number of evaluated images.
    const ui::ConfusionMatrixView *matrix = m_page->confusionMatrix();
    QCOMPARE(matrix->classes().size(), 10);
    QCOMPARE(matrix->total(), qint64(40));
    qint64 diagonal = 0;
    for (int c = 0; c < 10; ++c)
        diagonal += matrix->count(c, c);
    QCOMPARE(double(diagonal) / 40.0, m_stored.result.metrics.at("top1").get<double>());
    QVERIFY(m_page->calibrationPlot()->binAccuracy().size() >= 1);
    QCOMPARE(m_page->calibrationPlot()->curveClasses().size(), 10);
}

// `lathe-cli eval --json` on the same run, checkpoint and split prints the numbers the page shows.
void TestEvaluatePage::cliEvalPrintsThePagesNumbers()
{
    QVERIFY(m_stored.id > 0);
    QProcess cli;
    cli.start(QStringLiteral(LATHE_CLI_PATH),
              {QStringLiteral("--json"), QStringLiteral("eval"), QStringLiteral("--run"), m_run, QStringLiteral("--checkpoint"),
               QStringLiteral("best"), QStringLiteral("--data"), m_shards, QStringLiteral("--split"), QStringLiteral("test")});
    QVERIFY2(cli.waitForFinished(300000), qPrintable(cli.errorString()));
    QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, cli.readAllStandardError().constData());
    const nlohmann::json printed = nlohmann::json::parse(cli.readAllStandardOutput().toStdString(), nullptr, false);
    QVERIFY2(printed.is_object(), "lathe-cli eval --json printed no JSON object");

    const nlohmann::json &shown = m_page->evaluation().result.metrics;
    QCOMPARE(printed.at("classes").get<std::vector<std::string>>(), m_page->evaluation().result.classes);
    QCOMPARE(printed.at("count").get<qint64>(), m_page->confusionMatrix()->total());
    for (const char *key : {"top1", "top5"})
        QCOMPARE(printed.at(key).get<double>(), shown.at(key).get<double>());
    // The mean loss is a float sum whose last bits may follow the thread count.
    QVERIFY(std::abs(printed.at("loss").get<double>() - shown.at("loss").get<double>()) < 1e-4);

    const ui::ConfusionMatrixView *matrix = m_page->confusionMatrix();
    const nlohmann::json &counts = printed.at("confusion_matrix").at("counts");
    QCOMPARE(int(counts.size()), 10);
    for (int t = 0; t < 10; ++t)
        for (int p = 0; p < 10; ++p)
            QCOMPARE(counts.at(t).at(p).get<qint64>(), matrix->count(t, p));

    const ui::ClassMetricsModel *table = m_page->classMetricsModel();
    QCOMPARE(table->classCount(), 10);
    for (int c = 0; c < 10; ++c) {
        const nlohmann::json &row = printed.at("per_class").at(c);
        QCOMPARE(QString::fromStdString(row.at("class").get<std::string>()), table->className(c));
        QCOMPARE(row.at("support").get<double>(), table->value(c, ui::ClassMetricsModel::Support));
        QCOMPARE(row.at("precision").get<double>(), table->value(c, ui::ClassMetricsModel::Precision));
        QCOMPARE(row.at("recall").get<double>(), table->value(c, ui::ClassMetricsModel::Recall));
        QCOMPARE(row.at("f1").get<double>(), table->value(c, ui::ClassMetricsModel::F1));
        QCOMPARE(row.at("predicted").get<qint64>(), shown.at("per_class").at(c).at("predicted").get<qint64>());
    }
}

void TestEvaluatePage::confusionMatrixClickListsThatCell()
{
    QVERIFY(m_stored.id > 0);
    ui::ConfusionMatrixView *matrix = m_page->confusionMatrix();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
    // The busiest off-diagonal cell (a diagonal one when the model made no mistakes).
    int bestT = 0, bestP = 0;
    qint64 best = -1;
    for (int t = 0; t < 10; ++t)
        for (int p = 0; p < 10; ++p)
            if (matrix->count(t, p) > best && (t != p || best < 0)) {
                best = matrix->count(t, p);
                bestT = t;
                bestP = p;
            }
    QVERIFY(best > 0);
    const QRect cell = matrix->cellRect(bestT, bestP);
    QVERIFY(!cell.isEmpty());
    QCOMPARE(matrix->cellAt(cell.center()), QPoint(bestT, bestP));
    QSignalSpy clicked(matrix, &ui::ConfusionMatrixView::cellClicked);
    QTest::mouseClick(matrix, Qt::LeftButton, {}, cell.center());
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.first().at(0).toInt(), bestT);
    QCOMPARE(clicked.first().at(1).toInt(), bestP);

    const PredictionGalleryModel *gallery = m_page->galleryModel();
    QCOMPARE(gallery->mode(), PredictionGalleryModel::Mode::Cell);
    std::set<std::string> shown;
    for (int r = 0; r < gallery->rowCount(); ++r)
        shown.insert(gallery->data(gallery->index(r), PredictionGalleryModel::FilenameRole).toString().toStdString());
    QCOMPARE(std::size_t(gallery->rowCount()), shown.size());
    QCOMPARE(shown, storedFilenames(bestT, bestP));
    QCOMPARE(qint64(gallery->rowCount()), best);

    // Every cell, through the signal: the gallery holds exactly that cell's images.
    for (int t = 0; t < 10; ++t)
        for (int p = 0; p < 10; ++p) {
            Q_EMIT matrix->cellClicked(t, p);
            std::set<std::string> names;
            for (int r = 0; r < gallery->rowCount(); ++r)
                names.insert(gallery->data(gallery->index(r), PredictionGalleryModel::FilenameRole).toString().toStdString());
            QCOMPARE(names, storedFilenames(t, p));
            QCOMPARE(qint64(gallery->rowCount()), matrix->count(t, p));
        }

    // Thumbnails come from the shards' bytes.
    Q_EMIT matrix->cellClicked(bestT, bestP);
    for (int r = 0; r < gallery->rowCount(); ++r)
        gallery->data(gallery->index(r), Qt::DecorationRole);
    QTRY_VERIFY_WITH_TIMEOUT(gallery->hasThumbnail(0), 20000);
    const QPixmap thumbnail = gallery->data(gallery->index(0), Qt::DecorationRole).value<QPixmap>();
    QCOMPARE(thumbnail.size(), QSize(PredictionGalleryModel::kThumbnailSize, PredictionGalleryModel::kThumbnailSize));

    // The normalised toggle shows shares of the true class.
    matrix->setNormalized(true);
    QVERIFY(matrix->cellText(bestT, bestP).endsWith(QLatin1Char('%')));
    matrix->setNormalized(false);
    QCOMPARE(matrix->cellText(bestT, bestP), QLocale().toString(best));
}

void TestEvaluatePage::perClassTableMatchesTheSplit()
{
    const ui::ClassMetricsModel *table = m_page->classMetricsModel();
    QCOMPARE(table->classCount(), 10);
    QCOMPARE(table->rowCount(), 12); // plus macro and weighted averages
    const auto &counts = m_manifest.counts.at("test");
    for (int row = 0; row < 10; ++row) {
        const std::string name = table->className(row).toStdString();
        QCOMPARE(name, m_manifest.classes[std::size_t(row)]);
        QCOMPARE(table->value(row, ui::ClassMetricsModel::Support), double(counts.at(name)));
        const double recall = table->value(row, ui::ClassMetricsModel::Recall);
        QCOMPARE(recall, double(m_page->confusionMatrix()->count(row, row)) / double(counts.at(name)));
        const double accuracy = table->value(row, ui::ClassMetricsModel::Accuracy);
        QVERIFY(accuracy >= 0.0 && accuracy <= 1.0);
    }
}

void TestEvaluatePage::highestLossGalleryIsSorted()
{
    m_page->showHighestLoss();
    const PredictionGalleryModel *gallery = m_page->galleryModel();
    QCOMPARE(gallery->mode(), PredictionGalleryModel::Mode::HighestLoss);
    QCOMPARE(gallery->rowCount(), 40);
    double previous = std::numeric_limits<double>::infinity();
    for (int r = 0; r < gallery->rowCount(); ++r) {
        const double loss = gallery->data(gallery->index(r), PredictionGalleryModel::LossRole).toDouble();
        QVERIFY2(loss <= previous, qPrintable(QStringLiteral("row %1: %2 after %3").arg(r).arg(loss).arg(previous)));
        previous = loss;
    }
    double highest = 0;
    for (const engine::Prediction &p : m_stored.result.predictions)
        highest = std::max(highest, double(p.loss));
    QCOMPARE(gallery->data(gallery->index(0), PredictionGalleryModel::LossRole).toDouble(), highest);
}

void TestEvaluatePage::gradCamOfAGalleryImage()
{
    m_page->showHighestLoss();
    QSignalSpy done(m_page, &EvaluatePage::gradCamFinished);
    m_page->selectGalleryRow(0);
    QVERIFY(done.wait(60000));
    const ui::GradCamView *view = m_page->gradCamView();
    QVERIFY2(view->hasHeatMap(), qPrintable(view->message()));
    const engine::GradCamResult &r = view->result();
    QCOMPARE(r.width, 28);
    QCOMPARE(r.height, 28);
    QCOMPARE(r.heatmap.size(), std::size_t(28 * 28));
    QCOMPARE(r.classIndex, m_page->galleryModel()->predictedClass(0));
    QCOMPARE(view->image().size(), QSize(28, 28));
    QVERIFY(!view->predictionsText().isEmpty());
    // ResNet-18 at 32 pixels ends in a 1x1 feature map: the view says the map cannot localise.
    QCOMPARE(r.mapWidth, 1);
    QCOMPARE(r.mapHeight, 1);
    QVERIFY2(view->message().contains(QStringLiteral("single cell")), qPrintable(view->message()));
    // The map was computed by a Job the Jobs panel lists.
    const workspace::Job *job = lastJob(QStringLiteral("Grad-CAM of "));
    QVERIFY(job);
    QCOMPARE(job->state(), workspace::Job::State::Finished);

    // Another class asked for in the combo.
    const int other = (r.classIndex + 1) % 10;
    done.clear();
    Q_EMIT m_page->gradCamView()->classRequested(other);
    QVERIFY(done.wait(60000));
    QCOMPARE(view->result().classIndex, other);
}

void TestEvaluatePage::relabelAndExcludeReachTheCatalog()
{
    m_page->showHighestLoss();
    const PredictionGalleryModel *gallery = m_page->galleryModel();
    const engine::Prediction first = gallery->prediction(0);
    const engine::Prediction second = gallery->prediction(1);
    const QString target = QString::fromStdString(m_manifest.classes[std::size_t((first.label + 1) % 10)]);

    QSignalSpy changed(m_page, &EvaluatePage::catalogChanged);
    QSignalSpy failed(m_page, &EvaluatePage::catalogChangeFailed);
    m_page->relabelGalleryRow(0, target);
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty() || !failed.isEmpty(), 20000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QCOMPARE(changed.first().at(0).toString(), QString::fromStdString(first.filename));
    QVERIFY(m_page->statusText().contains(QStringLiteral("next conversion")));

    m_page->excludeGalleryRow(1);
    QTRY_VERIFY_WITH_TIMEOUT(changed.size() == 2 || !failed.isEmpty(), 20000);
    QVERIFY(failed.isEmpty());

    workspace::ProjectConnection connection(m_project->databasePath());
    workspace::Catalog &catalog = connection.catalog();
    const int dataset = catalog.datasetId(QStringLiteral("demo"));
    QVERIFY(dataset > 0);
    int found = 0;
    for (const workspace::CatalogImage &image : catalog.images(dataset)) {
        if (image.relPath == QString::fromStdString(first.filename)) {
            QCOMPARE(image.className, target);
            QVERIFY(!image.excluded);
            ++found;
        } else if (image.relPath == QString::fromStdString(second.filename)) {
            QVERIFY(image.excluded);
            ++found;
        } else {
            QVERIFY(!image.excluded);
            QCOMPARE(image.className, image.folderClass);
        }
    }
    QCOMPARE(found, 2);
}

void TestEvaluatePage::predictsFilesWithPerFileErrors()
{
    const QString image = QDir(m_images).filePath(QString::fromStdString(m_stored.result.predictions.front().filename));
    QVERIFY(QFile::exists(image));
    const QString text = m_tmp.filePath(QStringLiteral("notes.png"));
    {
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are notes, not a picture\n");
    }
    QSignalSpy done(m_page, &EvaluatePage::predictionsFinished);
    m_page->predictFiles({image, text});
    QVERIFY(done.wait(60000));
    const auto &results = m_page->filePredictions();
    QCOMPARE(results.size(), std::size_t(2));
    QVERIFY2(results[0].error.empty(), results[0].error.c_str());
    QCOMPARE(results[0].topNames.size(), std::size_t(5));
    QCOMPARE(results[0].topClasses.front(), m_stored.result.predictions.front().topClasses.front());
    QVERIFY(!results[1].error.empty());
    QVERIFY(QString::fromStdString(results[1].error).contains(QStringLiteral("notes.png")));
    QCOMPARE(m_page->predictModel()->rowCount(), 2);
    QVERIFY(m_page->predictModel()->item(1, 4)->text().contains(QStringLiteral("notes.png")));
    QCOMPARE(m_page->predictModel()->item(0, 1)->text(), QString::fromStdString(results[0].topNames.front()));
    const workspace::Job *job = lastJob(QStringLiteral("Classify 2 file"));
    QVERIFY(job);
    QCOMPARE(job->state(), workspace::Job::State::Finished);

    const QString csv = m_tmp.filePath(QStringLiteral("predictions.csv"));
    QSignalSpy saved(m_page, &EvaluatePage::fileSaved);
    m_page->savePredictionsCsv(csv);
    QVERIFY(saved.wait(10000));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith("file,class_1,prob_1"));
    QVERIFY(lines[1].contains(results[0].topNames.front().c_str()));
    QVERIFY(lines[2].contains("notes.png"));
}

void TestEvaluatePage::classifyingIsAJobThatCancels()
{
    const std::size_t before = m_page->filePredictions().size();
    QSignalSpy done(m_page, &EvaluatePage::predictionsFinished);
    m_page->predictFiles({m_images});
    workspace::Job *job = lastJob(QStringLiteral("Classify "));
    QVERIFY(job);
    QVERIFY(!job->isEnded());
    m_jobs->cancel(job); // before its first file: the model is still loading, or it waits for the slot
    QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 60000); // at once when it was still queued
    QCOMPARE(job->state(), workspace::Job::State::Cancelled);
    QCOMPARE(m_page->filePredictions().size(), before); // the earlier results stay
}

void TestEvaluatePage::savesMetrics()
{
    QSignalSpy saved(m_page, &EvaluatePage::fileSaved);
    const QString csv = m_tmp.filePath(QStringLiteral("metrics.csv"));
    m_page->saveMetrics(csv, EvaluatePage::MetricsFormat::Csv);
    QVERIFY(saved.wait(10000));
    const QString json = m_tmp.filePath(QStringLiteral("metrics.json"));
    m_page->saveMetrics(json, EvaluatePage::MetricsFormat::Json);
    QVERIFY(saved.wait(10000));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 10 + 2);
    QVERIFY(lines[0].startsWith("class,precision,recall,f1,support"));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const nlohmann::json metrics = nlohmann::json::parse(jsonFile.readAll().toStdString());
    QCOMPARE(metrics.at("count").get<int>(), 40);
    QCOMPARE(metrics.at("classes").size(), std::size_t(10));
}

void TestEvaluatePage::reopensTheStoredEvaluation()
{
    // A second page on the same project shows the stored evaluation without running the model.
    const int jobsBefore = int(m_jobs->jobs().size());
    std::unique_ptr<EvaluatePage> page(openPage());
    QVERIFY(page);
    QSignalSpy loaded(page.get(), &EvaluatePage::evaluationLoaded);
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() && loaded.last().at(0).toLongLong() == m_stored.id, 20000);
    QCOMPARE(int(m_jobs->jobs().size()), jobsBefore);
    QCOMPARE(page->confusionMatrix()->total(), qint64(40));
    // TTA on: nothing stored for that yet.
    page->ttaCheck()->setChecked(true);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.last().at(0).toLongLong() == 0, 20000);
    QCOMPARE(page->confusionMatrix()->total(), qint64(0));
}

QTEST_MAIN(TestEvaluatePage)
#include "test_evaluate_page.moc"
