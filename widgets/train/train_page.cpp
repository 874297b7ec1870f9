#include "train/train_page.h"

#include "common/background_task.h"
#include "common/help_links.h"
#include "engine/base/engine_error.h"
#include "engine/base/runtime_info.h"
#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "train/augmentation_editor.h"
#include "train/augmentation_preview_grid.h"
#include "train/device_picker.h"
#include "train/lr_finder_panel.h"
#include "train/lr_schedule_preview.h"
#include "train/preflight_panel.h"
#include "train/preset_panel.h"
#include "train/run_config_form.h"
#include "train/training_curves.h"
#include "train/training_live_panel.h"
#include "workspace/cross_validation_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/quick_recipe.h"
#include "workspace/run_presets.h"
#include "workspace/shard_manifest.h"
#include "workspace/train_job.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QThreadPool>
#include <QVBoxLayout>

#include <utility>

namespace lathe::ui {
namespace {

const QString kDatasetKey = QStringLiteral("train.dataset");
const QString kImageSizeKey = QStringLiteral("train.image_size");
const QString kAugmentKey = QStringLiteral("train.augment");
const QString kConfigKey = QStringLiteral("train.config");

// The sections of the run config this page's forms edit (data and model have their own controls),
// and single fields of others (SyncBatchNorm beside the devices: several machines are lathe-cli's).
const QStringList kFormSections = {QStringLiteral("optimizer"), QStringLiteral("schedule"), QStringLiteral("loss"),
                                   QStringLiteral("run"), QStringLiteral("checkpoints"), QStringLiteral("early_stopping"),
                                   QStringLiteral("ema"), QStringLiteral("feature_cache"), QStringLiteral("data"),
                                   QStringLiteral("cuda"), QStringLiteral("distributed.sync_batch_norm")};

// A new run folder's name: the start time and the backbone, e.g. 20250101-120000-resnet18.
QString newRunName(const nlohmann::json &config)
{
    return QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) + QLatin1Char('-') +
           QString::fromStdString(config["model"].value("arch", std::string("model")));
}

} // namespace

TrainPage::TrainPage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
{
    auto *heading = new QLabel(tr("Train"), this);
    heading->setObjectName(QStringLiteral("pageTitle"));
    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(QStringLiteral("startButton"));
    m_start->setToolTip(tr("Check the settings, then train the model chosen on the Model page in a new run folder."));
    m_pause = new QPushButton(tr("Pause"), this);
    m_pause->setToolTip(tr("Pause between two optimizer steps; press again to continue."));
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(tr("Stop after the current step. A checkpoint is written first, so the run can be resumed "
                          "from the Runs page."));
    m_folds = new QSpinBox(this);
    m_folds->setObjectName(QStringLiteral("crossValidationFolds"));
    m_folds->setRange(2, 20);
    m_folds->setValue(5);
    m_folds->setSuffix(tr(" folds"));
    m_folds->setToolTip(tr("How many folds Cross-Validate splits the training images into: one run per fold."));
    m_crossValidate = new QPushButton(tr("Cross-Validate"), this);
    m_crossValidate->setObjectName(QStringLiteral("crossValidateButton"));
    m_crossValidate->setToolTip(
        tr("Check the settings, then train them once per fold, each run holding out one fold of the training images "
           "and scoring it: the metric's mean and spread over the folds, and out-of-fold predictions for the Data "
           "page's Suspected Label Errors tab. The same as lathe-cli train --folds K."));
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("trainStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cvLabel = new QLabel(this);
    m_cvLabel->setObjectName(QStringLiteral("crossValidationResult"));
    m_cvLabel->setWordWrap(true);
    m_cvLabel->setTextFormat(Qt::RichText);
    m_cvLabel->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                       Qt::LinksAccessibleByKeyboard);
    m_cvLabel->hide();

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(buildSetupTab(), tr("Setup"));
    m_live = new TrainingLivePanel(this);
    m_tabs->addTab(m_live, tr("Live"));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(heading);
    buttons->addStretch(1);
    buttons->addWidget(m_start);
    buttons->addSpacing(12);
    buttons->addWidget(m_folds);
    buttons->addWidget(m_crossValidate);
    buttons->addSpacing(12);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_stop);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_cvLabel);
    layout->addWidget(m_tabs, 1);

    // During a cross-validation the status line says the fold, from the job's progress.
    connect(m_live, &TrainingLivePanel::statusChanged, this, [this](const QString &text) {
        if (!m_cvJob)
            m_status->setText(text);
    });
    connect(m_start, &QPushButton::clicked, this, &TrainPage::startRun);
    connect(m_crossValidate, &QPushButton::clicked, this, &TrainPage::startCrossValidation);
    connect(m_cvLabel, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link == QLatin1String("continue"))
            resumeCrossValidation(m_cvDir);
    });
    connect(m_pause, &QPushButton::clicked, this, [this] {
        if (m_job) {
            if (m_job->isPaused())
                m_job->resumeRun();
            else
                m_job->pause();
        } else if (m_cvJob) {
            if (m_cvJob->isPaused())
                m_cvJob->resumeRun();
            else
                m_cvJob->pause();
        }
        updateButtons();
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (m_job)
            m_job->requestCancel();
        if (m_cvJob)
            m_cvJob->requestCancel();
        m_status->setText(tr("Stopping after the current step…"));
    });
    setProject(nullptr);
    m_presets->list();
    findDevices();
}

