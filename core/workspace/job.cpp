#include "workspace/job.h"

#include "workspace/workspace_error.h"

#include <QMutexLocker>

#include <algorithm>

namespace lathe::workspace {

Job::Job(const QString &title, QObject *parent)
    : QObject(parent)
    , m_title(title)
{
    setAutoDelete(false); // owned by its QObject parent (the JobManager), not the pool
}

Job::~Job() = default;

bool Job::isEnded() const
{
    const State s = state();
    return s == State::Finished || s == State::Failed || s == State::Cancelled;
}

double Job::progress() const
{
    QMutexLocker lock(&m_mutex);
    return m_progress;
}

QString Job::statusText() const
{
    QMutexLocker lock(&m_mutex);
    return m_status;
}

QString Job::errorMessage() const
{
    QMutexLocker lock(&m_mutex);
    return m_error;
}

QVariant Job::result() const
{
    QMutexLocker lock(&m_mutex);
    return m_result;
}

void Job::requestCancel()
{
    m_control.cancel.cancel();
}

bool Job::cancelUnstarted()
{
    m_control.cancel.cancel();
    if (!m_state.testAndSetOrdered(static_cast<int>(State::Queued), static_cast<int>(State::Cancelled)))
        return false;
    Q_EMIT cancelled();
    Q_EMIT ended();
    return true;
}

void Job::run()
{
    if (!m_state.testAndSetOrdered(static_cast<int>(State::Queued), static_cast<int>(State::Running)))
        return; // ended by cancelUnstarted()
    {
        QMutexLocker lock(&m_mutex);
        m_sinceEmit.start();
    }
    Q_EMIT started();
    try {
        checkCancel();
        const QVariant value = execute();
        end(State::Finished, value, {});
    } catch (const engine::Cancelled &) {
        end(State::Cancelled, {}, {});
    } catch (const WorkspaceError &e) {
        end(State::Failed, {}, e.message());
    } catch (const std::exception &e) {
        end(State::Failed, {}, QString::fromStdString(e.what()));
    } catch (...) {
        end(State::Failed, {}, tr("unexpected error"));
    }
}

void Job::reportProgress(double fraction, const QString &status)
{
    {
        QMutexLocker lock(&m_mutex);
        m_progress = std::clamp(fraction, 0.0, 1.0);
        if (!status.isEmpty())
            m_status = status;
        m_progressPending = true;
    }
    emitProgress(false);
}

void Job::emitProgress(bool force)
{
    double fraction = 0.0;
    QString status;
    {
        QMutexLocker lock(&m_mutex);
        if (!m_progressPending || (!force && m_sinceEmit.isValid() && m_sinceEmit.elapsed() < kProgressIntervalMs))
            return;
        m_progressPending = false;
        m_sinceEmit.restart();
        fraction = m_progress;
        status = m_status;
    }
    Q_EMIT progressChanged(fraction, status);
}

engine::TaskControl Job::taskControl(const QString &statusOverride)
{
    engine::TaskControl control;
    control.cancel = m_control.cancel;
    control.progress = [this, statusOverride](double fraction, const std::string &status) {
        reportProgress(fraction, statusOverride.isEmpty() ? QString::fromStdString(status) : statusOverride);
    };
    return control;
}

void Job::end(State state, const QVariant &result, const QString &message)
{
    emitProgress(true); // the last report is never swallowed by the throttle
    {
        QMutexLocker lock(&m_mutex);
        m_result = result;
        m_error = message;
    }
    m_state.storeRelease(static_cast<int>(state));
    switch (state) {
    case State::Finished:
        Q_EMIT finished(result);
        break;
    case State::Failed:
        Q_EMIT failed(message);
        break;
    default:
        Q_EMIT cancelled();
        break;
    }
    Q_EMIT ended();
}

} // namespace lathe::workspace
