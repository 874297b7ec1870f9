#include "workspace/run_event_queue.h"

#include "engine/run/run_events.h"
#include "workspace/job.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QMutexLocker>

#include <nlohmann/json.hpp>

#include <utility>

namespace lathe::workspace {

QJsonObject RunEventQueue::jobEvent(const char *type)
{
    return QJsonObject{{QLatin1String(engine::event_key::kType), QLatin1String(type)},
                       {QLatin1String(engine::event_key::kTime), QDateTime::currentMSecsSinceEpoch() / 1000.0}};
}

RunEventQueue::RunEventQueue()
{
    m_sinceAnnounce.start();
}

bool RunEventQueue::push(const QJsonObject &event)
{
    QMutexLocker lock(&m_mutex);
    m_events.append(event);
    const qint64 now = m_sinceAnnounce.elapsed();
    const bool important = event.value(QLatin1String(engine::event_key::kType)).toString() !=
                           QLatin1String(engine::event_type::kStep);
    if (!important && now - m_lastAnnounceMs < Job::kProgressIntervalMs)
        return false;
    m_lastAnnounceMs = now;
    return true;
}

bool RunEventQueue::push(const nlohmann::json &event)
{
    return push(QJsonDocument::fromJson(QByteArray::fromStdString(event.dump())).object());
}

QList<QJsonObject> RunEventQueue::take()
{
    QMutexLocker lock(&m_mutex);
    return std::exchange(m_events, {});
}

} // namespace lathe::workspace