// Two columns at the top (what to train on | whether it can start), then the forms (their groups
// wrap into as many columns as the width holds; the advanced ones collapsed), the learning-rate
// curve and the augmentation with its preview: nothing wider than a 1280-pixel screen.
QWidget *TrainPage::buildSetupTab()
{
    m_presets = new PresetPanel(this);
    connect(m_presets, &PresetPanel::presetChosen, this, &TrainPage::applyPreset);
    connect(m_presets, &PresetPanel::saveRequested, this, [this](const QString &name) {
        const QString problem = savePreset(name);
        if (!problem.isEmpty())
            m_status->setText(tr("The preset was not saved: %1").arg(problem));
    });
    connect(m_presets, &PresetPanel::deleteRequested, this, [this](const QString &name) {
        const QString problem = deletePreset(name);
        if (!problem.isEmpty())
            m_status->setText(problem);
    });
    connect(m_presets, &PresetPanel::resetRequested, this, [this] {
        applyConfig(engine::runConfigToJson(engine::RunConfig()));
        m_presets->list();
        m_presets->setInfo(QString());
        m_status->setText(tr("Every setting is back to its default."));
    });
    QWidget *data = buildDataGroup();
    m_preflight = new PreflightPanel(this);
    connect(m_preflight, &PreflightPanel::updated, this, &TrainPage::preflightUpdated);
    connect(m_preflight, &PreflightPanel::nextStepRequested, this, [this](PreflightProblem::NextStep step) {
        if (step == PreflightProblem::NextStep::ConvertShards)
            Q_EMIT convertRequested();
        else if (step == PreflightProblem::NextStep::TrainFromScratch)
            Q_EMIT fromScratchRequested();
    });
    connect(m_preflight, &PreflightPanel::recipeRequested, this, [this] { Q_EMIT recipeRequested(workspace::quickCpuRecipe()); });
    QWidget *augment = buildAugmentationGroup();

    m_form = new RunConfigForm(kFormSections, this);
    connect(m_form, &RunConfigForm::valuesChanged, this, [this] {
        updatePreview();
        save();
        schedulePreflight();
    });
    connect(m_form->devicePicker(), &DevicePicker::changed, this, &TrainPage::schedulePreflight);
    m_preflight->setSources([this] { return preflightProblem(); }, [this] { return runConfig(); }, m_form->devicePicker());
    // Reset to Defaults is enabled while any setting differs from the defaults.
    const auto settingsChanged = [this] { m_presets->setSettings(runConfig()); };
    connect(m_form, &RunConfigForm::valuesChanged, this, settingsChanged);
    connect(m_editor, &AugmentationEditor::stepsChanged, this, settingsChanged);
    connect(m_imageSize, &QSpinBox::valueChanged, this, settingsChanged);
    settingsChanged();

    m_lrPreview = new LrSchedulePreview(this);
    auto *schedule = new QGroupBox(tr("Learning rate over the run"), this);
    auto *scheduleLayout = new QVBoxLayout(schedule);
    scheduleLayout->addWidget(m_lrPreview);

    // The range test of the settings Start would use; Use puts its suggestion into the form.
    m_lrFinder = new LrFinderPanel(m_jobs, this);
    m_lrFinder->setSources([this] { return runConfig(); }, [this] { return preflight(); });
    connect(m_lrFinder, &LrFinderPanel::learningRateChosen, this, [this](double lr) {
        m_form->setValues({{"optimizer", {{"lr", lr}}}});
        m_status->setText(tr("Learning rate set to %1 from the finder.").arg(LrFinderPanel::formatLr(lr)));
    });
    connect(m_lrFinder, &LrFinderPanel::started, this, &TrainPage::updateButtons);
    connect(m_lrFinder, &LrFinderPanel::ended, this, &TrainPage::updateButtons);
    auto *learningRate = new QHBoxLayout;
    learningRate->addWidget(schedule, 1);
    learningRate->addWidget(m_lrFinder, 1);

    auto *top = new QHBoxLayout;
    auto *topLeft = new QVBoxLayout;
    topLeft->addWidget(m_presets);
    topLeft->addWidget(data);
    top->addLayout(topLeft, 1);
    top->addWidget(m_preflight, 1);

    auto *setup = new QWidget(this);
    auto *setupLayout = new QVBoxLayout(setup);
    setupLayout->addLayout(top);
    setupLayout->addWidget(m_form); // the basic settings first, the advanced ones collapsed
    setupLayout->addLayout(learningRate);
    setupLayout->addWidget(augment);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(setup);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

QWidget *TrainPage::buildDataGroup()
{
    auto *group = new QGroupBox(tr("Data"), this);
    m_dataset = new QComboBox(group);
    m_dataset->setObjectName(QStringLiteral("trainDataset"));
    m_dataset->setToolTip(tr("A dataset converted to shards on the Data page."));
    m_imageSize = new QSpinBox(group);
    m_imageSize->setRange(0, 1024);
    m_imageSize->setSingleStep(16);
    m_imageSize->setSpecialValueText(tr("backbone default"));
    m_imageSize->setSuffix(tr(" px"));
    m_imageSize->setToolTip(tr("Side of the square images the model is trained on; the lowest value uses the "
                               "backbone's default (224 for most)."));
    auto *form = new QFormLayout(group);
    form->addRow(tr("Shards:"), m_dataset);
    form->addRow(tr("Image size:"), m_imageSize);

    connect(m_dataset, &QComboBox::currentIndexChanged, this, &TrainPage::datasetChosen);
    connect(m_imageSize, &QSpinBox::valueChanged, this, [this](int size) {
        m_preview->setImageSize(size > 0 ? size : 224);
        save();
        schedulePreflight();
    });
    return group;
}

QWidget *TrainPage::buildAugmentationGroup()
{
    auto *group = new QGroupBox(tr("Augmentation"), this);
    m_editor = new AugmentationEditor(group);
    m_editor->setWhatsThis(tr("<p><b>Augmentation</b></p><p>The steps applied to every training image, in order, each "
                              "with the chance p that it is applied. Their parameters mean what torchvision's "
                              "transforms of the same name mean (random_resized_crop's scale and ratio, "
                              "color_jitter's brightness, …). Evaluation never augments: it resizes and crops the "
                              "centre. Mixup and CutMix act on whole batches and are not shown in the preview.</p>"));
    m_preview = new AugmentationPreviewGrid(group);
    m_preview->setWhatsThis(tr("<p><b>Preview</b></p><p>The same eight training images through the current steps, as "
                               "the model will see them. Re-roll draws new random parameters.</p>"));
    m_preview->setSteps(m_editor->steps());
    m_augmentLayout = new QBoxLayout(QBoxLayout::TopToBottom, group);
    m_augmentLayout->addWidget(m_editor, 1);
    m_augmentLayout->addWidget(m_preview);

    connect(m_editor, &AugmentationEditor::stepsChanged, this, [this](const nlohmann::json &steps) {
        m_preview->setSteps(steps);
        save();
        schedulePreflight();
    });
    return group;
}

DevicePicker *TrainPage::devicePicker() const
{
    return m_form->devicePicker();
}

TrainingCurves *TrainPage::curves() const
{
    return m_live->curves();
}

QComboBox *TrainPage::presetPicker() const
{
    return m_presets->picker();
}

QLabel *TrainPage::preflightLabel() const
{
    return m_preflight->checkLabel();
}

QLabel *TrainPage::memoryLabel() const
{
    return m_preflight->memoryLabel();
}

qint64 TrainPage::memoryEstimate() const
{
    return m_preflight->memoryEstimate();
}

bool TrainPage::memoryWarning() const
{
    return m_preflight->memoryWarning();
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
        m_presets->setInfo(info.join(QLatin1Char('\n')));
        m_presets->list(name);
        m_status->setText(tr("Preset \"%1\" applied.").arg(name));
        return true;
    }
    m_status->setText(tr("There is no preset \"%1\".").arg(name));
    return false;
}

