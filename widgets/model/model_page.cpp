#include "model/model_page.h"

#include "common/background_task.h"
#include "common/help_links.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/model_summary.h"
#include "engine/run/run_config.h"
#include "model/backbone_table_model.h"
#include "model/stage_table_model.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/shard_manifest.h"
#include "workspace/weights_download_job.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

Q_DECLARE_METATYPE(lathe::engine::ModelSummary)

namespace lathe::ui {
namespace {

const QString kModelKey = QStringLiteral("model.spec");
const QString kDatasetKey = QStringLiteral("train.dataset"); // chosen on the Train page

using ZooList = std::vector<engine::ZooWeights>;

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::ZooList)

namespace lathe::ui {

ModelPage::ModelPage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
    , m_cacheDir(workspace::defaultWeightsCacheDir())
    , m_backboneModel(new BackboneTableModel(this))
    , m_backboneSort(new QSortFilterProxyModel(this))
    , m_stageModel(new StageTableModel(this))
    , m_backbones(new QTableView(this))
    , m_facts(new QLabel(this))
    , m_sourceGroup(new QButtonGroup(this))
    , m_zooWeights(new QComboBox(this))
    , m_weightsStatus(new QLabel(this))
    , m_download(new QPushButton(tr("Download"), this))
    , m_scratchInstead(new QPushButton(tr("Train from Scratch Instead"), this))
    , m_import(new QPushButton(tr("Import Weights File…"), this))
    , m_weightsFile(new QLineEdit(this))
    , m_browse(new QPushButton(tr("Browse…"), this))
    , m_classes(new QLabel(this))
    , m_dropout(new QDoubleSpinBox(this))
    , m_hidden(new QSpinBox(this))
    , m_policy(new QComboBox(this))
    , m_frozenStages(new QSpinBox(this))
    , m_freezeBatchNorm(new QCheckBox(tr("Freeze BatchNorm statistics"), this))
    , m_unfreezeEvery(new QSpinBox(this))
    , m_stages(new QTableView(this))
    , m_summary(new QLabel(this))
{
    auto *heading = new QLabel(tr("Model"), this);
    heading->setObjectName(QStringLiteral("pageTitle"));

    buildBackbones();

    m_facts->setObjectName(QStringLiteral("modelFacts"));
    m_facts->setWordWrap(true);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // Weights
    auto *zooButton = new QRadioButton(tr("Pretrained (model zoo)"), this);
    auto *fileButton = new QRadioButton(tr("From a file"), this);
    auto *scratchButton = new QRadioButton(tr("From scratch (random initialisation)"), this);
    zooButton->setToolTip(tr("torchvision's ImageNet weights, downloaded once into the cache and checked against "
                             "their published SHA-256."));
    fileButton->setToolTip(tr("A safetensors file or a PyTorch state dict (.pth) with torchvision's parameter "
                              "names, e.g. a checkpoint of an earlier run."));
    scratchButton->setToolTip(tr("No pretrained weights: needs much more data and training time."));
    m_sourceGroup->addButton(zooButton, Zoo);
    m_sourceGroup->addButton(fileButton, File);
    m_sourceGroup->addButton(scratchButton, Scratch);
    zooButton->setChecked(true);
    m_zooWeights->setToolTip(tr("The weights torchvision publishes for this backbone, with their ImageNet top-1."));
    m_weightsStatus->setObjectName(QStringLiteral("weightsStatus"));
    m_weightsStatus->setWordWrap(true);
    m_download->setToolTip(tr("Download the chosen weights into the cache (resumable, verified)."));
    m_import->setToolTip(tr("Take a weights file downloaded elsewhere: it is verified against the catalog and "
                            "copied into the cache."));
    m_weightsFile->setPlaceholderText(tr("Path to a .safetensors or .pth file"));
    auto *weights = new QGroupBox(tr("Weights"), this);
    auto *weightsLayout = new QGridLayout(weights);
    weightsLayout->addWidget(zooButton, 0, 0);
    weightsLayout->addWidget(m_zooWeights, 0, 1);
    weightsLayout->addWidget(m_download, 0, 2);
    weightsLayout->addWidget(m_weightsStatus, 1, 1, 1, 2);
    auto *weightsActions = new QHBoxLayout;
    weightsActions->addWidget(m_import);
    weightsActions->addWidget(m_scratchInstead);
    weightsActions->addStretch(1);
    weightsLayout->addLayout(weightsActions, 2, 1, 1, 2);
    weightsLayout->addWidget(fileButton, 3, 0);
    weightsLayout->addWidget(m_weightsFile, 3, 1);
    weightsLayout->addWidget(m_browse, 3, 2);
    weightsLayout->addWidget(scratchButton, 4, 0, 1, 3);
    weightsLayout->setColumnStretch(1, 1);

    // Head
    m_dropout->setRange(-0.01, 0.9);
    m_dropout->setSingleStep(0.05);
    m_dropout->setDecimals(2);
    m_dropout->setSpecialValueText(tr("backbone default"));
    m_dropout->setValue(-0.01);
    m_dropout->setToolTip(tr("Dropout before the final layer; the lowest value keeps the backbone's own."));
    m_hidden->setRange(0, 4096);
    m_hidden->setSingleStep(64);
    m_hidden->setSpecialValueText(tr("none"));
    m_hidden->setToolTip(tr("Units of an extra hidden layer (Linear, ReLU, Dropout) before the final layer; "
                            "none keeps torchvision's head."));
    auto *head = new QGroupBox(tr("Head"), this);
    auto *headForm = new QFormLayout(head);
    headForm->addRow(tr("Classes:"), m_classes);
    headForm->addRow(tr("Dropout:"), m_dropout);
    headForm->addRow(tr("Hidden layer:"), m_hidden);

    // Freezing
    m_policy->addItem(tr("Train everything"), int(engine::FreezePolicy::TrainAll));
    m_policy->addItem(tr("Train the head only"), int(engine::FreezePolicy::HeadOnly));
    m_policy->addItem(tr("Freeze up to a stage"), int(engine::FreezePolicy::UpToStage));
    m_policy->setObjectName(QStringLiteral("freezePolicy"));
    m_policy->setWhatsThis(tr("<p><b>Freezing</b></p><p><i>Train everything</i> fine-tunes every layer. <i>Train the "
                              "head only</i> keeps the pretrained backbone fixed and trains the classifier: fast, "
                              "and best with few images. <i>Freeze up to a stage</i> keeps the first stages fixed. "
                              "Frozen BatchNorm keeps its running statistics; a stage can also be unfrozen every "
                              "few epochs (gradual unfreezing). The table below lists what trains.</p>"));
    m_policy->setToolTip(tr("Which layers learn. With few images per class, training the head only (or the "
                            "last stages) is fast and avoids overfitting."));
    m_frozenStages->setRange(1, 1);
    m_frozenStages->setToolTip(tr("How many stages, counted from the input, stay frozen."));
    m_freezeBatchNorm->setToolTip(tr("Keep the running mean and variance of every BatchNorm layer as the "
                                     "pretrained weights have them (BatchNorm layers in frozen stages always keep "
                                     "them)."));
    m_unfreezeEvery->setRange(0, 1000);
    m_unfreezeEvery->setSpecialValueText(tr("off"));
    m_unfreezeEvery->setSuffix(tr(" epochs"));
    m_unfreezeEvery->setToolTip(tr("Gradual unfreezing: every this many epochs one more frozen stage, from the "
                                   "head down, starts training."));
    auto *freezing = new QGroupBox(tr("Freezing"), this);
    auto *freezeForm = new QFormLayout(freezing);
    freezeForm->addRow(tr("Policy:"), m_policy);
    freezeForm->addRow(tr("Frozen stages:"), m_frozenStages);
    freezeForm->addRow(QString(), m_freezeBatchNorm);
    freezeForm->addRow(tr("Unfreeze one stage every:"), m_unfreezeEvery);

    m_stages->setModel(m_stageModel);
    m_stages->setObjectName(QStringLiteral("stageTable"));
    m_stages->verticalHeader()->hide();
    m_stages->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_stages->horizontalHeader()->setStretchLastSection(true);
    m_stages->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_summary->setObjectName(QStringLiteral("trainableSummary"));
    m_summary->setWordWrap(true);

    auto *details = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_facts);
    detailsLayout->addWidget(weights);
    detailsLayout->addWidget(head);
    detailsLayout->addWidget(freezing);
    detailsLayout->addWidget(m_stages, 1);
    detailsLayout->addWidget(m_summary);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(details);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_backbones);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addWidget(heading);
    layout->addWidget(splitter, 1);

