#include "runs/runs_page.h"

#include "common/background_task.h"
#include "engine/run/run_events.h"
#include "workspace/evaluation_store.h"
#include "workspace/project.h"
#include "workspace/run_listing.h"
#include "runs/run_filter_model.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"
#include "runs/run_overlay_plot.h"
#include "runs/run_table_model.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QThreadPool>
#include <QUrl>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

struct SelectionData
{
    QList<QPair<QString, QList<QJsonObject>>> curves;
    QList<nlohmann::json> configs;
    std::vector<engine::CheckpointEntry> checkpoints;
};

QJsonObject toQt(const nlohmann::json &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
}

void flatten(const nlohmann::json &value, const std::string &prefix, std::map<std::string, std::string> &out)
{
    if (value.is_object() && !value.empty()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
        return;
    }
    out[prefix] = value.dump();
}

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::SelectionData)
Q_DECLARE_METATYPE(QList<lathe::ui::RunTableModel::Row>)
using LatheEvaluationsByRun = QHash<QString, lathe::workspace::EvaluationSummary>;
Q_DECLARE_METATYPE(LatheEvaluationsByRun)

namespace lathe::ui {

RunsPage::RunsPage(QWidget *parent)
    : QWidget(parent)
    , m_model(new RunTableModel(this))
    , m_filter(new RunFilterModel(this))
    , m_view(new QTableView(this))
    , m_filterEdit(new QLineEdit(this))
    , m_tagFilter(new QComboBox(this))
    , m_notes(new QPlainTextEdit(this))
    , m_saveNotes(new QPushButton(tr("Save Notes"), this))
    , m_markBest(new QPushButton(tr("Mark as Best"), this))
    , m_deleteCheckpoint(new QPushButton(tr("Delete…"), this))
    , m_evaluate(new QPushButton(tr("Evaluate"), this))
    , m_export(new QPushButton(tr("Export"), this))
    , m_overlay(new RunOverlayPlot(this))
    , m_diff(new QPlainTextEdit(this))
    , m_checkpoints(new QTableWidget(this))
    , m_summary(new QLabel(this))
    , m_refresh(new QPushButton(tr("Refresh"), this))
    , m_open(new QPushButton(tr("Open Folder"), this))
    , m_resume(new QPushButton(tr("Resume"), this))
    , m_clone(new QPushButton(tr("Clone Config"), this))
    , m_delete(new QPushButton(tr("Move to Trash"), this))
{
    auto *heading = new QLabel(tr("Runs"), this);
    heading->setObjectName(QStringLiteral("pageTitle"));
    m_summary->setWordWrap(true);
    m_resume->setToolTip(tr("Continue a stopped or interrupted run from its last checkpoint, on the Train page."));
    m_clone->setToolTip(tr("Put this run's settings into the Train page's forms for a new run."));
    m_delete->setToolTip(tr("Move the run folder to the trash (after asking)."));

    m_filter->setSourceModel(m_model);
    m_filter->setSortRole(Qt::UserRole);
    m_view->setModel(m_filter);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->setToolTip(tr("Double-click a run's name or tags to change them."));
    m_filterEdit->setObjectName(QStringLiteral("runFilter"));
    m_filterEdit->setPlaceholderText(tr("Filter by name, backbone, dataset, state, tag or notes"));
    m_filterEdit->setClearButtonEnabled(true);
    m_tagFilter->setObjectName(QStringLiteral("tagFilter"));
    m_tagFilter->setToolTip(tr("Show only the runs with this tag."));
    m_tagFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_notes->setObjectName(QStringLiteral("runNotes"));
    m_notes->setPlaceholderText(tr("Notes about the selected run: what you tried, what you saw. Saved in its run folder."));
    m_markBest->setToolTip(tr("Make this checkpoint the run's best: evaluating or exporting \"best\" then uses it. A "
                              "resumed run replaces it only with a checkpoint that beats its value."));
    m_deleteCheckpoint->setToolTip(tr("Delete this step checkpoint's files (after asking). The best and last "
                                      "checkpoints keep their own copies."));
    m_evaluate->setToolTip(tr("Evaluate this checkpoint on the Evaluate page."));
    m_export->setToolTip(tr("Export this checkpoint (ONNX, TorchScript, safetensors)."));
    m_view->setObjectName(QStringLiteral("runTable"));
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(RunTableModel::Started, Qt::DescendingOrder);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);

