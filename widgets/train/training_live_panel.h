#pragma once

#include <QJsonObject>
#include <QList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace lathe::ui {

class TrainingCurves;

// The Train page's Live tab: a run's events (metrics.jsonl objects, engine/run/run_events.h, and
// TrainJob's pause events) as they arrive: the curves, the latest epoch's metrics, and a log of
// checkpoints, resumes, skipped fp16 steps and messages. Each step event also gives the page's
// status line its text (epoch, step, loss, throughput, input wait and the time left), through
// statusChanged(); while the run is paused, the line says Paused.
//
// The time left is the steps still planned at the speed of the steps so far in this session:
// steps per second of unpaused time between step events (a pause is left out, so a run that was
// paused for an hour does not look slow), from the session's start until there are two.
class TrainingLivePanel : public QWidget
{
    Q_OBJECT

public:
    explicit TrainingLivePanel(QWidget *parent = nullptr);

    // A run starts (resume: a run folder continues): the curves, metrics and log are emptied
    // and the clock the time left is measured from starts. A new run also forgets the steps
    // the previous one planned.
    void startRun(bool resume);
    // Events of the running run, oldest first.
    void addEvents(const QList<QJsonObject> &events);

    TrainingCurves *curves() const { return m_curves; }

Q_SIGNALS:
    void statusChanged(const QString &text);

private:
    // Optimizer steps per second of unpaused time; times are seconds since the Unix epoch.
    struct Throughput
    {
        double since = 0;         // the last step event's time (before the first: the start's)
        qint64 sinceStep = 0;     // its step
        double pausedAt = -1;     // a pause not yet ended: when it began (-1: none)
        double pausedSeconds = 0; // pauses that ended since `since`
        bool fromStart = true;    // the next step event ends the interval from the start
        qint64 startSteps = 0;    // that interval (it also counts the start-up)
        double startSeconds = 0;
        qint64 steps = 0;         // the intervals between step events
        double seconds = 0;

        void addStep(qint64 step, double time);
        void pause(double time);
        void resume(double time);
        double stepsPerSecond() const; // 0: not known yet
    };

    QString stepStatus(const QJsonObject &event); // also takes the steps the run plans
    QString pausedStatus() const;
    void showEpoch(const QJsonObject &event);
    void logEvent(const QString &type, const QJsonObject &event);

    qint64 m_totalSteps = 0;
    Throughput m_throughput;
    bool m_paused = false;
    qint64 m_lastStep = -1; // of the last step event (-1: none yet)
    int m_lastEpoch = 0;    // 0-based

    QLabel *m_metrics;
    TrainingCurves *m_curves;
    QPlainTextEdit *m_log;
};

} // namespace lathe::ui