    connect(m_backbones->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ModelPage::backboneChosen);
    connect(m_sourceGroup, &QButtonGroup::idClicked, this, &ModelPage::changed);
    // Offline, pretrained weights cannot be had: one click trains from random weights instead.
    m_scratchInstead->setObjectName(QStringLiteral("scratchInstead"));
    m_scratchInstead->setToolTip(tr("Start from random weights: no download needed, but it needs more data and epochs."));
    m_scratchInstead->hide();
    connect(m_scratchInstead, &QPushButton::clicked, this, [this] { setWeightsSource(Scratch); });
    connect(m_zooWeights, &QComboBox::currentIndexChanged, this, [this] {
        updateWeightsState();
        changed();
    });
    connect(m_weightsFile, &QLineEdit::editingFinished, this, &ModelPage::changed);
    connect(m_browse, &QPushButton::clicked, this, &ModelPage::browseWeights);
    connect(m_download, &QPushButton::clicked, this, &ModelPage::download);
    connect(m_import, &QPushButton::clicked, this, &ModelPage::importWeights);
    connect(m_dropout, &QDoubleSpinBox::valueChanged, this, &ModelPage::changed);
    connect(m_hidden, &QSpinBox::valueChanged, this, &ModelPage::changed);
    connect(m_policy, &QComboBox::currentIndexChanged, this, &ModelPage::changed);
    connect(m_frozenStages, &QSpinBox::valueChanged, this, &ModelPage::changed);
    connect(m_freezeBatchNorm, &QCheckBox::toggled, this, &ModelPage::changed);
    connect(m_unfreezeEvery, &QSpinBox::valueChanged, this, &ModelPage::changed);
    connect(m_stageModel, &StageTableModel::multiplierEdited, this, [this](const QString &stage, double multiplier) {
        const std::string name = stage.toStdString();
        m_multipliers.erase(std::remove_if(m_multipliers.begin(), m_multipliers.end(),
                                           [&](const auto &m) { return m.first == name; }),
                            m_multipliers.end());
        if (multiplier != 1.0)
            m_multipliers.emplace_back(name, multiplier);
        changed();
    });

