#pragma once

#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "workspace/job.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QMutex>
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
// with eventsAvailable() at most about 30 times a second, however fast the trainer steps;
// receivers take them with takeEvents(). Pause and resume act between optimizer steps; cancel
// (Stop) makes the trainer write a checkpoint and end, so a stopped run can be resumed; the job
// then ends with cancelled(), like every other job. Result: TrainResult.
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

    explicit TrainJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

    // Thread-safe.
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
    void queueEvent(const nlohmann::json &event);

    const Params m_params;
    engine::PauseToken m_pause;
    QMutex m_mutex;
    QList<QJsonObject> m_events;
    QElapsedTimer m_sinceAnnounce;
    qint64 m_lastAnnounceMs = -1000;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::TrainResult)
