#pragma once

#include <QObject>
#include <QRunnable>
#include <QVariant>

#include <functional>

class QThreadPool;

namespace lathe::ui {

// A function run once on a thread pool, its outcome delivered as a queued signal to the
// thread of whoever listens. Widgets use it for file and database work that must not
// block the GUI thread. A WorkspaceError or any std::exception thrown by the function
// becomes failed(message).
//
// The task deletes itself after running. Connect with a context object: when the context
// is destroyed first, the connection goes with it and the result is simply dropped.
class BackgroundTask : public QObject, public QRunnable
{
    Q_OBJECT

public:
    using Function = std::function<QVariant()>;

    explicit BackgroundTask(Function function);

    void run() override;

    // Runs function on pool; onFinished/onFailed run in context's thread, never after
    // context is gone.
    static void start(QThreadPool *pool, QObject *context, Function function,
                      std::function<void(const QVariant &)> onFinished,
                      std::function<void(const QString &)> onFailed = {});

Q_SIGNALS:
    void finished(const QVariant &result);
    void failed(const QString &message);

private:
    Function m_function;
};

} // namespace lathe::ui