    loadZoo();
    setArch(QStringLiteral("resnet18"));
    setProject(nullptr);
}

void ModelPage::buildBackbones()
{
    std::vector<BackboneTableModel::Row> rows;
    for (const engine::BackboneInfo &info : engine::backboneRegistry()) {
        BackboneTableModel::Row row;
        row.name = QString::fromStdString(info.name);
        row.family = QString::fromStdString(info.family);
        row.parameters = info.parameters;
        row.gflops = info.gflops;
        row.inputSize = info.inputSize;
        rows.push_back(row);
    }
    m_backboneModel->setRows(std::move(rows));
    m_backboneSort->setSourceModel(m_backboneModel);
    m_backboneSort->setSortRole(Qt::UserRole);
    m_backbones->setModel(m_backboneSort);
    m_backbones->setObjectName(QStringLiteral("backboneTable"));
    m_backbones->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_backbones->setSelectionMode(QAbstractItemView::SingleSelection);
    m_backbones->setSortingEnabled(true);
    m_backbones->sortByColumn(-1, Qt::AscendingOrder); // registry order until the user sorts
    m_backbones->verticalHeader()->hide();
    m_backbones->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_backbones->horizontalHeader()->setStretchLastSection(true);
}

void ModelPage::loadZoo()
{
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        []() -> QVariant { return QVariant::fromValue(engine::loadModelZoo(engine::findModelZooFile())); },
        [this](const QVariant &result) {
            m_zoo = result.value<ZooList>();
            std::vector<BackboneTableModel::Row> rows;
            for (int r = 0; r < m_backboneModel->rowCount(); ++r) {
                BackboneTableModel::Row row = m_backboneModel->row(r);
                if (const engine::ZooWeights *w = engine::defaultWeights(m_zoo, row.name.toStdString())) {
                    row.top1 = w->acc1;
                    row.weights = QFileInfo::exists(QDir(m_cacheDir).filePath(QString::fromStdString(
                                      engine::cacheFileName(*w))))
                                      ? BackboneTableModel::Cached
                                      : BackboneTableModel::Downloadable;
                }
                rows.push_back(row);
            }
            const QString current = arch();
            const QString zooId = m_zooWeights->currentData().toString();
            m_restoring = true;
            m_backboneModel->setRows(std::move(rows));
            setArch(current);
            m_restoring = false;
            applyArch(zooId.isEmpty() ? m_savedZooId : zooId);
        },
        [this](const QString &message) {
            m_weightsStatus->setText(tr("The model-zoo catalog cannot be read: %1").arg(message));
        });
}

