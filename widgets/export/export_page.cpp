#include "export/export_page.h"

#include "common/background_task.h"
#include "common/help_links.h"
#include "common/run_checkpoint_picker.h"
#include "workspace/export_run_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/serve_job.h"

#include <QCheckBox>
#include <QBrush>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QThreadPool>
#include <QUrl>
#include <QVBoxLayout>

#include <utility>

namespace lathe::ui {
namespace {

QString percent(const QJsonValue &fraction)
{
    return fraction.isDouble() ? QLocale().toString(fraction.toDouble() * 100.0, 'f', 1) + QLatin1Char('%') : QString();
}

QString milliseconds(const QJsonValue &value)
{
    return value.isDouble() ? QLocale().toString(value.toDouble(), 'f', 2) : QString();
}

// Why the engine did not time an artifact (its report entry): it times the runtimes a file is
// deployed with (OpenCV DNN, LibTorch), never its reference runtime, which only checks results.
QString latencyNotMeasured(const QJsonObject &artifact)
{
    const QString format = artifact.value(QStringLiteral("format")).toString();
    const QString runtime = artifact.value(QStringLiteral("runtime")).toString();
    if (runtime.isEmpty() && artifact.value(QStringLiteral("status")).toString() != QLatin1String("passed"))
        return QCoreApplication::translate("ExportPage", "Not measured: the file failed before it could be run.");
    if (format == QLatin1String("safetensors"))
        return QCoreApplication::translate("ExportPage", "Not measured: a weights file, not a runnable model. Loaded into "
                                                         "LibTorch it runs as the original model does (see above).");
    if (runtime == QLatin1String("reference") && format == QLatin1String("onnx"))
        return QCoreApplication::translate("ExportPage", "Not measured: OpenCV DNN cannot run this graph here, so it was "
                                                         "checked with Lathe's reference runtime, which is not timed. "
                                                         "Time it in ONNX Runtime.");
    if (runtime == QLatin1String("reference") && format.startsWith(QLatin1String("tflite")))
        return QCoreApplication::translate("ExportPage", "Not measured: TFLite files run in LiteRT (on a phone, or "
                                                         "with ai-edge-litert in Python); this program checked it with its "
                                                         "reference runtime, which is not timed. The README's benchmark "
                                                         "table has LiteRT's latency on this CPU.");
    if (runtime == QLatin1String("reference"))
        return QCoreApplication::translate("ExportPage", "Not measured: no runtime in this program runs %1 files at "
                                                         "deployment speed; it was checked with Lathe's reference "
                                                         "runtime, which is not timed. Time it in ONNX Runtime.")
            .arg(format == QLatin1String("onnx-int8") ? QStringLiteral("INT8") : QStringLiteral("FP16"));
    return QCoreApplication::translate("ExportPage", "Not measured: this export did not time its files.");
}

} // namespace

ExportPage::ExportPage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_picker(new RunCheckpointPicker(QStringLiteral("export"), this))
    , m_preprocessing(new QCheckBox(tr("Preprocessing in the graph"), this))
    , m_softmax(new QCheckBox(tr("Softmax output"), this))
    , m_calibMethod(new QComboBox(this))
    , m_calibImages(new QSpinBox(this))
    , m_int8Io(new QComboBox(this))
    , m_outDir(new QLineEdit(this))
    , m_browseButton(new QPushButton(tr("Browse…"), this))
    , m_exportButton(new QPushButton(tr("Export"), this))
    , m_progress(new QProgressBar(this))
    , m_cancelButton(new QPushButton(tr("Cancel"), this))
    , m_summary(new QLabel(this))
    , m_report(new QStandardItemModel(0, ColumnCount, this))
    , m_reportView(new QTableView(this))
    , m_openFolderButton(new QPushButton(tr("Open Folder"), this))
    , m_copyPathButton(new QPushButton(tr("Copy Path"), this))
    , m_serveButton(new QPushButton(tr("Serve…"), this))
    , m_servingRow(new QWidget(this))
    , m_serving(new QLabel(m_servingRow))
    , m_serveCounts(new QLabel(m_servingRow))
    , m_stopServeButton(new QPushButton(tr("Stop"), m_servingRow))
    , m_historyModel(new QStandardItemModel(0, 5, this))
    , m_historyView(new QTableView(this))
    , m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("exportPage"));

    auto *title = new QLabel(tr("Export"), this);
    title->setObjectName(QStringLiteral("pageTitle"));

    auto *top = new QHBoxLayout;
    top->addWidget(title);
    top->addSpacing(12);
    top->addWidget(m_picker, 1);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(buildOptions());
    splitter->addWidget(buildResults());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);

    m_status->setObjectName(QStringLiteral("exportStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 12);
    layout->setSpacing(8);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_status);

    connect(m_picker, &RunCheckpointPicker::selectionChanged, this, &ExportPage::selectionChanged);
    connect(m_picker, &RunCheckpointPicker::runsLoaded, this, &ExportPage::runsLoaded);
    connect(m_picker, &RunCheckpointPicker::problem, this, &ExportPage::showStatus);
    connect(m_outDir, &QLineEdit::textEdited, this, [this] { m_outDirEdited = true; });
    connect(m_browseButton, &QPushButton::clicked, this, &ExportPage::browseFolder);
    connect(m_exportButton, &QPushButton::clicked, this, &ExportPage::startExport);
    connect(m_cancelButton, &QPushButton::clicked, this, &ExportPage::cancelExport);
    connect(m_openFolderButton, &QPushButton::clicked, this,
            [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(m_shownFolder)); });
    connect(m_copyPathButton, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(QDir::toNativeSeparators(m_shownFolder)); });
    connect(m_serveButton, &QPushButton::clicked, this, &ExportPage::openServeDialog);
    connect(m_stopServeButton, &QPushButton::clicked, this, &ExportPage::stopServing);
    connect(m_historyView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ExportPage::historySelectionChanged);
    setProject(nullptr);
}

