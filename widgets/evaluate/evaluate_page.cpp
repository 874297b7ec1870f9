#include "evaluate/evaluate_page.h"

#include "common/background_task.h"
#include "common/help_links.h"
#include "common/run_checkpoint_picker.h"
#include "engine/models/backbone_registry.h"
#include "evaluate/calibration_plot.h"
#include "workspace/catalog.h"
#include "workspace/project_connection.h"
#include "evaluate/class_metrics_model.h"
#include "evaluate/confusion_matrix_view.h"
#include "engine/inference/grad_cam.h"
#include "evaluate/grad_cam_view.h"
#include "workspace/evaluate_job.h"
#include "workspace/job_manager.h"
#include "evaluate/prediction_gallery_model.h"
#include "workspace/project.h"
#include "engine/run/run_folder.h"
#include "engine/dataset/shard_converter.h"
#include "workspace/split_names.h"
#include "workspace/workspace_error.h"

#include <QBuffer>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImageReader>
#include <QInputDialog>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <utility>

namespace lathe::ui {
namespace {

struct ShownImage
{
    QImage image;
    QByteArray bytes;
};

struct CatalogChange
{
    QString relPath;
    QString dataset;
};

struct FileResults
{
    std::vector<engine::FilePrediction> results;
};

QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) || text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

void writeFileAtomic(const QString &path, const QByteArray &bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        throw workspace::WorkspaceError(
            QCoreApplication::translate("lathe::ui::EvaluatePage", "%1: cannot write the file (%2)").arg(path, file.errorString()));
}

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::ShownImage)
Q_DECLARE_METATYPE(lathe::ui::CatalogChange)
Q_DECLARE_METATYPE(lathe::ui::FileResults)
Q_DECLARE_METATYPE(lathe::engine::GradCamResult)

