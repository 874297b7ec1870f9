// Live curves under load: the Train page's TrainingCurves (shown, 1000x700) preloaded with
// 1,000,000 step points, then fed more steps from a worker thread the way TrainJob feeds the
// page: events queued under a mutex, announced by a queued signal at most every 33 ms, taken
// and appended on the GUI thread. Meanwhile EventLoopMonitor (10 ms precise timer) measures how
// late the GUI thread's event loop runs. Three phases, each on fresh widgets:
//   curves            TrainingCurves following the latest steps (the default view);
//   curves_full_view  TrainingCurves showing all the steps (adaptive sampling over 1M points);
//   naive             a baseline that rebuilds each graph from all its points on every update
//                     and rescales the value axes over all the data (what the issue forbids).
// Prints one JSON line. Run offscreen (the default) or under X: xvfb-run -a bench_live_plot.
//
//   bench_live_plot [--preload N] [--stream N] [--rate STEPS_PER_S]
// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "common/event_loop_monitor.h"
#include "train/training_curves.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QGridLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

using namespace lathe;

namespace {

constexpr int kAnnounceMs = 33; // TrainJob's kProgressIntervalMs
constexpr int kFollowSteps = 2000;

struct Step
{
    double step, loss, lr, imagesPerS, inputWait;
};

Step syntheticStep(qint64 step)
{
    const double s = double(step);
    return {s, 2.0 / (1.0 + 1e-4 * s) + 0.1 * std::sin(0.37 * s), 0.1 * (1.0 + std::cos(1e-6 * s)) / 2,
            900.0 + 50.0 * std::sin(0.01 * s), 0.02 + 0.01 * std::sin(0.1 * s)};
}

QJsonObject toEvent(const Step &s)
{
    return {{QStringLiteral("type"), QStringLiteral("step")}, {QStringLiteral("step"), s.step},
            {QStringLiteral("loss"), s.loss},                  {QStringLiteral("lr"), s.lr},
            {QStringLiteral("images_per_s"), s.imagesPerS},    {QStringLiteral("input_wait_fraction"), s.inputWait}};
}

// The trainer's side of TrainJob: steps at a fixed rate on a worker thread, queued as JSON
// objects, announced at most every 33 ms.
class Producer : public QObject
{
    Q_OBJECT

public:
    Producer(qint64 first, qint64 count, double rate)
        : m_first(first), m_count(count), m_rate(rate)
    {
    }
    ~Producer() override
    {
        if (m_thread.joinable())
            m_thread.join();
    }

    void start()
    {
        m_thread = std::thread([this] { run(); });
    }
    QList<QJsonObject> take()
    {
        QMutexLocker lock(&m_mutex);
        return std::exchange(m_events, {});
    }
    bool done() const { return m_done.loadAcquire(); }

Q_SIGNALS:
    void eventsAvailable();

private:
    void run()
    {
        const auto start = std::chrono::steady_clock::now();
        QElapsedTimer sinceAnnounce;
        sinceAnnounce.start();
        for (qint64 i = 0; i < m_count; ++i) {
            const QJsonObject event = toEvent(syntheticStep(m_first + i));
            bool announce = false;
            {
                QMutexLocker lock(&m_mutex);
                m_events.append(event);
                if (sinceAnnounce.elapsed() >= kAnnounceMs) {
                    sinceAnnounce.restart();
                    announce = true;
                }
            }
            if (announce)
                Q_EMIT eventsAvailable();
            if (i % 64 == 63)
                std::this_thread::sleep_until(start + std::chrono::duration<double>(double(i + 1) / m_rate));
        }
        m_done.storeRelease(1);
        Q_EMIT eventsAvailable();
    }

    const qint64 m_first, m_count;
    const double m_rate;
    std::thread m_thread;
    QMutex m_mutex;
    QList<QJsonObject> m_events;
    QAtomicInt m_done;
};

// The baseline: the same five step graphs in a 2x2 grid, rebuilt from all their points on
// every update, the value axes rescaled over all the data, one queued replot per update.
class NaivePlots : public QWidget
{
public:
    NaivePlots()
    {
        auto *grid = new QGridLayout(this);
        for (int i = 0; i < 4; ++i) {
            auto *plot = new QCustomPlot(this);
            grid->addWidget(plot, i / 2, i % 2);
            m_plots.push_back(plot);
        }
        const int plotOf[5] = {0, 0, 2, 3, 3}; // step loss, smoothed, lr, images/s, input wait
        for (int i = 0; i < 5; ++i) {
            QCustomPlot *plot = m_plots[plotOf[i]];
            m_graphs.push_back(plot->addGraph(plot->xAxis, i == 4 ? plot->yAxis2 : plot->yAxis));
        }
        m_plots[3]->yAxis2->setVisible(true);
    }