ExportPage::~ExportPage() = default;

QWidget *ExportPage::buildOptions()
{
    auto *box = new QWidget(this);

    auto *formats = new QGroupBox(tr("Formats"), box);
    auto *formatLayout = new QVBoxLayout(formats);
    const QList<QPair<QString, QString>> formatNames = {
        {QStringLiteral("onnx"), tr("ONNX FP32")},
        {QStringLiteral("onnx-fp16"), tr("ONNX FP16")},
        {QStringLiteral("onnx-int8"), tr("ONNX INT8 (quantised)")},
        {QStringLiteral("tflite"), tr("TFLite FP32")},
        {QStringLiteral("tflite-fp16"), tr("TFLite FP16")},
        {QStringLiteral("tflite-int8"), tr("TFLite INT8 (full integer)")},
        {QStringLiteral("torchscript"), tr("TorchScript")},
        {QStringLiteral("safetensors"), tr("safetensors + model.json")},
    };
    for (const auto &[format, name] : formatNames) {
        auto *check = new QCheckBox(name, formats);
        check->setObjectName(QStringLiteral("exportFormat-") + format);
        check->setChecked(format == QLatin1String("onnx"));
        formatLayout->addWidget(check);
        m_formatChecks.insert(format, check);
        connect(check, &QCheckBox::toggled, this, &ExportPage::updateButtons);
    }
    m_formatChecks.value(QStringLiteral("onnx"))->setToolTip(
        tr("Opset 13 or newer, dynamic batch; preprocessing and labels in the metadata. Checked with OpenCV DNN."));
    m_formatChecks.value(QStringLiteral("onnx-fp16"))
        ->setToolTip(tr("Half-precision weights: half the size; checked against the original within a relative bound."));
    m_formatChecks.value(QStringLiteral("onnx-int8"))
        ->setToolTip(tr("QDQ quantisation: INT8 weights per channel, activations calibrated on training images. Fails "
                        "when its validation accuracy drops more than one point below the original's."));
    m_formatChecks.value(QStringLiteral("tflite"))
        ->setToolTip(tr("TensorFlow Lite for phones and edge devices (model.tflite, NHWC, batch 1), with labels.txt "
                        "beside it and the labels, mean and std in its metadata."));
    m_formatChecks.value(QStringLiteral("tflite-fp16"))
        ->setToolTip(tr("TFLite with float16 weights (half the size), computed in float32 as TFLite's float16 "
                        "quantisation does."));
    m_formatChecks.value(QStringLiteral("tflite-int8"))
        ->setToolTip(tr("Full-integer TFLite for microcontrollers and NPUs: int8 weights and activations, uint8 (or "
                        "int8) pixels in and scores out, calibrated on training images. Fails when its validation "
                        "accuracy drops more than one point below the original's."));
    m_formatChecks.value(QStringLiteral("torchscript"))->setToolTip(tr("A TorchScript module (model.pt) for LibTorch and PyTorch."));
    m_formatChecks.value(QStringLiteral("safetensors"))
        ->setToolTip(tr("The weights under torchvision's parameter names, with model.json describing the model."));

    auto *options = new QGroupBox(tr("Options"), box);
    auto *optionLayout = new QFormLayout(options);
    m_preprocessing->setToolTip(tr("The ONNX, TorchScript and float TFLite models take uint8 pixels (N, H, W, C) and "
                                   "normalise them inside; without it they take normalised float32 (N, C, H, W; TFLite: "
                                   "N, H, W, C). TFLite INT8 always takes pixels."));
    m_softmax->setToolTip(tr("The ONNX, TorchScript and TFLite models output probabilities instead of logits."));
    m_int8Io->setObjectName(QStringLiteral("exportInt8Io"));
    m_int8Io->addItem(tr("uint8"), QStringLiteral("uint8"));
    m_int8Io->addItem(tr("int8"), QStringLiteral("int8"));
    m_int8Io->setToolTip(tr("The TFLite INT8 model's input and output type: uint8 (pixels 0-255, as Android's image "
                            "classification samples expect) or int8 (pixel - 128, for NPUs that take int8 only)."));
    m_calibMethod->setObjectName(QStringLiteral("exportCalibMethod"));
    m_calibMethod->addItem(tr("Min-max"), QStringLiteral("minmax"));
    m_calibMethod->addItem(tr("Percentile"), QStringLiteral("percentile"));
    m_calibMethod->addItem(tr("Entropy (KL)"), QStringLiteral("entropy"));
    m_calibMethod->setToolTip(tr("How INT8 activation ranges are chosen from the calibration images."));
    m_calibMethod->setWhatsThis(tr("<p><b>INT8 calibration</b></p><p>INT8 files store each activation as an 8-bit "
                                   "integer over a range measured on calibration images of the training split. "
                                   "<i>Min-max</i> takes the whole observed range; <i>Percentile</i> clips the rarest "
                                   "extremes (99.99th percentile), which often keeps more precision; <i>Entropy (KL)</i> "
                                   "picks the range whose 8-bit histogram loses the least information, as TensorRT "
                                   "does. Weights are quantised per channel. The export is verified: an INT8 file "
                                   "more than one point less accurate than the original is marked failed.</p>"));
    m_calibImages->setObjectName(QStringLiteral("exportCalibImages"));
    m_calibImages->setRange(1, 100000);
    m_calibImages->setValue(64);
    m_calibImages->setToolTip(tr("Training images run through the model to calibrate INT8 activations."));
    optionLayout->addRow(m_preprocessing);
    optionLayout->addRow(m_softmax);
    optionLayout->addRow(tr("INT8 calibration:"), m_calibMethod);
    optionLayout->addRow(tr("Calibration images:"), m_calibImages);
    optionLayout->addRow(tr("TFLite INT8 input/output:"), m_int8Io);
    auto updateInt8Options = [this] {
        const bool tfliteInt8 = m_formatChecks.value(QStringLiteral("tflite-int8"))->isChecked();
        const bool int8 = tfliteInt8 || m_formatChecks.value(QStringLiteral("onnx-int8"))->isChecked();
        m_calibMethod->setEnabled(int8);
        m_calibImages->setEnabled(int8);
        m_int8Io->setEnabled(tfliteInt8);
    };
    connect(m_formatChecks.value(QStringLiteral("onnx-int8")), &QCheckBox::toggled, this, updateInt8Options);
    connect(m_formatChecks.value(QStringLiteral("tflite-int8")), &QCheckBox::toggled, this, updateInt8Options);
    updateInt8Options();

    m_outDir->setObjectName(QStringLiteral("exportFolder"));
    m_outDir->setToolTip(tr("Where the files and report.json are written. By default a new folder under the "
                            "project's exports folder; a relative path is taken from there."));
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setToolTip(tr("Export and verify every chosen format as a job."));
    m_cancelButton->setObjectName(QStringLiteral("exportCancel"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(new QLabel(tr("Output folder:"), box));
    folderRow->addWidget(m_outDir, 1);
    folderRow->addWidget(m_browseButton);
    auto *runRow = new QHBoxLayout;
    runRow->addWidget(m_exportButton);
    runRow->addWidget(m_progress, 1);
    runRow->addWidget(m_cancelButton);

    auto *groups = new QHBoxLayout;
    groups->addWidget(formats);
    groups->addWidget(options, 1);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(groups);
    layout->addLayout(folderRow);
    layout->addLayout(runRow);
    return box;
}

QWidget *ExportPage::buildResults()
{
    auto *box = new QWidget(this);
    m_summary->setObjectName(QStringLiteral("exportSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_report->setHorizontalHeaderLabels({tr("Format"), tr("File"), tr("Size"), tr("Max abs diff"), tr("Top-1 agreement"),
                                         tr("Accuracy (original)"), tr("Latency b1 (ms)"), tr("Latency b32 (ms)"),
                                         tr("Status"), tr("Reason")});
    m_reportView->setObjectName(QStringLiteral("exportReport"));
    m_reportView->setModel(m_report);
    m_reportView->verticalHeader()->hide();
    m_reportView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_reportView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_reportView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_reportView->horizontalHeader()->setStretchLastSection(true);
    m_reportView->setWordWrap(true);
    m_openFolderButton->setObjectName(QStringLiteral("exportOpenFolder"));
    m_copyPathButton->setObjectName(QStringLiteral("exportCopyPath"));
    m_copyPathButton->setToolTip(tr("Copy the export folder's path to the clipboard."));
    m_serveButton->setObjectName(QStringLiteral("exportServe"));
    m_servingRow->setObjectName(QStringLiteral("exportServingRow"));
    m_serving->setObjectName(QStringLiteral("exportServing"));
    m_serving->setWordWrap(true);
    m_serving->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_serveCounts->setObjectName(QStringLiteral("exportServeCounts"));
    m_stopServeButton->setObjectName(QStringLiteral("exportServeStop"));
    m_stopServeButton->setToolTip(tr("Stop the server after the requests in flight are answered."));
    auto *servingLayout = new QHBoxLayout(m_servingRow);
    servingLayout->setContentsMargins(0, 0, 0, 0);
    servingLayout->addWidget(m_serving, 1);
    servingLayout->addWidget(m_serveCounts);
    servingLayout->addWidget(m_stopServeButton);
    m_servingRow->setVisible(false);

    m_historyModel->setHorizontalHeaderLabels({tr("Created"), tr("Run"), tr("Checkpoint"), tr("Formats"), tr("Status")});
    m_historyView->setObjectName(QStringLiteral("exportHistory"));
    m_historyView->setModel(m_historyModel);
    m_historyView->verticalHeader()->hide();
    m_historyView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_historyView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_historyView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_historyView->setWordWrap(false);
    m_historyView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_historyView->horizontalHeader()->setStretchLastSection(true);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_summary, 1);
    buttons->addWidget(m_openFolderButton);
    buttons->addWidget(m_copyPathButton);
    buttons->addWidget(m_serveButton);
    auto *history = new QLabel(tr("Previous exports of this project (select one to show its report):"), box);
    history->setWordWrap(true);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_servingRow);
    layout->addWidget(m_reportView, 2);
    layout->addWidget(history);
    layout->addWidget(m_historyView, 1);
    return box;
}

