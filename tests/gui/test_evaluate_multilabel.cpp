// The Evaluate page on a real multi-label run: Fashion-MNIST demo images with a labels file
// (each image: its garment, "feet" for footwear, "dark" for every third image) converted to
// multi-label shards, a short real training run (resnet18, one channel, 32x32, one epoch, which
// tunes a threshold per label), then the EvaluateJob through the page. The per-label table is
// the engine's metrics; an edited threshold gives exactly engine::precisionRecallF1's numbers
// and moves the PR curve's marker; "Reset to Tuned" restores the stored numbers; a click on a
// cell of the false-positive confusion lists exactly the images it counts; the scores survive
// the database and saveEvaluation/loadEvaluation. The Predict tab shows each file's label set
// (the engine's, at the checkpoint's thresholds) and every label's score against its threshold,
// and says so when no label reaches its threshold. With LATHE_EVALUATE_MULTILABEL_SCREENSHOT=FILE.png
// it also saves the page as shown (LATHE_EVALUATE_MULTILABEL_PREDICT_SCREENSHOT: its Predict tab).
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/inference/evaluation.h"
#include "engine/inference/prediction.h"
#include "engine/training/multilabel_metrics.h"
#include "engine/training/trainer.h"
#include "evaluate/confusion_matrix_view.h"
#include "evaluate/evaluate_page.h"
#include "evaluate/file_prediction_panel.h"
#include "evaluate/label_pr_plot.h"
#include "evaluate/multi_label_metrics_model.h"
#include "evaluate/multi_label_panel.h"
#include "evaluate/prediction_gallery_model.h"
#include "workspace/evaluation_store.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "small_run.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

using namespace lathe;
using lathe::ui::EvaluatePage;
using lathe::ui::MultiLabelMetricsModel;
namespace fs = std::filesystem;

namespace {

// NaN-aware equality of a table cell with an engine number.
bool same(double shown, double expected)
{
    return (std::isnan(shown) && std::isnan(expected)) || std::abs(shown - expected) <= 1e-12;
}

} // namespace

class TestEvaluateMultiLabel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void evaluatesAMultiLabelRun();
    void perLabelTableIsTheEnginesMetrics();
    void editedThresholdRecomputes();
    void falsePositiveCellListsItsImages();
    void scoresSurviveSaveAndLoad();
    void singleLabelEvaluationStillShowsItsViews();
    void predictTabShowsLabelSets();
    void predictTabSaysWhenNoLabelReachesItsThreshold();

private:
    int labelIndex(const std::string &name) const;
    ui::FilePredictionPanel *predictPanel() const { return m_page->findChild<ui::FilePredictionPanel *>(); }
    // Training images (validation ones sit exactly on their tuned thresholds): the Bag folder
    // and one Sandal image (which carries "feet" too).
    QStringList trainingInputs() const;
    ui::MultiLabelPanel *panel() const { return m_page->multiLabelPanel(); }
    MultiLabelMetricsModel *model() const { return panel()->model(); }

    QTemporaryDir m_tmp;
    QString m_run;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    EvaluatePage *m_page = nullptr;
    workspace::StoredEvaluation m_stored;
    engine::MultiLabelTargets m_targets;
    std::vector<std::string> m_classes; // the dataset's labels, in the model's order
};

int TestEvaluateMultiLabel::labelIndex(const std::string &name) const
{
    const auto &classes = m_stored.result.classes;
    const auto it = std::find(classes.begin(), classes.end(), name);
    return it == classes.end() ? -1 : int(it - classes.begin());
}

void TestEvaluateMultiLabel::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    engine::DemoDataOptions demo;
    demo.perClass = 8;
    demo.testPerClass = 4;
    DemoProject made = makeMultiLabelDemoProject(m_tmp.path(), QStringLiteral("Multi"), demo);
    m_project = std::move(made.project);
    const engine::ConvertResult &converted = made.converted;
    QCOMPARE(converted.manifest.task, std::string("multi_label"));
    QCOMPARE(converted.manifest.classes.size(), std::size_t(12));
    m_classes = converted.manifest.classes;
    QCOMPARE(trainSmallRun(*m_project, converted.outDir, "test", &m_run), std::string("finished"));

    m_jobs = new workspace::JobManager(1, this);
    m_page = new EvaluatePage(m_jobs);
    m_page->resize(1400, 900);
    m_page->show();
    QSignalSpy runs(m_page, &EvaluatePage::runsLoaded);
    m_page->setProject(m_project.get());
    QVERIFY(!runs.isEmpty() || runs.wait(20000));
    QVERIFY(m_page->selectRun(m_run));
    m_page->checkpointCombo()->setCurrentIndex(m_page->checkpointCombo()->findData(QStringLiteral("best")));
    m_page->splitCombo()->setCurrentIndex(m_page->splitCombo()->findData(QStringLiteral("test")));
}

