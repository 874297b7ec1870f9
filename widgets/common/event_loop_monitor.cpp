#include "common/event_loop_monitor.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lathe::ui {
namespace {

constexpr qint64 kMinuteMs = 60 * 1000;

// The nearest-rank percentile: the smallest value with at least p of the samples at or below it.
qint64 rank(qint64 count, double p)
{
    return std::clamp<qint64>(qint64(std::ceil(p * double(count))), 1, count);
}

double percentile(std::vector<float> &values, double p)
{
    const auto nth = values.begin() + (rank(qint64(values.size()), p) - 1);
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

} // namespace

EventLoopMonitor::EventLoopMonitor(int intervalMs, QObject *parent)
    : QObject(parent)
    , m_intervalMs(std::max(1, intervalMs))
    , m_timer(new QTimer(this))
{
    m_ring.reserve(kRingSize);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &EventLoopMonitor::fire);
    m_clock.start();
    arm();
}

EventLoopMonitor *EventLoopMonitor::application()
{
    static QPointer<EventLoopMonitor> monitor;
    QCoreApplication *app = QCoreApplication::instance();
    if (!monitor && app)
        monitor = new EventLoopMonitor(10, app);
    return monitor;
}

void EventLoopMonitor::arm()
{
    m_dueNs = m_clock.nsecsElapsed() + qint64(m_intervalMs) * 1000000;
    m_timer->start(m_intervalMs);
}

void EventLoopMonitor::fire()
{
    const qint64 nowNs = m_clock.nsecsElapsed();
    const double lateMs = std::max<qint64>(0, nowNs - m_dueNs) / 1e6;
    const Sample sample{nowNs / 1000000, float(lateMs)};
    if (m_ring.size() < kRingSize)
        m_ring.append(sample);
    else
        m_ring[m_ringNext] = sample;
    m_ringNext = (m_ringNext + 1) % kRingSize;
    ++m_histogram[std::min<qint64>(kBuckets, qint64(lateMs / kBucketMs))];
    ++m_samples;
    m_maxMs = std::max(m_maxMs, lateMs);
    arm();
}

EventLoopMonitor::Stats EventLoopMonitor::lastMinute() const
{
    const qint64 since = m_clock.elapsed() - kMinuteMs;
    std::vector<float> values;
    values.reserve(m_ring.size());
    for (const Sample &sample : m_ring)
        if (sample.atMs >= since)
            values.push_back(sample.latenessMs);
    Stats stats;
    if (values.empty())
        return stats;
    stats.samples = qint64(values.size());
    stats.maxMs = *std::max_element(values.begin(), values.end());
    stats.p99Ms = percentile(values, 0.99);
    stats.p50Ms = percentile(values, 0.50);
    return stats;
}

EventLoopMonitor::Stats EventLoopMonitor::sinceStart() const
{
    Stats stats;
    stats.samples = m_samples;
    stats.maxMs = m_maxMs;
    if (m_samples == 0)
        return stats;
    // A bucket stands for its upper edge, never above the largest sample seen.
    const auto fromHistogram = [this](double p) {
        const qint64 wanted = rank(m_samples, p);
        qint64 seen = 0;
        for (int bucket = 0; bucket < kBuckets; ++bucket) {
            seen += m_histogram[bucket];
            if (seen >= wanted)
                return std::min(m_maxMs, (bucket + 1) * kBucketMs);
        }
        return m_maxMs;
    };
    stats.p50Ms = fromHistogram(0.50);
    stats.p99Ms = fromHistogram(0.99);
    return stats;
}

void EventLoopMonitor::reset()
{
    m_ring.clear();
    m_ringNext = 0;
    m_histogram.fill(0);
    m_samples = 0;
    m_maxMs = 0;
}

} // namespace lathe::ui