void ExportPage::setProject(workspace::Project *project)
{
    m_project = project;
    m_databasePath = project ? project->databasePath() : QString();
    m_outDirEdited = false;
    clearReport(project ? QString() : tr("Open a project to export its runs."));
    m_picker->setRunsDir(project ? project->runsDir() : QString());
    refreshHistory();
}

void ExportPage::refreshRuns()
{
    m_picker->refresh();
}

void ExportPage::refreshHistory()
{
    const quint64 generation = ++m_historyGeneration;
    if (m_databasePath.isEmpty()) {
        m_history.clear();
        m_historyModel->removeRows(0, m_historyModel->rowCount());
        Q_EMIT historyLoaded();
        return;
    }
    const QString databasePath = m_databasePath;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath]() -> QVariant { return QVariant::fromValue(workspace::ExportStore::list(databasePath)); },
        [this, generation](const QVariant &value) {
            if (generation != m_historyGeneration)
                return;
            m_history = value.value<QVector<workspace::StoredExport>>();
            const QSignalBlocker block(m_historyView->selectionModel());
            m_historyModel->removeRows(0, m_historyModel->rowCount());
            int select = -1;
            for (const workspace::StoredExport &e : m_history) {
                const QDateTime created = QDateTime::fromString(e.created, Qt::ISODateWithMs).toLocalTime();
                QList<QStandardItem *> row;
                row << new QStandardItem(QLocale().toString(created, QLocale::ShortFormat))
                    << new QStandardItem(QFileInfo(e.runDir).fileName()) << new QStandardItem(e.checkpoint)
                    << new QStandardItem(e.formats.join(QStringLiteral(", ")))
                    << new QStandardItem(e.ok ? tr("passed") : tr("failed"));
                row.front()->setData(e.id, Qt::UserRole);
                row.front()->setToolTip(QDir::toNativeSeparators(e.outDir));
                if (e.id == m_selectAfterHistory)
                    select = m_historyModel->rowCount();
                m_historyModel->appendRow(row);
            }
            m_historyView->resizeColumnsToContents();
            if (select >= 0)
                m_historyView->selectRow(select);
            m_selectAfterHistory = 0;
            Q_EMIT historyLoaded();
        },
        [this](const QString &message) { showStatus(tr("Cannot read the previous exports: %1").arg(message)); });
}