    m_diff->setReadOnly(true);
    m_diff->setPlaceholderText(tr("Select two runs to see where their configurations differ."));
    m_checkpoints->setObjectName(QStringLiteral("checkpointTable"));
    m_checkpoints->setColumnCount(CheckpointMetrics);
    m_checkpoints->setHorizontalHeaderLabels({tr("Checkpoint"), tr("Kept as"), tr("Step"), tr("Epoch"), tr("Size")});
    // The sidecar's epoch is where training continues from: the epochs completed, whose last
    // one the checkpoint's metrics are of.
    m_checkpoints->horizontalHeaderItem(CheckpointEpoch)
        ->setToolTip(tr("The epochs completed when the checkpoint was written; its metrics are those of the last one. "
                        "A checkpoint written within an epoch (Stop, every N steps) counts the epochs before it."));
    m_checkpoints->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_checkpoints->horizontalHeader()->setStretchLastSection(true);
    m_checkpoints->verticalHeader()->hide();
    m_checkpoints->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_checkpoints->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_checkpoints->setSelectionMode(QAbstractItemView::SingleSelection);

    auto *checkpointsTab = new QWidget(this);
    auto *checkpointButtons = new QHBoxLayout;
    for (QPushButton *b : {m_markBest, m_deleteCheckpoint, m_evaluate, m_export})
        checkpointButtons->addWidget(b);
    checkpointButtons->addStretch(1);
    auto *checkpointsLayout = new QVBoxLayout(checkpointsTab);
    checkpointsLayout->addWidget(m_checkpoints, 1);
    checkpointsLayout->addLayout(checkpointButtons);

    auto *notesTab = new QWidget(this);
    auto *notesButtons = new QHBoxLayout;
    notesButtons->addStretch(1);
    notesButtons->addWidget(m_saveNotes);
    auto *notesLayout = new QVBoxLayout(notesTab);
    notesLayout->addWidget(m_notes, 1);
    notesLayout->addLayout(notesButtons);

