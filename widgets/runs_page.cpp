#include "runs_page.h"

#include "background_task.h"
#include "project.h"
#include "run_folder.h"
#include "run_overlay_plot.h"
#include "run_table_model.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
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
    QList<QStringList> checkpoints; // step, epoch, metrics, size
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

namespace lathe::ui {

RunsPage::RunsPage(QWidget *parent)
    : QWidget(parent)
    , m_model(new RunTableModel(this))
    , m_sort(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
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

    m_sort->setSourceModel(m_model);
    m_sort->setSortRole(Qt::UserRole);
    m_view->setModel(m_sort);
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
    m_checkpoints->setColumnCount(4);
    m_checkpoints->setHorizontalHeaderLabels({tr("Step"), tr("Epoch"), tr("Metrics"), tr("Size")});
    m_checkpoints->horizontalHeader()->setStretchLastSection(true);
    m_checkpoints->verticalHeader()->hide();
    m_checkpoints->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto *tabs = new QTabWidget(this);
    tabs->addTab(m_overlay, tr("Curves"));
    tabs->addTab(m_diff, tr("Config Diff"));
    tabs->addTab(m_checkpoints, tr("Checkpoints"));

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
    layout->addWidget(splitter, 1);

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
        QFile file(QDir(runs.first()).filePath(QStringLiteral("config.json")));
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
    refresh();
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
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runsDir]() -> QVariant {
            QList<RunTableModel::Row> rows;
            const QDir dir(runsDir);
            for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
                const QString path = dir.filePath(name);
                if (!QFileInfo::exists(QDir(path).filePath(QStringLiteral("config.json"))))
                    continue;
                RunTableModel::Row row;
                row.dir = path;
                try {
                    const engine::RunInfo info = engine::readRunInfo(path.toStdString());
                    row.state = QString::fromStdString(info.state);
                    row.message = QString::fromStdString(info.message);
                    row.arch = QString::fromStdString(info.arch);
                    row.bestMetric = QString::fromStdString(info.bestMetric);
                    row.hasBest = info.bestValue.has_value();
                    row.bestValue = info.bestValue.value_or(0);
                    row.lastEpoch = info.lastEpoch;
                    row.totalEpochs = info.totalEpochs;
                    row.startTime = info.startTime;
                    row.lastTime = info.lastTime;
                } catch (const std::exception &e) {
                    row.state = QStringLiteral("failed");
                    row.message = QString::fromUtf8(e.what());
                }
                rows.append(row);
            }
            return QVariant::fromValue(rows);
        },
        [this, generation](const QVariant &result) {
            if (generation != m_generation)
                return;
            const QStringList selected = selectedRuns();
            m_model->setRows(result.value<QList<RunTableModel::Row>>());
            m_summary->setText(m_model->rowCount() == 0
                                   ? tr("No runs yet: start one on the Train page, or with lathe-cli train --out %1/NAME.")
                                         .arg(QDir::toNativeSeparators(m_project->runsDir()))
                                   : tr("%n run(s) in %1.", "", m_model->rowCount()).arg(QDir::toNativeSeparators(m_project->runsDir())));
            selectRuns(selected);
            updateButtons();
            Q_EMIT refreshed();
        });
}

QStringList RunsPage::selectedRuns() const
{
    QStringList dirs;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        dirs << m_model->row(m_sort->mapToSource(index).row()).dir;
    return dirs;
}

void RunsPage::selectRuns(const QStringList &dirs)
{
    QItemSelection selection;
    for (const QString &dir : dirs) {
        const int row = m_model->indexOf(dir);
        if (row < 0)
            continue;
        const QModelIndex index = m_sort->mapFromSource(m_model->index(row, 0));
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
        resumable = state == QLatin1String("cancelled") || state == QLatin1String("interrupted") ||
                    state == QLatin1String("failed");
    }
    m_open->setEnabled(!runs.isEmpty());
    m_resume->setEnabled(resumable);
    m_clone->setEnabled(runs.size() == 1);
    m_delete->setEnabled(runs.size() == 1 && m_model->row(m_model->indexOf(runs.first())).state != QLatin1String("running"));
}

void RunsPage::selectionChanged()
{
    updateButtons();
    const int generation = ++m_selectionGeneration;
    const QStringList runs = selectedRuns();
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runs]() -> QVariant {
            SelectionData data;
            for (const QString &dir : runs) {
                QList<QJsonObject> epochs;
                for (const nlohmann::json &event : engine::readMetrics(dir.toStdString()))
                    if (event.value("type", std::string()) == "epoch")
                        epochs.append(toQt(event));
                data.curves.append({QFileInfo(dir).fileName(), epochs});
                QFile file(QDir(dir).filePath(QStringLiteral("config.json")));
                data.configs.append(file.open(QIODevice::ReadOnly)
                                        ? nlohmann::json::parse(file.readAll().toStdString(), nullptr, false)
                                        : nlohmann::json());
            }
            if (runs.size() == 1) {
                const QDir checkpoints(QDir(runs.first()).filePath(QStringLiteral("checkpoints")));
                for (const QString &name : checkpoints.entryList({QStringLiteral("step-*.json")}, QDir::Files)) {
                    QFile file(checkpoints.filePath(name));
                    if (!file.open(QIODevice::ReadOnly))
                        continue;
                    const QJsonObject meta = QJsonDocument::fromJson(file.readAll()).object();
                    const QString model = checkpoints.filePath(name.chopped(5) + QStringLiteral(".safetensors"));
                    data.checkpoints.append({QString::number(meta.value(QStringLiteral("step")).toVariant().toLongLong()),
                                             QString::number(meta.value(QStringLiteral("epoch")).toInt() + 1),
                                             QString::fromUtf8(QJsonDocument(meta.value(QStringLiteral("metrics")).toObject())
                                                                   .toJson(QJsonDocument::Compact)),
                                             QLocale().formattedDataSize(QFileInfo(model).size())});
                }
            }
            return QVariant::fromValue(data);
        },
        [this, generation](const QVariant &value) {
            if (generation != m_selectionGeneration)
                return;
            const SelectionData data = value.value<SelectionData>();
            m_overlay->setRuns(data.curves);
            m_diff->setPlainText(data.configs.size() == 2 ? diffConfigs(data.configs[0], data.configs[1]).join(QLatin1Char('\n'))
                                                          : QString());
            m_checkpoints->setRowCount(int(data.checkpoints.size()));
            for (int r = 0; r < data.checkpoints.size(); ++r)
                for (int c = 0; c < 4; ++c)
                    m_checkpoints->setItem(r, c, new QTableWidgetItem(data.checkpoints[r].value(c)));
            Q_EMIT selectionLoaded();
        },
        [this, generation](const QString &message) {
            if (generation == m_selectionGeneration)
                m_summary->setText(tr("Cannot read the selected runs: %1").arg(message));
        });
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
