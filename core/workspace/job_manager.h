#pragma once

#include <QList>
#include <QObject>
#include <QSet>
#include <QThreadPool>

namespace lathe::workspace {

class Job;

// Runs Jobs on its own thread pool and keeps them (running and ended) for the jobs panel.
class JobManager : public QObject
{
    Q_OBJECT

public:
    explicit JobManager(int maxConcurrentJobs = 2, QObject *parent = nullptr);
    // Cancels what is still running and waits for it: only reached at shutdown, after the
    // window has already let running jobs end (see MainWindow::closeEvent).
    ~JobManager() override;

    // Takes ownership and queues the job.
    void start(Job *job);
    void cancel(Job *job);
    void cancelAll();
    // Deletes ended jobs from the list (those whose ended() has reached this thread).
    void clearEnded();

    const QList<Job *> &jobs() const { return m_jobs; }
    int activeCount() const;

Q_SIGNALS:
    void jobAdded(lathe::workspace::Job *job);
    void jobRemoved(lathe::workspace::Job *job);
    void jobEnded(lathe::workspace::Job *job);
    void activeCountChanged(int active);

private:
    QThreadPool m_pool;
    QList<Job *> m_jobs;
    // Jobs whose ended() was delivered here: their worker is done with them, so they can go.
    QSet<Job *> m_ended;
};

} // namespace lathe::workspace