void TestEvaluateMultiLabel::cleanupTestCase()
{
    delete m_page;
    m_page = nullptr;
}

void TestEvaluateMultiLabel::evaluatesAMultiLabelRun()
{
    QSignalSpy loaded(m_page, &EvaluatePage::evaluationLoaded);
    QSignalSpy failed(m_page, &EvaluatePage::evaluationFailed);
    QTRY_VERIFY(m_page->evaluateButton()->isEnabled());
    QTest::mouseClick(m_page->evaluateButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty() || (!loaded.isEmpty() && loaded.last().at(0).toLongLong() > 0), 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    const qint64 id = loaded.last().at(0).toLongLong();
    m_stored = workspace::EvaluationStore::load(m_project->databasePath(), id);

    // The store kept the label sets and every class's score.
    const engine::EvalResult &r = m_stored.result;
    QCOMPARE(r.metrics.value("task", std::string()), std::string("multi_label"));
    QCOMPARE(r.predictions.size(), std::size_t(40));
    QCOMPARE(r.probabilities.size(), std::size_t(40));
    for (std::size_t i = 0; i < r.predictions.size(); ++i) {
        QCOMPARE(r.probabilities[i].size(), std::size_t(12));
        const std::set<int> set(r.predictions[i].labels.begin(), r.predictions[i].labels.end());
        const std::string cls = fs::path(r.predictions[i].filename).parent_path().filename().string();
        QVERIFY2(set.count(labelIndex(cls)), r.predictions[i].filename.c_str());
        const bool feet = cls == "Sandal" || cls == "Sneaker" || cls == "Ankle_boot";
        QCOMPARE(bool(set.count(labelIndex("feet"))), feet);
    }
    std::vector<std::vector<int>> sets;
    for (const engine::Prediction &p : r.predictions)
        sets.push_back(p.labels);
    m_targets = engine::targetsFromLabelSets(sets, 12);

    // The page shows the multi-label views.
    QVERIFY(m_page->isMultiLabel());
    QCOMPARE(m_page->tabs()->tabText(EvaluatePage::ConfusionTab), QStringLiteral("False Positives"));
    QCOMPARE(m_page->tabs()->tabText(EvaluatePage::ClassesTab), QStringLiteral("Per Label"));
    QVERIFY(!m_page->tabs()->isTabVisible(EvaluatePage::CalibrationTab));
    QVERIFY(model()->canEditThresholds());
    const QString summary = m_page->findChild<QLabel *>(QStringLiteral("evaluationSummary"))->text();
    QVERIFY2(summary.contains(QStringLiteral("mAP %1").arg(QLocale().toString(r.metrics.at("map").get<double>(), 'f', 3))),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("at the tuned thresholds")), qPrintable(summary));
}

