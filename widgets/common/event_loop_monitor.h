#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QVector>

#include <array>

class QTimer;

namespace lathe::ui {

// How long the thread's event loop keeps a timer waiting: a precise single-shot timer is armed
// every intervalMs on the thread the monitor lives in (the GUI thread), and each time it fires
// the lateness (the time it fired minus the time it was due) is recorded. A blocked or busy
// loop shows up as lateness: 16 ms late is a dropped frame. Samples of the last minute are kept
// in a bounded ring buffer; since start, a histogram (0.1 ms buckets up to 1 s) keeps the
// percentiles at constant memory. A blocked loop yields one long sample rather than many, so
// the percentiles are over timer firings, not over wall time; max catches the long stalls.
class EventLoopMonitor : public QObject
{
    Q_OBJECT

public:
    struct Stats
    {
        qint64 samples = 0;
        double p50Ms = 0;
        double p99Ms = 0;
        double maxMs = 0;
    };

    explicit EventLoopMonitor(int intervalMs = 10, QObject *parent = nullptr);

    // The application's monitor, started on first use (call it early in main()); owned by the
    // QCoreApplication, on its thread. nullptr without an application.
    static EventLoopMonitor *application();

    int intervalMs() const { return m_intervalMs; }
    Stats lastMinute() const;
    Stats sinceStart() const;
    // Forget every sample (a benchmark measuring one phase).
    void reset();

private:
    struct Sample
    {
        qint64 atMs;
        float latenessMs;
    };

    void fire();
    void arm();

    static constexpr int kRingSize = 8192; // > one minute of 10 ms samples
    static constexpr int kBuckets = 10000; // 0.1 ms each: 0 .. 1000 ms
    static constexpr double kBucketMs = 0.1;

    const int m_intervalMs;
    QTimer *m_timer;
    QElapsedTimer m_clock;
    qint64 m_dueNs = 0;
    QVector<Sample> m_ring;
    int m_ringNext = 0;
    std::array<qint64, kBuckets + 1> m_histogram{}; // the last bucket holds everything >= 1 s
    qint64 m_samples = 0;
    double m_maxMs = 0;
};

} // namespace lathe::ui
