#include "train/training_live_panel.h"

#include "engine/run/run_events.h"
#include "train/training_curves.h"
#include "workspace/run_listing.h"
#include "workspace/train_job.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {
namespace {

namespace event_type = engine::event_type;
namespace event_key = engine::event_key;

QString formatDuration(double seconds)
{
    const qint64 s = qint64(seconds + 0.5);
    return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'))
                     : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QJsonValue field(const QJsonObject &event, const char *key)
{
    return event.value(QLatin1String(key));
}

qint64 integer(const QJsonObject &event, const char *key)
{
    return field(event, key).toVariant().toLongLong();
}

} // namespace

TrainingLivePanel::TrainingLivePanel(QWidget *parent)
    : QWidget(parent)
    , m_metrics(new QLabel(this))
    , m_curves(new TrainingCurves(this))
    , m_log(new QPlainTextEdit(this))
{
    m_metrics->setObjectName(QStringLiteral("trainMetrics"));
    m_metrics->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(500);
    m_log->setMaximumHeight(120);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_metrics);
    layout->addWidget(m_curves, 1);
    layout->addWidget(m_log);
}

void TrainingLivePanel::Throughput::addStep(qint64 step, double time)
{
    const double active = time - since - pausedSeconds;
    const qint64 done = step - sinceStep;
    if (done > 0 && active > 0) {
        if (fromStart) {
            startSteps = done;
            startSeconds = active;
        } else {
            steps += done;
            seconds += active;
        }
    }
    fromStart = false;
    since = time;
    sinceStep = step;
    pausedSeconds = 0;
    if (pausedAt >= 0) // the step that was under way when the pause came: the pause starts after it
        pausedAt = time;
}

void TrainingLivePanel::Throughput::pause(double time)
{
    if (pausedAt < 0)
        pausedAt = time;
}

void TrainingLivePanel::Throughput::resume(double time)
{
    if (pausedAt >= 0)
        pausedSeconds += std::max(0.0, time - pausedAt);
    pausedAt = -1;
}

double TrainingLivePanel::Throughput::stepsPerSecond() const
{
    if (steps > 0)
        return double(steps) / seconds;
    return startSteps > 0 ? double(startSteps) / startSeconds : 0;
}

void TrainingLivePanel::startRun(bool resume)
{
    if (!resume)
        m_totalSteps = 0;
    m_throughput = {};
    m_throughput.since = QDateTime::currentMSecsSinceEpoch() / 1000.0;
    m_paused = false;
    m_lastStep = -1;
    m_lastEpoch = 0;
    m_curves->clear();
    m_log->clear();
    m_metrics->clear();
}

void TrainingLivePanel::addEvents(const QList<QJsonObject> &events)
{
    m_curves->addEvents(events);
    for (const QJsonObject &event : events) {
        const QString type = field(event, event_key::kType).toString();
        const double time = field(event, event_key::kTime).toDouble();
        if (type == QLatin1String(event_type::kStep)) {
            const QString status = stepStatus(event);
            Q_EMIT statusChanged(m_paused ? pausedStatus() : status); // a step that ends after Pause was pressed
        } else if (type == QLatin1String(event_type::kEpoch)) {
            showEpoch(event);
        } else if (type == QLatin1String(workspace::TrainJob::kPausedEvent)) {
            m_paused = true;
            m_throughput.pause(time);
            Q_EMIT statusChanged(pausedStatus());
        } else if (type == QLatin1String(workspace::TrainJob::kContinuedEvent)) {
            m_paused = false;
            m_throughput.resume(time);
            Q_EMIT statusChanged(tr("Continuing…")); // until the next step event says more
        } else {
            if (type == QLatin1String(event_type::kResumed)) // this session's steps count from there
                m_throughput.sinceStep = integer(event, event_key::kStep);
            logEvent(type, event);
        }
    }
}