void TestEvaluateMultiLabel::perLabelTableIsTheEnginesMetrics()
{
    const nlohmann::json &metrics = m_stored.result.metrics;
    // The stored metrics are the engine's for these scores at the checkpoint's thresholds.
    const std::vector<double> tuned = metrics.at("thresholds").get<std::vector<double>>();
    std::vector<std::vector<int>> sets;
    for (const engine::Prediction &p : m_stored.result.predictions)
        sets.push_back(p.labels);
    const nlohmann::json engineMetrics =
        engine::computeMultiLabelMetrics(sets, m_stored.result.probabilities, m_stored.result.classes, tuned);
    QCOMPARE(model()->labelCount(), 12);
    QCOMPARE(model()->rowCount(), 14);
    QCOMPARE(model()->tunedThresholds(), tuned);
    for (int j = 0; j < 12; ++j) {
        const nlohmann::json &row = metrics.at("per_class").at(std::size_t(j));
        const nlohmann::json &fresh = engineMetrics.at("per_class").at(std::size_t(j));
        QCOMPARE(model()->index(j, MultiLabelMetricsModel::LabelColumn).data().toString(),
                 QString::fromStdString(row.at("class").get<std::string>()));
        const auto ap = row.at("average_precision");
        QVERIFY(same(model()->value(j, MultiLabelMetricsModel::AveragePrecision),
                     ap.is_number() ? ap.get<double>() : std::nan("")));
        for (const auto &[column, key] : {std::pair{MultiLabelMetricsModel::Precision, "precision"},
                                          std::pair{MultiLabelMetricsModel::Recall, "recall"},
                                          std::pair{MultiLabelMetricsModel::F1, "f1"},
                                          std::pair{MultiLabelMetricsModel::Support, "support"},
                                          std::pair{MultiLabelMetricsModel::Predicted, "predicted"},
                                          std::pair{MultiLabelMetricsModel::Threshold, "threshold"}}) {
            QVERIFY2(same(model()->value(j, column), row.at(key).get<double>()), key);
            QVERIFY2(same(model()->value(j, column), fresh.at(key).get<double>()), key);
        }
        QVERIFY(model()->flags(model()->index(j, MultiLabelMetricsModel::Threshold)) & Qt::ItemIsEditable);
        QVERIFY(!(model()->flags(model()->index(j, MultiLabelMetricsModel::F1)) & Qt::ItemIsEditable));
    }
    for (const auto &[row, key] : {std::pair{12, "micro"}, std::pair{13, "macro"}})
        for (const auto &[column, field] : {std::pair{MultiLabelMetricsModel::Precision, "precision"},
                                           std::pair{MultiLabelMetricsModel::Recall, "recall"},
                                           std::pair{MultiLabelMetricsModel::F1, "f1"}})
            QVERIFY2(same(model()->value(row, column), metrics.at(key).at(field).get<double>()), key);
    QVERIFY(same(model()->value(13, MultiLabelMetricsModel::AveragePrecision), metrics.at("map").get<double>()));
    QVERIFY(same(model()->value(12, MultiLabelMetricsModel::AveragePrecision), metrics.at("map_micro").get<double>()));
    QCOMPARE(model()->index(12, 0).data().toString(), QStringLiteral("micro avg"));

    // The false-positive confusion shown is the engine's.
    const nlohmann::json &fp = metrics.at("false_positive_confusion").at("counts");
    const ui::ConfusionMatrixView *matrix = m_page->confusionMatrix();
    QCOMPARE(matrix->classes().size(), 12);
    for (int t = 0; t < 12; ++t)
        for (int p = 0; p < 12; ++p)
            QCOMPARE(matrix->count(t, p), fp.at(std::size_t(t)).at(std::size_t(p)).get<qint64>());
}