namespace lathe::ui {

EvaluatePage::EvaluatePage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_picker(new RunCheckpointPicker(QStringLiteral("evaluate"), this))
    , m_splitCombo(new QComboBox(this))
    , m_tta(new QCheckBox(tr("Test-time augmentation"), this))
    , m_evaluateButton(new QPushButton(tr("Evaluate"), this))
    , m_saveCsvButton(new QPushButton(tr("Save Metrics CSV…"), this))
    , m_saveJsonButton(new QPushButton(tr("Save Metrics JSON…"), this))
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_matrix(new ConfusionMatrixView(this))
    , m_normalized(new QCheckBox(tr("Normalised by true class"), this))
    , m_classMetrics(new ClassMetricsModel(this))
    , m_classTable(new QTableView(this))
    , m_calibration(new CalibrationPlot(this))
    , m_gallery(new PredictionGalleryModel(this))
    , m_galleryView(new QListView(this))
    , m_galleryTitle(new QLabel(this))
    , m_highestLossButton(new QPushButton(tr("Highest Loss"), this))
    , m_relabelButton(new QPushButton(tr("Relabel…"), this))
    , m_excludeButton(new QPushButton(tr("Exclude"), this))
    , m_gradCam(new GradCamView(this))
    , m_predictModel(new QStandardItemModel(this))
    , m_predictView(new QTableView(this))
    , m_predictButton(new QPushButton(tr("Predict Files…"), this))
    , m_savePredictionsButton(new QPushButton(tr("Save Results CSV…"), this))
    , m_predictStatus(new QLabel(this))
    , m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("evaluatePage"));
    setAcceptDrops(true);

    auto *title = new QLabel(tr("Evaluate"), this);
    title->setObjectName(QStringLiteral("pageTitle"));

    m_matrix->setWhatsThis(tr("<p><b>Confusion matrix</b></p><p>Rows are the true classes, columns the predicted ones; "
                              "each cell counts the images of that pair, shaded by the share of its row. The "
                              "diagonal holds the correct predictions. Click a cell to list exactly its images in "
                              "the gallery; open one to see its Grad-CAM heat map, relabel it or exclude it.</p>"));
    m_splitCombo->setObjectName(QStringLiteral("evaluateSplit"));
    for (const QString &split : {QStringLiteral("val"), QStringLiteral("test")})
        m_splitCombo->addItem(workspace::SplitNames::displayName(split), split);
    m_tta->setToolTip(tr("Average the predictions of five crops and their mirror images (ten views per image): "
                         "slower, often slightly more accurate."));
    m_evaluateButton->setObjectName(QStringLiteral("evaluateButton"));
    m_evaluateButton->setToolTip(tr("Run the checkpoint over the split as a job; the results are stored in the project."));
    m_saveCsvButton->setToolTip(tr("Precision, recall, F1 and support per class, with the averages."));
    m_saveJsonButton->setToolTip(tr("Every metric of the evaluation: the per-class table, confusion matrix, calibration "
                                    "and precision-recall curves."));

    auto *top = new QHBoxLayout;
    top->addWidget(title);
    top->addSpacing(12);
    top->addWidget(m_picker, 1);
    // A second row keeps the page narrow enough for small windows.
    auto *options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Split:"), this));
    options->addWidget(m_splitCombo);
    options->addWidget(m_tta);
    options->addWidget(m_evaluateButton);
    options->addStretch(1);

    auto *summaryRow = new QHBoxLayout;
    m_summary->setObjectName(QStringLiteral("evaluationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summaryRow->addWidget(m_summary, 1);
    summaryRow->addWidget(m_saveCsvButton);
    summaryRow->addWidget(m_saveJsonButton);

    m_classTable->setObjectName(QStringLiteral("classMetricsTable"));
    m_classTable->setModel(m_classMetrics);
    m_classTable->verticalHeader()->hide();
    m_classTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_classTable->horizontalHeader()->setStretchLastSection(true);
    m_classTable->setSelectionBehavior(QAbstractItemView::SelectRows);

    m_tabs->addTab(buildConfusionTab(), tr("Confusion Matrix"));
    m_tabs->addTab(m_classTable, tr("Per Class"));
    m_tabs->addTab(m_calibration, tr("Calibration"));
    m_tabs->addTab(buildPredictTab(), tr("Predict"));

    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(buildGallery());
    right->addWidget(m_gradCam);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_tabs);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    m_status->setObjectName(QStringLiteral("evaluateStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 12);
    layout->setSpacing(8);
    layout->addLayout(top);
    layout->addLayout(options);
    layout->addLayout(summaryRow);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);

    connect(m_evaluateButton, &QPushButton::clicked, this, &EvaluatePage::evaluate);
    connect(m_picker, &RunCheckpointPicker::selectionChanged, this, &EvaluatePage::selectionChanged);
    connect(m_picker, &RunCheckpointPicker::runsLoaded, this, &EvaluatePage::runsLoaded);
    connect(m_picker, &RunCheckpointPicker::problem, this, &EvaluatePage::showStatus);
    connect(m_splitCombo, &QComboBox::currentIndexChanged, this, &EvaluatePage::selectionChanged);
    connect(m_tta, &QCheckBox::toggled, this, &EvaluatePage::selectionChanged);
    connect(m_saveCsvButton, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::Csv); });
    connect(m_saveJsonButton, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::Json); });
    connect(m_matrix, &ConfusionMatrixView::cellClicked, this, &EvaluatePage::showCell);
    connect(m_normalized, &QCheckBox::toggled, m_matrix, &ConfusionMatrixView::setNormalized);
    connect(m_gradCam, &GradCamView::classRequested, this, &EvaluatePage::requestGradCam);
    setProject(nullptr);
}

EvaluatePage::~EvaluatePage() = default;

QWidget *EvaluatePage::buildConfusionTab()
{
    auto *page = new QWidget(this);
    auto *saveMatrix = new QPushButton(tr("Save Matrix CSV…"), page);
    saveMatrix->setToolTip(tr("The confusion matrix as shown (counts, or shares when normalised)."));
    connect(saveMatrix, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::ConfusionCsv); });
    auto *hint = new QLabel(tr("Click a cell to list its images."), page);
    hint->setWordWrap(true);
    auto *row = new QHBoxLayout;
    row->addWidget(m_normalized);
    row->addWidget(hint, 1);
    row->addWidget(saveMatrix);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_matrix, 1);
    return page;
}

QWidget *EvaluatePage::buildPredictTab()
{
    auto *page = new QWidget(this);
    m_predictModel->setHorizontalHeaderLabels({tr("File"), tr("Prediction"), tr("Probability"), tr("Top classes"), tr("Error")});
    m_predictView->setObjectName(QStringLiteral("predictTable"));
    m_predictView->setModel(m_predictModel);
    m_predictView->verticalHeader()->hide();
    m_predictView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_predictView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_predictView->horizontalHeader()->setStretchLastSection(true);
    m_predictStatus->setWordWrap(true);
    m_predictStatus->setText(tr("Drop image files or folders anywhere on this page, or choose them with Predict Files…, "
                                "to classify them with the selected run and checkpoint."));
    connect(m_predictButton, &QPushButton::clicked, this, &EvaluatePage::askPredictFiles);
    connect(m_savePredictionsButton, &QPushButton::clicked, this, &EvaluatePage::askSavePredictions);
    auto *row = new QHBoxLayout;
    row->addWidget(m_predictButton);
    row->addWidget(m_savePredictionsButton);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_predictStatus);
    layout->addWidget(m_predictView, 1);
    return page;
}

