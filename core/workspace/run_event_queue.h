#pragma once

#include <nlohmann/json_fwd.hpp>

#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QMutex>

namespace lathe::workspace {

// The events of a training run (engine::TrainControl::onEvent's), handed from the job's worker
// thread to the GUI thread by TrainJob and CrossValidationJob. push() queues one and says
// whether the job should announce the queue now: at once for anything but a step event (epochs,
// checkpoints, logs, ends, pauses), for steps at most every Job::kProgressIntervalMs, however
// fast the trainer steps. take() hands over what is queued. Thread-safe.
class RunEventQueue
{
public:
    // Events of the job itself, queued among the trainer's in the order they happened (never
    // written to metrics.jsonl): {"type": kPausedEvent or kContinuedEvent, "time": seconds since
    // the Unix epoch, the trainer's clock}.
    static constexpr const char *kPausedEvent = "paused";
    static constexpr const char *kContinuedEvent = "continued";
    static QJsonObject jobEvent(const char *type);

    RunEventQueue();

    bool push(const QJsonObject &event);
    bool push(const nlohmann::json &event);
    // The events queued since the last call, oldest first.
    QList<QJsonObject> take();

private:
    QMutex m_mutex;
    QList<QJsonObject> m_events;
    QElapsedTimer m_sinceAnnounce;
    qint64 m_lastAnnounceMs = -1000;
};

} // namespace lathe::workspace