void TestEvaluateMultiLabel::editedThresholdRecomputes()
{
    m_page->tabs()->setCurrentIndex(EvaluatePage::ClassesTab);
    const int feet = labelIndex("feet");
    QVERIFY(feet >= 0);
    panel()->selectLabel(feet);
    QCOMPARE(panel()->prPlot()->label(), QStringLiteral("feet"));
    QVERIFY(panel()->prPlot()->pointCount() > 0);
    QVERIFY(!panel()->resetButton()->isEnabled());

    // Through the table's spin box, as a user edits it.
    QTableView *table = panel()->table();
    const QModelIndex cell = model()->index(feet, MultiLabelMetricsModel::Threshold);
    table->setCurrentIndex(cell);
    table->edit(cell);
    auto *spin = table->findChild<QDoubleSpinBox *>(QStringLiteral("thresholdSpin"));
    QVERIFY(spin);
    QCOMPARE(spin->value(), std::round(model()->tunedThresholds()[std::size_t(feet)] * 1e4) / 1e4);
    QSignalSpy changed(model(), &MultiLabelMetricsModel::thresholdsChanged);
    spin->setValue(0.05);
    QTest::keyClick(spin, Qt::Key_Return); // the delegate commits from the event loop
    QTRY_COMPARE(changed.count(), 1);
    QTRY_VERIFY(!table->findChild<QDoubleSpinBox *>(QStringLiteral("thresholdSpin")));
    QCOMPARE(model()->thresholds()[std::size_t(feet)], 0.05);

    std::vector<double> thresholds = model()->tunedThresholds();
    thresholds[std::size_t(feet)] = 0.05;
    const engine::MultiLabelPrf prf = engine::precisionRecallF1(m_stored.result.probabilities, m_targets, thresholds);
    for (int j = 0; j < 12; ++j) {
        QVERIFY(same(model()->value(j, MultiLabelMetricsModel::Precision), prf.precision[std::size_t(j)]));
        QVERIFY(same(model()->value(j, MultiLabelMetricsModel::Recall), prf.recall[std::size_t(j)]));
        QVERIFY(same(model()->value(j, MultiLabelMetricsModel::F1), prf.f1[std::size_t(j)]));
        QCOMPARE(model()->value(j, MultiLabelMetricsModel::Predicted), double(prf.predicted[std::size_t(j)]));
    }
    QVERIFY(same(model()->value(12, MultiLabelMetricsModel::F1), prf.micro.f1));
    QVERIFY(same(model()->value(13, MultiLabelMetricsModel::F1), prf.macro.f1));
    QVERIFY(same(model()->value(13, MultiLabelMetricsModel::Precision), prf.macro.precision));
    QVERIFY(same(model()->value(12, MultiLabelMetricsModel::Recall), prf.micro.recall));
    // A lower threshold predicts "feet" at least as often.
    QVERIFY(model()->value(feet, MultiLabelMetricsModel::Predicted) >=
            m_stored.result.metrics.at("per_class").at(std::size_t(feet)).at("predicted").get<double>());

    // The marker sits at the new operating point; the summary and the matrix follow.
    QCOMPARE(panel()->prPlot()->threshold(), 0.05);
    QCOMPARE(panel()->prPlot()->operatingPoint(),
             QPointF(prf.recall[std::size_t(feet)], prf.precision[std::size_t(feet)]));
    QVERIFY(m_page->findChild<QLabel *>(QStringLiteral("evaluationSummary"))->text().contains(QStringLiteral("edited")));
    const engine::FalsePositiveConfusion fp =
        engine::falsePositiveConfusion(m_stored.result.probabilities, m_targets, thresholds);
    for (int t = 0; t < 12; ++t)
        for (int p = 0; p < 12; ++p)
            QCOMPARE(m_page->confusionMatrix()->count(t, p), qint64(fp.counts[std::size_t(t)][std::size_t(p)]));
    // The saved metrics are the ones shown.
    QCOMPARE(model()->currentMetrics().at("per_class").at(std::size_t(feet)).at("threshold").get<double>(), 0.05);

    // Reset to Tuned: the stored numbers again.
    QVERIFY(panel()->resetButton()->isEnabled());
    QTest::mouseClick(panel()->resetButton(), Qt::LeftButton);
    QVERIFY(model()->thresholdsAreTuned());
    QVERIFY(!panel()->resetButton()->isEnabled());
    for (int j = 0; j < 12; ++j)
        QVERIFY(same(model()->value(j, MultiLabelMetricsModel::F1),
                     m_stored.result.metrics.at("per_class").at(std::size_t(j)).at("f1").get<double>()));
}