QWidget *EvaluatePage::buildGallery()
{
    auto *page = new QWidget(this);
    m_galleryTitle->setObjectName(QStringLiteral("galleryTitle"));
    m_galleryTitle->setWordWrap(true);
    m_galleryView->setObjectName(QStringLiteral("predictionGallery"));
    m_galleryView->setModel(m_gallery);
    m_galleryView->setViewMode(QListView::IconMode);
    m_galleryView->setIconSize(QSize(PredictionGalleryModel::kThumbnailSize, PredictionGalleryModel::kThumbnailSize));
    m_galleryView->setGridSize(QSize(PredictionGalleryModel::kThumbnailSize + 40, PredictionGalleryModel::kThumbnailSize + 40));
    m_galleryView->setResizeMode(QListView::Adjust);
    m_galleryView->setMovement(QListView::Static);
    m_galleryView->setUniformItemSizes(true);
    m_galleryView->setWordWrap(true);
    m_galleryView->setSelectionMode(QAbstractItemView::SingleSelection);
    // Icon mode turns drag and drop on; files dropped here go to the page (Predict).
    m_galleryView->setDragEnabled(false);
    m_galleryView->setAcceptDrops(false);
    m_highestLossButton->setToolTip(tr("Every evaluated image, the most confidently wrong first."));
    m_relabelButton->setToolTip(tr("Give the selected image another class in the catalog. The file is not touched; the "
                                   "change applies at the next conversion to shards."));
    m_excludeButton->setToolTip(tr("Leave the selected image out of the dataset. The file is not touched; the change "
                                   "applies at the next conversion to shards."));
    connect(m_highestLossButton, &QPushButton::clicked, this, &EvaluatePage::showHighestLoss);
    connect(m_relabelButton, &QPushButton::clicked, this, &EvaluatePage::askRelabel);
    connect(m_excludeButton, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_galleryView->currentIndex();
        if (current.isValid())
            excludeGalleryRow(current.row(), true);
    });
    connect(m_galleryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &EvaluatePage::galleryCurrentChanged);
    connect(m_gallery, &QAbstractItemModel::modelReset, this, [this] {
        m_shownRow = -1; // the rows changed: a click on any of them shows it
        m_galleryTitle->setText(m_gallery->description());
        updateButtons();
    });

    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_highestLossButton);
    row->addWidget(m_relabelButton);
    row->addWidget(m_excludeButton);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_galleryTitle);
    layout->addLayout(row);
    layout->addWidget(m_galleryView, 1);
    return page;
}

void EvaluatePage::setProject(workspace::Project *project)
{
    m_project = project;
    m_databasePath = project ? project->databasePath() : QString();
    m_filePredictions.clear();
    m_predictModel->removeRows(0, m_predictModel->rowCount());
    m_picker->setRunsDir(project ? project->runsDir() : QString());
}

void EvaluatePage::refreshRuns()
{
    m_picker->refresh();
}

QStringList EvaluatePage::runs() const
{
    return m_picker->runs();
}

bool EvaluatePage::selectRun(const QString &runDir)
{
    return m_picker->selectRun(runDir);
}

void EvaluatePage::selectCheckpoint(const QString &runDir, const QString &checkpoint)
{
    m_picker->select(runDir, checkpoint);
}

QString EvaluatePage::currentRun() const
{
    return m_picker->currentRun();
}

QString EvaluatePage::currentCheckpoint() const
{
    return m_picker->currentCheckpoint();
}

QComboBox *EvaluatePage::runCombo() const
{
    return m_picker->runCombo();
}

QComboBox *EvaluatePage::checkpointCombo() const
{
    return m_picker->checkpointCombo();
}

QString EvaluatePage::currentSplit() const
{
    return m_splitCombo->currentData().toString();
}

QString EvaluatePage::statusText() const
{
    return m_status->text();
}

void EvaluatePage::updateButtons()
{
    const bool ready = hasCheckpoint();
    m_evaluateButton->setEnabled(ready && !m_evaluating);
    m_predictButton->setEnabled(ready && !m_predicting);
    m_savePredictionsButton->setEnabled(!m_filePredictions.empty());
    const bool shown = m_evaluation.id != 0;
    m_saveCsvButton->setEnabled(shown);
    m_saveJsonButton->setEnabled(shown);
    m_highestLossButton->setEnabled(shown);
    const bool selected = m_galleryView->currentIndex().isValid();
    m_relabelButton->setEnabled(selected && !m_databasePath.isEmpty());
    m_excludeButton->setEnabled(selected && !m_databasePath.isEmpty());
}