void ModelPage::setWeightsCacheDir(const QString &folder)
{
    m_cacheDir = folder;
    loadZoo();
}

void ModelPage::setArch(const QString &name)
{
    const int r = m_backboneModel->indexOf(name);
    if (r < 0)
        return;
    const QModelIndex index = m_backboneSort->mapFromSource(m_backboneModel->index(r, 0));
    m_backbones->setCurrentIndex(index);
    m_backbones->selectRow(index.row());
}

QString ModelPage::arch() const
{
    const QModelIndex index = m_backboneSort->mapToSource(m_backbones->currentIndex());
    return index.isValid() ? m_backboneModel->row(index.row()).name : QString();
}

ModelPage::WeightsSource ModelPage::weightsSource() const
{
    return WeightsSource(m_sourceGroup->checkedId());
}

void ModelPage::setWeightsSource(WeightsSource source)
{
    m_sourceGroup->button(source)->setChecked(true);
    changed();
}

void ModelPage::applyModelConfig(const nlohmann::json &model)
{
    if (model.contains("arch") && model["arch"].is_string())
        setArch(QString::fromStdString(model["arch"].get<std::string>()));
    if (model.contains("weights") && model["weights"] == "")
        setWeightsSource(Scratch);
}

QRadioButton *ModelPage::sourceButton(WeightsSource source) const
{
    return qobject_cast<QRadioButton *>(m_sourceGroup->button(source));
}

const engine::ZooWeights *ModelPage::chosenZooWeights() const
{
    return engine::findWeights(m_zoo, arch().toStdString(), m_zooWeights->currentData().toString().toStdString());
}

void ModelPage::backboneChosen()
{
    if (m_restoring)
        return;
    m_multipliers.clear(); // stage names differ between backbones
    applyArch({});
    changed();
}

void ModelPage::applyArch(const QString &zooId)
{
    const std::string name = arch().toStdString();
    if (name.empty())
        return;
    const engine::BackboneInfo &info = engine::backboneInfo(name);
    const bool restoring = m_restoring;
    m_restoring = true;
    m_zooWeights->clear();
    for (const engine::ZooWeights &w : m_zoo)
        if (w.arch == name)
            m_zooWeights->addItem(tr("%1 (top-1 %2 %)").arg(QString::fromStdString(w.id)).arg(w.acc1, 0, 'f', 1),
                                  QString::fromStdString(w.id));
    int zooIndex = m_zooWeights->findData(zooId);
    if (const engine::ZooWeights *d = engine::defaultWeights(m_zoo, name); zooIndex < 0 && d)
        zooIndex = m_zooWeights->findData(QString::fromStdString(d->id));
    m_zooWeights->setCurrentIndex(zooIndex);
    m_frozenStages->setRange(1, int(info.stages.size()) - 1);
    m_restoring = restoring;
    updateFacts();
    updateWeightsState();
}

