#include "tune/tune_page.h"

#include "runs/run_table_model.h"
#include "tune/search_space_editor.h"
#include "tune/study_charts.h"
#include "tune/trial_table_model.h"

#include "engine/base/engine_error.h"
#include "engine/tune/search_space.h"
#include "engine/tune/strategy.h"
#include "engine/tune/study_runner.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/tune_job.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

using json = nlohmann::json;

// The best completed trial of a state (the study's direction; the first of equals).
const engine::Trial *bestOf(const engine::StudyState &state)
{
    const engine::Trial *best = nullptr;
    for (const engine::Trial &t : state.trials) {
        if (t.state != engine::TrialState::Completed || !t.value)
            continue;
        if (!best || (state.space.maximize ? *t.value > *best->value : *t.value < *best->value))
            best = &t;
    }
    return best;
}

} // namespace

TunePage::TunePage(workspace::JobManager *jobs, QWidget *parent)
    : QWidget(parent)
    , m_jobs(jobs)
{
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    auto *scroll = new QScrollArea(splitter);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(buildSetup());
    scroll->setMinimumWidth(430);
    splitter->addWidget(scroll);
    splitter->addWidget(buildResults());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    // Room for the search space's field names beside the charts.
    splitter->setSizes({560, 600});
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    refreshStudies();
}

TunePage::~TunePage() = default;

workspace::TuneJob *TunePage::currentJob() const
{
    return m_job;
}