bool EvaluatePage::hasCheckpoint() const
{
    return m_project && !currentRun().isEmpty() && !currentCheckpoint().isEmpty();
}

void EvaluatePage::selectionChanged()
{
    updateButtons();
    lookUpStored();
}

void EvaluatePage::lookUpStored()
{
    const quint64 generation = ++m_lookupGeneration;
    if (!m_project) {
        clearEvaluation(tr("Open a project to evaluate its runs."));
        return;
    }
    if (m_picker->runs().isEmpty()) {
        clearEvaluation(tr("No runs yet: train one on the Train page, then evaluate it here."));
        return;
    }
    if (!hasCheckpoint()) {
        clearEvaluation(tr("This run has no checkpoint yet: it can be evaluated once it has written one."));
        return;
    }
    const QString run = currentRun();
    const QString databasePath = m_databasePath;
    const QString checkpoint = currentCheckpoint();
    const QString split = currentSplit();
    const bool tta = m_tta->isChecked();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, run, checkpoint, split, tta]() -> QVariant {
            const qint64 id = workspace::EvaluationStore::latest(databasePath, run, checkpoint, split, tta);
            if (id == 0)
                return {};
            return QVariant::fromValue(workspace::EvaluationStore::load(databasePath, id));
        },
        [this, generation](const QVariant &value) {
            if (generation != m_lookupGeneration)
                return;
            if (!value.isValid()) {
                clearEvaluation(tr("This run has no stored evaluation for this checkpoint and split: press Evaluate."));
                Q_EMIT evaluationLoaded(0);
                return;
            }
            showEvaluation(value.value<workspace::StoredEvaluation>());
        },
        [this, generation](const QString &message) {
            if (generation == m_lookupGeneration)
                showStatus(tr("Cannot read the stored evaluations: %1").arg(message));
        });
}

void EvaluatePage::evaluate()
{
    if (!hasCheckpoint() || m_evaluating)
        return;
    workspace::EvaluateJob::Params params;
    params.databasePath = m_databasePath;
    params.runDir = currentRun();
    params.checkpoint = currentCheckpoint();
    params.split = currentSplit();
    params.tta = m_tta->isChecked();
    auto *job = new workspace::EvaluateJob(params);
    m_evaluating = true;
    updateButtons();
    showStatus(tr("Evaluating %1 (%2 checkpoint, %3 split)…")
                   .arg(QFileInfo(params.runDir).fileName(), m_picker->currentCheckpointText(), m_splitCombo->currentText()));
    connect(job, &workspace::Job::finished, this, [this](const QVariant &result) {
        m_evaluating = false;
        updateButtons();
        loadEvaluation(result.value<workspace::EvaluateResult>().evaluationId);
    });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) {
        m_evaluating = false;
        updateButtons();
        showError(tr("Evaluation failed"), message);
        Q_EMIT evaluationFailed(message);
    });
    connect(job, &workspace::Job::cancelled, this, [this] {
        m_evaluating = false;
        updateButtons();
        showStatus(tr("The evaluation was cancelled."));
        Q_EMIT evaluationFailed(tr("cancelled"));
    });
    m_jobs->start(job);
}

void EvaluatePage::loadEvaluation(qint64 evaluationId)
{
    const quint64 generation = ++m_lookupGeneration;
    const QString databasePath = m_databasePath;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, evaluationId]() -> QVariant {
            return QVariant::fromValue(workspace::EvaluationStore::load(databasePath, evaluationId));
        },
        [this, generation](const QVariant &value) {
            if (generation == m_lookupGeneration)
                showEvaluation(value.value<workspace::StoredEvaluation>());
        },
        [this](const QString &message) {
            showError(tr("Cannot read the evaluation"), message);
            Q_EMIT evaluationFailed(message);
        });
}

void EvaluatePage::clearEvaluation(const QString &message)
{
    m_evaluation = workspace::StoredEvaluation();
    m_dataDir.clear();
    m_matrix->clear();
    m_classMetrics->clear();
    m_calibration->clear();
    m_gallery->clear();
    m_gradCam->clear();
    m_shownRow = -1;
    m_summary->setText(message);
    updateButtons();
}

