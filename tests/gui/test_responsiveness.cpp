// The GUI's responsiveness instruments and the plots that must stay light: EventLoopMonitor's
// samples and percentiles, the About dialog's live diagnostics, and TrainingCurves holding a
// million step points in the same data containers with "follow latest" on the newest step.
// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "common/event_loop_monitor.h"
#include "shell/about_dialog.h"
#include "train/training_curves.h"

#include <qcustomplot.h>

#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QThread>
#include <QTimer>
#include <QtTest>

#include <cmath>

using namespace lathe;

namespace {

constexpr int kMillion = 1000000;

QJsonObject stepEvent(int step)
{
    return {{QStringLiteral("type"), QStringLiteral("step")},
            {QStringLiteral("step"), step},
            {QStringLiteral("loss"), 2.0 / (1.0 + 0.001 * step) + 0.05 * std::sin(step)},
            {QStringLiteral("lr"), 0.1},
            {QStringLiteral("images_per_s"), 900.0 + (step % 50)},
            {QStringLiteral("input_wait_fraction"), 0.02}};
}

void checkSane(const ui::EventLoopMonitor::Stats &stats)
{
    QVERIFY(stats.samples > 0);
    QVERIFY(stats.p50Ms >= 0);
    QVERIFY(stats.p50Ms <= stats.p99Ms);
    QVERIFY(stats.p99Ms <= stats.maxMs);
}

} // namespace

class ResponsivenessTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void monitorRecordsLateness()
    {
        ui::EventLoopMonitor monitor(2);
        QCOMPARE(monitor.sinceStart().samples, qint64(0));
        QTRY_VERIFY(monitor.sinceStart().samples >= 20);
        checkSane(monitor.lastMinute());
        checkSane(monitor.sinceStart());

        // A handler that holds the loop for 40 ms makes the next firing at least ~38 ms late.
        QTimer::singleShot(0, this, [] { QThread::msleep(40); });
        QTRY_VERIFY(monitor.lastMinute().maxMs >= 30);
        QVERIFY(monitor.sinceStart().maxMs >= 30);
        checkSane(monitor.lastMinute());
        checkSane(monitor.sinceStart());

        monitor.reset();
        QCOMPARE(monitor.sinceStart().samples, qint64(0));
        QCOMPARE(monitor.lastMinute().samples, qint64(0));
        QTRY_VERIFY(monitor.lastMinute().samples > 0);
    }

    void applicationMonitorIsOne()
    {
        ui::EventLoopMonitor *monitor = ui::EventLoopMonitor::application();
        QVERIFY(monitor);
        QCOMPARE(ui::EventLoopMonitor::application(), monitor);
        QCOMPARE(monitor->thread(), QCoreApplication::instance()->thread());
    }

    void aboutShowsLiveLatency()
    {
        ui::EventLoopMonitor::application();
        ui::AboutDialog about;
        auto *latency = about.findChild<QLabel *>(QStringLiteral("eventLoopLatency"));
        QVERIFY(latency);
        // Filled in as samples arrive while the dialog is open.
        QTRY_VERIFY(latency->text().contains(QStringLiteral("p99")));
        QVERIFY(about.details().contains(QStringLiteral("Event-loop latency:")));
        QVERIFY(about.details().contains(latency->text()));
    }

    void curvesHoldAMillionStepsInTheSameContainers()
    {
        ui::TrainingCurves curves;
        curves.resize(1000, 700);
        curves.show();
        QVERIFY(QTest::qWaitForWindowExposed(&curves));
        QCustomPlot *loss = curves.plot(ui::TrainingCurves::LossPlot);
        QCPGraph *steps = loss->graph(0);
        QCPGraph *smoothed = loss->graph(1);
        const QCPGraphDataContainer *stepData = steps->data().data();
        const QCPGraphDataContainer *smoothData = smoothed->data().data();
        QSignalSpy replotted(&curves, &ui::TrainingCurves::replotted);

        QList<QJsonObject> burst;
        for (int step = 1; step <= kMillion; ++step) {
            burst.append(stepEvent(step));
            if (burst.size() == 100000 || step == kMillion)
                curves.addEvents(std::exchange(burst, {}));
        }
        QCOMPARE(curves.stepPoints(), kMillion);
        QCOMPARE(steps->data()->size(), kMillion);
        QCOMPARE(smoothed->data()->size(), kMillion);
        QCOMPARE(curves.plot(ui::TrainingCurves::LearningRatePlot)->graph(0)->data()->size(), kMillion);
        QCOMPARE(steps->data().data(), stepData);
        QCOMPARE(smoothed->data().data(), smoothData);

        // Ten bursts before the loop ran: one replot.
        QTRY_COMPARE(replotted.count(), 1);
        const QCPRange x = loss->xAxis->range();
        // The newest step is in view, with the axes' padding beyond it (kPlotPadding).
        QVERIFY(x.contains(double(kMillion)) && x.upper < 1.1 * kMillion);
        QVERIFY(x.lower < x.upper);
        // The value axis fits the newest points, not the whole run's range.
        const double last = stepEvent(kMillion).value(QStringLiteral("loss")).toDouble();
        QVERIFY(loss->yAxis->range().contains(last));
        QVERIFY(!loss->yAxis->range().contains(stepEvent(1).value(QStringLiteral("loss")).toDouble()));

        // One more point: the view follows it.
        curves.addEvents({stepEvent(kMillion + 1)});
        QTRY_COMPARE(replotted.count(), 2);
        QVERIFY(loss->xAxis->range().contains(double(kMillion + 1)) && loss->xAxis->range().upper > x.upper);
        QCOMPARE(steps->data().data(), stepData);

        // A new smoothing recomputes the smoothed line in place.
        curves.setSmoothing(0.5);
        QCOMPARE(smoothed->data().data(), smoothData);
        QCOMPARE(smoothed->data()->size(), kMillion + 1);

        // Not following: the user's range stays.
        curves.setFollowLatest(false);
        loss->xAxis->setRange(10, 20);
        const int before = replotted.count();
        curves.addEvents({stepEvent(kMillion + 2)});
        QTRY_VERIFY(replotted.count() > before);
        QCOMPARE(loss->xAxis->range().lower, 10.0);
        QCOMPARE(loss->xAxis->range().upper, 20.0);
        QVERIFY(steps->visible());

        // The whole run in view: each line is drawn from its min/max envelope of 64-point
        // buckets (the last graphs of the plot), which keeps every bucket's extremes.
        loss->xAxis->setRange(0, kMillion + 2);
        curves.addEvents({stepEvent(kMillion + 3)});
        QTRY_VERIFY(!steps->visible());
        QCPGraph *envelope = loss->graph(loss->graphCount() - 2);
        QVERIFY(envelope->visible());
        QVERIFY(envelope->name().isEmpty());
        QCOMPARE(envelope->data()->size(), 2 * ((kMillion + 3) / 64) + (kMillion + 3) % 64);
        double lowest = 1e9;
        for (auto it = steps->data()->constBegin(); it != steps->data()->at(64); ++it)
            lowest = std::min(lowest, it->value);
        QCOMPARE(std::min(envelope->data()->at(0)->value, envelope->data()->at(1)->value), lowest);

        // Zoomed in by the user (a replot without new data): the line itself again.
        loss->xAxis->setRange(kMillion - 100, kMillion);
        loss->replot();
        QVERIFY(steps->visible());
        QVERIFY(!envelope->visible());

        curves.clear();
        QCOMPARE(curves.stepPoints(), 0);
        QCOMPARE(steps->data().data(), stepData);
    }

    void hiddenCurvesReplotWhenShown()
    {
        ui::TrainingCurves curves;
        QSignalSpy replotted(&curves, &ui::TrainingCurves::replotted);
        curves.addEvents({stepEvent(1), stepEvent(2)});
        QCoreApplication::processEvents();
        QCOMPARE(replotted.count(), 0);
        QCOMPARE(curves.stepPoints(), 2);
        curves.show();
        QTRY_COMPARE(replotted.count(), 1);
        const QCPRange shown = curves.plot(ui::TrainingCurves::LossPlot)->xAxis->range();
        QVERIFY(shown.contains(2.0) && shown.upper < 3.0); // the newest step and a little padding
    }
};

QTEST_MAIN(ResponsivenessTest)
#include "test_responsiveness.moc"
