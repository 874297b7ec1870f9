// The Train page's live panel on a run's events: the status line's time left, measured over the
// run's unpaused time (a pause is left out of the throughput), counted from a resumed run's own
// steps, and the status while a run is paused, from TrainJob's own pause events.
#include "engine/run/run_events.h"
#include "train/training_live_panel.h"
#include "workspace/train_job.h"

#include <QDateTime>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using lathe::ui::TrainingLivePanel;
using lathe::workspace::TrainJob;
namespace event_key = lathe::engine::event_key;
namespace event_type = lathe::engine::event_type;

namespace {

// A step event as the trainer writes it, at time (seconds since the Unix epoch).
QJsonObject stepEvent(qint64 step, double time, qint64 totalSteps = 1000)
{
    return {{QLatin1String(event_key::kType), QLatin1String(event_type::kStep)},
            {QLatin1String(event_key::kTime), time},
            {QLatin1String(event_key::kStep), step},
            {QLatin1String(event_key::kEpoch), 0},
            {QLatin1String(event_key::kLoss), 0.5},
            {QLatin1String(event_key::kTotalSteps), totalSteps}};
}

QJsonObject jobEvent(const char *type, double time)
{
    return {{QLatin1String(event_key::kType), QLatin1String(type)}, {QLatin1String(event_key::kTime), time}};
}

double now()
{
    return QDateTime::currentMSecsSinceEpoch() / 1000.0;
}

} // namespace

class TestTrainingLivePanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // 1 step a second, then a pause of 100 s: the time left stays that of 1 step a second.
    void theTimeLeftLeavesPausesOut()
    {
        TrainingLivePanel panel;
        QSignalSpy status(&panel, &TrainingLivePanel::statusChanged);
        panel.startRun(false);
        const double t = now();
        panel.addEvents({stepEvent(10, t + 10)});
        QVERIFY2(status.last().first().toString().contains(QStringLiteral(" left")), qPrintable(status.last().first().toString()));
        panel.addEvents({stepEvent(20, t + 20)});
        QVERIFY2(status.last().first().toString().endsWith(QStringLiteral("about 16:20 left")), // 980 steps at 1/s
                 qPrintable(status.last().first().toString()));

        // Paused during step 22, which still ends and is reported: the line keeps saying Paused.
        panel.addEvents({jobEvent(TrainJob::kPausedEvent, t + 21.5), stepEvent(22, t + 22)});
        QVERIFY2(status.last().first().toString().startsWith(QStringLiteral("Paused at epoch 1, step 22")),
                 qPrintable(status.last().first().toString()));
        panel.addEvents({jobEvent(TrainJob::kContinuedEvent, t + 122)});
        QVERIFY(!status.last().first().toString().contains(QStringLiteral("Paused")));
        panel.addEvents({stepEvent(30, t + 130)});
        // 20 steps in 20 s of unpaused time: 970 s left (counting the pause, 20 in 120 s: 1:37:00).
        QVERIFY2(status.last().first().toString().endsWith(QStringLiteral("about 16:10 left")),
                 qPrintable(status.last().first().toString()));
    }

    // A step event from a CUDA rank carries the GPU's memory and utilisation (as the trainer's
    // addGpuFigures writes them): the status line shows them; a CPU run's line has none.
    void aGpuRunShowsItsMemoryAndUtilisation()
    {
        TrainingLivePanel panel;
        QSignalSpy status(&panel, &TrainingLivePanel::statusChanged);
        panel.startRun(false);
        const double t = now();
        panel.addEvents({stepEvent(1, t)});
        QVERIFY(!status.last().first().toString().contains(QStringLiteral("GPU")));
        QJsonObject gpu = stepEvent(2, t + 1);
        gpu.insert(QLatin1String(event_key::kGpuMemoryAllocatedMiB), 512.4);
        gpu.insert(QLatin1String(event_key::kGpuMemoryPeakMiB), 920.0);
        gpu.insert(QLatin1String(event_key::kGpuMemoryReservedMiB), 960.0);
        gpu.insert(QLatin1String(event_key::kGpuUtilization), 0.97);
        panel.addEvents({gpu});
        const QString line = status.last().first().toString();
        QVERIFY2(line.contains(QStringLiteral("GPU memory 512 MiB (peak 920 MiB, reserved 960 MiB), GPU busy 97 %")),
                 qPrintable(line));
    }

    // A resumed run counts its own steps, from the step it resumed at.
    void aResumedRunCountsItsOwnSteps()
    {
        TrainingLivePanel panel;
        QSignalSpy status(&panel, &TrainingLivePanel::statusChanged);
        panel.startRun(false);
        panel.addEvents({stepEvent(1, now())}); // the steps the run plans
        panel.startRun(true);
        const double t = now();
        QJsonObject resumed = {{QLatin1String(event_key::kType), QLatin1String(event_type::kResumed)},
                               {QLatin1String(event_key::kTime), t},
                               {QLatin1String(event_key::kStep), 500}};
        panel.addEvents({resumed, stepEvent(510, t + 10, 0), stepEvent(520, t + 20, 0)});
        // 10 steps in 10 s, 480 planned steps left.
        QVERIFY2(status.last().first().toString().endsWith(QStringLiteral("about 8:00 left")),
                 qPrintable(status.last().first().toString()));
    }

    // TrainJob queues its pause and its continuation among the trainer's events, once each.
    void aTrainJobSaysWhenItIsPaused()
    {
        TrainJob::Params params;
        params.runDir = QStringLiteral("/nowhere/run"); // never started
        TrainJob job(params);
        QSignalSpy paused(&job, &TrainJob::pausedChanged);
        job.pause();
        job.pause();
        QVERIFY(job.isPaused());
        QCOMPARE(paused.count(), 1);
        const QList<QJsonObject> events = job.takeEvents();
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().value(QLatin1String(event_key::kType)).toString(), QLatin1String(TrainJob::kPausedEvent));
        QVERIFY(events.first().value(QLatin1String(event_key::kTime)).toDouble() > 0);

        TrainingLivePanel panel;
        QSignalSpy status(&panel, &TrainingLivePanel::statusChanged);
        panel.startRun(false);
        panel.addEvents(events);
        QCOMPARE(status.last().first().toString(), QStringLiteral("Paused before the first step: press Resume to continue."));

        job.resumeRun();
        job.resumeRun();
        QVERIFY(!job.isPaused());
        QCOMPARE(paused.count(), 2);
        QCOMPARE(paused.last().first().toBool(), false);
        const QList<QJsonObject> more = job.takeEvents();
        QCOMPARE(more.size(), 1);
        QCOMPARE(more.first().value(QLatin1String(event_key::kType)).toString(), QLatin1String(TrainJob::kContinuedEvent));
    }
};

QTEST_MAIN(TestTrainingLivePanel)
#include "test_training_live_panel.moc"