void ModelPage::updateFacts()
{
    const std::string name = arch().toStdString();
    if (name.empty())
        return;
    const engine::BackboneInfo &info = engine::backboneInfo(name);
    const QLocale locale;
    QStringList lines;
    lines << tr("<b>%1</b> — %2").arg(QString::fromStdString(info.name), QString::fromStdString(info.family));
    lines << tr("%1 parameters, %2 GFLOPs at %3 × %3; evaluation resizes to %4 and crops %3 (%5).")
                 .arg(locale.toString(qlonglong(info.parameters)), locale.toString(info.gflops, 'f', 2))
                 .arg(info.inputSize)
                 .arg(info.resizeSize)
                 .arg(QString::fromStdString(info.interpolation));
    if (const engine::ZooWeights *w = engine::defaultWeights(m_zoo, name))
        lines << tr("Default weights: ImageNet top-1 %1 %, top-5 %2 %, licence %3.")
                     .arg(locale.toString(w->acc1, 'f', 2), locale.toString(w->acc5, 'f', 2),
                          QString::fromStdString(w->license));
    if (!info.convolutional)
        lines << tr("A transformer: Grad-CAM is not available for it.");
    m_facts->setText(lines.join(QStringLiteral("<br>")));
}

void ModelPage::updateWeightsState()
{
    m_scratchInstead->hide(); // a failed download's offer; its cause is gone once the state is new
    const engine::ZooWeights *w = chosenZooWeights();
    if (!w) {
        m_weightsStatus->setText(m_zoo.empty() ? tr("The model-zoo catalog is not loaded.")
                                               : tr("The catalog has no weights for this backbone."));
        m_download->setEnabled(false);
        return;
    }
    const QString path = QDir(m_cacheDir).filePath(QString::fromStdString(engine::cacheFileName(*w)));
    const bool cached = QFileInfo::exists(path);
    m_download->setEnabled(!cached);
    m_weightsStatus->setText(cached ? tr("In the cache: %1").arg(QDir::toNativeSeparators(path))
                                    : tr("Not downloaded yet (%1).").arg(QString::fromStdString(w->url)));
    m_backboneModel->setWeightsState(QString::fromStdString(w->arch),
                                     cached ? BackboneTableModel::Cached : BackboneTableModel::Downloadable);
}

engine::ModelSpec ModelPage::spec() const
{
    engine::ModelSpec s;
    s.arch = arch().toStdString();
    s.head.numClasses = m_numClasses; // 0: the dataset's, resolved when training starts
    s.head.dropout = m_dropout->value() < 0 ? -1 : m_dropout->value();
    s.head.hiddenUnits = m_hidden->value();
    switch (weightsSource()) {
    case Zoo:
        if (const engine::ZooWeights *w = chosenZooWeights())
            s.weightsPath = QDir(m_cacheDir).filePath(QString::fromStdString(engine::cacheFileName(*w))).toStdString();
        break;
    case File:
        s.weightsPath = m_weightsFile->text().trimmed().toStdString();
        break;
    case Scratch:
        break;
    }
    s.freeze.policy = engine::FreezePolicy(m_policy->currentData().toInt());
    s.freeze.frozenStages = s.freeze.policy == engine::FreezePolicy::UpToStage ? m_frozenStages->value() : 0;
    s.freeze.freezeBatchNorm = m_freezeBatchNorm->isChecked();
    s.freeze.unfreezeEveryEpochs = m_unfreezeEvery->value();
    s.freeze.lrMultipliers = m_multipliers;
    return s;
}

void ModelPage::changed()
{
    if (m_restoring)
        return;
    m_frozenStages->setEnabled(m_policy->currentData().toInt() == int(engine::FreezePolicy::UpToStage));
    m_zooWeights->setEnabled(weightsSource() == Zoo);
    m_weightsFile->setEnabled(weightsSource() == File);
    m_browse->setEnabled(weightsSource() == File);
    if (weightsSource() != Zoo && m_scratchInstead->isVisible())
        updateWeightsState(); // no download failure to show for another source
    save();
    refreshSummary();
    Q_EMIT specChanged();
}

