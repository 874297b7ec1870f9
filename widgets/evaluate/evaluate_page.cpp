#include "evaluate/evaluate_page.h"

#include "common/background_task.h"
#include "common/help_links.h"
#include "common/run_checkpoint_picker.h"
#include "engine/inference/evaluation.h"
#include "evaluate/calibration_plot.h"
#include "evaluate/class_metrics_model.h"
#include "evaluate/confusion_matrix_view.h"
#include "evaluate/file_prediction_panel.h"
#include "evaluate/grad_cam_panel.h"
#include "evaluate/grad_cam_view.h"
#include "evaluate/multi_label_metrics_model.h"
#include "evaluate/multi_label_panel.h"
#include "evaluate/prediction_gallery_model.h"
#include "evaluate/prediction_gallery_panel.h"
#include "workspace/atomic_file.h"
#include "workspace/evaluate_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/split_names.h"

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
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

#include <cmath>

namespace lathe::ui {

EvaluatePage::EvaluatePage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_classMetrics(new ClassMetricsModel(this))
{
    setObjectName(QStringLiteral("evaluatePage"));
    setAcceptDrops(true);

    QWidget *selection = buildSelection(); // first: it comes first in the focus chain
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(buildConfusionTab(), tr("Confusion Matrix"));
    m_tabs->addTab(buildClassTable(), tr("Per Class"));
    m_calibration = new CalibrationPlot(this);
    m_tabs->addTab(m_calibration, tr("Calibration"));
    m_predictions = new FilePredictionPanel(m_jobs, this);
    m_tabs->addTab(m_predictions, tr("Predict"));

    m_gallery = new PredictionGalleryPanel(this);
    m_gradCam = new GradCamPanel(m_jobs, this);
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_gallery);
    right->addWidget(m_gradCam);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 1);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_tabs);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("evaluateStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Before any run is trained there is nothing to evaluate: the next step is the Train page.
    m_trainNext = new QPushButton(tr("Next: Train a Model on the Train Page"), this);
    m_trainNext->setObjectName(QStringLiteral("evaluateTrainNext"));
    m_trainNext->hide();
    connect(m_trainNext, &QPushButton::clicked, this, &EvaluatePage::trainRequested);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 12);
    layout->setSpacing(8);
    layout->addWidget(selection);
    layout->addWidget(m_trainNext, 0, Qt::AlignLeft);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);

    connect(m_gallery, &PredictionGalleryPanel::rowChosen, this,
            [this](int row) { selectGalleryRow(row, m_gradCam->view()->requestedClass()); });
    connect(m_gallery, &PredictionGalleryPanel::catalogChanged, this, [this](const QString &relPath, const QString &message) {
        showStatus(message);
        Q_EMIT catalogChanged(relPath);
    });
    connect(m_gallery, &PredictionGalleryPanel::catalogChangeFailed, this, [this](const QString &message) {
        showError(tr("Cannot change the catalog"), message);
        Q_EMIT catalogChangeFailed(message);
    });
    connect(m_gradCam, &GradCamPanel::imageShown, this, &EvaluatePage::imageShown);
    connect(m_gradCam, &GradCamPanel::gradCamFinished, this, &EvaluatePage::gradCamFinished);
    connect(m_predictions, &FilePredictionPanel::filesChosen, this, &EvaluatePage::predictFiles);
    connect(m_predictions, &FilePredictionPanel::finished, this, &EvaluatePage::predictionsFinished);
    connect(m_predictions, &FilePredictionPanel::fileSaved, this, &EvaluatePage::fileSaved);
    connect(m_predictions, &FilePredictionPanel::saveFailed, this,
            [this](const QString &message) { showError(tr("Cannot save"), message); });
    setProject(nullptr);
}

EvaluatePage::~EvaluatePage() = default;