QWidget *TunePage::buildSetup()
{
    auto *panel = new QWidget;
    auto *column = new QVBoxLayout(panel);
    column->setContentsMargins(0, 0, 6, 0);

    auto *studyBox = new QGroupBox(tr("Study"), panel);
    auto *studyForm = new QFormLayout(studyBox);
    m_studyPicker = new QComboBox(studyBox);
    m_studyPicker->setObjectName(QStringLiteral("studyPicker"));
    m_studyPicker->setToolTip(tr("A new study, or one of the project's studies to watch or continue."));
    studyForm->addRow(tr("Study:"), m_studyPicker);
    m_name = new QLineEdit(studyBox);
    m_name->setObjectName(QStringLiteral("studyName"));
    m_name->setToolTip(tr("The folder of the new study inside the project's runs folder."));
    studyForm->addRow(tr("Name:"), m_name);
    auto *base = new QLabel(tr("Every trial starts from the Train page's settings (dataset, model, augmentation, "
                               "optimiser); the fields ticked below vary."),
                            studyBox);
    base->setWordWrap(true);
    studyForm->addRow(base);
    column->addWidget(studyBox);

    m_setup = new QGroupBox(tr("Search space"), panel);
    auto *setupLayout = new QVBoxLayout(m_setup);
    m_space = new SearchSpaceEditor(m_setup);
    m_space->setMinimumHeight(330);
    setupLayout->addWidget(m_space);
    column->addWidget(m_setup);

    auto *strategyBox = new QGroupBox(tr("Strategy and budget"), panel);
    auto *form = new QFormLayout(strategyBox);
    m_sampler = new QComboBox(strategyBox);
    m_sampler->addItem(tr("TPE (Bayesian)"), QStringLiteral("tpe"));
    m_sampler->addItem(tr("Random"), QStringLiteral("random"));
    m_sampler->addItem(tr("Grid"), QStringLiteral("grid"));
    m_sampler->setToolTip(tr("How each trial's values are chosen. TPE models the good and the bad trials so far "
                             "(Optuna's default); Grid tries every combination of Grid fields."));
    form->addRow(tr("Sampler:"), m_sampler);
    m_pruner = new QComboBox(strategyBox);
    m_pruner->addItem(tr("ASHA (successive halving)"), QStringLiteral("asha"));
    m_pruner->addItem(tr("Hyperband"), QStringLiteral("hyperband"));
    m_pruner->addItem(tr("Median stopping"), QStringLiteral("median"));
    m_pruner->addItem(tr("None"), QStringLiteral("none"));
    m_pruner->setToolTip(tr("Stops hopeless trials early: ASHA lets a trial train on only while its metric is in "
                            "the top third at each rung (1, 3, 9 … epochs)."));
    form->addRow(tr("Early stopping:"), m_pruner);
    m_metric = new QComboBox(strategyBox);
    for (const char *metric : {"val_top1", "val_loss", "train_loss"})
        m_metric->addItem(RunTableModel::metricLabel(QLatin1String(metric)), QLatin1String(metric));
    m_metric->setToolTip(tr("What the study optimises: the highest validation top-1, or the lowest loss."));
    form->addRow(tr("Metric:"), m_metric);
    m_trials = new QSpinBox(strategyBox);
    m_trials->setRange(1, 10000);
    m_trials->setValue(10);
    form->addRow(tr("Trials:"), m_trials);
    m_epochs = new QSpinBox(strategyBox);
    m_epochs->setRange(0, 10000);
    m_epochs->setValue(3);
    m_epochs->setSpecialValueText(tr("As on the Train page"));
    m_epochs->setToolTip(tr("The most epochs a trial trains (ASHA's and Hyperband's largest rung)."));
    form->addRow(tr("Epochs per trial:"), m_epochs);
    m_minutes = new QSpinBox(strategyBox);
    m_minutes->setRange(0, 100000);
    m_minutes->setSuffix(tr(" min"));
    m_minutes->setSpecialValueText(tr("No limit"));
    m_minutes->setToolTip(tr("No new trial starts once the study has run this long."));
    form->addRow(tr("Time limit:"), m_minutes);
    m_startup = new QSpinBox(strategyBox);
    m_startup->setRange(1, 1000);
    m_startup->setValue(4);
    m_startup->setToolTip(tr("TPE: the first trials are drawn at random, before it models the results."));
    form->addRow(tr("Random first trials:"), m_startup);
    m_seed = new QSpinBox(strategyBox);
    m_seed->setRange(0, 1000000);
    m_seed->setToolTip(tr("The same seed and settings propose the same trials."));
    form->addRow(tr("Seed:"), m_seed);
    m_parallel = new QSpinBox(strategyBox);
    m_parallel->setRange(1, 16);
    m_parallel->setToolTip(tr("Trials trained at once; the memory estimate may run fewer."));
    form->addRow(tr("Trials at once:"), m_parallel);
    column->addWidget(strategyBox);

    m_setupError = new QLabel(panel);
    m_setupError->setObjectName(QStringLiteral("setupError"));
    m_setupError->setWordWrap(true);
    m_setupError->setStyleSheet(QStringLiteral("color: #c0392b;"));
    column->addWidget(m_setupError);
    column->addStretch(1);

    connect(m_studyPicker, &QComboBox::currentIndexChanged, this, &TunePage::studyChosen);
    connect(m_space, &SearchSpaceEditor::changed, this, &TunePage::updateSetup);
    for (QComboBox *combo : {m_sampler, m_pruner, m_metric})
        connect(combo, &QComboBox::currentIndexChanged, this, &TunePage::updateSetup);
    for (QSpinBox *spin : {m_trials, m_epochs, m_minutes, m_startup})
        connect(spin, &QSpinBox::valueChanged, this, &TunePage::updateSetup);
    connect(m_sampler, &QComboBox::currentIndexChanged, this,
            [this] { m_startup->setEnabled(m_setup->isEnabled() && m_sampler->currentData() == QLatin1String("tpe")); });
    return panel;
}