void ModelPage::refreshSummary()
{
    const int generation = ++m_summaryGeneration;
    engine::ModelSpec s = spec();
    if (s.head.numClasses == 0)
        s.head.numClasses = 1000; // no dataset chosen yet: count with ImageNet's head
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [s]() -> QVariant { return QVariant::fromValue(engine::summarizeModel(s)); },
        [this, generation](const QVariant &result) {
            if (generation != m_summaryGeneration)
                return;
            const engine::ModelSummary summary = result.value<engine::ModelSummary>();
            m_stageModel->setSummary(summary);
            const QLocale locale;
            const double share = summary.parameters > 0 ? 100.0 * double(summary.trainable) / double(summary.parameters) : 0;
            m_summary->setText(tr("%1 parameters, %2 of them train (%3 %).")
                                   .arg(locale.toString(qlonglong(summary.parameters)),
                                        locale.toString(qlonglong(summary.trainable)),
                                        locale.toString(share, 'f', share < 1 ? 2 : 1)));
            Q_EMIT summaryUpdated();
        },
        [this, generation](const QString &message) {
            if (generation != m_summaryGeneration)
                return;
            m_stageModel->setSummary({});
            m_summary->setText(tr("Cannot build this model: %1").arg(message));
            Q_EMIT summaryUpdated();
        });
}

void ModelPage::setProject(workspace::Project *project)
{
    m_project = project;
    restore();
    refreshClasses();
}

void ModelPage::refreshClasses()
{
    const int generation = ++m_classesGeneration;
    const QString dataset = m_project ? m_project->meta(kDatasetKey) : QString();
    if (dataset.isEmpty()) {
        m_numClasses = 0;
        m_classes->setText(tr("from the dataset (none converted yet; 1000 are assumed for the counts)"));
        refreshSummary();
        return;
    }
    const QString manifest = QDir(dataset).filePath(workspace::ShardManifest::fileName());
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [manifest]() -> QVariant { return workspace::ShardManifest::read(manifest).classes.size(); },
        [this, generation, dataset](const QVariant &count) {
            if (generation != m_classesGeneration)
                return;
            m_numClasses = count.toInt();
            m_classes->setText(tr("%n class(es), from %1", "", m_numClasses).arg(QFileInfo(dataset).fileName()));
            refreshSummary();
        },
        [this, generation](const QString &message) {
            if (generation != m_classesGeneration)
                return;
            m_numClasses = 0;
            m_classes->setText(tr("The chosen dataset cannot be read: %1").arg(message));
            refreshSummary();
        });
}

void ModelPage::save()
{
    if (!m_project || m_restoring)
        return;
    engine::RunConfig config;
    config.model = spec();
    nlohmann::json model = engine::runConfigToJson(config)["model"];
    model["weights_source"] = weightsSource() == Zoo ? "zoo" : weightsSource() == File ? "file" : "scratch";
    model["zoo_id"] = m_zooWeights->currentData().toString().toStdString();
    m_project->setMeta(kModelKey, QString::fromStdString(model.dump()));
}