// The title with the run and checkpoint, the split and TTA with Evaluate, and the shown
// evaluation's summary with its save buttons: three rows, so the page stays narrow enough for
// small windows.
QWidget *EvaluatePage::buildSelection()
{
    auto *panel = new QWidget(this);
    auto *title = new QLabel(tr("Evaluate"), panel);
    title->setObjectName(QStringLiteral("pageTitle"));

    m_picker = new RunCheckpointPicker(QStringLiteral("evaluate"), panel);
    connect(m_picker, &RunCheckpointPicker::selectionChanged, this, &EvaluatePage::selectionChanged);
    connect(m_picker, &RunCheckpointPicker::runsLoaded, this, &EvaluatePage::runsLoaded);
    connect(m_picker, &RunCheckpointPicker::problem, this, &EvaluatePage::showStatus);

    m_splitCombo = new QComboBox(panel);
    m_splitCombo->setObjectName(QStringLiteral("evaluateSplit"));
    for (const QString &split : {QStringLiteral("val"), QStringLiteral("test")})
        m_splitCombo->addItem(workspace::SplitNames::displayName(split), split);
    connect(m_splitCombo, &QComboBox::currentIndexChanged, this, &EvaluatePage::selectionChanged);
    m_tta = new QCheckBox(tr("Test-time augmentation"), panel);
    m_tta->setToolTip(tr("Average the predictions of five crops and their mirror images (ten views per image): "
                         "slower, often slightly more accurate."));
    connect(m_tta, &QCheckBox::toggled, this, &EvaluatePage::selectionChanged);
    m_evaluateButton = new QPushButton(tr("Evaluate"), panel);
    m_evaluateButton->setObjectName(QStringLiteral("evaluateButton"));
    m_evaluateButton->setToolTip(tr("Run the checkpoint over the split as a job; the results are stored in the project."));
    connect(m_evaluateButton, &QPushButton::clicked, this, &EvaluatePage::evaluate);

    m_summary = new QLabel(panel);
    m_summary->setObjectName(QStringLiteral("evaluationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_saveCsvButton = new QPushButton(tr("Save Metrics CSV…"), panel);
    m_saveCsvButton->setToolTip(tr("Precision, recall, F1 and support per class, with the averages."));
    connect(m_saveCsvButton, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::Csv); });
    m_saveJsonButton = new QPushButton(tr("Save Metrics JSON…"), panel);
    m_saveJsonButton->setToolTip(tr("Every metric of the evaluation: the per-class table, confusion matrix, calibration "
                                    "and precision-recall curves."));
    connect(m_saveJsonButton, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::Json); });

    auto *top = new QHBoxLayout;
    top->addWidget(title);
    top->addSpacing(12);
    top->addWidget(m_picker, 1);
    auto *options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Split:"), panel));
    options->addWidget(m_splitCombo);
    options->addWidget(m_tta);
    options->addWidget(m_evaluateButton);
    options->addStretch(1);
    auto *summaryRow = new QHBoxLayout;
    summaryRow->addWidget(m_summary, 1);
    summaryRow->addWidget(m_saveCsvButton);
    summaryRow->addWidget(m_saveJsonButton);

    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(8);
    layout->addLayout(top);
    layout->addLayout(options);
    layout->addLayout(summaryRow);
    return panel;
}

QWidget *EvaluatePage::buildConfusionTab()
{
    auto *page = new QWidget(this);
    m_matrix = new ConfusionMatrixView(page);
    m_matrix->setWhatsThis(tr("<p><b>Confusion matrix</b></p><p>Rows are the true classes, columns the predicted ones; "
                              "each cell counts the images of that pair, shaded by the share of its row. The "
                              "diagonal holds the correct predictions. Click a cell to list exactly its images in "
                              "the gallery; open one to see its Grad-CAM heat map, relabel it or exclude it.</p>"));
    connect(m_matrix, &ConfusionMatrixView::cellClicked, this, &EvaluatePage::showCell);
    m_normalized = new QCheckBox(tr("Normalised by true class"), page);
    connect(m_normalized, &QCheckBox::toggled, m_matrix, &ConfusionMatrixView::setNormalized);
    auto *saveMatrix = new QPushButton(tr("Save Matrix CSV…"), page);
    saveMatrix->setToolTip(tr("The confusion matrix as shown (counts, or shares when normalised)."));
    connect(saveMatrix, &QPushButton::clicked, this, [this] { askSaveMetrics(MetricsFormat::ConfusionCsv); });
    m_matrixHint = new QLabel(tr("Click a cell to list its images."), page);
    m_matrixHint->setObjectName(QStringLiteral("confusionHint"));
    m_matrixHint->setWordWrap(true);
    auto *row = new QHBoxLayout;
    row->addWidget(m_normalized);
    row->addWidget(m_matrixHint, 1);
    row->addWidget(saveMatrix);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_matrix, 1);
    return page;
}