void EvaluatePage::showEvaluation(const workspace::StoredEvaluation &evaluation)
{
    m_evaluation = evaluation;
    const engine::EvalResult &result = evaluation.result;
    const nlohmann::json &metrics = result.metrics;
    QStringList classes;
    for (const std::string &name : result.classes)
        classes << QString::fromStdString(name);

    QVector<QVector<qint64>> counts;
    try {
        for (const nlohmann::json &row : metrics.at("confusion_matrix").at("counts")) {
            QVector<qint64> line;
            for (const nlohmann::json &cell : row)
                line << cell.get<qint64>();
            counts << line;
        }
    } catch (const std::exception &) {
        counts.clear(); // shown empty; the summary still names the evaluation
    }
    m_matrix->setMatrix(classes, counts);
    m_classMetrics->setMetrics(metrics);
    m_calibration->setMetrics(metrics);

    m_dataDir = QString::fromStdString(metrics.value("data_dir", std::string()));
    m_gallery->setEvaluation(classes, result.predictions, m_dataDir, evaluation.split);
    m_gallery->showHighestLoss();
    m_gradCam->clear();
    m_gradCam->setClasses(classes);
    m_shownRow = -1;

    const std::string arch = metrics.value("arch", std::string());
    m_gradCamAvailable = true;
    m_gradCamReason.clear();
    try {
        if (!arch.empty() && !engine::backboneInfo(arch).convolutional) {
            m_gradCamAvailable = false;
            m_gradCamReason = tr("Grad-CAM is not available for transformer backbones.");
        }
    } catch (const std::exception &) {
        // An architecture this build does not know: gradCam() will say what is wrong.
    }

    const auto number = [&metrics](const char *key) {
        const auto it = metrics.find(key);
        return it != metrics.end() && it->is_number() ? QLocale().toString(it->get<double>() * 100, 'f', 2) + QLatin1Char('%')
                                                      : tr("n/a");
    };
    QString text = tr("%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n image(s); evaluated %8.",
                      nullptr, int(result.predictions.size()))
                       .arg(QFileInfo(evaluation.runDir).fileName(), evaluation.checkpoint,
                            QString::number(metrics.value("checkpoint_step", qint64(-1))),
                            workspace::SplitNames::displayName(evaluation.split),
                            metrics.value("tta", false) ? tr(" with TTA") : QString(), number("top1"), number("top5"),
                            QLocale().toString(QDateTime::fromString(evaluation.created, Qt::ISODateWithMs).toLocalTime(),
                                               QLocale::ShortFormat));
    const qint64 skipped = metrics.value("skipped", qint64(0));
    if (skipped > 0)
        text += QLatin1Char(' ') + tr("%n record(s) could not be read and were left out.", nullptr, int(skipped));
    m_summary->setText(text);
    showStatus(QString());
    updateButtons();
    Q_EMIT evaluationLoaded(evaluation.id);
}

void EvaluatePage::showCell(int trueClass, int predictedClass)
{
    m_gallery->showCell(trueClass, predictedClass);
}

void EvaluatePage::showHighestLoss()
{
    m_gallery->showHighestLoss();
}

void EvaluatePage::galleryCurrentChanged()
{
    updateButtons();
    const QModelIndex current = m_galleryView->currentIndex();
    if (current.isValid() && current.row() != m_shownRow)
        selectGalleryRow(current.row(), m_gradCam->requestedClass());
}

void EvaluatePage::selectGalleryRow(int row, int classIndex)
{
    if (row < 0 || row >= m_gallery->rowCount())
        return;
    if (m_galleryView->currentIndex().row() != row) {
        m_shownRow = row; // galleryCurrentChanged() must not start a second load
        m_galleryView->setCurrentIndex(m_gallery->index(row));
    }
    m_shownRow = row;
    const quint64 generation = ++m_imageGeneration;
    const engine::Prediction p = m_gallery->prediction(row);
    const QStringList &classes = m_gallery->classes();
    const int predicted = m_gallery->predictedClass(row);
    const QString title = tr("%1\nTrue: %2, predicted: %3 (loss %4)")
                              .arg(QString::fromStdString(p.filename), classes.value(p.label), classes.value(predicted),
                                   QLocale().toString(p.loss, 'f', 3));
    const std::shared_ptr<ShardRecordSource> source = m_gallery->source();
    if (!source) {
        m_gradCam->setImage(QImage(), title);
        m_gradCam->setUnavailable(tr("The evaluation does not say where its images are."));
        return;
    }
    const quint64 record = p.record;
    const QString name = QString::fromStdString(p.filename);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [source, record, name]() -> QVariant {
            ShownImage shown;
            shown.bytes = source->read(record);
            QBuffer buffer(&shown.bytes);
            QImageReader reader(&buffer);
            reader.setAutoTransform(true);
            shown.image = reader.read();
            if (shown.image.isNull())
                throw workspace::WorkspaceError(tr("%1: the image cannot be decoded (%2)").arg(name, reader.errorString()));
            return QVariant::fromValue(shown);
        },
        [this, generation, title, classIndex](const QVariant &value) {
            if (generation != m_imageGeneration)
                return;
            const ShownImage shown = value.value<ShownImage>();
            m_gradCam->setImage(shown.image, title);
            m_gradCam->setProperty("bytes", shown.bytes);
            Q_EMIT imageShown();
            if (!m_gradCamAvailable) {
                m_gradCam->setUnavailable(m_gradCamReason);
                Q_EMIT gradCamFinished();
                return;
            }
            requestGradCam(classIndex);
        },
        [this, generation, title](const QString &message) {
            if (generation != m_imageGeneration)
                return;
            m_gradCam->setImage(QImage(), title);
            m_gradCam->setUnavailable(message);
            Q_EMIT imageShown();
            Q_EMIT gradCamFinished();
        });
}