QWidget *TunePage::buildResults()
{
    auto *panel = new QWidget;
    auto *column = new QVBoxLayout(panel);
    column->setContentsMargins(6, 0, 0, 0);

    auto *buttons = new QHBoxLayout;
    m_start = new QPushButton(tr("Start Study"), panel);
    m_start->setObjectName(QStringLiteral("startStudy"));
    m_pause = new QPushButton(tr("Pause"), panel);
    m_pause->setObjectName(QStringLiteral("pauseStudy"));
    m_pause->setToolTip(tr("Holds the running trials between steps and starts no new one."));
    m_stop = new QPushButton(tr("Stop"), panel);
    m_stop->setObjectName(QStringLiteral("stopStudy"));
    m_stop->setToolTip(tr("Each running trial writes a checkpoint and stops; Continue Study goes on from there."));
    m_trainBest = new QPushButton(tr("Train This Config Fully"), panel);
    m_trainBest->setObjectName(QStringLiteral("trainBest"));
    m_trainBest->setToolTip(tr("Puts the best completed trial's settings on the Train page, with the Train "
                               "page's number of epochs."));
    buttons->addWidget(m_start);
    buttons->addWidget(m_pause);
    buttons->addWidget(m_stop);
    buttons->addStretch(1);
    buttons->addWidget(m_trainBest);
    column->addLayout(buttons);

    m_status = new QLabel(panel);
    m_status->setObjectName(QStringLiteral("studyStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(m_status);

    auto *split = new QSplitter(Qt::Vertical, panel);
    m_model = new TrialTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TrialTableModel::SortRole);
    m_table = new QTableView(split);
    m_table->setObjectName(QStringLiteral("trialTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TrialTableModel::TrialColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    split->addWidget(m_table);
    m_charts = new StudyCharts(split);
    split->addWidget(m_charts);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    column->addWidget(split, 1);

    connect(m_start, &QPushButton::clicked, this, &TunePage::startStudy);
    connect(m_pause, &QPushButton::clicked, this, &TunePage::pauseStudy);
    connect(m_stop, &QPushButton::clicked, this, &TunePage::stopStudy);
    connect(m_trainBest, &QPushButton::clicked, this, [this] {
        if (const std::optional<json> config = bestTrialConfig())
            Q_EMIT trainRequested(*config);
    });
    return panel;
}

void TunePage::setProject(workspace::Project *project)
{
    m_project = project;
    m_studyDir.clear();
    refreshStudies();
}

void TunePage::setBaseConfigProvider(std::function<json()> provider)
{
    m_baseConfig = std::move(provider);
    if (m_baseConfig)
        m_space->setBaseConfig(m_baseConfig());
}

void TunePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_studyDir.isEmpty() && m_baseConfig) {
        m_space->setBaseConfig(m_baseConfig());
        updateSetup();
    }
}

void TunePage::refreshStudies()
{
    const QString keep = m_studyDir;
    const QSignalBlocker block(m_studyPicker);
    m_studyPicker->clear();
    m_studyPicker->addItem(tr("New study"), QString());
    if (m_project) {
        const QDir runs(m_project->runsDir());
        QFileInfoList folders = runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Time);
        for (const QFileInfo &folder : folders)
            if (QFileInfo::exists(QDir(folder.absoluteFilePath()).filePath(QLatin1String(engine::kStudyFile))))
                m_studyPicker->addItem(folder.fileName(), QDir::cleanPath(folder.absoluteFilePath()));
    }
    const int index = keep.isEmpty() ? 0 : m_studyPicker->findData(QDir::cleanPath(keep));
    m_studyPicker->setCurrentIndex(std::max(0, index));
    if (index < 0 || keep.isEmpty())
        studyChosen();
}

bool TunePage::selectStudy(const QString &folder)
{
    const int index = m_studyPicker->findData(QDir::cleanPath(QDir(folder).absolutePath()));
    if (index < 0)
        return false;
    m_studyPicker->setCurrentIndex(index);
    studyChosen();
    return true;
}

