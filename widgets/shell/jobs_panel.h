#pragma once

#include <QWidget>

class QPushButton;
class QTreeView;

namespace lathe::workspace {
class JobManager;
}

namespace lathe::ui {

class JobListModel;

// Every job of the session with its progress; cancel the selected one, clear ended ones.
class JobsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit JobsPanel(workspace::JobManager *manager, QWidget *parent = nullptr);
    QTreeView *view() const { return m_view; }

private:
    void updateButtons();

    workspace::JobManager *m_manager;
    JobListModel *m_model;
    QTreeView *m_view;
    QPushButton *m_cancel;
    QPushButton *m_clear;
};

} // namespace lathe::ui
