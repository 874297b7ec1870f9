#include "shell/jobs_panel.h"

#include "shell/job_list_model.h"
#include "shell/progress_delegate.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace lathe::ui {

JobsPanel::JobsPanel(workspace::JobManager *manager, QWidget *parent)
    : QWidget(parent)
    , m_manager(manager)
    , m_model(new JobListModel(manager, this))
    , m_view(new QTreeView(this))
    , m_cancel(new QPushButton(tr("Cancel Job"), this))
    , m_clear(new QPushButton(tr("Clear Finished"), this))
{
    m_view->setObjectName(QStringLiteral("jobsView"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setItemDelegateForColumn(JobListModel::ProgressColumn, new ProgressDelegate(m_view));
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(JobListModel::TitleColumn, QHeaderView::Interactive);
    m_view->header()->setSectionResizeMode(JobListModel::StatusColumn, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(JobListModel::ProgressColumn, QHeaderView::Fixed);
    m_view->header()->resizeSection(JobListModel::TitleColumn, 320);
    m_view->header()->resizeSection(JobListModel::ProgressColumn, 160);

    m_cancel->setObjectName(QStringLiteral("cancelJobButton"));
    m_clear->setObjectName(QStringLiteral("clearJobsButton"));
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (workspace::Job *job = m_model->jobAt(m_view->currentIndex().row()))
            m_manager->cancel(job);
    });
    connect(m_clear, &QPushButton::clicked, m_manager, &workspace::JobManager::clearEnded);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &JobsPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &JobsPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &JobsPanel::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &JobsPanel::updateButtons);

    auto *buttons = new QVBoxLayout;
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_clear);
    buttons->addStretch(1);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);
    updateButtons();
}

void JobsPanel::updateButtons()
{
    const workspace::Job *job = m_model->jobAt(m_view->currentIndex().row());
    m_cancel->setEnabled(job && !job->isEnded() && !job->isCancelRequested());
    m_clear->setEnabled(m_manager->activeCount() < m_manager->jobs().size());
}

} // namespace lathe::ui