    auto *tabs = new QTabWidget(this);
    tabs->addTab(m_overlay, tr("Curves"));
    tabs->addTab(m_diff, tr("Config Diff"));
    tabs->addTab(checkpointsTab, tr("Checkpoints"));
    tabs->addTab(notesTab, tr("Notes"));

    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_tagFilter);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(tabs);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(heading);
    buttons->addStretch(1);
    for (QPushButton *b : {m_refresh, m_open, m_resume, m_clone, m_delete})
        buttons->addWidget(b);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addLayout(buttons);
    layout->addWidget(m_summary);
    layout->addLayout(filterRow);
    layout->addWidget(splitter, 1);

    connect(m_filterEdit, &QLineEdit::textChanged, m_filter, &RunFilterModel::setText);
    connect(m_tagFilter, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setTag(m_tagFilter->currentData().toString()); });
    connect(m_model, &RunTableModel::annotationsEdited, this, [this](const QString &dir) {
        saveAnnotations(dir);
        listTags();
    });
    connect(m_saveNotes, &QPushButton::clicked, this, [this] {
        const QStringList runs = selectedRuns();
        if (runs.size() != 1)
            return;
        const int row = m_model->indexOf(runs.first());
        const RunTableModel::Row &r = m_model->row(row);
        m_model->setAnnotations(row, r.displayName, m_notes->toPlainText(), r.tags);
    });
    connect(m_checkpoints, &QTableWidget::itemSelectionChanged, this, &RunsPage::updateCheckpointButtons);
    connect(m_markBest, &QPushButton::clicked, this, &RunsPage::markBest);
    connect(m_deleteCheckpoint, &QPushButton::clicked, this, &RunsPage::deleteCheckpoint);
    const auto handOff = [this](bool evaluate) {
        const QStringList runs = selectedRuns();
        const int row = m_checkpoints->currentRow();
        if (runs.size() != 1 || row < 0)
            return;
        if (evaluate)
            Q_EMIT evaluateCheckpointRequested(runs.first(), checkpointFile(row));
        else
            Q_EMIT exportCheckpointRequested(runs.first(), checkpointFile(row));
    };
    connect(m_evaluate, &QPushButton::clicked, this, [handOff] { handOff(true); });
    connect(m_export, &QPushButton::clicked, this, [handOff] { handOff(false); });

    connect(m_refresh, &QPushButton::clicked, this, &RunsPage::refresh);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsPage::selectionChanged);
    connect(m_open, &QPushButton::clicked, this, [this] {
        for (const QString &dir : selectedRuns())
            QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
    });
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (selectedRuns().size() == 1)
            Q_EMIT resumeRequested(selectedRuns().first());
    });
    connect(m_clone, &QPushButton::clicked, this, [this] {
        const QStringList runs = selectedRuns();
        if (runs.size() != 1)
            return;
        QFile file(QString::fromStdString(engine::run_layout::configPath(runs.first().toStdString())));
        if (file.open(QIODevice::ReadOnly)) {
            const nlohmann::json config = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
            if (config.is_object())
                Q_EMIT cloneRequested(config);
        }
    });
    connect(m_delete, &QPushButton::clicked, this, &RunsPage::deleteRun);
    setProject(nullptr);
}

void RunsPage::setProject(workspace::Project *project)
{
    m_project = project;
    m_selectedRun.clear();
    refresh();
}

void RunsPage::setRunPaused(const QString &runDir, bool paused)
{
    const QString dir = QDir::cleanPath(QDir(runDir).absolutePath()); // as listRuns spells it
    if (paused)
        m_pausedRuns.insert(dir);
    else
        m_pausedRuns.remove(dir);
    m_model->setPaused(dir, paused);
}

void RunsPage::refresh()
{
    const int generation = ++m_generation;
    if (!m_project) {
        m_model->setRows({});
        m_summary->setText(tr("Open a project to see its runs."));
        updateButtons();
        return;
    }
    const QString runsDir = m_project->runsDir();
    const QString databasePath = m_project->databasePath();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runsDir, databasePath]() -> QVariant {
            // The newest stored evaluation of each run: a database that cannot say leaves the
            // column empty, never the listing.
            QHash<QString, workspace::EvaluationSummary> evaluations;
            try {
                evaluations = workspace::EvaluationStore::newestByRun(databasePath);
            } catch (const std::exception &) {
            }
            QList<RunTableModel::Row> rows;
            for (const workspace::ListedRun &run : workspace::listRuns(runsDir)) {
                const engine::RunInfo &info = run.info; // a run that cannot be read: "failed", and why
                RunTableModel::Row row;
                row.dir = run.dir;
                row.listedName = run.name;
                row.state = QString::fromStdString(info.state);
                row.message = QString::fromStdString(info.message);
                row.arch = QString::fromStdString(info.arch);
                row.dataset = run.dataset;
                row.bestMetric = QString::fromStdString(info.bestMetric);
                row.hasBest = info.bestValue.has_value();
                row.bestValue = info.bestValue.value_or(0);
                row.lastEpoch = info.lastEpoch;
                row.totalEpochs = info.totalEpochs;
                row.startTime = info.startTime;
                row.lastTime = info.lastTime;
                row.evaluation = evaluations.value(run.dir);
                try {
                    const engine::RunAnnotations a = engine::readRunAnnotations(run.dir.toStdString());
                    row.displayName = QString::fromStdString(a.displayName);
                    row.notes = QString::fromStdString(a.notes);
                    for (const std::string &tag : a.tags)
                        row.tags << QString::fromStdString(tag);
                } catch (const std::exception &e) {
                    row.annotationsProblem = QString::fromUtf8(e.what());
                }
                rows.append(row);
            }
            return QVariant::fromValue(rows);
        },
        [this, generation](const QVariant &result) {
            if (generation != m_generation)
                return;
            const QStringList selected = selectedRuns();
            QList<RunTableModel::Row> rows = result.value<QList<RunTableModel::Row>>();
            for (RunTableModel::Row &row : rows)
                row.paused = m_pausedRuns.contains(row.dir);
            m_model->setRows(rows);
            listTags();
            m_summary->setText(m_model->rowCount() == 0
                                   ? tr("No runs yet: start one on the Train page, or with lathe-cli train --out %1/NAME.")
                                         .arg(QDir::toNativeSeparators(m_project->runsDir()))
                                   : tr("%n run(s) in %1.", "", m_model->rowCount()).arg(QDir::toNativeSeparators(m_project->runsDir())));
            selectRuns(selected);
            updateButtons();
            Q_EMIT refreshed();
        },
        [this, generation](const QString &message) {
            if (generation == m_generation)
                m_summary->setText(tr("Cannot list the runs: %1").arg(message));
        });
}