QString TrainPage::savePreset(const QString &name)
{
    return m_presets->save(name, runConfig());
}

QString TrainPage::deletePreset(const QString &name)
{
    return m_presets->remove(name);
}

void TrainPage::modelChanged()
{
    m_presets->setSettings(runConfig());
    schedulePreflight();
}

void TrainPage::schedulePreflight()
{
    m_preflight->schedule();
}

void TrainPage::setModelSpecProvider(std::function<engine::ModelSpec()> provider)
{
    m_modelSpec = std::move(provider);
}

void TrainPage::setProject(workspace::Project *project)
{
    m_project = project;
    if (!m_cvJob) { // the last cross-validation was the previous project's
        m_cvDir.clear();
        m_cvResult.reset();
        m_cvLabel->clear();
        m_cvLabel->hide();
    }
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
    m_preflight->setDataset({});
    updatePreview();
    schedulePreflight();
    if (folder.isEmpty())
        return;
    const QString manifest = QDir(folder).filePath(workspace::ShardManifest::fileName());
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [manifest]() -> QVariant { return QVariant::fromValue(workspace::ShardManifest::read(manifest)); },
        [this, folder](const QVariant &result) {
            if (folder != m_dataset->currentData().toString())
                return;
            const auto m = result.value<workspace::ShardManifest>();
            m_trainImages = m.splitRecords(QStringLiteral("train"));
            m_preflight->setDataset(m);
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
    return preflightProblem().reason;
}

PreflightProblem TrainPage::preflightProblem() const
{
    using Next = PreflightProblem::NextStep;
    if (!m_project)
        return {tr("Open a project first."), Next::None};
    if (m_job)
        return {tr("A run is already going on."), Next::None};
    if (m_cvJob)
        return {tr("A cross-validation is going on."), Next::None};
    if (m_lrFinder && m_lrFinder->isRunning())
        return {tr("The learning-rate finder is running: wait for it or cancel it."), Next::None};
    const QString shards = m_dataset->currentData().toString();
    if (shards.isEmpty())
        return {tr("there are no shards to train on yet: convert a dataset to shards on the Data page first."),
                Next::ConvertShards};
    if (!QFileInfo::exists(QDir(shards).filePath(workspace::ShardManifest::fileName())))
        return {tr("%1 holds no dataset.json: convert the dataset again.").arg(QDir::toNativeSeparators(shards)),
                Next::ConvertShards};
    const QStringList missing = devicePicker()->missingDevices();
    if (!missing.isEmpty())
        return {tr("devices: %1 not on this machine; choose the devices to train on.").arg(missing.join(QStringLiteral(", "))),
                Next::None};
    try {
        const engine::RunConfig config = engine::parseRunConfig(runConfig());
        engine::validateRunConfig(config);
        if (!config.model.weightsPath.empty() && !QFileInfo::exists(QString::fromStdString(config.model.weightsPath)))
            return {tr("The weights file %1 is not there: download it on the Model page, or choose another source.")
                        .arg(QString::fromStdString(config.model.weightsPath)),
                    Next::TrainFromScratch};
    } catch (const engine::EngineError &e) {
        return {QString::fromUtf8(e.what()), Next::None};
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
    startJob(QDir(m_project->runsDir()).filePath(newRunName(config)), false, config);
    return true;
}

bool TrainPage::resumeRun(const QString &runDir)
{
    if (isBusy() || !m_jobs)
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
                m_live->curves()->addEvents(events.value<QList<QJsonObject>>());
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
    if (!resume)
        params.config = engine::parseRunConfig(config);
    auto *job = new workspace::TrainJob(params);
    m_job = job;
    m_runDir = runDir;
    m_live->startRun(resume);
    connect(job, &workspace::TrainJob::eventsAvailable, this, &TrainPage::takeEvents, Qt::QueuedConnection);
    // The run's state as its end event in metrics.jsonl names it.
    connect(job, &workspace::Job::finished, this,
            [this] { jobEnded(QString::fromLatin1(engine::event_type::kFinished), {}); });
    connect(job, &workspace::Job::failed, this,
            [this](const QString &message) { jobEnded(QString::fromLatin1(engine::event_type::kFailed), message); });
    connect(job, &workspace::Job::cancelled, this,
            [this] { jobEnded(QString::fromLatin1(engine::event_type::kCancelled), {}); });
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
    if (m_job)
        m_live->addEvents(m_job->takeEvents());
}

void TrainPage::takeCrossValidationEvents()
{
    if (!m_cvJob)
        return;
    // Each fold is a run of its own: its curves start afresh at the log event naming it.
    QList<QJsonObject> fold;
    for (const QJsonObject &event : m_cvJob->takeEvents()) {
        if (event.value(QLatin1String(engine::event_key::kFold)).toInt() > 0) {
            m_live->addEvents(std::exchange(fold, {}));
            m_live->startRun(false);
        }
        fold.append(event);
    }
    m_live->addEvents(fold);
}

void TrainPage::jobEnded(const QString &state, const QString &message)
{
    takeEvents();
    const QString runDir = m_runDir;
    m_job = nullptr;
    if (state == QLatin1String(engine::event_type::kFinished))
        m_status->setText(tr("Finished: %1").arg(QDir::toNativeSeparators(runDir)));
    else if (state == QLatin1String(engine::event_type::kCancelled))
        m_status->setText(tr("Stopped; a checkpoint was written, resume it from the Runs page: %1")
                              .arg(QDir::toNativeSeparators(runDir)));
    else
        showErrorWithHelp(m_status, tr("The run failed: %1").arg(message), QStringLiteral("training"));
    updateButtons();
    Q_EMIT runEnded(runDir, state);
}

bool TrainPage::isBusy() const
{
    return m_job || m_cvJob;
}

void TrainPage::updateButtons()
{
    const bool running = isBusy();
    const bool canStart = !running && m_project != nullptr && !m_lrFinder->isRunning();
    m_start->setEnabled(canStart);
    m_crossValidate->setEnabled(canStart);
    m_folds->setEnabled(!running);
    m_lrFinder->setBlocked(running ? tr("A run is training; find the learning rate when it has ended.") : QString());
    m_pause->setEnabled(running);
    m_stop->setEnabled(running);
    const bool paused = (m_job && m_job->isPaused()) || (m_cvJob && m_cvJob->isPaused());
    m_pause->setText(paused ? tr("Resume") : tr("Pause"));
    schedulePreflight();
}

bool TrainPage::startCrossValidation()
{
    const QString problem = preflight();
    if (!problem.isEmpty()) {
        showErrorWithHelp(m_status, tr("Cannot start: %1").arg(problem), QStringLiteral("training"));
        return false;
    }
    const int folds = m_folds->value();
    if (m_trainImages > 0 && m_trainImages < folds) {
        showErrorWithHelp(m_status,
                          tr("Cannot start: %1")
                              .arg(tr("%1 training images cannot be split into %2 folds.").arg(m_trainImages).arg(folds)),
                          QStringLiteral("training"));
        return false;
    }
    const nlohmann::json config = runConfig();
    // As a run is named, with the fold count: 20250101-120000-resnet18-cv5.
    const QString name = newRunName(config) + QStringLiteral("-cv") + QString::number(folds);
    startCrossValidationJob(QDir(m_project->runsDir()).filePath(name), false, config, folds);
    return true;
}

bool TrainPage::resumeCrossValidation(const QString &foldsDir)
{
    if (isBusy() || !m_jobs || !m_project || foldsDir.isEmpty())
        return false;
    if (m_lrFinder->isRunning()) {
        m_status->setText(tr("The learning-rate finder is running: wait for it or cancel it."));
        return false;
    }
    startCrossValidationJob(foldsDir, true, {}, 0);
    return true;
}

void TrainPage::startCrossValidationJob(const QString &foldsDir, bool resume, const nlohmann::json &config, int folds)
{
    workspace::CrossValidationJob::Params params;
    params.foldsDir = QDir::cleanPath(foldsDir);
    params.resume = resume;
    if (!resume) {
        params.config = engine::parseRunConfig(config);
        params.folds = folds;
    }
    auto *job = new workspace::CrossValidationJob(params);
    m_cvJob = job;
    m_cvDir = params.foldsDir;
    m_cvResult.reset();
    m_cvLabel->clear();
    m_cvLabel->hide();
    m_live->startRun(false);
    connect(job, &workspace::CrossValidationJob::eventsAvailable, this, &TrainPage::takeCrossValidationEvents,
            Qt::QueuedConnection);
    connect(job, &workspace::Job::progressChanged, this, [this, job](double, const QString &status) {
        if (job == m_cvJob && !status.isEmpty())
            m_status->setText(tr("Cross-validation: %1").arg(status));
    });
    connect(job, &workspace::Job::finished, this, [this](const QVariant &result) {
        crossValidationEndedWith(QString::fromLatin1(engine::event_type::kFinished), result, {});
    });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) {
        crossValidationEndedWith(QString::fromLatin1(engine::event_type::kFailed), {}, message);
    });
    connect(job, &workspace::Job::cancelled, this,
            [this] { crossValidationEndedWith(QString::fromLatin1(engine::event_type::kCancelled), {}, {}); });
    connect(job, &workspace::CrossValidationJob::pausedChanged, this, &TrainPage::updateButtons);
    m_status->setText(resume ? tr("Continuing the cross-validation in %1…").arg(QDir::toNativeSeparators(m_cvDir))
                             : tr("Starting %1-fold cross-validation in %2… (each fold is a run folder inside it; "
                                  "the Live tab draws the fold being trained)")
                                   .arg(folds)
                                   .arg(QDir::toNativeSeparators(m_cvDir)));
    m_tabs->setCurrentIndex(1);
    m_jobs->start(job);
    updateButtons();
    Q_EMIT crossValidationStarted(m_cvDir);
}