void TestEvaluateMultiLabel::falsePositiveCellListsItsImages()
{
    // At threshold 0 every image that does not carry "feet" has it falsely predicted: the
    // T-shirt row's "feet" cell then holds every T-shirt image.
    const int feet = labelIndex("feet");
    const int shirt = labelIndex("T-shirt_top");
    QVERIFY2(shirt >= 0, "the demo's T-shirt class");
    model()->setThreshold(feet, 0.0);
    m_page->tabs()->setCurrentIndex(EvaluatePage::ConfusionTab);
    ui::ConfusionMatrixView *matrix = m_page->confusionMatrix();
    QTRY_VERIFY(!matrix->cellRect(shirt, feet).isEmpty());
    QCOMPARE(matrix->count(shirt, feet), qint64(4));

    // Pick a cell that the tuned thresholds leave non-empty too, when there is one: the click
    // lists exactly the images the engine counts there.
    std::set<std::string> expected;
    for (std::size_t n = 0; n < m_stored.result.predictions.size(); ++n)
        if (m_targets[n][std::size_t(shirt)] && !m_targets[n][std::size_t(feet)] &&
            double(m_stored.result.probabilities[n][std::size_t(feet)]) >= 0.0)
            expected.insert(m_stored.result.predictions[n].filename);
    QCOMPARE(expected.size(), std::size_t(4));
    QTest::mouseClick(matrix, Qt::LeftButton, {}, matrix->cellRect(shirt, feet).center());
    ui::PredictionGalleryModel *gallery = m_page->galleryModel();
    QCOMPARE(gallery->mode(), ui::PredictionGalleryModel::Mode::FalsePositives);
    std::set<std::string> listed;
    for (int row = 0; row < gallery->rowCount(); ++row)
        listed.insert(gallery->prediction(row).filename);
    QCOMPARE(listed, expected);
    QVERIFY(gallery->description().startsWith(QStringLiteral("Carrying T-shirt_top, falsely predicted feet: 4 image")));
    QVERIFY(gallery->index(0).data().toString().contains(QStringLiteral("T-shirt_top")));

    // Every other cell lists as many images as it counts.
    for (int t = 0; t < 12; ++t)
        for (int p = 0; p < 12; ++p)
            QCOMPARE(qint64(model()->falsePositiveImages(t, p).size()), matrix->count(t, p));

    // A threshold edit re-lists the shown cell: above every score, nothing is predicted.
    model()->setThreshold(feet, 1.0);
    const std::vector<int> left = model()->falsePositiveImages(shirt, feet);
    QCOMPARE(gallery->rowCount(), int(left.size()));
    QCOMPARE(matrix->count(shirt, feet), qint64(left.size()));
    model()->resetThresholds();

    const QString shot = qEnvironmentVariable("LATHE_EVALUATE_MULTILABEL_SCREENSHOT");
    if (!shot.isEmpty()) {
        m_page->tabs()->setCurrentIndex(EvaluatePage::ClassesTab);
        panel()->selectLabel(labelIndex("dark"));
        model()->setThreshold(labelIndex("dark"), 0.3);
        int cellTrue = -1, cellPred = -1;
        for (int t = 0; t < 12 && cellTrue < 0; ++t)
            for (int p = 0; p < 12; ++p)
                if (matrix->count(t, p) > 0) {
                    cellTrue = t;
                    cellPred = p;
                    break;
                }
        if (cellTrue >= 0)
            m_page->showCell(cellTrue, cellPred);
        QTRY_VERIFY(gallery->rowCount() == 0 || gallery->hasThumbnail(0));
        QTest::qWait(300); // let the thumbnails' repaint land before the grab
        QVERIFY(m_page->grab().save(shot));
        model()->resetThresholds();
    }
}

void TestEvaluateMultiLabel::scoresSurviveSaveAndLoad()
{
    const QString dir = QDir(m_tmp.path()).filePath(QStringLiteral("saved"));
    engine::saveEvaluation(dir.toStdString(), m_stored.result);
    QVERIFY(QFile::exists(QDir(dir).filePath(QStringLiteral("scores.jsonl"))));
    const engine::EvalResult back = engine::loadEvaluation(dir.toStdString());
    QCOMPARE(back.probabilities, m_stored.result.probabilities);
    QCOMPARE(back.predictions.size(), m_stored.result.predictions.size());
    for (std::size_t i = 0; i < back.predictions.size(); ++i)
        QCOMPARE(back.predictions[i].labels, m_stored.result.predictions[i].labels);

    // Without scores the folder holds none (a stale file is removed), and a broken one is named.
    engine::EvalResult without = m_stored.result;
    without.probabilities.clear();
    engine::saveEvaluation(dir.toStdString(), without);
    QVERIFY(!QFile::exists(QDir(dir).filePath(QStringLiteral("scores.jsonl"))));
    QVERIFY(engine::loadEvaluation(dir.toStdString()).probabilities.empty());
    QFile broken(QDir(dir).filePath(QStringLiteral("scores.jsonl")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\"record\": 0, \"scores\": [0.5]}\n");
    broken.close();
    try {
        engine::loadEvaluation(dir.toStdString());
        QFAIL("a short score row was accepted");
    } catch (const std::exception &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("scores.jsonl:1: 1 scores for 12 classes")), e.what());
    }
}