void EvaluatePage::requestGradCam(int classIndex)
{
    const QByteArray bytes = m_gradCam->property("bytes").toByteArray();
    if (bytes.isEmpty() || m_evaluation.id == 0)
        return;
    if (!m_gradCamAvailable) {
        m_gradCam->setUnavailable(m_gradCamReason);
        Q_EMIT gradCamFinished();
        return;
    }
    const quint64 generation = ++m_imageGeneration;
    const std::string runDir = m_evaluation.runDir.toStdString();
    const std::string checkpoint = m_evaluation.checkpoint.toStdString();
    const std::string name = m_gallery->rowCount() > m_shownRow && m_shownRow >= 0
                                 ? m_gallery->prediction(m_shownRow).filename
                                 : std::string("image");
    m_gradCam->setBusy(true);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runDir, checkpoint, bytes, classIndex, name]() -> QVariant {
            const std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
            const std::optional<int> wanted = classIndex >= 0 ? std::optional<int>(classIndex) : std::nullopt;
            return QVariant::fromValue(engine::gradCam(runDir, checkpoint, data, wanted, 5, name));
        },
        [this, generation](const QVariant &value) {
            if (generation != m_imageGeneration)
                return;
            m_gradCam->setBusy(false);
            m_gradCam->setResult(value.value<engine::GradCamResult>());
            Q_EMIT gradCamFinished();
        },
        [this, generation](const QString &message) {
            if (generation != m_imageGeneration)
                return;
            m_gradCam->setBusy(false);
            m_gradCam->setUnavailable(tr("No heat map: %1").arg(message));
            Q_EMIT gradCamFinished();
        });
}

void EvaluatePage::askRelabel()
{
    const QModelIndex current = m_galleryView->currentIndex();
    if (!current.isValid())
        return;
    const int row = current.row();
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Relabel Image"));
    dialog->setLabelText(tr("New class for %1:").arg(QString::fromStdString(m_gallery->prediction(row).filename)));
    dialog->setComboBoxItems(m_gallery->classes());
    dialog->setComboBoxEditable(false);
    const int predicted = m_gallery->predictedClass(row);
    if (predicted >= 0)
        dialog->setTextValue(m_gallery->classes().value(predicted));
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, row](const QString &className) { relabelGalleryRow(row, className); });
    dialog->open();
}

void EvaluatePage::relabelGalleryRow(int row, const QString &className)
{
    changeCatalog(row, className, false, false);
}

void EvaluatePage::excludeGalleryRow(int row, bool excluded)
{
    changeCatalog(row, {}, true, excluded);
}