    void append(const Step &s)
    {
        m_smooth = m_keys.isEmpty() ? s.loss : 0.9 * m_smooth + 0.1 * s.loss;
        m_keys.append(s.step);
        const double values[5] = {s.loss, m_smooth, s.lr, s.imagesPerS, 100 * s.inputWait};
        for (int i = 0; i < 5; ++i)
            m_values[i].append(values[i]);
    }
    void rebuild()
    {
        for (int i = 0; i < 5; ++i)
            m_graphs[i]->setData(m_keys, m_values[i], true);
    }
    void replot(bool follow)
    {
        for (QCustomPlot *plot : m_plots) {
            plot->rescaleAxes(true);
            if (follow && !m_keys.isEmpty())
                plot->xAxis->setRange(m_keys.last() - kFollowSteps, m_keys.last());
            plot->replot();
        }
    }

private:
    std::vector<QCustomPlot *> m_plots;
    std::vector<QCPGraph *> m_graphs;
    QVector<double> m_keys;
    QVector<double> m_values[5];
    double m_smooth = 0;
};

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t rank = std::size_t(std::ceil(p * double(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

QJsonObject spread(const std::vector<double> &ms)
{
    return {{QStringLiteral("p50"), percentile(ms, 0.5)}, {QStringLiteral("p99"), percentile(ms, 0.99)},
            {QStringLiteral("max"), percentile(ms, 1.0)}};
}

struct Phase
{
    std::function<void(const QList<QJsonObject> &)> take; // on the GUI thread, per update
    std::vector<double> handlerMs, replotMs;
    qint64 updates = 0;
};

// Streams `count` steps after `first` into `phase`, measuring the GUI thread meanwhile.
QJsonObject stream(Phase &phase, qint64 first, qint64 count, double rate, qint64 points)
{
    ui::EventLoopMonitor monitor(10);
    QEventLoop loop;
    Producer producer(first, count, rate);
    QObject::connect(&producer, &Producer::eventsAvailable, &loop, [&] {
        QElapsedTimer timer;
        timer.start();
        const QList<QJsonObject> events = producer.take();
        if (!events.isEmpty()) {
            phase.take(events);
            ++phase.updates;
            phase.handlerMs.push_back(timer.nsecsElapsed() / 1e6);
        }
        if (producer.done())
            QTimer::singleShot(200, &loop, &QEventLoop::quit); // the last replot, then stop
    }, Qt::QueuedConnection);
    producer.start();
    loop.exec();
    const ui::EventLoopMonitor::Stats latency = monitor.lastMinute();
    return {{QStringLiteral("points"), points},
            {QStringLiteral("updates"), phase.updates},
            {QStringLiteral("handler_ms"), spread(phase.handlerMs)},
            {QStringLiteral("replot_ms"), spread(phase.replotMs)},
            {QStringLiteral("replots"), qint64(phase.replotMs.size())},
            {QStringLiteral("event_loop_ms"),
             QJsonObject{{QStringLiteral("p50"), latency.p50Ms},
                         {QStringLiteral("p99"), latency.p99Ms},
                         {QStringLiteral("max"), latency.maxMs},
                         {QStringLiteral("samples"), latency.samples}}}};
}

void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

QJsonObject runCurves(qint64 preload, qint64 count, double rate, bool follow)
{
    ui::TrainingCurves curves;
    curves.resize(1000, 700);
    curves.setFollowLatest(follow);
    curves.show();
    QList<QJsonObject> chunk;
    for (qint64 step = 1; step <= preload; ++step) {
        chunk.append(toEvent(syntheticStep(step)));
        if (chunk.size() == 50000 || step == preload)
            curves.addEvents(std::exchange(chunk, {}));
    }
    if (!follow) // everything in view, as the user would set it
        for (int i = 0; i < ui::TrainingCurves::PlotCount; ++i) {
            QCustomPlot *plot = curves.plot(ui::TrainingCurves::Plot(i));
            plot->rescaleAxes();
            plot->xAxis->setRange(0, double(preload + count));
        }
    settle(300);

    Phase phase;
    phase.take = [&](const QList<QJsonObject> &events) { curves.addEvents(events); };
    QObject::connect(&curves, &ui::TrainingCurves::replotted, [&](double ms) { phase.replotMs.push_back(ms); });
    return stream(phase, preload + 1, count, rate, curves.stepPoints() + count);
}

QJsonObject runNaive(qint64 preload, qint64 count, double rate)
{
    NaivePlots plots;
    plots.resize(1000, 700);
    plots.show();
    for (qint64 step = 1; step <= preload; ++step)
        plots.append(syntheticStep(step));
    plots.rebuild();
    plots.replot(true);
    settle(300);

    Phase phase;
    bool queued = false;
    phase.take = [&](const QList<QJsonObject> &events) {
        for (const QJsonObject &e : events)
            plots.append({e.value(QStringLiteral("step")).toDouble(), e.value(QStringLiteral("loss")).toDouble(),
                          e.value(QStringLiteral("lr")).toDouble(), e.value(QStringLiteral("images_per_s")).toDouble(),
                          e.value(QStringLiteral("input_wait_fraction")).toDouble()});
        plots.rebuild();
        if (std::exchange(queued, true))
            return;
        QTimer::singleShot(0, &plots, [&] {
            queued = false;
            QElapsedTimer timer;
            timer.start();
            plots.replot(true);
            phase.replotMs.push_back(timer.nsecsElapsed() / 1e6);
        });
    };
    return stream(phase, preload + 1, count, rate, preload + count);
}

double ratio(const QJsonObject &slow, const QJsonObject &fast, const QString &what)
{
    const double denominator = fast.value(what).toObject().value(QStringLiteral("p99")).toDouble();
    const double numerator = slow.value(what).toObject().value(QStringLiteral("p99")).toDouble();
    return denominator > 0 ? numerator / denominator : 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption preloadOption(QStringLiteral("preload"), QStringLiteral("Step points before streaming"),
                                           QStringLiteral("N"), QStringLiteral("1000000"));
    const QCommandLineOption streamOption(QStringLiteral("stream"), QStringLiteral("Step points streamed per phase"),
                                          QStringLiteral("N"), QStringLiteral("60000"));
    const QCommandLineOption rateOption(QStringLiteral("rate"), QStringLiteral("Steps per second from the worker"),
                                        QStringLiteral("STEPS_PER_S"), QStringLiteral("20000"));
    parser.addHelpOption();
    parser.addOptions({preloadOption, streamOption, rateOption});
    parser.process(app);
    const qint64 preload = std::max<qint64>(1, parser.value(preloadOption).toLongLong());
    const qint64 count = std::max<qint64>(1, parser.value(streamOption).toLongLong());
    const double rate = std::max(1.0, parser.value(rateOption).toDouble());

    const QJsonObject curves = runCurves(preload, count, rate, true);
    const QJsonObject fullView = runCurves(preload, count, rate, false);
    const QJsonObject naive = runNaive(preload, count, rate);
    const QJsonObject result{
        {QStringLiteral("benchmark"), QStringLiteral("live_plot")},
        {QStringLiteral("platform"), QGuiApplication::platformName()},
        {QStringLiteral("preload"), preload},
        {QStringLiteral("streamed"), count},
        {QStringLiteral("rate_steps_per_s"), rate},
        {QStringLiteral("curves"), curves},
        {QStringLiteral("curves_full_view"), fullView},
        {QStringLiteral("naive"), naive},
        {QStringLiteral("naive_over_curves"),
         QJsonObject{{QStringLiteral("handler_p99"), ratio(naive, curves, QStringLiteral("handler_ms"))},
                     {QStringLiteral("replot_p99"), ratio(naive, curves, QStringLiteral("replot_ms"))},
                     {QStringLiteral("event_loop_p99"), ratio(naive, curves, QStringLiteral("event_loop_ms"))}}},
    };
    std::printf("%s\n", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
    return 0;
}

#include "bench_live_plot.moc"