// Loading a single-label evaluation after a multi-label one brings the single-label views back.
void TestEvaluateMultiLabel::singleLabelEvaluationStillShowsItsViews()
{
    workspace::StoredEvaluation single;
    single.id = 0;
    single.runDir = m_run;
    std::vector<int> labels = {0, 1, 1};
    std::vector<std::vector<float>> probs = {{0.9f, 0.1f}, {0.2f, 0.8f}, {0.6f, 0.4f}};
    engine::EvalResult r;
    r.classes = {"a", "b"};
    r.metrics = engine::computeMetrics(labels, probs, r.classes);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        engine::Prediction p;
        p.record = i;
        p.label = labels[i];
        p.labels = {labels[i]};
        p.topClasses = {probs[i][0] >= probs[i][1] ? 0 : 1};
        p.topProbs = {std::max(probs[i][0], probs[i][1])};
        r.predictions.push_back(p);
    }
    const qint64 id = workspace::EvaluationStore::store(m_project->databasePath(), m_run, QStringLiteral("last"),
                                                         QStringLiteral("val"), r);
    QSignalSpy loaded(m_page, &EvaluatePage::evaluationLoaded);
    m_page->loadEvaluation(id);
    QVERIFY(loaded.wait(20000));
    QVERIFY(!m_page->isMultiLabel());
    QCOMPARE(m_page->tabs()->tabText(EvaluatePage::ConfusionTab), QStringLiteral("Confusion Matrix"));
    QVERIFY(m_page->tabs()->isTabVisible(EvaluatePage::CalibrationTab));
    QCOMPARE(m_page->confusionMatrix()->count(1, 0), qint64(1));
    QCOMPARE(m_page->confusionMatrix()->total(), qint64(3));
    QVERIFY(m_page->evaluation().result.probabilities.empty()); // single-label scores are not stored
    QCOMPARE(model()->labelCount(), 0);
}

QStringList TestEvaluateMultiLabel::trainingInputs() const
{
    const QDir train(QDir(m_tmp.path()).filePath(QStringLiteral("images/train")));
    const QStringList sandals = QDir(train.filePath(QStringLiteral("Sandal"))).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
    return {train.filePath(QStringLiteral("Bag")), train.filePath(QStringLiteral("Sandal/") + sandals.value(0))};
}