QStringList ExportPage::runs() const
{
    return m_picker->runs();
}

QString ExportPage::currentRun() const
{
    return m_picker->currentRun();
}

QString ExportPage::currentCheckpoint() const
{
    return m_picker->currentCheckpoint();
}

QComboBox *ExportPage::runCombo() const
{
    return m_picker->runCombo();
}

QComboBox *ExportPage::checkpointCombo() const
{
    return m_picker->checkpointCombo();
}

QStringList ExportPage::checkedFormats() const
{
    // In the engine's order, whatever order the map keeps.
    QStringList formats;
    for (const QString &format : {QStringLiteral("onnx"), QStringLiteral("onnx-fp16"), QStringLiteral("onnx-int8"),
                                  QStringLiteral("tflite"), QStringLiteral("tflite-fp16"), QStringLiteral("tflite-int8"),
                                  QStringLiteral("torchscript"), QStringLiteral("safetensors")})
        if (m_formatChecks.value(format)->isChecked())
            formats << format;
    return formats;
}

QString ExportPage::outputFolder() const
{
    return m_outDir->text().trimmed();
}

// The folder the job writes and the page then shows: absolute and clean; "~" is the home folder
// and a relative path is under the project's exports folder (not the program's working folder).
QString ExportPage::resolvedOutputFolder() const
{
    QString folder = QDir::fromNativeSeparators(outputFolder());
    if (folder == QLatin1String("~") || folder.startsWith(QLatin1String("~/")))
        folder = QDir::homePath() + folder.mid(1);
    const QString base = m_project ? m_project->exportsDir() : QDir::currentPath();
    return QDir::cleanPath(QDir(base).absoluteFilePath(folder));
}