void RunsPage::refreshEvaluations()
{
    if (!m_project)
        return;
    const int generation = m_generation;
    const QString databasePath = m_project->databasePath();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [databasePath]() -> QVariant { return QVariant::fromValue(workspace::EvaluationStore::newestByRun(databasePath)); },
        [this, generation](const QVariant &value) {
            if (generation == m_generation) // else a listing under way brings them
                m_model->setEvaluations(value.value<LatheEvaluationsByRun>());
        },
        [](const QString &) {});
}

void RunsPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Evaluations are stored by the Evaluate page: the column catches up whenever the page shows.
    refreshEvaluations();
}

QStringList RunsPage::selectedRuns() const
{
    QStringList dirs;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        dirs << m_model->row(m_filter->mapToSource(index).row()).dir;
    return dirs;
}

void RunsPage::selectRuns(const QStringList &dirs)
{
    QItemSelection selection;
    for (const QString &dir : dirs) {
        const int row = m_model->indexOf(dir);
        if (row < 0)
            continue;
        const QModelIndex index = m_filter->mapFromSource(m_model->index(row, 0));
        selection.select(index, index.siblingAtColumn(RunTableModel::ColumnCount - 1));
    }
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunsPage::updateButtons()
{
    const QStringList runs = selectedRuns();
    bool resumable = false;
    if (runs.size() == 1) {
        const QString state = m_model->row(m_model->indexOf(runs.first())).state;
        resumable = state == QLatin1String(engine::run_state::kCancelled) || state == QLatin1String(engine::run_state::kInterrupted) ||
                    state == QLatin1String(engine::run_state::kFailed);
    }
    m_open->setEnabled(!runs.isEmpty());
    m_resume->setEnabled(resumable);
    m_clone->setEnabled(runs.size() == 1);
    m_delete->setEnabled(runs.size() == 1 && m_model->row(m_model->indexOf(runs.first())).state != QLatin1String(engine::run_state::kRunning));
    m_notes->setEnabled(runs.size() == 1);
    m_saveNotes->setEnabled(runs.size() == 1);
    // Only when another run is chosen: a refresh must not take away notes being typed.
    const QString notesDir = runs.size() == 1 ? runs.first() : QString();
    if (notesDir != m_notesDir) {
        m_notesDir = notesDir;
        m_notes->setPlainText(notesDir.isEmpty() ? QString() : m_model->row(m_model->indexOf(notesDir)).notes);
    }
    updateCheckpointButtons();
}

void RunsPage::listTags()
{
    const QString current = m_tagFilter->currentData().toString();
    const QSignalBlocker blocker(m_tagFilter);
    m_tagFilter->clear();
    m_tagFilter->addItem(tr("All tags"));
    for (const QString &tag : m_model->allTags())
        m_tagFilter->addItem(tag, tag);
    const int index = m_tagFilter->findData(current);
    m_tagFilter->setCurrentIndex(std::max(0, index));
    if (index < 0 && !current.isEmpty())
        m_filter->setTag({}); // the tag is gone
}

void RunsPage::saveAnnotations(const QString &dir)
{
    const int row = m_model->indexOf(dir);
    if (row < 0)
        return;
    const RunTableModel::Row &r = m_model->row(row);
    engine::RunAnnotations a;
    a.displayName = r.displayName.toStdString();
    a.notes = r.notes.toStdString();
    for (const QString &tag : r.tags)
        a.tags.push_back(tag.toStdString());
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [dir, a]() -> QVariant {
            engine::writeRunAnnotations(dir.toStdString(), a);
            return {};
        },
        [this, dir](const QVariant &) { Q_EMIT annotationsSaved(dir, {}); },
        [this, dir](const QString &message) {
            m_summary->setText(tr("Cannot save the name, tags or notes: %1").arg(message));
            Q_EMIT annotationsSaved(dir, message);
            refresh();
        });
}

