#pragma once

#include <QJsonObject>
#include <QList>
#include <QWidget>

class QLabel;
class QPlainTextEdit;

namespace lathe::ui {

class TrainingCurves;

// The Train page's Live tab: a run's events (metrics.jsonl objects, engine/run/run_events.h) as
// they arrive: the curves, the latest epoch's metrics, and a log of checkpoints, resumes,
// skipped fp16 steps and messages. Each step event also gives the page's status line its text
// (epoch, step, loss, throughput, input wait and the time left), through statusChanged().
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
    QString stepStatus(const QJsonObject &event); // also takes the steps the run plans
    void showEpoch(const QJsonObject &event);
    void logEvent(const QString &type, const QJsonObject &event);

    qint64 m_totalSteps = 0;
    double m_runStarted = 0; // seconds since the Unix epoch

    QLabel *m_metrics;
    TrainingCurves *m_curves;
    QPlainTextEdit *m_log;
};

} // namespace lathe::ui
