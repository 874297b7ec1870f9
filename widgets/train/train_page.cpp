#include "train/train_page.h"

#include "train/augmentation_editor.h"
#include "train/augmentation_preview_grid.h"
#include "common/background_task.h"
#include "train/device_picker.h"
#include "engine/base/engine_error.h"
#include "workspace/job_manager.h"
#include "common/help_links.h"
#include "train/lr_schedule_preview.h"
#include "workspace/project.h"
#include "engine/run/run_config.h"
#include "train/run_config_form.h"
#include "engine/run/run_folder.h"
#include "workspace/run_presets.h"
#include "engine/base/runtime_info.h"
#include "workspace/shard_manifest.h"
#include "workspace/train_job.h"
#include "train/training_curves.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

Q_DECLARE_METATYPE(lathe::engine::MemoryEstimate)

namespace lathe::ui {
namespace {

const QString kDatasetKey = QStringLiteral("train.dataset");
const QString kImageSizeKey = QStringLiteral("train.image_size");
const QString kAugmentKey = QStringLiteral("train.augment");
const QString kConfigKey = QStringLiteral("train.config");

// The sections of the run config this page's forms edit (data and model have their own controls).
const QStringList kFormSections = {QStringLiteral("optimizer"), QStringLiteral("schedule"), QStringLiteral("loss"),
                                   QStringLiteral("run"), QStringLiteral("checkpoints"), QStringLiteral("early_stopping"),
                                   QStringLiteral("ema"), QStringLiteral("feature_cache"), QStringLiteral("data")};

QString formatDuration(double seconds)
{
    const qint64 s = qint64(seconds + 0.5);
    return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'))
                     : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString bytesText(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

} // namespace

TrainPage::TrainPage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_tabs(new QTabWidget(this))
    , m_dataset(new QComboBox(this))
    , m_imageSize(new QSpinBox(this))
    , m_editor(new AugmentationEditor(this))
    , m_preview(new AugmentationPreviewGrid(this))
    , m_form(new RunConfigForm(kFormSections, this))
    , m_lrPreview(new LrSchedulePreview(this))
    , m_curves(new TrainingCurves(this))
    , m_start(new QPushButton(tr("Start"), this))
    , m_pause(new QPushButton(tr("Pause"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_status(new QLabel(this))
    , m_presetPicker(new QComboBox(this))
    , m_presetInfo(new QLabel(this))
    , m_savePreset(new QPushButton(tr("Save as Preset…"), this))
    , m_deletePreset(new QPushButton(tr("Delete Preset"), this))
    , m_preflight(new QLabel(this))
    , m_memory(new QLabel(this))
    , m_preflightTimer(new QTimer(this))
    , m_estimates(new QThreadPool(this))
    , m_metrics(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
{
    auto *heading = new QLabel(tr("Train"), this);
    heading->setObjectName(QStringLiteral("pageTitle"));
    m_start->setObjectName(QStringLiteral("startButton"));
    m_start->setToolTip(tr("Check the settings, then train the model chosen on the Model page in a new run folder."));
    m_pause->setToolTip(tr("Pause between two optimizer steps; press again to continue."));
    m_stop->setToolTip(tr("Stop after the current step. A checkpoint is written first, so the run can be resumed "
                          "from the Runs page."));
    m_status->setObjectName(QStringLiteral("trainStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_metrics->setObjectName(QStringLiteral("trainMetrics"));
    m_metrics->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(500);
    m_log->setMaximumHeight(120);

    m_dataset->setObjectName(QStringLiteral("trainDataset"));
    m_dataset->setToolTip(tr("A dataset converted to shards on the Data page."));
    m_imageSize->setRange(0, 1024);
    m_imageSize->setSingleStep(16);
    m_imageSize->setSpecialValueText(tr("backbone default"));
    m_imageSize->setSuffix(tr(" px"));
    m_imageSize->setToolTip(tr("Side of the square images the model is trained on; the lowest value uses the "
                               "backbone's default (224 for most)."));

    m_presetPicker->setObjectName(QStringLiteral("presetPicker"));
    m_presetPicker->setToolTip(tr("Put a preset's settings into the forms: the built-in recipes, or settings you saved."));
    m_presetInfo->setWordWrap(true);
    m_presetInfo->setObjectName(QStringLiteral("presetInfo"));
    m_savePreset->setToolTip(tr("Save the current settings (everything but the dataset, the model and the devices) "
                                "under a name, in %1.").arg(QDir::toNativeSeparators(workspace::RunPresets::folder())));
    m_deletePreset->setToolTip(tr("Delete the chosen saved preset."));
    m_preflight->setObjectName(QStringLiteral("preflight"));
    m_preflight->setWhatsThis(tr("<p><b>Pre-flight check</b></p><p>Before a run starts, Lathe checks that the shards exist "
                                 "and have a training split, that the model's input channels suit them, that the "
                                 "chosen weights are on disk, and estimates the memory one rank needs: weights, "
                                 "gradients, optimiser state and activations (measured on a few real steps of the "
                                 "model, then scaled to the batch). It warns when that exceeds the chosen devices' "
                                 "memory. A failed check keeps the run from starting and says why; the memory warning only warns.</p>"));
    m_preflight->setWordWrap(true);
    m_preflight->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memory->setObjectName(QStringLiteral("memoryEstimate"));
    m_memory->setWordWrap(true);
    m_memory->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memory->setToolTip(tr("Measured on the CPU with a forward and backward pass of the model at batch 2 and 4, "
                            "scaled to the batch; parameters, gradients and optimiser state are counted. Not "
                            "included: the CUDA context and cuDNN workspaces."));
    m_estimates->setMaxThreadCount(1);
    m_preflightTimer->setSingleShot(true);
    m_preflightTimer->setInterval(300);

    auto *presets = new QGroupBox(tr("Preset"), this);
    auto *presetLayout = new QVBoxLayout(presets);
    auto *presetRow = new QHBoxLayout;
    presetRow->addWidget(m_presetPicker, 1);
    presetRow->addWidget(m_savePreset);
    presetRow->addWidget(m_deletePreset);
    presetLayout->addLayout(presetRow);
    presetLayout->addWidget(m_presetInfo);

    auto *data = new QGroupBox(tr("Data"), this);
    auto *dataForm = new QFormLayout(data);
    dataForm->addRow(tr("Shards:"), m_dataset);
    dataForm->addRow(tr("Image size:"), m_imageSize);

    auto *check = new QGroupBox(tr("Pre-flight check"), this);
    auto *checkLayout = new QVBoxLayout(check);
    checkLayout->addWidget(m_preflight);
    checkLayout->addWidget(m_memory);
    checkLayout->addStretch(1);

    auto *augment = new QGroupBox(tr("Augmentation"), this);
    m_augmentLayout = new QBoxLayout(QBoxLayout::TopToBottom, augment);
    m_augmentLayout->addWidget(m_editor, 1);
    m_augmentLayout->addWidget(m_preview);

    auto *schedule = new QGroupBox(tr("Learning rate over the run"), this);
    auto *scheduleLayout = new QVBoxLayout(schedule);
    scheduleLayout->addWidget(m_lrPreview);

    // Two columns at the top (what to train on | whether it can start), then the augmentation
    // with its preview, the forms (their groups wrap into as many columns as the width holds)
    // and the learning-rate curve: nothing wider than a 1280-pixel screen.
    auto *top = new QHBoxLayout;
    auto *topLeft = new QVBoxLayout;
    topLeft->addWidget(presets);
    topLeft->addWidget(data);
    top->addLayout(topLeft, 1);
    top->addWidget(check, 1);

    auto *setup = new QWidget(this);
    auto *setupLayout = new QVBoxLayout(setup);
    setupLayout->addLayout(top);
    setupLayout->addWidget(augment);
    setupLayout->addWidget(m_form);
    setupLayout->addWidget(schedule);
    auto *scroll = new QScrollArea(this);
    m_setupScroll = scroll;
    scroll->setWidget(setup);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);

    auto *live = new QWidget(this);
    auto *liveLayout = new QVBoxLayout(live);
    liveLayout->addWidget(m_metrics);
    liveLayout->addWidget(m_curves, 1);
    liveLayout->addWidget(m_log);

    m_tabs->addTab(scroll, tr("Setup"));
    m_tabs->addTab(live, tr("Live"));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(heading);
    buttons->addStretch(1);
    buttons->addWidget(m_start);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_stop);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_tabs, 1);

    m_editor->setWhatsThis(tr("<p><b>Augmentation</b></p><p>The steps applied to every training image, in order, each "
                              "with the chance p that it is applied. Their parameters mean what torchvision's "
                              "transforms of the same name mean (random_resized_crop's scale and ratio, "
                              "color_jitter's brightness, …). Evaluation never augments: it resizes and crops the "
                              "centre. Mixup and CutMix act on whole batches and are not shown in the preview.</p>"));
    m_preview->setWhatsThis(tr("<p><b>Preview</b></p><p>The same eight training images through the current steps, as "
                               "the model will see them. Re-roll draws new random parameters.</p>"));
    m_preview->setSteps(m_editor->steps());
    connect(m_editor, &AugmentationEditor::stepsChanged, this, [this](const nlohmann::json &steps) {
        m_preview->setSteps(steps);
        save();
        schedulePreflight();
    });
    connect(m_imageSize, &QSpinBox::valueChanged, this, [this](int size) {
        m_preview->setImageSize(size > 0 ? size : 224);
        save();
        schedulePreflight();
    });
    connect(m_form, &RunConfigForm::valuesChanged, this, [this] {
        updatePreview();
        save();
        schedulePreflight();
    });
    connect(m_preflightTimer, &QTimer::timeout, this, &TrainPage::runPreflight);
    connect(m_presetPicker, &QComboBox::activated, this, &TrainPage::presetChosen);
    connect(m_savePreset, &QPushButton::clicked, this, [this] {
        auto *dialog = new QInputDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setWindowTitle(tr("Save as Preset"));
        dialog->setLabelText(tr("Name of the preset:"));
        connect(dialog, &QInputDialog::textValueSelected, this, [this](const QString &name) {
            const QString problem = savePreset(name);
            if (!problem.isEmpty())
                m_status->setText(tr("The preset was not saved: %1").arg(problem));
        });
        dialog->open();
    });
    connect(m_deletePreset, &QPushButton::clicked, this, [this] {
        const QString name = m_presetPicker->currentData().toString();
        if (name.isEmpty())
            return;
        auto *box = new QMessageBox(QMessageBox::Question, tr("Delete Preset"), tr("Delete the preset \"%1\"?").arg(name),
                                    QMessageBox::Yes | QMessageBox::Cancel, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QMessageBox::accepted, this, [this, name] {
            const QString problem = deletePreset(name);
            if (!problem.isEmpty())
                m_status->setText(problem);
        });
        box->open();
    });
    connect(m_form->devicePicker(), &DevicePicker::changed, this, &TrainPage::schedulePreflight);
    connect(m_dataset, &QComboBox::currentIndexChanged, this, &TrainPage::datasetChosen);
    connect(m_start, &QPushButton::clicked, this, &TrainPage::startRun);
    connect(m_pause, &QPushButton::clicked, this, [this] {
        if (!m_job)
            return;
        if (m_job->isPaused())
            m_job->resumeRun();
        else
            m_job->pause();
        updateButtons();
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (m_job)
            m_job->requestCancel();
        m_status->setText(tr("Stopping after the current step…"));
    });
    setProject(nullptr);
    listPresets();
    findDevices();
}

DevicePicker *TrainPage::devicePicker() const
{
    return m_form->devicePicker();
}

void TrainPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    schedulePreflight(); // the Model page may have changed the model meanwhile
}

void TrainPage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrangeAugmentation();
}

void TrainPage::arrangeAugmentation()
{
    const QMargins margins = m_augmentLayout->contentsMargins();
    const int both = m_editor->minimumSizeHint().width() + m_preview->sizeHint().width() + m_augmentLayout->spacing() +
                     margins.left() + margins.right() + 40; // the group's frame and the page's margins
    // The page's own width (the scroll area's viewport is not laid out yet when the page
    // resizes), less the tab frame and the scroll bar.
    const int available = width() - 60;
    m_augmentLayout->setDirection(available >= both ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

void TrainPage::findDevices()
{
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        []() -> QVariant {
            const engine::ComputeDevices found = engine::computeDevices();
            QVariantList devices;
            for (const engine::ComputeDevice &d : found.devices)
                devices.push_back(QVariantList{QString::fromStdString(d.id), QString::fromStdString(d.name), quint64(d.totalMemory)});
            return QVariantList{devices, found.driverGpus};
        },
        [this](const QVariant &result) {
            const QVariantList parts = result.toList();
            QList<DevicePicker::Device> devices;
            for (const QVariant &v : parts.value(0).toList()) {
                const QVariantList d = v.toList();
                devices.append({d.value(0).toString(), d.value(1).toString(), d.value(2).toULongLong()});
            }
            devicePicker()->setDevices(devices, parts.value(1).toInt());
            schedulePreflight();
            Q_EMIT devicesListed();
        });
}

QStringList TrainPage::presetNames() const
{
    QStringList names;
    for (const workspace::RunPresets::Preset &p : workspace::RunPresets::all())
        names << p.name;
    return names;
}

void TrainPage::listPresets(const QString &current)
{
    QStringList problems;
    const QList<workspace::RunPresets::Preset> presets = workspace::RunPresets::all(&problems);
    m_presetPicker->clear();
    m_presetPicker->addItem(tr("Choose a preset…"));
    for (const workspace::RunPresets::Preset &p : presets) {
        m_presetPicker->addItem(p.builtIn ? tr("%1 (built-in)").arg(p.name) : p.name, p.name);
        m_presetPicker->setItemData(m_presetPicker->count() - 1, p.builtIn ? p.description : QDir::toNativeSeparators(p.file),
                                    Qt::ToolTipRole);
        m_presetPicker->setItemData(m_presetPicker->count() - 1, p.builtIn, Qt::UserRole + 1);
    }
    m_presetPicker->setCurrentIndex(std::max(0, m_presetPicker->findData(current)));
    m_deletePreset->setEnabled(!current.isEmpty() && !m_presetPicker->currentData(Qt::UserRole + 1).toBool());
    if (!problems.isEmpty())
        m_presetInfo->setText(tr("Some saved presets cannot be read: %1").arg(problems.join(QLatin1Char('\n'))));
}

void TrainPage::presetChosen()
{
    const QString name = m_presetPicker->currentData().toString();
    if (!name.isEmpty())
        applyPreset(name);
}

bool TrainPage::applyPreset(const QString &name)
{
    for (const workspace::RunPresets::Preset &p : workspace::RunPresets::all()) {
        if (p.name != name)
            continue;
        applyConfig(p.config);
        const engine::ModelSpec spec = m_modelSpec ? m_modelSpec() : engine::ModelSpec();
        QStringList info;
        if (!p.description.isEmpty())
            info << p.description;
        if (p.wantsPretrained && spec.weightsPath.empty())
            info << tr("It expects pretrained weights, but the Model page trains from scratch: choose model-zoo "
                       "weights or a weights file there.");
        if (p.wantsScratch && !spec.weightsPath.empty())
            info << tr("It starts from random weights, but the Model page has pretrained weights chosen: choose "
                       "\"From scratch\" there, or the run fine-tunes them.");
        m_presetInfo->setText(info.join(QLatin1Char('\n')));
        listPresets(name);
        m_status->setText(tr("Preset \"%1\" applied.").arg(name));
        return true;
    }
    m_status->setText(tr("There is no preset \"%1\".").arg(name));
    return false;
}

QString TrainPage::savePreset(const QString &name)
{
    const QString problem = workspace::RunPresets::save(name, runConfig());
    if (problem.isEmpty()) {
        listPresets(name.trimmed());
        m_presetInfo->setText(tr("Saved in %1.").arg(QDir::toNativeSeparators(workspace::RunPresets::folder())));
    }
    return problem;
}

QString TrainPage::deletePreset(const QString &name)
{
    const QString problem = workspace::RunPresets::remove(name);
    if (problem.isEmpty()) {
        listPresets();
        m_presetInfo->clear();
    }
    return problem;
}

void TrainPage::schedulePreflight()
{
    m_preflightTimer->start();
}

void TrainPage::runPreflight()
{
    const QString problem = preflight();
    m_preflight->setText(problem.isEmpty() ? tr("Ready to start on %1.").arg(devicePicker()->chosenDescription())
                                           : tr("Not ready: %1").arg(problem));
    engine::RunConfig config;
    try {
        config = engine::parseRunConfig(runConfig());
    } catch (const engine::EngineError &) {
        m_memory->setText(tr("Memory: correct the settings first."));
        m_memoryTotal = -1;
        m_memoryWarning = false;
        Q_EMIT preflightUpdated();
        return;
    }
    if (m_classes <= 0) {
        m_memory->setText(tr("Memory: choose a converted dataset to estimate it."));
        m_memoryTotal = -1;
        m_memoryWarning = false;
        Q_EMIT preflightUpdated();
        return;
    }
    // Only the model, the input and the precision need a new measurement (batch and optimiser
    // are scaled from the measured parts).
    const nlohmann::json full = engine::runConfigToJson(config);
    const std::string key = nlohmann::json{{"model", full["model"]}, {"image_size", config.data.imageSize},
                                           {"precision", config.precision == "fp32" ? "fp32" : "16-bit"}, {"classes", m_classes}}
                                .dump();
    if (key == m_memoryKey && m_measured) {
        showMemory();
        return;
    }
    m_memoryKey = key;
    m_measured.reset();
    m_memoryTotal = -1;
    m_memoryWarning = false;
    m_memory->setStyleSheet(QString());
    m_memory->setText(tr("Estimating the memory…"));
    const int generation = ++m_memoryGeneration;
    const int classes = m_classes;
    BackgroundTask::start(
        m_estimates, this,
        [config, classes]() -> QVariant { return QVariant::fromValue(engine::estimateTrainingMemory(config, classes)); },
        [this, generation](const QVariant &result) {
            if (generation != m_memoryGeneration)
                return;
            m_measured = result.value<engine::MemoryEstimate>();
            showMemory();
        },
        [this, generation](const QString &message) {
            if (generation != m_memoryGeneration)
                return;
            m_memory->setText(tr("Cannot estimate the memory: %1").arg(message));
            Q_EMIT preflightUpdated();
        });
}

void TrainPage::showMemory()
{
    engine::MemoryEstimate e = *m_measured;
    engine::RunConfig config;
    try {
        config = engine::parseRunConfig(runConfig());
    } catch (const engine::EngineError &) {
        return; // runPreflight says so on its next turn
    }
    engine::completeMemoryEstimate(e, config);
    const DevicePicker *devices = devicePicker();
    const bool cpu = devices->value().size() > 0 && devices->value()[0] == "cpu";
    const qint64 cache = cpu ? qint64(config.data.cacheMb) << 20 : 0; // the image cache lives in RAM
    m_memoryTotal = e.total + cache;
    const quint64 budget = devices->memoryPerRank();
    m_memoryWarning = budget > 0 && quint64(m_memoryTotal) > budget;
    QString text = tr("Memory per rank: about %1 — weights %2, gradients %3, optimiser state %4, activations %5 "
                      "(batch %6 at %7 px)")
                       .arg(bytesText(m_memoryTotal), bytesText(e.parameters + e.ema), bytesText(e.gradients),
                            bytesText(e.optimizerState), bytesText(e.activations))
                       .arg(e.batchSize)
                       .arg(e.imageSize);
    if (cache > 0)
        text += tr(", image cache %1").arg(bytesText(cache));
    text += budget > 0 ? tr("; available: %1 per rank.").arg(bytesText(qint64(budget))) : QStringLiteral(".");
    if (config.precision == "fp16")
        text += QLatin1Char(' ') + tr("fp16 measured as bf16 on the CPU (same width).");
    if (!cpu)
        text += QLatin1Char(' ') + tr("Add the CUDA context and cuDNN workspaces (often 0.5–1 GiB).");
    if (m_memoryWarning)
        text += QLatin1Char('\n') + tr("Warning: this is more than %1 has. Lower the batch size or the image size, train in "
                                        "bf16, or freeze more of the backbone on the Model page.")
                                         .arg(devices->chosenDescription());
    m_memory->setText(text);
    m_memory->setStyleSheet(m_memoryWarning ? QStringLiteral("color: #c0392b;") : QString());
    Q_EMIT preflightUpdated();
}

void TrainPage::setModelSpecProvider(std::function<engine::ModelSpec()> provider)
{
    m_modelSpec = std::move(provider);
}

void TrainPage::setProject(workspace::Project *project)
{
    m_project = project;
    m_restoring = true;
    if (project) {
        m_imageSize->setValue(project->meta(kImageSizeKey, QStringLiteral("0")).toInt());
        const nlohmann::json saved = nlohmann::json::parse(project->meta(kAugmentKey).toStdString(), nullptr, false);
        if (saved.is_array())
            m_editor->setSteps(saved);
        const nlohmann::json config = nlohmann::json::parse(project->meta(kConfigKey).toStdString(), nullptr, false);
        if (config.is_object())
            m_form->setValues(config);
    }
    m_restoring = false;
    updateButtons();
    refreshDatasets();
}

void TrainPage::refreshDatasets()
{
    const int generation = ++m_listGeneration;
    if (!m_project) {
        m_dataset->clear();
        m_preview->setDataset({});
        return;
    }
    const QString datasetsDir = m_project->datasetsDir();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [datasetsDir]() -> QVariant {
            QStringList folders;
            const QDir dir(datasetsDir);
            for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                if (QFileInfo::exists(dir.filePath(name) + QLatin1Char('/') + workspace::ShardManifest::fileName()))
                    folders.append(dir.filePath(name));
            return folders;
        },
        [this, generation](const QVariant &result) {
            if (generation != m_listGeneration || !m_project)
                return;
            const QString saved = m_project->meta(kDatasetKey);
            m_restoring = true;
            m_dataset->clear();
            for (const QString &folder : result.toStringList())
                m_dataset->addItem(QFileInfo(folder).fileName(), folder);
            const int index = m_dataset->findData(saved);
            m_dataset->setCurrentIndex(index >= 0 ? index : m_dataset->count() - 1);
            m_restoring = false;
            datasetChosen();
            Q_EMIT datasetsListed();
        });
}

void TrainPage::datasetChosen()
{
    if (m_restoring)
        return;
    const QString folder = m_dataset->currentData().toString();
    m_preview->setDataset(folder);
    save();
    Q_EMIT datasetChanged(folder);
    m_trainImages = 0;
    m_classes = 0;
    updatePreview();
    schedulePreflight();
    if (folder.isEmpty())
        return;
    const QString manifest = QDir(folder).filePath(workspace::ShardManifest::fileName());
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [manifest]() -> QVariant {
            const workspace::ShardManifest m = workspace::ShardManifest::read(manifest);
            return QVariantList{m.splitRecords(QStringLiteral("train")), int(m.classes.size())};
        },
        [this, folder](const QVariant &result) {
            if (folder != m_dataset->currentData().toString())
                return;
            m_trainImages = result.toList().value(0).toLongLong();
            m_classes = result.toList().value(1).toInt();
            updatePreview();
            schedulePreflight();
        });
}

void TrainPage::updatePreview()
{
    m_lrPreview->setConfig(runConfig(), m_trainImages);
}

void TrainPage::save()
{
    if (!m_project || m_restoring)
        return;
    m_project->setMeta(kDatasetKey, m_dataset->currentData().toString());
    m_project->setMeta(kImageSizeKey, QString::number(m_imageSize->value()));
    m_project->setMeta(kAugmentKey, QString::fromStdString(m_editor->steps().dump()));
    m_project->setMeta(kConfigKey, QString::fromStdString(m_form->values().dump()));
}

nlohmann::json TrainPage::runConfig() const
{
    engine::RunConfig base;
    if (m_modelSpec)
        base.model = m_modelSpec();
    nlohmann::json config = engine::runConfigToJson(base);
    config.merge_patch(m_form->values());
    config["data"]["shards"] = m_dataset->currentData().toString().toStdString();
    config["data"]["image_size"] = m_imageSize->value();
    config["data"]["augment"] = m_editor->steps();
    return config;
}

QString TrainPage::preflight() const
{
    if (!m_project)
        return tr("Open a project first.");
    if (m_job)
        return tr("A run is already going on.");
    const QString shards = m_dataset->currentData().toString();
    if (shards.isEmpty())
        return tr("Convert a dataset to shards on the Data page first.");
    if (!QFileInfo::exists(QDir(shards).filePath(workspace::ShardManifest::fileName())))
        return tr("%1 holds no dataset.json: convert the dataset again.").arg(QDir::toNativeSeparators(shards));
    const QStringList missing = devicePicker()->missingDevices();
    if (!missing.isEmpty())
        return tr("devices: %1 not on this machine; choose the devices to train on.").arg(missing.join(QStringLiteral(", ")));
    try {
        const engine::RunConfig config = engine::parseRunConfig(runConfig());
        engine::validateRunConfig(config);
        if (!config.model.weightsPath.empty() && !QFileInfo::exists(QString::fromStdString(config.model.weightsPath)))
            return tr("The weights file %1 is not there: download it on the Model page, or choose another source.")
                .arg(QString::fromStdString(config.model.weightsPath));
    } catch (const engine::EngineError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

bool TrainPage::startRun()
{
    const QString problem = preflight();
    if (!problem.isEmpty()) {
        showErrorWithHelp(m_status, tr("Cannot start: %1").arg(problem), QStringLiteral("training"));
        return false;
    }
    const nlohmann::json config = runConfig();
    const QString arch = QString::fromStdString(config["model"].value("arch", std::string("model")));
    const QString name = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) + QLatin1Char('-') + arch;
    startJob(QDir(m_project->runsDir()).filePath(name), false, config);
    return true;
}

bool TrainPage::resumeRun(const QString &runDir)
{
    if (m_job || !m_jobs)
        return false;
    startJob(runDir, true, {});
    // The curve so far, from the run folder, in front of what the resumed run adds.
    const std::string dir = runDir.toStdString();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [dir]() -> QVariant {
            QList<QJsonObject> events;
            for (const nlohmann::json &event : engine::readMetrics(dir))
                events.append(QJsonDocument::fromJson(QByteArray::fromStdString(event.dump())).object());
            return QVariant::fromValue(events);
        },
        [this, runDir](const QVariant &events) {
            if (runDir == m_runDir)
                m_curves->addEvents(events.value<QList<QJsonObject>>());
        });
    return true;
}

void TrainPage::applyConfig(const nlohmann::json &config)
{
    m_form->setValues(config);
    if (config.contains("data")) {
        const nlohmann::json &data = config["data"];
        if (data.contains("augment"))
            m_editor->setSteps(data["augment"]);
        if (data.contains("image_size") && data["image_size"].is_number_integer())
            m_imageSize->setValue(data["image_size"].get<int>());
    }
    m_tabs->setCurrentIndex(0);
}

void TrainPage::startJob(const QString &runDir, bool resume, const nlohmann::json &config)
{
    workspace::TrainJob::Params params;
    params.runDir = runDir;
    params.resume = resume;
    if (!resume) {
        params.config = engine::parseRunConfig(config);
        m_totalSteps = 0;
    }
    auto *job = new workspace::TrainJob(params);
    m_job = job;
    m_runDir = runDir;
    m_runStarted = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    m_curves->clear();
    m_log->clear();
    m_metrics->clear();
    connect(job, &workspace::TrainJob::eventsAvailable, this, &TrainPage::takeEvents, Qt::QueuedConnection);
    connect(job, &workspace::Job::finished, this, [this] { jobEnded(QStringLiteral("finished"), {}); });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) { jobEnded(QStringLiteral("failed"), message); });
    connect(job, &workspace::Job::cancelled, this, [this] { jobEnded(QStringLiteral("cancelled"), {}); });
    connect(job, &workspace::TrainJob::pausedChanged, this, &TrainPage::updateButtons);
    m_status->setText(resume ? tr("Resuming %1…").arg(QDir::toNativeSeparators(runDir))
                             : tr("Starting %1…").arg(QDir::toNativeSeparators(runDir)));
    m_tabs->setCurrentIndex(1);
    m_jobs->start(job);
    updateButtons();
    Q_EMIT runStarted(runDir);
}

void TrainPage::takeEvents()
{
    if (!m_job)
        return;
    const QList<QJsonObject> events = m_job->takeEvents();
    m_curves->addEvents(events);
    const QLocale locale;
    for (const QJsonObject &event : events) {
        const QString type = event.value(QStringLiteral("type")).toString();
        const qint64 step = event.value(QStringLiteral("step")).toVariant().toLongLong();
        const int epoch = event.value(QStringLiteral("epoch")).toInt();
        if (type == QLatin1String("step")) {
            const qint64 total = event.value(QStringLiteral("total_steps")).toVariant().toLongLong();
            if (total > 0)
                m_totalSteps = total;
            const double elapsed = QDateTime::currentMSecsSinceEpoch() / 1000.0 - m_runStarted;
            QString eta;
            if (m_totalSteps > 0 && step > 0)
                eta = tr(", about %1 left").arg(formatDuration(elapsed * double(m_totalSteps - step) / double(step)));
            m_status->setText(tr("Epoch %1, step %2 — loss %3, %4 images/s, input wait %5 %%6")
                                  .arg(epoch + 1)
                                  .arg(locale.toString(step))
                                  .arg(event.value(QStringLiteral("loss")).toDouble(), 0, 'f', 4)
                                  .arg(locale.toString(event.value(QStringLiteral("images_per_s")).toDouble(), 'f', 0))
                                  .arg(locale.toString(100 * event.value(QStringLiteral("input_wait_fraction")).toDouble(), 'f', 1))
                                  .arg(eta));
        } else if (type == QLatin1String("epoch")) {
            QStringList parts;
            parts << tr("Epoch %1").arg(epoch + 1);
            const auto add = [&](const char *key, const QString &label, double scale, int decimals) {
                const QJsonValue v = event.value(QLatin1String(key));
                if (v.isDouble())
                    parts << label.arg(locale.toString(scale * v.toDouble(), 'f', decimals));
            };
            add("train_loss", tr("train loss %1"), 1, 4);
            add("val_loss", tr("validation loss %1"), 1, 4);
            add("train_top1", tr("train top-1 %1 %"), 100, 2);
            add("val_top1", tr("validation top-1 %1 %"), 100, 2);
            add("val_top5", tr("top-5 %1 %"), 100, 2);
            m_metrics->setText(parts.join(QStringLiteral(" · ")));
        } else if (type == QLatin1String("log") || type == QLatin1String("checkpoint") || type == QLatin1String("resumed") ||
                   type == QLatin1String("overflow_skipped") || type == QLatin1String("failed")) {
            const auto number = [&event](const char *key) { return event.value(QLatin1String(key)).toVariant().toLongLong(); };
            QString line;
            if (type == QLatin1String("checkpoint"))
                line = tr("Checkpoint at step %1: %2")
                           .arg(number("step"))
                           .arg(QDir::toNativeSeparators(event.value(QStringLiteral("path")).toString()));
            else if (type == QLatin1String("resumed"))
                line = tr("Resumed at step %1.").arg(number("step"));
            else if (type == QLatin1String("overflow_skipped"))
                line = tr("Step %1 skipped: fp16 gradients overflowed (%2 skipped so far).")
                           .arg(number("step"))
                           .arg(number("skipped_total"));
            if (line.isEmpty()) { // log and failed carry a message
                QJsonObject rest = event;
                rest.remove(QStringLiteral("type"));
                rest.remove(QStringLiteral("time"));
                const QString message = rest.value(QStringLiteral("message")).toString();
                line = message.isEmpty() ? QString::fromUtf8(QJsonDocument(rest).toJson(QJsonDocument::Compact)) : message;
            }
            m_log->appendPlainText(line);
        }
    }
}

void TrainPage::jobEnded(const QString &state, const QString &message)
{
    takeEvents();
    const QString runDir = m_runDir;
    m_job = nullptr;
    if (state == QLatin1String("finished"))
        m_status->setText(tr("Finished: %1").arg(QDir::toNativeSeparators(runDir)));
    else if (state == QLatin1String("cancelled"))
        m_status->setText(tr("Stopped; a checkpoint was written, resume it from the Runs page: %1")
                              .arg(QDir::toNativeSeparators(runDir)));
    else
        showErrorWithHelp(m_status, tr("The run failed: %1").arg(message), QStringLiteral("training"));
    updateButtons();
    Q_EMIT runEnded(runDir, state);
}

void TrainPage::updateButtons()
{
    const bool running = m_job != nullptr;
    m_start->setEnabled(!running && m_project != nullptr);
    m_pause->setEnabled(running);
    m_stop->setEnabled(running);
    m_pause->setText(running && m_job->isPaused() ? tr("Resume") : tr("Pause"));
    schedulePreflight();
}

} // namespace lathe::ui