QString RunsPage::checkpointName(int row) const
{
    const QTableWidgetItem *item = m_checkpoints->item(row, CheckpointName);
    return item ? item->data(Qt::UserRole).toString() : QString();
}

QString RunsPage::checkpointFile(int row) const
{
    const QTableWidgetItem *item = m_checkpoints->item(row, CheckpointName);
    return item ? item->data(Qt::UserRole + 1).toString() : QString();
}

void RunsPage::selectCheckpoint(const QString &name)
{
    for (int row = 0; row < m_checkpoints->rowCount(); ++row)
        if (checkpointName(row) == name)
            m_checkpoints->selectRow(row);
}

void RunsPage::updateCheckpointButtons()
{
    const QStringList runs = selectedRuns();
    const int row = m_checkpoints->selectionModel()->hasSelection() ? m_checkpoints->currentRow() : -1;
    const bool one = runs.size() == 1 && row >= 0;
    const QTableWidgetItem *item = one ? m_checkpoints->item(row, CheckpointName) : nullptr;
    const bool complete = item && item->data(Qt::UserRole + 2).toString().isEmpty();
    const bool running = one && m_model->row(m_model->indexOf(runs.first())).state == QLatin1String(engine::run_state::kRunning);
    const bool isBest = item && item->data(Qt::UserRole + 3).toBool();
    const QString name = one ? checkpointName(row) : QString();
    m_evaluate->setEnabled(complete);
    m_export->setEnabled(complete);
    m_markBest->setEnabled(complete && !running && !isBest);
    m_markBest->setToolTip(running ? tr("The run is training: it keeps its best checkpoint itself until it ends.")
                                   : tr("Make this checkpoint the run's best: evaluating or exporting \"best\" then uses "
                                        "it. A resumed run replaces it only with a checkpoint that beats its value."));
    const bool newest = running && row == m_checkpoints->rowCount() - 1; // rows go by step
    m_deleteCheckpoint->setEnabled(one && name.startsWith(QLatin1String("step-")) && !newest);
}

void RunsPage::changeCheckpoints(const std::function<void()> &operation)
{
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [operation]() -> QVariant {
            operation();
            return {};
        },
        [this](const QVariant &) {
            selectionChanged();
            Q_EMIT checkpointsChanged({});
        },
        [this](const QString &message) {
            m_summary->setText(message);
            selectionChanged();
            Q_EMIT checkpointsChanged(message);
        });
}

void RunsPage::markBest()
{
    const QStringList runs = selectedRuns();
    const int row = m_checkpoints->currentRow();
    if (runs.size() != 1 || row < 0)
        return;
    const std::string dir = runs.first().toStdString();
    const std::string name = checkpointName(row).toStdString();
    changeCheckpoints([dir, name] { engine::markBestCheckpoint(dir, name); });
}

