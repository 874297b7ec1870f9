#pragma once

#include <QAbstractTableModel>

namespace lathe::workspace {
class Job;
class JobManager;
} // namespace lathe::workspace

namespace lathe::ui {

// The jobs of a JobManager as a table: title, state/status, progress (0..100).
class JobListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { TitleColumn, StatusColumn, ProgressColumn, ColumnCount };
    static constexpr int JobRole = Qt::UserRole + 1;

    explicit JobListModel(workspace::JobManager *manager, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    workspace::Job *jobAt(int row) const;

private:
    void watch(workspace::Job *job);
    void refresh(workspace::Job *job);
    QString statusText(const workspace::Job *job) const;

    workspace::JobManager *m_manager;
};

} // namespace lathe::ui
