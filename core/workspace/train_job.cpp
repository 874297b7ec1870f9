#include "workspace/train_job.h"

#include "engine/run/run_events.h"

#include <QFileInfo>
#include <QJsonDocument>

namespace lathe::workspace {
namespace {

QString stringAt(const nlohmann::json &summary, const char *key)
{
    const auto it = summary.find(key);
    return it != summary.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

TrainResult toTrainResult(const nlohmann::json &summary)
{
    TrainResult result;
    result.runDir = stringAt(summary, "run_dir");
    result.epochs = summary.value("epochs", qint64(0));
    result.steps = summary.value("steps", qint64(0));
    result.stoppedEarly = summary.value("stopped_early", false);
    result.bestMetric = stringAt(summary, "best_metric");
    if (const auto it = summary.find("best_value"); it != summary.end() && it->is_number())
        result.bestValue = it->get<double>();
    result.bestCheckpoint = stringAt(summary, "best_checkpoint");
    result.lastCheckpoint = stringAt(summary, "last_checkpoint");
    result.featureCache = summary.value("feature_cache", false);
    if (const auto it = summary.find("metrics"); it != summary.end() && it->is_object())
        result.metrics = QJsonDocument::fromJson(QByteArray::fromStdString(it->dump())).object();
    return result;
}

} // namespace

TrainJob::TrainJob(Params params, QObject *parent)
    : Job(tr("Training %1").arg(QFileInfo(params.runDir).fileName()), parent)
    , m_params(std::move(params))
{
}

void TrainJob::pause()
{
    if (m_pause.set(true, [this] { queueJobEvent(kPausedEvent); }))
        Q_EMIT pausedChanged(true);
}

void TrainJob::resumeRun()
{
    if (m_pause.set(false, [this] { queueJobEvent(kContinuedEvent); }))
        Q_EMIT pausedChanged(false);
}

bool TrainJob::isPaused() const
{
    return m_pause.isPaused();
}

QList<QJsonObject> TrainJob::takeEvents()
{
    return m_events.take();
}

void TrainJob::queueJobEvent(const char *type)
{
    if (m_events.push(RunEventQueue::jobEvent(type)))
        Q_EMIT eventsAvailable();
}

QVariant TrainJob::execute()
{
    engine::TrainControl control;
    const engine::TaskControl task = taskControl();
    control.cancel = task.cancel;
    control.pause = m_pause.token();
    const double epochs = m_params.resume ? 0 : m_params.config.optimizer.epochs;
    control.onEvent = [this, epochs](const nlohmann::json &event) {
        if (m_events.push(event))
            Q_EMIT eventsAvailable();
        if (event.value(engine::event_key::kType, std::string()) == engine::event_type::kEpoch && epochs > 0)
            reportProgress(std::min(1.0, (event.value(engine::event_key::kEpoch, 0.0) + 1) / epochs),
                           tr("Epoch %1 of %2").arg(event.value(engine::event_key::kEpoch, 0) + 1).arg(epochs));
    };
    // A stopped run throws engine::Cancelled once its checkpoint is written: the job ends with
    // cancelled() as the other jobs do, and the run folder can be resumed.
    control.throwWhenCancelled = true;
    const std::string dir = m_params.runDir.toStdString();
    nlohmann::json summary;
    try {
        summary = m_params.resume ? engine::resume(dir, control) : engine::train(m_params.config, dir, control);
    } catch (...) {
        Q_EMIT eventsAvailable(); // whatever is still queued
        throw;
    }
    Q_EMIT eventsAvailable();
    return QVariant::fromValue(toTrainResult(summary));
}

} // namespace lathe::workspace