void RunsPage::deleteCheckpoint()
{
    const QStringList runs = selectedRuns();
    const int row = m_checkpoints->currentRow();
    if (runs.size() != 1 || row < 0)
        return;
    const QString dir = runs.first();
    const QString name = checkpointName(row);
    const QTableWidgetItem *kept = m_checkpoints->item(row, CheckpointKept);
    QString text = tr("Delete checkpoint %1 of %2? Its files are deleted, not moved to the trash.")
                       .arg(name, QDir::toNativeSeparators(dir));
    if (kept && !kept->text().isEmpty())
        text += QLatin1Char('\n') + tr("It is also the run's %1 checkpoint: that copy stays.").arg(kept->text());
    auto *box = new QMessageBox(QMessageBox::Question, tr("Delete Checkpoint"), text, QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("deleteCheckpointQuestion"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::accepted, this, [this, dir, name] {
        const std::string d = dir.toStdString(), n = name.toStdString();
        changeCheckpoints([d, n] { engine::deleteCheckpoint(d, n); });
    });
    box->open();
}

void RunsPage::selectionChanged()
{
    updateButtons();
    const int generation = ++m_selectionGeneration;
    const QStringList runs = selectedRuns();
    if (runs.size() == 1 && runs.first() != m_selectedRun) {
        m_selectedRun = runs.first();
        Q_EMIT selectedRunChanged(m_selectedRun);
    }
    QStringList names; // the curves' legend: the names the table shows
    for (const QString &dir : runs) {
        const int row = m_model->indexOf(dir);
        names << (row >= 0 ? m_model->row(row).name() : QFileInfo(dir).fileName());
    }
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runs, names]() -> QVariant {
            SelectionData data;
            for (int i = 0; i < runs.size(); ++i) {
                const QString &dir = runs.at(i);
                QList<QJsonObject> epochs;
                for (const nlohmann::json &event : engine::readMetrics(dir.toStdString()))
                    if (event.value(engine::event_key::kType, std::string()) == engine::event_type::kEpoch)
                        epochs.append(toQt(event));
                data.curves.append({names.at(i), epochs});
                QFile file(QString::fromStdString(engine::run_layout::configPath(dir.toStdString())));
                data.configs.append(file.open(QIODevice::ReadOnly)
                                        ? nlohmann::json::parse(file.readAll().toStdString(), nullptr, false)
                                        : nlohmann::json());
            }
            if (runs.size() == 1)
                data.checkpoints = engine::listCheckpoints(runs.first().toStdString());
            return QVariant::fromValue(data);
        },
        [this, generation](const QVariant &value) {
            if (generation != m_selectionGeneration)
                return;
            const SelectionData data = value.value<SelectionData>();
            m_overlay->setRuns(data.curves);
            m_diff->setPlainText(data.configs.size() == 2 ? diffConfigs(data.configs[0], data.configs[1]).join(QLatin1Char('\n'))
                                                          : QString());
            const QString selectedCheckpoint = m_checkpoints->currentRow() >= 0 ? checkpointName(m_checkpoints->currentRow()) : QString();
            showCheckpoints(data.checkpoints);
            selectCheckpoint(selectedCheckpoint);
            updateCheckpointButtons();
            Q_EMIT selectionLoaded();
        },
        [this, generation](const QString &message) {
            if (generation == m_selectionGeneration)
                m_summary->setText(tr("Cannot read the selected runs: %1").arg(message));
        });
}

