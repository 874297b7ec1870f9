#include "common/background_task.h"

#include "workspace/workspace_error.h"

#include <QThreadPool>

#include <exception>

namespace lathe::ui {

BackgroundTask::BackgroundTask(Function function)
    : m_function(std::move(function))
{
    setAutoDelete(true);
}

void BackgroundTask::run()
{
    QVariant result;
    QString error;
    bool ok = false;
    try {
        result = m_function();
        ok = true;
    } catch (const workspace::WorkspaceError &e) {
        error = e.message();
    } catch (const std::exception &e) {
        error = QString::fromLocal8Bit(e.what());
    }
    if (ok)
        Q_EMIT finished(result);
    else
        Q_EMIT failed(error);
}

void BackgroundTask::start(QThreadPool *pool, QObject *context, Function function,
                           std::function<void(const QVariant &)> onFinished,
                           std::function<void(const QString &)> onFailed)
{
    auto *task = new BackgroundTask(std::move(function));
    // Emitted on the worker thread: queued into context's thread.
    connect(task, &BackgroundTask::finished, context, std::move(onFinished), Qt::QueuedConnection);
    if (onFailed)
        connect(task, &BackgroundTask::failed, context, std::move(onFailed), Qt::QueuedConnection);
    pool->start(task);
}

} // namespace lathe::ui
