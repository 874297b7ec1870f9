#pragma once

#include "engine/base/task_control.h"

#include <QAtomicInt>
#include <QElapsedTimer>
#include <QMutex>
#include <QObject>
#include <QRunnable>
#include <QString>
#include <QVariant>

namespace lathe::workspace {

// Long work (scan, convert, train, evaluate, export) as a Job (DESIGN.md §4).
//
// A subclass takes its parameters by value in its constructor and implements execute(),
// which runs on a worker thread, reports progress, polls the cancel flag through
// taskControl() or checkCancel(), returns a result or throws. A Job ends in exactly one of
// finished(result), failed(message) or cancelled(). Progress reaches receivers at most
// about 30 times a second; the last report is always delivered before the terminal signal.
// Signals are emitted from the worker thread, so receivers in the GUI thread get them
// queued.
class Job : public QObject, public QRunnable
{
    Q_OBJECT

public:
    enum class State { Queued, Running, Finished, Failed, Cancelled };
    Q_ENUM(State)

    static constexpr int kProgressIntervalMs = 33;

    explicit Job(const QString &title, QObject *parent = nullptr);
    ~Job() override;

    QString title() const { return m_title; }
    State state() const { return static_cast<State>(m_state.loadAcquire()); }
    bool isEnded() const;
    double progress() const;
    QString statusText() const;
    QString errorMessage() const;
    QVariant result() const;

    // Thread-safe: a running job ends with cancelled() when execute() next checks the flag;
    // a job that has not started yet ends with cancelled() as soon as it is run.
    void requestCancel();
    // For a job that is not (or no longer) queued anywhere: ends it now with cancelled().
    // Returns false, doing nothing, if it has already started.
    bool cancelUnstarted();
    bool isCancelRequested() const { return m_control.cancel.isCancelled(); }

    void run() final;

Q_SIGNALS:
    void started();
    void progressChanged(double fraction, const QString &status);
    void finished(const QVariant &result);
    void failed(const QString &message);
    void cancelled();
    // After whichever terminal signal; convenient for owners that only need to know "over".
    void ended();

protected:
    virtual QVariant execute() = 0;

    // From execute(): fraction in [0, 1]; an empty status keeps the previous one.
    void reportProgress(double fraction, const QString &status = {});
    void checkCancel() const { m_control.checkCancel(); }
    // For engine calls: progress forwarded to reportProgress(), cancel shared with this job.
    // statusOverride, when given, replaces the engine's (untranslated) status text.
    engine::TaskControl taskControl(const QString &statusOverride = {});

private:
    void end(State state, const QVariant &result, const QString &message);
    void emitProgress(bool force);

    const QString m_title;
    engine::TaskControl m_control;
    QAtomicInt m_state{static_cast<int>(State::Queued)};

    mutable QMutex m_mutex; // guards everything below
    double m_progress = 0.0;
    QString m_status;
    bool m_progressPending = false;
    QElapsedTimer m_sinceEmit;
    QString m_error;
    QVariant m_result;
};

} // namespace lathe::workspace