QWidget *EvaluatePage::buildClassTable()
{
    auto *table = new QTableView(this);
    table->setObjectName(QStringLiteral("classMetricsTable"));
    table->setModel(m_classMetrics);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_multiLabel = new MultiLabelPanel(this);
    connect(m_multiLabel, &MultiLabelPanel::thresholdsChanged, this, [this] {
        showMultiLabelMatrix();
        updateSummary();
    });
    m_classStack = new QStackedWidget(this);
    m_classStack->addWidget(table);
    m_classStack->addWidget(m_multiLabel);
    return m_classStack;
}

void EvaluatePage::setMultiLabelTabs(bool multiLabel)
{
    m_isMultiLabel = multiLabel;
    m_tabs->setTabText(ConfusionTab, multiLabel ? tr("False Positives") : tr("Confusion Matrix"));
    m_tabs->setTabText(ClassesTab, multiLabel ? tr("Per Label") : tr("Per Class"));
    m_tabs->setTabVisible(CalibrationTab, !multiLabel);
    m_classStack->setCurrentIndex(multiLabel ? 1 : 0);
    m_matrixHint->setText(multiLabel ? tr("Rows: a label the images carry; columns: a label predicted for them that they "
                                          "do not carry. Normalised: the share of the row label's images. Click a "
                                          "cell to list its images.")
                                     : tr("Click a cell to list its images."));
}

// The false-positive label confusion at the current thresholds; shares of a row are taken of
// the images that carry its label.
void EvaluatePage::showMultiLabelMatrix()
{
    const MultiLabelMetricsModel *model = m_multiLabel->model();
    QStringList labels;
    QVector<QVector<qint64>> counts;
    QVector<qint64> support;
    for (int j = 0; j < model->labelCount(); ++j) {
        labels << model->labelName(j);
        support << model->support(j);
    }
    for (const std::vector<std::int64_t> &row : model->falsePositives())
        counts << QVector<qint64>(row.begin(), row.end());
    m_matrix->setMatrix(labels, counts, support);
    // A listed cell follows the thresholds.
    if (m_gallery->model()->mode() == PredictionGalleryModel::Mode::FalsePositives) {
        const int t = m_gallery->model()->cellTrue(), p = m_gallery->model()->cellPredicted();
        m_gallery->model()->showFalsePositives(t, p, model->falsePositiveImages(t, p));
    }
}