// The Predict tab on a multi-label checkpoint: each file's label set is the engine's, at the
// checkpoint's thresholds, and every label's score stands next to its threshold.
void TestEvaluateMultiLabel::predictTabShowsLabelSets()
{
    const QStringList inputs = trainingInputs();
    QSignalSpy done(m_page, &EvaluatePage::predictionsFinished);
    m_page->predictFiles(inputs);
    QVERIFY(done.wait(120000));
    QCOMPARE(m_page->tabs()->currentIndex(), int(EvaluatePage::PredictTab));
    const std::vector<engine::FilePrediction> &shown = m_page->filePredictions();
    QCOMPARE(shown.size(), std::size_t(9)); // eight bags and a sandal

    // The engine's predictions of the same files with the same checkpoint, and the checkpoint's
    // thresholds as its sidecar holds them.
    engine::PredictOptions options;
    options.runDir = m_run.toStdString();
    options.checkpoint = "best";
    options.device = "cpu";
    std::vector<std::string> files;
    for (const QString &input : inputs)
        files.push_back(input.toStdString());
    const std::vector<engine::FilePrediction> expected = engine::predictFiles(options, files);
    QCOMPARE(expected.size(), shown.size());
    std::ifstream sidecarFile(fs::path(m_run.toStdString()) / "checkpoints" / "best.json");
    const nlohmann::json sidecar = nlohmann::json::parse(sidecarFile);
    QCOMPARE(sidecar.value("task", std::string()), std::string("multi_label"));
    const std::vector<double> thresholds = sidecar.at("metrics").at("thresholds").get<std::vector<double>>();
    QCOMPARE(thresholds.size(), std::size_t(12));

    // The same images through the evaluation (shards, not files): the same scores, so the same
    // label sets at those thresholds.
    engine::EvalOptions eval;
    eval.runDir = m_run.toStdString();
    eval.checkpoint = "best";
    eval.split = "train";
    eval.keepProbabilities = true;
    eval.device = "cpu";
    const engine::EvalResult evaluated = engine::evaluate(eval);
    QCOMPARE(evaluated.probabilities.size(), evaluated.predictions.size());

    QStandardItemModel *table = m_page->predictModel();
    QCOMPARE(table->rowCount(), 9);
    QCOMPARE(table->headerData(ui::FilePredictionPanel::PredictionColumn, Qt::Horizontal).toString(), QStringLiteral("Label set"));
    std::size_t withLabels = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const engine::FilePrediction &p = shown[i];
        QVERIFY2(p.error.empty(), p.error.c_str());
        QVERIFY(p.multiLabel);
        QCOMPARE(p.path, expected[i].path);
        QCOMPARE(p.labelSet, expected[i].labelSet);
        QStringList names;
        for (const std::string &name : expected[i].labelSet)
            names << QString::fromStdString(name);
        const QString setText = table->index(int(i), ui::FilePredictionPanel::PredictionColumn).data().toString();
        QCOMPARE(setText, names.isEmpty() ? QStringLiteral("No label reaches its threshold")
                                          : QStringLiteral("Labels: ") + names.join(QStringLiteral(", ")));
        withLabels += names.isEmpty() ? 0 : 1;

        // Every label once, highest score first, against the checkpoint's threshold.
        QCOMPARE(p.labelScores.size(), std::size_t(12));
        std::set<int> seen;
        std::vector<std::string> inSet;
        const QString scores = table->index(int(i), ui::FilePredictionPanel::TopColumn).data().toString();
        for (std::size_t j = 0; j < p.labelScores.size(); ++j) {
            const engine::LabelScore &label = p.labelScores[j];
            seen.insert(label.index);
            QCOMPARE(label.name, m_classes.at(std::size_t(label.index)));
            QCOMPARE(label.threshold, thresholds[std::size_t(label.index)]);
            QCOMPARE(label.inSet, double(label.score) >= label.threshold);
            if (j > 0)
                QVERIFY(label.score <= p.labelScores[j - 1].score);
            if (label.inSet)
                inSet.push_back(label.name);
            const QString cell = (label.inSet ? QStringLiteral("✓ %1 %2 ≥ %3") : QStringLiteral("%1 %2 < %3"))
                                     .arg(QString::fromStdString(label.name), QLocale().toString(double(label.score), 'f', 4),
                                          QLocale().toString(label.threshold, 'f', 4));
            QVERIFY2(scores.contains(cell), qPrintable(scores + QStringLiteral(" lacks ") + cell));
        }
        QCOMPARE(seen.size(), std::size_t(12));
        QCOMPARE(inSet, p.labelSet);

        // The evaluation's scores of the same image agree, and so does its label set wherever a
        // score is not within rounding of its threshold.
        const std::string relative = fs::path(p.path).lexically_relative(fs::path(m_tmp.path().toStdString()) / "images").generic_string();
        const auto it = std::find_if(evaluated.predictions.begin(), evaluated.predictions.end(),
                                     [&](const engine::Prediction &e) { return e.filename == relative; });
        QVERIFY2(it != evaluated.predictions.end(), relative.c_str());
        const std::vector<float> &row = evaluated.probabilities[std::size_t(it - evaluated.predictions.begin())];
        for (const engine::LabelScore &label : p.labelScores) {
            const double score = row[std::size_t(label.index)];
            QVERIFY2(std::abs(score - double(label.score)) < 1e-4, relative.c_str());
            if (std::abs(score - label.threshold) > 1e-4)
                QCOMPARE(score >= label.threshold, label.inSet);
        }
    }
    QVERIFY2(withLabels > 0, "no training image got a label: the run learnt nothing");

    // The label table lists the selected file's labels, those in the set marked.
    const int row = 8; // the sandal
    predictPanel()->view()->setCurrentIndex(table->index(row, 0));
    QStandardItemModel *labels = predictPanel()->labelModel();
    QCOMPARE(labels->rowCount(), 12);
    QVERIFY(predictPanel()->findChild<QTableView *>(QStringLiteral("predictLabelTable"))->isVisibleTo(predictPanel()));
    for (int j = 0; j < 12; ++j) {
        const engine::LabelScore &label = shown[std::size_t(row)].labelScores[std::size_t(j)];
        QCOMPARE(labels->item(j, ui::FilePredictionPanel::LabelNameColumn)->text(), QString::fromStdString(label.name));
        QCOMPARE(labels->item(j, ui::FilePredictionPanel::LabelScoreColumn)->data(Qt::UserRole).toDouble(), double(label.score));
        QCOMPARE(labels->item(j, ui::FilePredictionPanel::LabelThresholdColumn)->data(Qt::UserRole).toDouble(), label.threshold);
        QCOMPARE(labels->item(j, ui::FilePredictionPanel::LabelInSetColumn)->data(Qt::UserRole).toBool(), label.inSet);
        QCOMPARE(labels->item(j, ui::FilePredictionPanel::LabelNameColumn)->font().bold(), label.inSet);
    }

    const QString shot = qEnvironmentVariable("LATHE_EVALUATE_MULTILABEL_PREDICT_SCREENSHOT");
    if (!shot.isEmpty())
        QVERIFY(m_page->grab().save(shot));

    // The CSV carries each file's label set.
    const QString csv = QDir(m_tmp.path()).filePath(QStringLiteral("predictions.csv"));
    QSignalSpy saved(m_page, &EvaluatePage::fileSaved);
    m_page->savePredictionsCsv(csv);
    QVERIFY(saved.wait(20000));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 10);
    QVERIFY2(lines.first().startsWith(QStringLiteral("file,labels,class_1,prob_1")), qPrintable(lines.first()));
    QStringList sandal;
    for (const std::string &name : shown[8].labelSet)
        sandal << QString::fromStdString(name);
    QVERIFY2(lines.last().contains(QLatin1Char(',') + sandal.join(QLatin1Char(';')) + QLatin1Char(',')), qPrintable(lines.last()));
}