QString ExportPage::summaryText() const
{
    return m_summary->text();
}

QString ExportPage::statusText() const
{
    return m_status->text();
}

void ExportPage::selectCheckpoint(const QString &runDir, const QString &checkpoint)
{
    m_picker->select(runDir, checkpoint);
}

void ExportPage::selectionChanged()
{
    if (!m_project)
        showStatus(tr("Open a project to export its runs."));
    else if (runs().isEmpty())
        showStatus(tr("No runs yet: train one on the Train page, then export it here."));
    else if (currentRun().isEmpty()) // no run is trained: the picker chose none
        showStatus(m_picker->noRunReason());
    else if (currentCheckpoint().isEmpty())
        showStatus(tr("This run has no checkpoint yet: it can be exported once it has written one."));
    else if (!isExporting())
        showStatus(QString());
    updateDefaultFolder();
}

void ExportPage::updateDefaultFolder()
{
    if (!m_outDirEdited) {
        const QString run = currentRun();
        const QString checkpoint = currentCheckpoint();
        if (!m_project || run.isEmpty() || checkpoint.isEmpty()) {
            m_outDir->clear();
        } else {
            const QString name = QStringLiteral("%1-%2-%3")
                                     .arg(QFileInfo(run).fileName(), QFileInfo(checkpoint).completeBaseName(),
                                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
            const QDir exports(m_project->exportsDir());
            QString folder = exports.filePath(name);
            for (int n = 2; QFileInfo::exists(folder); ++n) // two exports within a second
                folder = exports.filePath(QStringLiteral("%1-%2").arg(name).arg(n));
            m_outDir->setText(QDir::toNativeSeparators(folder));
        }
    }
    updateButtons();
}

void ExportPage::updateButtons()
{
    const bool exporting = isExporting();
    const bool ready = m_project && !currentRun().isEmpty() && !currentCheckpoint().isEmpty();
    m_exportButton->setEnabled(ready && !exporting && !checkedFormats().isEmpty() && !outputFolder().isEmpty());
    m_cancelButton->setEnabled(exporting);
    m_progress->setVisible(exporting);
    m_cancelButton->setVisible(exporting);
    m_picker->setEnabled(!exporting);
    m_browseButton->setEnabled(m_project && !exporting);
    const bool shown = !m_shownFolder.isEmpty();
    m_openFolderButton->setEnabled(shown);
    m_copyPathButton->setEnabled(shown);
    m_serveButton->setEnabled(canServe());
    if (isServing())
        m_serveButton->setToolTip(tr("A server is running: stop it to serve another export."));
    else if (shown && !m_shownPassed)
        m_serveButton->setToolTip(tr("Only an export whose every artifact passed its checks can be served."));
    else if (!shown)
        m_serveButton->setToolTip(tr("Select an export that passed its checks to serve it."));
    else
        m_serveButton->setToolTip(tr("Serve this export over HTTP with TensorFlow Serving's REST API, as a job."));
    if (m_project && checkedFormats().isEmpty())
        m_exportButton->setToolTip(tr("Choose at least one format."));
    else
        m_exportButton->setToolTip(tr("Export and verify every chosen format as a job."));
}

void ExportPage::browseFolder()
{
    const QString start = m_project ? m_project->exportsDir() : QString();
    auto *dialog = new QFileDialog(this, tr("Export Folder"), start);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &folder) {
        m_outDir->setText(QDir::toNativeSeparators(folder));
        m_outDirEdited = true;
        updateButtons();
    });
    dialog->open();
}