void TrainPage::crossValidationEndedWith(const QString &state, const QVariant &result, const QString &message)
{
    takeCrossValidationEvents();
    const QString dir = m_cvDir;
    const QString shown = QDir::toNativeSeparators(dir).toHtmlEscaped();
    m_cvJob = nullptr;
    if (state == QLatin1String(engine::event_type::kFinished)) {
        const auto r = result.value<workspace::CrossValidationResult>();
        m_cvResult = r;
        QStringList perFold;
        for (double v : r.foldMetrics)
            perFold << QString::number(v, 'f', 3);
        const QString summary = tr("%1-fold cross-validation: %2 %3 ± %4 (folds: %5)")
                                    .arg(r.folds)
                                    .arg(r.metric)
                                    .arg(QString::number(r.mean, 'f', 3))
                                    .arg(QString::number(r.std, 'f', 3))
                                    .arg(perFold.join(QStringLiteral(", ")));
        m_status->setText(tr("Cross-validation finished."));
        m_cvLabel->setText(tr("<b>%1</b> — %2<br>Its out-of-fold predictions are in this folder: the Data page's "
                              "Suspected Label Errors tab lists it, to find the images that are probably labelled "
                              "wrong. Each fold is a run folder inside it (fold-1 … fold-%3).")
                               .arg(summary.toHtmlEscaped(), shown)
                               .arg(r.folds));
    } else {
        // Only a folder with a fold run can be continued (a job stopped before its first fold has none).
        const bool resumable = QFileInfo::exists(QDir(dir).filePath(QStringLiteral("fold-1/config.json")));
        if (state == QLatin1String(engine::event_type::kCancelled)) {
            m_status->setText(tr("Cross-validation stopped: %1").arg(QDir::toNativeSeparators(dir)));
            m_cvLabel->setText(resumable ? tr("Cross-validation stopped in %1. <a href=\"continue\">Continue it</a>: "
                                              "the finished folds are kept and the stopped one resumes from its last "
                                              "checkpoint.")
                                               .arg(shown)
                                         : tr("Cross-validation stopped before its first fold started."));
        } else {
            showErrorWithHelp(m_status, tr("The cross-validation failed: %1").arg(message), QStringLiteral("training"));
            m_cvLabel->setText(resumable ? tr("Cross-validation failed in %1. <a href=\"continue\">Try again</a> "
                                              "(the finished folds are kept).")
                                               .arg(shown)
                                         : tr("Cross-validation failed in %1.").arg(shown));
        }
    }
    m_cvLabel->show();
    updateButtons();
    Q_EMIT crossValidationEnded(dir, state);
}

} // namespace lathe::ui
