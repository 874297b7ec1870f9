#include "workspace/job_manager.h"

#include "workspace/job.h"

namespace lathe::workspace {

JobManager::JobManager(int maxConcurrentJobs, QObject *parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(std::max(1, maxConcurrentJobs));
}

JobManager::~JobManager()
{
    cancelAll();
    m_pool.waitForDone();
}

void JobManager::start(Job *job)
{
    job->setParent(this);
    m_jobs.append(job);
    connect(job, &Job::ended, this, [this, job] {
        m_ended.insert(job);
        Q_EMIT jobEnded(job);
        Q_EMIT activeCountChanged(activeCount());
    });
    Q_EMIT jobAdded(job);
    m_pool.start(job);
    Q_EMIT activeCountChanged(activeCount());
}

void JobManager::cancel(Job *job)
{
    if (!m_jobs.contains(job) || job->isEnded())
        return;
    // Still waiting in the queue: take it out and end it now instead of when a slot frees.
    if (m_pool.tryTake(job) && job->cancelUnstarted())
        return;
    job->requestCancel();
}

void JobManager::cancelAll()
{
    const QList<Job *> jobs = m_jobs;
    for (Job *job : jobs)
        cancel(job);
}

void JobManager::clearEnded()
{
    const QList<Job *> jobs = m_jobs;
    for (Job *job : jobs) {
        if (!m_ended.contains(job))
            continue;
        m_jobs.removeAll(job);
        m_ended.remove(job);
        Q_EMIT jobRemoved(job);
        job->deleteLater();
    }
}

int JobManager::activeCount() const
{
    return static_cast<int>(m_jobs.size() - m_ended.size());
}

} // namespace lathe::workspace