void ExportPage::startExport()
{
    if (!m_exportButton->isEnabled())
        return;
    if (!m_outDirEdited)
        updateDefaultFolder(); // a fresh time stamp: never write into the previous export's folder
    workspace::ExportRunJob::Params params;
    params.databasePath = m_databasePath;
    params.runDir = currentRun();
    params.checkpoint = currentCheckpoint();
    params.formats = checkedFormats();
    params.outDir = resolvedOutputFolder();
    params.preprocessing = m_preprocessing->isChecked();
    params.softmax = m_softmax->isChecked();
    params.calibMethod = m_calibMethod->currentData().toString();
    params.calibImages = m_calibImages->value();
    params.int8Io = m_int8Io->currentData().toString();
    auto *job = new workspace::ExportRunJob(params);
    m_job = job;
    m_progress->setValue(0);
    m_progress->setFormat(tr("Starting…"));
    clearReport(QString());
    showStatus(tr("Exporting %1 (%2) to %3…")
                   .arg(QFileInfo(params.runDir).fileName(), m_picker->currentCheckpointText(),
                        QDir::toNativeSeparators(params.outDir)));
    updateButtons();
    connect(job, &workspace::Job::progressChanged, this, [this](double fraction, const QString &status) {
        m_progress->setValue(int(fraction * 1000));
        m_progress->setFormat(status.isEmpty() ? QStringLiteral("%p%") : status + QStringLiteral(" (%p%)"));
    });
    connect(job, &workspace::Job::finished, this, [this](const QVariant &result) {
        const workspace::ExportRunResult exported = result.value<workspace::ExportRunResult>();
        const qint64 id = exported.exportId;
        jobEnded();
        showReport(exported.reportJson, exported.outDir, id); // the folder the job wrote
        showStatus(exported.ok
                       ? tr("Exported and verified.")
                       : tr("Exported, but some artifacts failed their checks: see the Reason column."));
        m_selectAfterHistory = id;
        refreshHistory();
        m_outDirEdited = false;
        updateDefaultFolder();
        Q_EMIT exportFinished(id);
    });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) {
        jobEnded();
        showStatus(tr("The export failed: %1").arg(message));
        refreshHistory(); // the failure is recorded too
        Q_EMIT exportFailed(message);
    });
    connect(job, &workspace::Job::cancelled, this, [this] {
        jobEnded();
        showStatus(tr("The export was cancelled; files already written stay in the output folder."));
        Q_EMIT exportFailed(tr("cancelled"));
    });
    m_jobs->start(job);
}

void ExportPage::cancelExport()
{
    if (m_job)
        m_job->requestCancel();
}

void ExportPage::jobEnded()
{
    m_job.clear();
    updateButtons();
}

void ExportPage::historySelectionChanged()
{
    const QModelIndex current = m_historyView->currentIndex();
    if (!current.isValid() || current.row() >= m_history.size())
        return;
    const workspace::StoredExport &e = m_history.at(current.row());
    showReport(e.reportJson, e.outDir, e.id);
    if (!QFileInfo::exists(e.outDir))
        showStatus(tr("The folder of this export no longer exists: %1").arg(QDir::toNativeSeparators(e.outDir)));
}

void ExportPage::clearReport(const QString &message)
{
    m_report->removeRows(0, m_report->rowCount());
    m_shownId = 0;
    m_shownFolder.clear();
    m_shownPassed = false;
    m_shownRun.clear();
    m_summary->setText(message);
    updateButtons();
}

