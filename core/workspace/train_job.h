#pragma once

#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "workspace/job.h"
#include "workspace/pause_switch.h"
#include "workspace/run_event_queue.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace lathe::workspace {

// What a finished TrainJob returns (Job::result().value<TrainResult>()): the trainer's summary.
struct TrainResult
{
    QString runDir;
    qint64 epochs = 0;
    qint64 steps = 0;
    bool stoppedEarly = false;
    QString bestMetric;              // the run's checkpoints.best_metric
    std::optional<double> bestValue; // none when no epoch measured it
    QString bestCheckpoint;          // empty when the run has none
    QString lastCheckpoint;
    bool featureCache = false;       // trained on cached backbone features
    QJsonObject metrics;             // the last epoch's
};

// A training run (engine::train, or engine::resume of an existing run folder) on a worker
// thread. The trainer's events (step, epoch, checkpoint, log, ...) are queued and announced
// with eventsAvailable() (RunEventQueue: steps at most about 30 times a second, however fast the
// trainer steps); receivers take them with takeEvents(). Pause and resume act between optimizer steps; cancel
// (Stop) makes the trainer write a checkpoint and end, so a stopped run can be resumed; the job
// then ends with cancelled(), like every other job. Result: TrainResult.
//
// Pausing and continuing are queued as events of their own among the trainer's, in the order
// they happened (they are never written to metrics.jsonl): {"type": kPausedEvent or
// kContinuedEvent, "time": seconds since the Unix epoch}. Whoever shows the run's progress so
// sees the pause where it falls between the steps, and can leave it out of the time left.
class TrainJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString runDir;
        engine::RunConfig config; // a new run
        bool resume = false;      // continue runDir instead; config is ignored
    };

    static constexpr const char *kPausedEvent = RunEventQueue::kPausedEvent;
    static constexpr const char *kContinuedEvent = RunEventQueue::kContinuedEvent;

    explicit TrainJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

    // Thread-safe. Each does nothing when the run is paused already (pause) or not (resumeRun).
    void pause();
    void resumeRun();
    bool isPaused() const;
    // The events queued since the last call, oldest first.
    QList<QJsonObject> takeEvents();

Q_SIGNALS:
    void eventsAvailable();
    void pausedChanged(bool paused);

protected:
    QVariant execute() override;

private:
    void queueJobEvent(const char *type); // kPausedEvent, kContinuedEvent

    const Params m_params;
    PauseSwitch m_pause;
    RunEventQueue m_events;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::TrainResult)