void ModelPage::restore()
{
    if (!m_project)
        return;
    nlohmann::json model = nlohmann::json::parse(m_project->meta(kModelKey).toStdString(), nullptr, false);
    if (!model.is_object())
        return;
    const std::string source = model.value("weights_source", std::string("zoo"));
    const QString zooId = QString::fromStdString(model.value("zoo_id", std::string()));
    model.erase("weights_source");
    model.erase("zoo_id");
    engine::ModelSpec s;
    try {
        s = engine::parseRunConfig({{"model", model}}).model;
    } catch (const std::exception &) {
        return; // a saved choice from another version: keep the defaults
    }
    m_restoring = true;
    setArch(QString::fromStdString(s.arch));
    m_savedZooId = zooId; // the catalog may still be loading
    applyArch(zooId);
    m_sourceGroup->button(source == "file" ? File : source == "scratch" ? Scratch : Zoo)->setChecked(true);
    if (source == "file")
        m_weightsFile->setText(QString::fromStdString(s.weightsPath));
    m_dropout->setValue(s.head.dropout < 0 ? m_dropout->minimum() : s.head.dropout);
    m_hidden->setValue(s.head.hiddenUnits);
    m_policy->setCurrentIndex(m_policy->findData(int(s.freeze.policy)));
    if (s.freeze.policy == engine::FreezePolicy::UpToStage)
        m_frozenStages->setValue(s.freeze.frozenStages);
    m_freezeBatchNorm->setChecked(s.freeze.freezeBatchNorm);
    m_unfreezeEvery->setValue(s.freeze.unfreezeEveryEpochs);
    m_multipliers = s.freeze.lrMultipliers;
    m_restoring = false;
    changed();
}

void ModelPage::browseWeights()
{
    auto *dialog = new QFileDialog(this, tr("Choose a Weights File"), QFileInfo(m_weightsFile->text()).absolutePath(),
                                   tr("Weights (*.safetensors *.pth *.pt);;All files (*)"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        m_weightsFile->setText(file);
        changed();
    });
    dialog->open();
}

void ModelPage::download()
{
    const engine::ZooWeights *w = chosenZooWeights();
    if (!w || !m_jobs)
        return;
    workspace::WeightsDownloadJob::Params params;
    params.weights = *w;
    params.cacheDir = m_cacheDir;
    auto *job = new workspace::WeightsDownloadJob(params);
    connect(job, &workspace::Job::finished, this, [this] {
        updateWeightsState();
        changed();
    });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) {
        updateWeightsState();
        showErrorWithHelp(m_weightsStatus, tr("The download failed: %1").arg(message), QStringLiteral("weights-and-the-model-zoo"));
        m_scratchInstead->setVisible(weightsSource() == Zoo);
    });
    connect(job, &workspace::Job::cancelled, this, [this] {
        updateWeightsState();
        m_weightsStatus->setText(tr("Download cancelled; it continues where it stopped when you download again."));
    });
    m_download->setEnabled(false);
    m_weightsStatus->setText(tr("Downloading %1… (progress in the Jobs panel)").arg(QString::fromStdString(w->fileName)));
    m_jobs->start(job);
}

void ModelPage::importWeights()
{
    if (!m_jobs)
        return;
    auto *dialog = new QFileDialog(this, tr("Import a Weights File"), QString(),
                                   tr("PyTorch weights (*.pth *.pt *.safetensors);;All files (*)"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) { startImport(file); });
    dialog->open();
}

void ModelPage::startImport(const QString &file)
{
    workspace::WeightsImportJob::Params params;
    params.sourcePath = file;
    params.zoo = m_zoo;
    params.cacheDir = m_cacheDir;
    auto *job = new workspace::WeightsImportJob(params);
    connect(job, &workspace::Job::finished, this, [this](const QVariant &result) {
        const workspace::CachedWeights imported = result.value<workspace::CachedWeights>();
        const QString arch = QString::fromStdString(imported.weights.arch);
        const QString id = QString::fromStdString(imported.weights.id);
        loadZoo(); // the cache state of the backbone table
        setArch(arch);
        m_zooWeights->setCurrentIndex(m_zooWeights->findData(id));
        m_sourceGroup->button(Zoo)->setChecked(true);
        changed();
        m_weightsStatus->setText(tr("Imported and verified: %1 %2").arg(arch, id));
        Q_EMIT weightsImported(imported.path);
    });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) {
        m_weightsStatus->setText(tr("Not imported: %1").arg(message));
        Q_EMIT weightsImportFailed(message);
    });
    m_weightsStatus->setText(tr("Verifying %1…").arg(QDir::toNativeSeparators(file)));
    m_jobs->start(job);
}

} // namespace lathe::ui