void ExportPage::showReport(const QString &reportJson, const QString &outDir, qint64 exportId)
{
    clearReport(QString());
    m_shownId = exportId;
    m_shownFolder = outDir;
    const QJsonObject report = QJsonDocument::fromJson(reportJson.toUtf8()).object();
    m_shownPassed = report.value(QStringLiteral("status")).toString() == QLatin1String("passed");
    m_shownRun = report.value(QStringLiteral("source")).toObject().value(QStringLiteral("run")).toString();
    if (report.contains(QStringLiteral("error"))) {
        showErrorWithHelp(m_summary, tr("This export failed: %1").arg(report.value(QStringLiteral("error")).toString()),
                          QStringLiteral("export"));
    } else {
        const QJsonObject source = report.value(QStringLiteral("source")).toObject();
        const QJsonObject original = report.value(QStringLiteral("original")).toObject();
        const QJsonObject latency = original.value(QStringLiteral("latency")).toObject();
        QStringList facts;
        facts << (report.value(QStringLiteral("status")).toString() == QLatin1String("passed")
                      ? tr("Every artifact passed its checks.")
                      : tr("Some artifacts failed their checks."));
        facts << tr("%1, %2 classes, %3 px input.")
                     .arg(source.value(QStringLiteral("arch")).toString())
                     .arg(source.value(QStringLiteral("num_classes")).toInt())
                     .arg(source.value(QStringLiteral("image_size")).toInt());
        if (original.value(QStringLiteral("accuracy")).isDouble())
            facts << tr("Original model: %1% top-1 on the validation images.")
                         .arg(QLocale().toString(original.value(QStringLiteral("accuracy")).toDouble(), 'f', 1));
        if (!latency.isEmpty())
            facts << tr("Original on this CPU: %1 ms per image at batch 1, %2 ms at batch 32.")
                         .arg(milliseconds(latency.value(QStringLiteral("batch1_ms_per_image"))),
                              milliseconds(latency.value(QStringLiteral("batch32_ms_per_image"))));
        facts << tr("Folder: %1").arg(QDir::toNativeSeparators(outDir));
        m_summary->setText(facts.join(QLatin1Char(' ')));
    }
    for (const QJsonValue &value : report.value(QStringLiteral("artifacts")).toArray()) {
        const QJsonObject a = value.toObject();
        const QJsonObject verification = a.value(QStringLiteral("verification")).toObject();
        const QJsonObject accuracy = a.value(QStringLiteral("accuracy")).toObject();
        const QJsonObject latency = a.value(QStringLiteral("latency")).toObject();
        const bool passed = a.value(QStringLiteral("status")).toString() == QLatin1String("passed");
        QStringList cells(ColumnCount);
        cells[FormatColumn] = a.value(QStringLiteral("format")).toString();
        cells[FileColumn] = a.value(QStringLiteral("file")).toString();
        if (a.value(QStringLiteral("bytes")).isDouble())
            cells[SizeColumn] = QLocale().formattedDataSize(qint64(a.value(QStringLiteral("bytes")).toDouble()));
        if (verification.value(QStringLiteral("max_abs_diff")).isDouble())
            cells[MaxDiffColumn] = QString::number(verification.value(QStringLiteral("max_abs_diff")).toDouble(), 'g', 3);
        cells[AgreementColumn] = percent(verification.value(QStringLiteral("top1_agreement")));
        if (accuracy.value(QStringLiteral("top1")).isDouble())
            cells[AccuracyColumn] = tr("%1% (%2%)")
                                        .arg(QLocale().toString(accuracy.value(QStringLiteral("top1")).toDouble(), 'f', 1),
                                             QLocale().toString(accuracy.value(QStringLiteral("reference_top1")).toDouble(), 'f', 1));
        // A latency the engine did not measure says so, and why in its tool tip.
        const QList<QPair<int, QString>> latencyKeys = {{Latency1Column, QStringLiteral("batch1_ms_per_image")},
                                                       {Latency32Column, QStringLiteral("batch32_ms_per_image")}};
        QList<int> unmeasured;
        for (const auto &[column, key] : latencyKeys) {
            cells[column] = milliseconds(latency.value(key));
            if (cells[column].isEmpty()) {
                cells[column] = tr("not measured");
                unmeasured << column;
            }
        }
        cells[StatusColumn] = passed ? tr("passed") : tr("failed");
        cells[ReasonColumn] = a.value(QStringLiteral("reason")).toString();
        QList<QStandardItem *> row;
        for (const QString &cell : cells)
            row << new QStandardItem(cell);
        row[StatusColumn]->setForeground(passed ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        row[ReasonColumn]->setToolTip(cells[ReasonColumn]);
        row[FileColumn]->setToolTip(QDir::toNativeSeparators(QDir(outDir).filePath(cells[FileColumn])));
        for (const int column : std::as_const(unmeasured)) {
            row[column]->setToolTip(latencyNotMeasured(a));
            row[column]->setForeground(palette().brush(QPalette::PlaceholderText));
        }
        m_report->appendRow(row);
    }
    // Sized to the rows now in it (the header's own pass had sized the columns to their titles
    // only), the rows to those columns, and the reason stretched over what is left.
    m_reportView->resizeColumnsToContents();
    m_reportView->resizeRowsToContents();
    m_reportView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    updateButtons();
    Q_EMIT reportShown();
}

void ExportPage::showStatus(const QString &message)
{
    m_status->setText(message);
}

bool ExportPage::canServe() const
{
    return !isServing() && m_shownPassed && !m_shownFolder.isEmpty() && QFileInfo(m_shownFolder).isDir();
}

QDialog *ExportPage::serveDialog() const
{
    return m_serveDialog.data();
}

workspace::ServeJob *ExportPage::serveJob() const
{
    return m_serveJob.data();
}

QString ExportPage::servingText() const
{
    return isServing() ? m_serving->text() : QString();
}

void ExportPage::openServeDialog()
{
    if (!canServe())
        return;
    if (m_serveDialog) {
        m_serveDialog->raise();
        return;
    }
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("exportServeDialog"));
    dialog->setWindowTitle(tr("Serve Export"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_serveDialog = dialog;

    const QString defaultAddress = QStringLiteral("127.0.0.1");
    auto *name = new QLineEdit(workspace::ServeJob::modelNameFrom(QFileInfo(m_shownRun).fileName()), dialog);
    name->setObjectName(QStringLiteral("serveModelName"));
    name->setToolTip(tr("The NAME in /v1/models/NAME: letters, digits, '_', '-' and '.'."));
    auto *address = new QLineEdit(defaultAddress, dialog);
    address->setObjectName(QStringLiteral("serveAddress"));
    address->setToolTip(tr("127.0.0.1: this computer only; 0.0.0.0: every network interface (anyone who can reach "
                           "this computer can then use the model)."));
    auto *port = new QSpinBox(dialog);
    port->setObjectName(QStringLiteral("servePort"));
    port->setRange(1, 65535);
    const int free = workspace::ServeJob::nextFreePort(defaultAddress, workspace::ServeJob::kDefaultPort);
    port->setValue(free ? free : workspace::ServeJob::kDefaultPort);
    port->setToolTip(tr("TensorFlow Serving's REST port is 8501; the first free one from there is offered."));
    auto *note = new QLabel(dialog);
    note->setObjectName(QStringLiteral("serveNote"));
    note->setWordWrap(true);
    if (free && free != workspace::ServeJob::kDefaultPort)
        note->setText(tr("Port %1 is in use; port %2 is free.").arg(workspace::ServeJob::kDefaultPort).arg(free));
    auto *folder = new QLabel(tr("Export: %1").arg(QDir::toNativeSeparators(m_shownFolder)), dialog);
    folder->setWordWrap(true);
    folder->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, dialog);
    QPushButton *serve = buttons->addButton(tr("Serve"), QDialogButtonBox::AcceptRole);
    serve->setObjectName(QStringLiteral("serveStart"));
    serve->setDefault(true);
    auto *form = new QFormLayout;
    form->addRow(tr("Model name:"), name);
    form->addRow(tr("Address:"), address);
    form->addRow(tr("Port:"), port);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(folder);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, name, address, port, note] {
        const QString modelName = name->text().trimmed();
        const QString host = address->text().trimmed();
        if (!workspace::ServeJob::isValidModelName(modelName)) {
            note->setText(tr("A model name is letters, digits, '_', '-' and '.' (at most 128 characters)."));
            name->setFocus();
            return;
        }
        if (host.isEmpty()) {
            note->setText(tr("Give the address to listen on, such as 127.0.0.1."));
            address->setFocus();
            return;
        }
        // A taken port: the next free one is offered instead (the job would fail on it).
        if (!workspace::ServeJob::isPortFree(host, port->value())) {
            const int taken = port->value();
            const int next = workspace::ServeJob::nextFreePort(host, taken + 1);
            if (next) {
                port->setValue(next);
                note->setText(tr("Port %1 is in use on %2; port %3 is free and now chosen: press Serve to use it.")
                                  .arg(taken)
                                  .arg(host)
                                  .arg(next));
            } else {
                note->setText(tr("Cannot listen on %1 port %2: the port is in use or the address is not one of this "
                                 "computer's.")
                                  .arg(host)
                                  .arg(taken));
            }
            port->setFocus();
            return;
        }
        dialog->accept();
        startServing(modelName, host, port->value());
    });
    dialog->open();
}