void EvaluatePage::setProject(workspace::Project *project)
{
    m_project = project;
    m_databasePath = project ? project->databasePath() : QString();
    m_gallery->setDatabasePath(m_databasePath);
    m_predictions->clear();
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

PredictionGalleryModel *EvaluatePage::galleryModel() const
{
    return m_gallery->model();
}

QListView *EvaluatePage::galleryView() const
{
    return m_gallery->view();
}

GradCamView *EvaluatePage::gradCamView() const
{
    return m_gradCam->view();
}

QStandardItemModel *EvaluatePage::predictModel() const
{
    return m_predictions->model();
}

const std::vector<engine::FilePrediction> &EvaluatePage::filePredictions() const
{
    return m_predictions->results();
}

QString EvaluatePage::statusText() const
{
    return m_status->text();
}

void EvaluatePage::updateButtons()
{
    const bool ready = hasCheckpoint();
    m_evaluateButton->setEnabled(ready && !m_evaluating);
    m_predictions->setReady(ready);
    const bool shown = m_evaluation.id != 0;
    m_saveCsvButton->setEnabled(shown);
    m_saveJsonButton->setEnabled(shown);
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
    m_trainNext->setVisible(m_project && currentRun().isEmpty());
    if (!m_project) {
        clearEvaluation(tr("Open a project to evaluate its runs."));
        return;
    }
    if (m_picker->runs().isEmpty()) {
        clearEvaluation(tr("No runs yet: train one on the Train page, then evaluate it here."));
        return;
    }
    if (currentRun().isEmpty()) { // no run is trained: the picker chose none
        clearEvaluation(m_picker->noRunReason());
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
    m_matrix->clear();
    m_classMetrics->clear();
    m_multiLabel->clear();
    setMultiLabelTabs(false);
    m_calibration->clear();
    m_gallery->clear();
    m_gradCam->clear();
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
    const bool multiLabel = metrics.value("task", std::string()) == "multi_label";
    setMultiLabelTabs(multiLabel);

    if (multiLabel) {
        std::vector<std::vector<int>> labelSets;
        labelSets.reserve(result.predictions.size());
        for (const engine::Prediction &p : result.predictions)
            labelSets.push_back(p.labels);
        m_multiLabel->setEvaluation(classes, metrics, std::move(labelSets), result.probabilities);
        m_classMetrics->clear();
        m_calibration->clear();
        showMultiLabelMatrix();
    } else {
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
        m_multiLabel->clear();
        m_classMetrics->setMetrics(metrics);
        m_calibration->setMetrics(metrics);
    }
    m_gallery->setEvaluation(classes, result.predictions, QString::fromStdString(metrics.value("data_dir", std::string())),
                             evaluation.split, multiLabel);
    m_gradCam->setEvaluation(evaluation.runDir, evaluation.checkpoint, classes, metrics.value("arch", std::string()));
    updateSummary();
    showStatus(QString());
    updateButtons();
    Q_EMIT evaluationLoaded(evaluation.id);
}

void EvaluatePage::updateSummary()
{
    if (m_evaluation.id == 0)
        return;
    const workspace::StoredEvaluation &evaluation = m_evaluation;
    const engine::EvalResult &result = evaluation.result;
    const nlohmann::json &metrics = result.metrics;
    const auto number = [&metrics](const char *key) {
        const auto it = metrics.find(key);
        return it != metrics.end() && it->is_number() ? QLocale().toString(it->get<double>() * 100, 'f', 2) + QLatin1Char('%')
                                                      : tr("n/a");
    };
    const QString run = QFileInfo(evaluation.runDir).fileName();
    const QString step = QString::number(metrics.value("checkpoint_step", qint64(-1)));
    const QString split = workspace::SplitNames::displayName(evaluation.split);
    const QString tta = metrics.value("tta", false) ? tr(" with TTA") : QString();
    const QString created =
        QLocale().toString(QDateTime::fromString(evaluation.created, Qt::ISODateWithMs).toLocalTime(), QLocale::ShortFormat);
    QString text;
    if (m_isMultiLabel) {
        const MultiLabelMetricsModel *model = m_multiLabel->model();
        const int micro = model->labelCount(), macro = model->labelCount() + 1;
        const auto value = [model](int row, MultiLabelMetricsModel::Column column) {
            const double v = model->value(row, column);
            return std::isnan(v) ? tr("n/a") : QLocale().toString(v, 'f', 3);
        };
        text = tr("%1, %2 checkpoint (step %3), %4 split%5, multi-label: mAP %6 (micro %7) over %n image(s); evaluated %8.",
                  nullptr, int(result.predictions.size()))
                   .arg(run, evaluation.checkpoint, step, split, tta,
                        value(macro, MultiLabelMetricsModel::AveragePrecision),
                        value(micro, MultiLabelMetricsModel::AveragePrecision), created);
        text += QLatin1Char(' ') +
                (model->thresholdsAreTuned() ? tr("F1 micro %1, macro %2 at the tuned thresholds.")
                                             : tr("F1 micro %1, macro %2 at the edited thresholds."))
                    .arg(value(micro, MultiLabelMetricsModel::F1), value(macro, MultiLabelMetricsModel::F1));
    } else {
        text = tr("%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n image(s); evaluated %8.", nullptr,
                  int(result.predictions.size()))
                   .arg(run, evaluation.checkpoint, step, split, tta, number("top1"), number("top5"), created);
    }
    const qint64 skipped = metrics.value("skipped", qint64(0));
    if (skipped > 0)
        text += QLatin1Char(' ') + tr("%n record(s) could not be read and were left out.", nullptr, int(skipped));
    m_summary->setText(text);
}

void EvaluatePage::showCell(int trueClass, int predictedClass)
{
    if (m_isMultiLabel)
        m_gallery->model()->showFalsePositives(trueClass, predictedClass,
                                               m_multiLabel->model()->falsePositiveImages(trueClass, predictedClass));
    else
        m_gallery->model()->showCell(trueClass, predictedClass);
}

void EvaluatePage::showHighestLoss()
{
    m_gallery->model()->showHighestLoss();
}

void EvaluatePage::selectGalleryRow(int row, int classIndex)
{
    const PredictionGalleryModel *gallery = m_gallery->model();
    if (row < 0 || row >= gallery->rowCount())
        return;
    m_gallery->setShownRow(row);
    m_gradCam->showPrediction(gallery->source(), gallery->prediction(row), gallery->predictedClass(row), classIndex);
}

void EvaluatePage::relabelGalleryRow(int row, const QString &className)
{
    m_gallery->relabelRow(row, className);
}

void EvaluatePage::excludeGalleryRow(int row, bool excluded)
{
    m_gallery->excludeRow(row, excluded);
}

void EvaluatePage::predictFiles(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    if (!hasCheckpoint()) {
        m_predictions->setMessage(tr("Select a run first: its checkpoint classifies the files."));
        return;
    }
    m_tabs->setCurrentIndex(PredictTab);
    m_predictions->predict(paths, currentRun(), currentCheckpoint());
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
    const bool multiLabel = m_isMultiLabel;
    // Multi-label: the metrics at the thresholds shown, and the false-positive confusion as the
    // matrix (rows normalised by the images that carry the row's label).
    nlohmann::json metrics = multiLabel ? m_multiLabel->model()->currentMetrics() : m_evaluation.result.metrics;
    if (multiLabel && format == MetricsFormat::ConfusionCsv) {
        nlohmann::json counts = nlohmann::json::array(), normalized = nlohmann::json::array();
        for (int t = 0; t < m_matrix->classes().size(); ++t) {
            nlohmann::json row = nlohmann::json::array(), shares = nlohmann::json::array();
            for (int p = 0; p < m_matrix->classes().size(); ++p) {
                row.push_back(m_matrix->count(t, p));
                shares.push_back(m_matrix->share(t, p));
            }
            counts.push_back(std::move(row));
            normalized.push_back(std::move(shares));
        }
        metrics["confusion_matrix"] = {{"counts", std::move(counts)}, {"normalized", std::move(normalized)}};
    }
    const std::vector<std::string> classes = m_evaluation.result.classes;
    const bool normalized = m_matrix->isNormalized();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [path, format, metrics, classes, normalized, multiLabel]() mutable -> QVariant {
            std::string text;
            if (format == MetricsFormat::Json) {
                metrics["classes"] = classes;
                text = metrics.dump(2) + "\n";
            } else if (format == MetricsFormat::ConfusionCsv) {
                text = engine::confusionMatrixCsv(metrics, normalized);
            } else {
                text = multiLabel ? engine::multiLabelMetricsCsv(metrics) : engine::metricsCsv(metrics);
            }
            workspace::writeFileAtomically(path, QByteArray::fromStdString(text));
            return path;
        },
        [this](const QVariant &value) {
            showStatus(tr("Saved %1").arg(QDir::toNativeSeparators(value.toString())));
            Q_EMIT fileSaved(value.toString());
        },
        [this](const QString &message) { showError(tr("Cannot save"), message); });
}

void EvaluatePage::savePredictionsCsv(const QString &path)
{
    m_predictions->savePredictionsCsv(path);
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