// A checkpoint whose thresholds no score reaches (a copy of best with every threshold 2): the
// empty label set says so plainly.
void TestEvaluateMultiLabel::predictTabSaysWhenNoLabelReachesItsThreshold()
{
    const fs::path checkpoints = fs::path(m_run.toStdString()) / "checkpoints";
    fs::copy_file(checkpoints / "best.safetensors", checkpoints / "strict.safetensors", fs::copy_options::overwrite_existing);
    std::ifstream in(checkpoints / "best.json");
    nlohmann::json sidecar = nlohmann::json::parse(in);
    sidecar["files"]["model"]["name"] = "strict.safetensors";
    sidecar["metrics"]["thresholds"] = std::vector<double>(12, 2.0);
    std::ofstream(checkpoints / "strict.json") << sidecar.dump();

    QSignalSpy done(predictPanel(), &ui::FilePredictionPanel::finished);
    predictPanel()->predict({trainingInputs().at(1)}, m_run, QString::fromStdString((checkpoints / "strict.json").string()));
    QVERIFY(done.wait(120000));
    const std::vector<engine::FilePrediction> &shown = m_page->filePredictions();
    QCOMPARE(shown.size(), std::size_t(1));
    QVERIFY2(shown[0].error.empty(), shown[0].error.c_str());
    QVERIFY(shown[0].multiLabel);
    QVERIFY(shown[0].labelSet.empty());
    QCOMPARE(m_page->predictModel()->index(0, ui::FilePredictionPanel::PredictionColumn).data().toString(),
             QStringLiteral("No label reaches its threshold"));
    const QString scores = m_page->predictModel()->index(0, ui::FilePredictionPanel::TopColumn).data().toString();
    QVERIFY2(!scores.contains(QStringLiteral("✓")) && scores.contains(QStringLiteral(" < 2.0000")), qPrintable(scores));
    QCOMPARE(predictPanel()->labelModel()->rowCount(), 12);
    for (int j = 0; j < 12; ++j)
        QVERIFY(!predictPanel()->labelModel()->item(j, ui::FilePredictionPanel::LabelInSetColumn)->data(Qt::UserRole).toBool());
}

QTEST_MAIN(TestEvaluateMultiLabel)
#include "test_evaluate_multilabel.moc"