void TunePage::studyChosen()
{
    m_studyDir = m_studyPicker->currentData().toString();
    const bool isNew = m_studyDir.isEmpty();
    m_name->setEnabled(isNew);
    if (isNew) {
        m_name->setText(QStringLiteral("study-%1").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
        if (m_baseConfig)
            m_space->setBaseConfig(m_baseConfig());
        m_shown = engine::StudyState();
        m_model->setStudy(m_shown);
        m_charts->setStudy(m_shown);
        setStatus(m_project ? tr("Tick the fields to vary, then Start Study.") : tr("Open a project to run a study."));
    } else {
        m_name->setText(QFileInfo(m_studyDir).fileName());
        if (m_job && m_jobStudyDir == m_studyDir) {
            takeJobState();
        } else {
            try {
                const engine::StudyState state =
                    engine::readStudyState(QDir(m_studyDir).filePath(QLatin1String(engine::kStudyFile)).toStdString());
                showState(state);
                // The opened study's settings, for reading: a study keeps its space and strategy.
                m_space->setParams(engine::searchSpaceToJson(state.space)["params"]);
                m_sampler->setCurrentIndex(std::max(0, m_sampler->findData(QString::fromStdString(state.strategy.sampler))));
                m_pruner->setCurrentIndex(std::max(0, m_pruner->findData(QString::fromStdString(state.strategy.pruner))));
                m_metric->setCurrentIndex(std::max(0, m_metric->findData(QString::fromStdString(state.space.metric))));
                m_trials->setValue(std::max(1, state.space.budget.trials));
                m_epochs->setValue(state.space.budget.epochs);
                m_minutes->setValue(int(state.space.budget.seconds / 60));
                m_seed->setValue(int(state.strategy.seed));
            } catch (const std::exception &e) {
                showState(engine::StudyState());
                setStatus(QString::fromStdString(e.what()));
            }
        }
    }
    updateSetup();
}

json TunePage::spaceDocument() const
{
    const QString metric = m_metric->currentData().toString();
    json budget = {{"trials", m_trials->value()}, {"epochs", m_epochs->value()}, {"seconds", m_minutes->value() * 60}};
    return {{"version", engine::SearchSpace::kVersion},
            {"params", m_space->params()},
            {"budget", budget},
            {"metric", metric.toStdString()},
            {"direction", metric == QLatin1String("val_top1") ? "maximize" : "minimize"}};
}

QString TunePage::strategyName() const
{
    return m_sampler->currentData().toString() + QLatin1Char('+') + m_pruner->currentData().toString();
}

QString TunePage::setupProblem() const
{
    if (!m_studyDir.isEmpty())
        return {}; // an existing study keeps its own setup
    if (m_space->params().empty())
        return tr("Tick at least one field to vary.");
    try {
        const engine::SearchSpace space = engine::parseSearchSpace(spaceDocument());
        engine::StrategyConfig strategy = engine::strategyFromName(strategyName().toStdString());
        engine::makeSampler(space, strategy);
        engine::makePruner(space, strategy);
    } catch (const engine::EngineError &e) {
        return QString::fromStdString(e.what());
    }
    if (m_project && QFileInfo::exists(QDir(m_project->runsDir()).filePath(m_name->text().trimmed())))
        return tr("%1 exists already in the runs folder: choose another name.").arg(m_name->text().trimmed());
    if (m_name->text().trimmed().isEmpty() || m_name->text().contains(QLatin1Char('/')))
        return tr("Name the study (a folder name, without /).");
    return {};
}

void TunePage::updateSetup()
{
    const bool isNew = m_studyDir.isEmpty();
    const bool running = m_job && !m_job->isEnded();
    for (QWidget *w : std::initializer_list<QWidget *>{m_setup, m_sampler, m_pruner, m_metric, m_trials, m_epochs,
                                                        m_minutes, m_seed, m_parallel})
        w->setEnabled(isNew && !running);
    m_parallel->setEnabled(!running);
    m_startup->setEnabled(isNew && !running && m_sampler->currentData() == QLatin1String("tpe"));
    m_setupError->setText(isNew ? setupProblem() : QString());
    updateButtons();
}

void TunePage::updateButtons()
{
    const bool running = m_job && !m_job->isEnded();
    const bool isNew = m_studyDir.isEmpty();
    m_start->setText(isNew ? tr("Start Study") : tr("Continue Study"));
    // updateSetup() has just put setupProblem() in the error label (startStudy() checks again).
    m_start->setEnabled(!running && m_project && (!isNew || m_setupError->text().isEmpty()));
    m_pause->setEnabled(running && m_jobStudyDir == m_studyDir);
    m_pause->setText(running && m_job->isPaused() ? tr("Continue") : tr("Pause"));
    m_stop->setEnabled(running && m_jobStudyDir == m_studyDir);
    m_trainBest->setEnabled(bestOf(m_shown) != nullptr && !m_studyDir.isEmpty());
}

void TunePage::setStatus(const QString &text)
{
    m_status->setText(text);
}

bool TunePage::startStudy()
{
    if (m_job && !m_job->isEnded()) {
        setStatus(tr("A study is running already: stop it first."));
        return false;
    }
    if (!m_project) {
        setStatus(tr("Open a project to run a study."));
        return false;
    }
    workspace::TuneJob::Params params;
    params.parallel = m_parallel->value();
    if (m_studyDir.isEmpty()) {
        const QString problem = setupProblem();
        if (!problem.isEmpty()) {
            setStatus(problem);
            return false;
        }
        if (!m_baseConfig) {
            setStatus(tr("No Train page settings to start from."));
            return false;
        }
        params.baseConfig = m_baseConfig();
        const json shards = params.baseConfig.value("data", json::object()).value("shards", json());
        if (!shards.is_string() || shards.get<std::string>().empty()) {
            setStatus(tr("Choose a converted dataset on the Train page first."));
            return false;
        }
        params.studyDir = QDir::cleanPath(QDir(m_project->runsDir()).filePath(m_name->text().trimmed()));
        params.space = spaceDocument();
        params.strategy = strategyName();
        params.seed = quint64(m_seed->value());
        if (m_sampler->currentData() == QLatin1String("tpe"))
            params.samplerOptions = {{"n_startup_trials", m_startup->value()}};
    } else {
        params.studyDir = m_studyDir;
        params.resume = true;
    }
    QDir().mkpath(m_project->runsDir());
    auto *job = new workspace::TuneJob(params);
    m_job = job;
    m_jobStudyDir = params.studyDir;
    connect(job, &workspace::TuneJob::studyChanged, this, &TunePage::takeJobState, Qt::QueuedConnection);
    connect(job, &workspace::TuneJob::pausedChanged, this, &TunePage::updateButtons, Qt::QueuedConnection);
    connect(job, &workspace::Job::finished, this, [this] { jobEnded({}); });
    connect(job, &workspace::Job::cancelled, this, [this] { jobEnded(tr("Stopped: Continue Study goes on from each trial's checkpoint.")); });
    connect(job, &workspace::Job::failed, this, [this](const QString &message) { jobEnded(tr("The study failed: %1").arg(message)); });
    m_jobs->start(job);
    setStatus(params.resume ? tr("Continuing the study…") : tr("Starting the study…"));
    updateSetup();
    Q_EMIT studyStarted(params.studyDir);
    return true;
}

void TunePage::pauseStudy()
{
    if (!m_job || m_job->isEnded())
        return;
    if (m_job->isPaused())
        m_job->resumeStudy();
    else
        m_job->pause();
    updateButtons();
}

void TunePage::stopStudy()
{
    if (m_job && !m_job->isEnded()) {
        m_job->requestCancel();
        setStatus(tr("Stopping: each running trial writes its checkpoint…"));
    }
}

void TunePage::takeJobState()
{
    if (!m_job)
        return;
    const engine::StudyState state = m_job->snapshot();
    // A new study appears in the picker once its folder exists; show it there.
    if (!m_jobStudyDir.isEmpty() && m_studyDir != m_jobStudyDir && m_studyPicker->findData(m_jobStudyDir) < 0 &&
        m_studyDir.isEmpty()) {
        m_studyDir = m_jobStudyDir;
        refreshStudies();
        m_name->setEnabled(false);
        updateSetup();
    }
    if (m_studyDir != m_jobStudyDir)
        return; // another study is shown
    const QHash<int, workspace::TrialProgress> progress = m_job->runningProgress();
    m_model->setStudy(state, progress);
    if (state.trials != m_shown.trials || state.space.metric != m_shown.space.metric) {
        m_shown = state;
        m_charts->setStudy(state);
    }
    QStringList parts;
    const QString metric = QString::fromStdString(state.space.metric);
    if (const engine::Trial *best = bestOf(state))
        parts << tr("Best so far: trial %1, %2 %3").arg(best->id).arg(RunTableModel::metricLabel(metric),
                                                                         RunTableModel::metricText(metric, *best->value));
    int ended = 0;
    for (const engine::Trial &t : state.trials)
        ended += t.state != engine::TrialState::Running;
    parts << tr("%1 of %2 trials ended").arg(ended).arg(state.space.budget.trials);
    if (m_job->isPaused())
        parts << tr("paused");
    if (!m_job->lastLog().isEmpty())
        parts << m_job->lastLog();
    setStatus(parts.join(QStringLiteral(" · ")));
    updateButtons();
}

void TunePage::jobEnded(const QString &message)
{
    const QString dir = m_jobStudyDir;
    takeJobState();
    if (!message.isEmpty())
        setStatus(message);
    else if (const engine::Trial *best = bestOf(m_shown); best && m_studyDir == dir)
        setStatus(tr("The study finished: best trial %1 (%2 %3). Train This Config Fully puts its settings on the "
                     "Train page.")
                      .arg(best->id)
                      .arg(RunTableModel::metricLabel(QString::fromStdString(m_shown.space.metric)),
                           RunTableModel::metricText(QString::fromStdString(m_shown.space.metric), *best->value)));
    else
        setStatus(tr("The study finished without a completed trial."));
    m_job = nullptr;
    refreshStudies();
    updateSetup();
    Q_EMIT studyEnded(dir);
}

void TunePage::showState(const engine::StudyState &state)
{
    m_shown = state;
    m_model->setStudy(state);
    m_charts->setStudy(state);
    const QString metric = QString::fromStdString(state.space.metric);
    int running = 0;
    for (const engine::Trial &t : state.trials)
        running += t.state == engine::TrialState::Running;
    QStringList parts;
    parts << tr("%n trial(s)", nullptr, int(state.trials.size()));
    if (const engine::Trial *best = bestOf(state))
        parts << tr("best: trial %1, %2 %3").arg(best->id).arg(RunTableModel::metricLabel(metric),
                                                               RunTableModel::metricText(metric, *best->value));
    if (running > 0)
        parts << tr("%n trial(s) stopped while running: Continue Study resumes them", nullptr, running);
    setStatus(parts.join(QStringLiteral(" · ")));
    updateButtons();
}

std::optional<json> TunePage::bestTrialConfig()
{
    const engine::Trial *best = bestOf(m_shown);
    if (!best || m_studyDir.isEmpty()) {
        setStatus(tr("No trial has completed yet."));
        return std::nullopt;
    }
    try {
        const json base = engine::readStudyBaseConfig(m_studyDir.toStdString());
        const json config = engine::applyTrialParams(base, best->params);
        setStatus(tr("Trial %1's settings are on the Train page.").arg(best->id));
        return config;
    } catch (const std::exception &e) {
        setStatus(QString::fromStdString(e.what()));
        return std::nullopt;
    }
}

} // namespace lathe::ui