void EvaluatePage::changeCatalog(int row, const QString &className, bool exclude, bool excluded)
{
    if (row < 0 || row >= m_gallery->rowCount() || m_databasePath.isEmpty())
        return;
    const QString databasePath = m_databasePath;
    const QString dataDir = m_dataDir;
    const QString relPath = QString::fromStdString(m_gallery->prediction(row).filename);
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath, dataDir, relPath, className, exclude, excluded]() -> QVariant {
            // image/filename holds the path relative to the folder the shards were converted
            // from (dataset.json "source"); catalog rows are keyed by the same relative path
            // within the dataset imported from that folder.
            const engine::DatasetManifest manifest = engine::readDatasetManifest(dataDir.toStdString());
            const QString source = QDir::cleanPath(QString::fromStdString(manifest.source));
            workspace::ProjectConnection connection(databasePath);
            workspace::Catalog &catalog = connection.catalog();
            for (const workspace::DatasetInfo &dataset : catalog.datasets()) {
                if (QDir::cleanPath(dataset.sourceDir) != source)
                    continue;
                for (const workspace::CatalogImage &image : catalog.images(dataset.id)) {
                    if (image.relPath != relPath)
                        continue;
                    if (exclude)
                        catalog.setExcluded(image.id, excluded);
                    else
                        catalog.relabel(image.id, className);
                    return QVariant::fromValue(CatalogChange{relPath, dataset.name});
                }
                throw workspace::WorkspaceError(
                    tr("%1 is not in the catalog's dataset \"%2\" (was it removed by a re-import?)").arg(relPath, dataset.name));
            }
            throw workspace::WorkspaceError(
                tr("No dataset of this project was imported from %1, the folder these shards were converted from: "
                   "import it on the Data page to correct its images.")
                    .arg(QDir::toNativeSeparators(source)));
        },
        [this, className, exclude, excluded](const QVariant &value) {
            const CatalogChange change = value.value<CatalogChange>();
            const QString what = exclude ? (excluded ? tr("%1 is now excluded from dataset \"%2\".")
                                                     : tr("%1 is included in dataset \"%2\" again."))
                                                   .arg(change.relPath, change.dataset)
                                         : tr("%1 is now labelled %2 in dataset \"%3\".")
                                               .arg(change.relPath, className, change.dataset);
            showStatus(what + QLatin1Char(' ') +
                       tr("The change applies at the next conversion to shards; this evaluation still shows the "
                          "label the shards hold."));
            Q_EMIT catalogChanged(change.relPath);
        },
        [this](const QString &message) {
            showError(tr("Cannot change the catalog"), message);
            Q_EMIT catalogChangeFailed(message);
        });
}

void EvaluatePage::askPredictFiles()
{
    auto *dialog = new QFileDialog(this, tr("Predict Files"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    dialog->setNameFilters({tr("Images (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)"), tr("All files (*)")});
    connect(dialog, &QFileDialog::filesSelected, this, &EvaluatePage::predictFiles);
    dialog->open();
}

void EvaluatePage::predictFiles(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    if (!hasCheckpoint()) {
        m_predictStatus->setText(tr("Select a run first: its checkpoint classifies the files."));
        return;
    }
    m_tabs->setCurrentIndex(PredictTab);
    m_predicting = true;
    updateButtons();
    m_predictStatus->setText(tr("Classifying %n file(s) or folder(s)…", nullptr, int(paths.size())));
    engine::PredictOptions options;
    options.runDir = currentRun().toStdString();
    options.checkpoint = currentCheckpoint().toStdString();
    std::vector<std::string> inputs;
    for (const QString &path : paths)
        inputs.push_back(QDir::cleanPath(path).toStdString());
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [options, inputs]() -> QVariant { return QVariant::fromValue(FileResults{engine::predictFiles(options, inputs)}); },
        [this](const QVariant &value) {
            m_predicting = false;
            m_filePredictions = value.value<FileResults>().results;
            m_predictModel->removeRows(0, m_predictModel->rowCount());
            int failed = 0;
            for (const engine::FilePrediction &p : m_filePredictions) {
                QList<QStandardItem *> items;
                items << new QStandardItem(QDir::toNativeSeparators(QString::fromStdString(p.path)));
                if (!p.error.empty()) {
                    ++failed;
                    items << new QStandardItem() << new QStandardItem() << new QStandardItem()
                          << new QStandardItem(QString::fromStdString(p.error));
                    items.last()->setForeground(QColor(200, 40, 40));
                } else {
                    QStringList top;
                    for (std::size_t i = 0; i < p.topNames.size() && i < p.topProbs.size(); ++i)
                        top << tr("%1 %2").arg(QString::fromStdString(p.topNames[i]),
                                               QLocale().toString(p.topProbs[i], 'f', 3));
                    items << new QStandardItem(p.topNames.empty() ? QString() : QString::fromStdString(p.topNames.front()))
                          << new QStandardItem(p.topProbs.empty() ? QString()
                                                                  : QLocale().toString(p.topProbs.front(), 'f', 3))
                          << new QStandardItem(top.join(QStringLiteral(", "))) << new QStandardItem();
                }
                m_predictModel->appendRow(items);
            }
            m_predictStatus->setText(tr("%n file(s) classified", nullptr, int(m_filePredictions.size()) - failed) +
                                     (failed > 0 ? QStringLiteral("; ") + tr("%n could not be read", nullptr, failed)
                                                 : QString()) +
                                     QLatin1Char('.'));
            updateButtons();
            Q_EMIT predictionsFinished();
        },
        [this](const QString &message) {
            m_predicting = false;
            updateButtons();
            m_predictStatus->setText(tr("Cannot classify the files: %1").arg(message));
            Q_EMIT predictionsFinished();
        });
}

void EvaluatePage::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls()) {
        for (const QUrl &url : event->mimeData()->urls()) {
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
        }
    }
    QWidget::dragEnterEvent(event);
}