QString TrainingLivePanel::stepStatus(const QJsonObject &event)
{
    const QLocale locale;
    const qint64 step = integer(event, event_key::kStep);
    const qint64 total = integer(event, event_key::kTotalSteps);
    if (total > 0)
        m_totalSteps = total;
    m_lastStep = step;
    m_lastEpoch = field(event, event_key::kEpoch).toInt();
    m_throughput.addStep(step, field(event, event_key::kTime).toDouble());
    const double rate = m_throughput.stepsPerSecond();
    QString eta;
    if (m_totalSteps > 0 && rate > 0)
        eta = tr(", about %1 left").arg(formatDuration(double(std::max<qint64>(0, m_totalSteps - step)) / rate));
    // On a GPU: its memory (the caching allocator's) and, where NVML loaded, how busy it was.
    QString gpu;
    if (field(event, event_key::kGpuMemoryAllocatedMiB).isDouble())
        gpu = tr(", GPU memory %1 MiB (peak %2 MiB, reserved %3 MiB)")
                  .arg(locale.toString(field(event, event_key::kGpuMemoryAllocatedMiB).toDouble(), 'f', 0))
                  .arg(locale.toString(field(event, event_key::kGpuMemoryPeakMiB).toDouble(), 'f', 0))
                  .arg(locale.toString(field(event, event_key::kGpuMemoryReservedMiB).toDouble(), 'f', 0));
    if (field(event, event_key::kGpuUtilization).isDouble())
        gpu += tr(", GPU busy %1 %").arg(locale.toString(100 * field(event, event_key::kGpuUtilization).toDouble(), 'f', 0));
    return tr("Epoch %1, step %2 — loss %3, %4 images/s, input wait %5 %%6")
        .arg(field(event, event_key::kEpoch).toInt() + 1)
        .arg(locale.toString(step))
        .arg(field(event, event_key::kLoss).toDouble(), 0, 'f', 4)
        .arg(locale.toString(field(event, event_key::kImagesPerSecond).toDouble(), 'f', 0))
        .arg(locale.toString(100 * field(event, event_key::kInputWaitFraction).toDouble(), 'f', 1))
        .arg(gpu + eta);
}

QString TrainingLivePanel::pausedStatus() const
{
    const QString paused = workspace::runStateText(QString::fromLatin1(workspace::kPausedState));
    if (m_lastStep < 0)
        return tr("%1 before the first step: press Resume to continue.").arg(paused);
    return tr("%1 at epoch %2, step %3: press Resume to continue.")
        .arg(paused)
        .arg(m_lastEpoch + 1)
        .arg(QLocale().toString(m_lastStep));
}

void TrainingLivePanel::showEpoch(const QJsonObject &event)
{
    const QLocale locale;
    QStringList parts;
    parts << tr("Epoch %1").arg(field(event, event_key::kEpoch).toInt() + 1);
    // The metrics under the run config's names.
    const auto add = [&](const char *key, const QString &label, double scale, int decimals) {
        const QJsonValue v = field(event, key);
        if (v.isDouble())
            parts << label.arg(locale.toString(scale * v.toDouble(), 'f', decimals));
    };
    add("train_loss", tr("train loss %1"), 1, 4);
    add("val_loss", tr("validation loss %1"), 1, 4);
    add("train_top1", tr("train top-1 %1 %"), 100, 2);
    add("val_top1", tr("validation top-1 %1 %"), 100, 2);
    add("val_top5", tr("top-5 %1 %"), 100, 2);
    m_metrics->setText(parts.join(QStringLiteral(" · ")));
}

void TrainingLivePanel::logEvent(const QString &type, const QJsonObject &event)
{
    QString line;
    if (type == QLatin1String(event_type::kCheckpoint))
        line = tr("Checkpoint at step %1: %2")
                   .arg(integer(event, event_key::kStep))
                   .arg(QDir::toNativeSeparators(field(event, event_key::kPath).toString()));
    else if (type == QLatin1String(event_type::kResumed))
        line = tr("Resumed at step %1.").arg(integer(event, event_key::kStep));
    else if (type == QLatin1String(event_type::kOverflowSkipped))
        line = tr("Step %1 skipped: fp16 gradients overflowed (%2 skipped so far).")
                   .arg(integer(event, event_key::kStep))
                   .arg(integer(event, event_key::kSkippedTotal));
    else if (type != QLatin1String(event_type::kLog) && type != QLatin1String(event_type::kFailed))
        return; // finished and cancelled: the page's status line says so
    if (line.isEmpty()) { // log and failed carry a message
        QJsonObject rest = event;
        rest.remove(QLatin1String(event_key::kType));
        rest.remove(QLatin1String(event_key::kTime));
        const QString message = field(rest, event_key::kMessage).toString();
        line = message.isEmpty() ? QString::fromUtf8(QJsonDocument(rest).toJson(QJsonDocument::Compact)) : message;
    }
    m_log->appendPlainText(line);
}

} // namespace lathe::ui