void ExportPage::startServing(const QString &modelName, const QString &address, int port)
{
    if (!canServe())
        return;
    workspace::ServeJob::Params params;
    params.exportDir = m_shownFolder;
    params.modelName = modelName;
    params.address = address;
    params.port = port;
    auto *job = new workspace::ServeJob(params);
    m_serveJob = job;
    m_serving->setText(tr("Starting the server for %1…").arg(modelName));
    m_serving->setToolTip(QDir::toNativeSeparators(params.exportDir));
    m_serveCounts->clear();
    m_stopServeButton->setEnabled(true);
    m_servingRow->setVisible(true);
    updateButtons();
    const QPointer<workspace::ServeJob> guard(job);
    connect(job, &workspace::ServeJob::listening, this, [this, guard] {
        if (!guard || guard != m_serveJob)
            return;
        const QString url = guard->modelUrl();
        m_serving->setText(tr("Serving %1 at %2").arg(guard->params().modelName, url));
        Q_EMIT servingStarted(url);
    });
    connect(job, &workspace::Job::progressChanged, this, [this, guard] {
        if (!guard || guard != m_serveJob || guard->boundPort() == 0)
            return;
        const workspace::ServeCounts counts = guard->counts();
        m_serveCounts->setText(tr("Requests: %1, errors: %2, last latency: %3 ms")
                                   .arg(QLocale().toString(counts.requests), QLocale().toString(counts.errors),
                                        QLocale().toString(counts.lastLatencyMs, 'f', 1)));
    });
    const QString name = modelName;
    connect(job, &workspace::Job::failed, this,
            [this](const QString &message) { serveEnded(tr("The server stopped: %1").arg(message), message); });
    connect(job, &workspace::Job::cancelled, this,
            [this, name] { serveEnded(tr("Stopped serving %1.").arg(name), QString()); });
    connect(job, &workspace::Job::finished, this,
            [this, name] { serveEnded(tr("Stopped serving %1.").arg(name), QString()); });
    m_jobs->start(job);
}

void ExportPage::stopServing()
{
    if (!m_serveJob)
        return;
    m_stopServeButton->setEnabled(false);
    m_serving->setText(tr("Stopping %1 after the requests in flight…").arg(m_serveJob->params().modelName));
    m_jobs->cancel(m_serveJob);
}

void ExportPage::serveEnded(const QString &status, const QString &message)
{
    m_serveJob.clear();
    m_servingRow->setVisible(false);
    m_serving->clear();
    m_serveCounts->clear();
    showStatus(status);
    updateButtons();
    Q_EMIT servingEnded(message);
}

} // namespace lathe::ui