void EvaluatePage::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    predictFiles(paths);
}

void EvaluatePage::askSaveMetrics(MetricsFormat format)
{
    if (m_evaluation.id == 0)
        return;
    const bool json = format == MetricsFormat::Json;
    const QString base = QFileInfo(m_evaluation.runDir).fileName() + QLatin1Char('-') + m_evaluation.split +
                         (format == MetricsFormat::ConfusionCsv ? QStringLiteral("-confusion") : QStringLiteral("-metrics"));
    auto *dialog = new QFileDialog(this, json ? tr("Save Metrics JSON") : tr("Save CSV"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilter(json ? tr("JSON files (*.json)") : tr("CSV files (*.csv)"));
    dialog->setDefaultSuffix(json ? QStringLiteral("json") : QStringLiteral("csv"));
    dialog->selectFile(base + (json ? QStringLiteral(".json") : QStringLiteral(".csv")));
    connect(dialog, &QFileDialog::fileSelected, this, [this, format](const QString &path) { saveMetrics(path, format); });
    dialog->open();
}

void EvaluatePage::saveMetrics(const QString &path, MetricsFormat format)
{
    if (m_evaluation.id == 0)
        return;
    nlohmann::json metrics = m_evaluation.result.metrics;
    const std::vector<std::string> classes = m_evaluation.result.classes;
    const bool normalized = m_matrix->isNormalized();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [path, format, metrics, classes, normalized]() mutable -> QVariant {
            std::string text;
            if (format == MetricsFormat::Json) {
                metrics["classes"] = classes;
                text = metrics.dump(2) + "\n";
            } else if (format == MetricsFormat::ConfusionCsv) {
                text = engine::confusionMatrixCsv(metrics, normalized);
            } else {
                text = engine::metricsCsv(metrics);
            }
            writeFileAtomic(path, QByteArray::fromStdString(text));
            return path;
        },
        [this](const QVariant &value) {
            showStatus(tr("Saved %1").arg(QDir::toNativeSeparators(value.toString())));
            Q_EMIT fileSaved(value.toString());
        },
        [this](const QString &message) { showError(tr("Cannot save"), message); });
}

void EvaluatePage::askSavePredictions()
{
    if (m_filePredictions.empty())
        return;
    auto *dialog = new QFileDialog(this, tr("Save Results CSV"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilter(tr("CSV files (*.csv)"));
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->selectFile(QStringLiteral("predictions.csv"));
    connect(dialog, &QFileDialog::fileSelected, this, &EvaluatePage::savePredictionsCsv);
    dialog->open();
}

void EvaluatePage::savePredictionsCsv(const QString &path)
{
    const std::vector<engine::FilePrediction> results = m_filePredictions;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [path, results]() -> QVariant {
            int k = 0;
            for (const engine::FilePrediction &p : results)
                k = std::max(k, int(p.topNames.size()));
            QStringList header{QStringLiteral("file")};
            for (int i = 1; i <= k; ++i)
                header << QStringLiteral("class_%1").arg(i) << QStringLiteral("prob_%1").arg(i);
            header << QStringLiteral("error");
            QString text = header.join(QLatin1Char(',')) + QLatin1Char('\n');
            for (const engine::FilePrediction &p : results) {
                QStringList fields{csvField(QString::fromStdString(p.path))};
                for (int i = 0; i < k; ++i) {
                    const bool has = i < int(p.topNames.size()) && i < int(p.topProbs.size());
                    fields << (has ? csvField(QString::fromStdString(p.topNames[i])) : QString())
                           << (has ? QString::number(p.topProbs[i], 'g', 6) : QString());
                }
                fields << csvField(QString::fromStdString(p.error));
                text += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
            }
            writeFileAtomic(path, text.toUtf8());
            return path;
        },
        [this](const QVariant &value) {
            m_predictStatus->setText(tr("Saved %1").arg(QDir::toNativeSeparators(value.toString())));
            Q_EMIT fileSaved(value.toString());
        },
        [this](const QString &message) { showError(tr("Cannot save"), message); });
}

void EvaluatePage::showStatus(const QString &message)
{
    m_status->setText(message);
}

void EvaluatePage::showError(const QString &title, const QString &message)
{
    showErrorWithHelp(m_status, message, QStringLiteral("evaluation-and-prediction"));
    openWarning(this, title, message, QStringLiteral("evaluation-and-prediction"));
    Q_EMIT errorOccurred(message);
}

} // namespace lathe::ui
