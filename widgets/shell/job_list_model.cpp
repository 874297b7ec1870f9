#include "shell/job_list_model.h"

#include "workspace/job.h"
#include "workspace/job_manager.h"

#include <cmath>

namespace lathe::ui {

using workspace::Job;

JobListModel::JobListModel(workspace::JobManager *manager, QObject *parent)
    : QAbstractTableModel(parent)
    , m_manager(manager)
{
    for (Job *job : manager->jobs())
        watch(job);
    connect(manager, &workspace::JobManager::jobAdded, this, [this](Job *job) {
        const int row = static_cast<int>(m_manager->jobs().indexOf(job));
        beginInsertRows({}, row, row);
        endInsertRows();
        watch(job);
    });
    // The manager has already dropped the job from its list: a full reset is the honest
    // signal (clearing ended jobs is rare and the list is short).
    connect(manager, &workspace::JobManager::jobRemoved, this, [this] {
        beginResetModel();
        endResetModel();
    });
}

void JobListModel::watch(Job *job)
{
    const auto update = [this, job] { refresh(job); };
    connect(job, &Job::started, this, update);
    connect(job, &Job::progressChanged, this, update);
    connect(job, &Job::ended, this, update);
}

void JobListModel::refresh(Job *job)
{
    const int row = static_cast<int>(m_manager->jobs().indexOf(job));
    if (row >= 0)
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int JobListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_manager->jobs().size());
}

int JobListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Job *JobListModel::jobAt(int row) const
{
    return row >= 0 && row < m_manager->jobs().size() ? m_manager->jobs().at(row) : nullptr;
}

QString JobListModel::statusText(const Job *job) const
{
    switch (job->state()) {
    case Job::State::Queued:
        return tr("Queued");
    case Job::State::Running:
        return job->isCancelRequested() ? tr("Cancelling…")
                                        : (job->statusText().isEmpty() ? tr("Running") : job->statusText());
    case Job::State::Finished:
        return tr("Finished");
    case Job::State::Failed:
        return tr("Failed: %1").arg(job->errorMessage());
    case Job::State::Cancelled:
        return tr("Cancelled");
    }
    return {};
}

QVariant JobListModel::data(const QModelIndex &index, int role) const
{
    const Job *job = jobAt(index.row());
    if (!job)
        return {};
    if (role == JobRole)
        return QVariant::fromValue(const_cast<Job *>(job));
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case TitleColumn:
            return job->title();
        case StatusColumn:
            return statusText(job);
        case ProgressColumn:
            return static_cast<int>(std::lround(job->progress() * 100.0));
        }
    }
    return {};
}

QVariant JobListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TitleColumn:
        return tr("Job");
    case StatusColumn:
        return tr("Status");
    case ProgressColumn:
        return tr("Progress");
    }
    return {};
}

} // namespace lathe::ui