void RunsPage::showCheckpoints(const std::vector<engine::CheckpointEntry> &checkpoints)
{
    // One column per metric any of them carries (numbers only: the rest is no metric to compare).
    QStringList metrics;
    for (const engine::CheckpointEntry &c : checkpoints)
        if (c.metrics.is_object())
            for (auto it = c.metrics.begin(); it != c.metrics.end(); ++it)
                if (it->is_number() && !metrics.contains(QString::fromStdString(it.key())))
                    metrics << QString::fromStdString(it.key());
    m_checkpointMetrics = RunTableModel::sortMetrics(metrics);
    m_checkpoints->clearContents();
    m_checkpoints->setColumnCount(CheckpointMetrics + int(m_checkpointMetrics.size()));
    for (int i = 0; i < m_checkpointMetrics.size(); ++i)
        m_checkpoints->setHorizontalHeaderItem(CheckpointMetrics + i,
                                               new QTableWidgetItem(RunTableModel::metricLabel(m_checkpointMetrics[i])));
    m_checkpoints->setRowCount(int(checkpoints.size()));
    const QLocale locale;
    for (int r = 0; r < int(checkpoints.size()); ++r) {
        const engine::CheckpointEntry &c = checkpoints[std::size_t(r)];
        QStringList kept;
        if (c.best)
            kept << (c.chosenByUser ? tr("best (chosen)") : tr("best"));
        if (c.last)
            kept << tr("last");
        QStringList cells = {QString::fromStdString(c.name), kept.join(QStringLiteral(", ")), QString::number(c.step),
                             c.epoch >= 0 ? QString::number(c.epoch) : QString(),
                             c.problem.empty() ? locale.formattedDataSize(qint64(c.bytes)) : tr("incomplete")};
        for (const QString &metric : std::as_const(m_checkpointMetrics)) {
            const auto it = c.metrics.is_object() ? c.metrics.find(metric.toStdString()) : c.metrics.end();
            cells << (it != c.metrics.end() && it->is_number() ? RunTableModel::metricText(metric, it->get<double>()) : QString());
        }
        for (int col = 0; col < int(cells.size()); ++col) {
            auto *item = new QTableWidgetItem(cells.value(col));
            if (!c.problem.empty())
                item->setToolTip(QString::fromStdString(c.problem));
            if (col >= CheckpointStep) // numbers, right-aligned
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_checkpoints->setItem(r, col, item);
        }
        QTableWidgetItem *first = m_checkpoints->item(r, CheckpointName);
        first->setData(Qt::UserRole, QString::fromStdString(c.name));
        first->setData(Qt::UserRole + 1, QString::fromStdString(c.model));
        first->setData(Qt::UserRole + 2, QString::fromStdString(c.problem));
        first->setData(Qt::UserRole + 3, c.best);
    }
}

QStringList RunsPage::diffConfigs(const nlohmann::json &a, const nlohmann::json &b)
{
    std::map<std::string, std::string> left;
    std::map<std::string, std::string> right;
    flatten(a, {}, left);
    flatten(b, {}, right);
    std::map<std::string, std::pair<std::string, std::string>> both;
    for (const auto &[k, v] : left)
        both[k].first = v;
    for (const auto &[k, v] : right)
        both[k].second = v;
    QStringList lines;
    for (const auto &[k, v] : both)
        if (v.first != v.second)
            lines << QStringLiteral("%1: %2 → %3")
                         .arg(QString::fromStdString(k),
                              v.first.empty() ? tr("(absent)") : QString::fromStdString(v.first),
                              v.second.empty() ? tr("(absent)") : QString::fromStdString(v.second));
    if (lines.isEmpty())
        lines << tr("The two configurations are the same.");
    return lines;
}

void RunsPage::deleteRun()
{
    const QStringList runs = selectedRuns();
    if (runs.size() != 1)
        return;
    const QString dir = runs.first();
    auto *box = new QMessageBox(QMessageBox::Question, tr("Move Run to Trash"),
                                tr("Move the run folder %1 to the trash?").arg(QDir::toNativeSeparators(dir)),
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::accepted, this, [this, dir] {
        if (!QFile::moveToTrash(dir))
            m_summary->setText(tr("%1 could not be moved to the trash.").arg(QDir::toNativeSeparators(dir)));
        refresh();
    });
    box->open();
}

} // namespace lathe::ui
