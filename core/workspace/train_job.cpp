#include "train_job.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QMutexLocker>

namespace lathe::workspace {

TrainJob::TrainJob(Params params, QObject *parent)
    : Job(tr("Training %1").arg(QFileInfo(params.runDir).fileName()), parent)
    , m_params(std::move(params))
{
    m_sinceAnnounce.start();
}

void TrainJob::pause()
{
    m_pause.pause();
    Q_EMIT pausedChanged(true);
}

void TrainJob::resumeRun()
{
    m_pause.resume();
    Q_EMIT pausedChanged(false);
}

bool TrainJob::isPaused() const
{
    return m_pause.isPaused();
}

QList<QJsonObject> TrainJob::takeEvents()
{
    QMutexLocker lock(&m_mutex);
    return std::exchange(m_events, {});
}

void TrainJob::queueEvent(const nlohmann::json &event)
{
    const QJsonObject object = QJsonDocument::fromJson(QByteArray::fromStdString(event.dump())).object();
    bool announce = false;
    {
        QMutexLocker lock(&m_mutex);
        m_events.append(object);
        const qint64 now = m_sinceAnnounce.elapsed();
        const bool important = object.value(QStringLiteral("type")).toString() != QLatin1String("step");
        // Steps are batched; epochs, checkpoints and ends are announced at once.
        if (important || now - m_lastAnnounceMs >= kProgressIntervalMs) {
            m_lastAnnounceMs = now;
            announce = true;
        }
    }
    if (announce)
        Q_EMIT eventsAvailable();
}

QVariant TrainJob::execute()
{
    engine::TrainControl control;
    const engine::TaskControl task = taskControl();
    control.cancel = task.cancel;
    control.pause = m_pause;
    const double epochs = m_params.resume ? 0 : m_params.config.optimizer.epochs;
    control.onEvent = [this, epochs](const nlohmann::json &event) {
        queueEvent(event);
        if (event.value("type", std::string()) == "epoch" && epochs > 0)
            reportProgress(std::min(1.0, (event.value("epoch", 0.0) + 1) / epochs),
                           tr("Epoch %1 of %2").arg(event.value("epoch", 0) + 1).arg(epochs));
    };
    const std::string dir = m_params.runDir.toStdString();
    const nlohmann::json summary =
        m_params.resume ? engine::resume(dir, control) : engine::train(m_params.config, dir, control);
    Q_EMIT eventsAvailable(); // whatever is still queued
    if (summary.value("status", std::string()) == "cancelled")
        checkCancel(); // ends the job as cancelled; the run folder has its checkpoint
    return QJsonDocument::fromJson(QByteArray::fromStdString(summary.dump())).object().toVariantMap();
}

} // namespace lathe::workspace
