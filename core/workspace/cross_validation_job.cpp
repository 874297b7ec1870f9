#include "workspace/cross_validation_job.h"

#include "engine/base/engine_error.h"
#include "engine/inference/cross_validation.h"
#include "engine/run/run_events.h"
#include "engine/run/run_layout.h"
#include "engine/training/trainer.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace lathe::workspace {
namespace {

QString stringAt(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

double numberAt(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

CrossValidationResult toResult(const QString &foldsDir, const nlohmann::json &summary)
{
    CrossValidationResult result;
    result.foldsDir = QDir::cleanPath(QFileInfo(foldsDir).absoluteFilePath());
    result.folds = summary.value("folds", 0);
    result.task = stringAt(summary, "task");
    result.metric = stringAt(summary, "metric");
    if (const auto it = summary.find("fold_metrics"); it != summary.end() && it->is_array())
        for (const nlohmann::json &m : *it)
            result.foldMetrics.append(m.is_number() ? m.get<double>() : 0.0);
    result.mean = numberAt(summary, "mean");
    result.std = numberAt(summary, "std");
    if (const auto it = summary.find("runs"); it != summary.end() && it->is_array())
        for (const nlohmann::json &r : *it)
            if (r.is_string())
                result.runs.append(QString::fromStdString(r.get<std::string>()));
    return result;
}

} // namespace

CrossValidationJob::CrossValidationJob(Params params, QObject *parent)
    : Job(params.resume ? tr("Continuing cross-validation %1").arg(QFileInfo(params.foldsDir).fileName())
                        : tr("Cross-validation %1 (%2 folds)").arg(QFileInfo(params.foldsDir).fileName()).arg(params.folds),
          parent)
    , m_params(std::move(params))
{
    qRegisterMetaType<CrossValidationResult>();
}

void CrossValidationJob::pause()
{
    if (m_pause.set(true, [this] { queueJobEvent(RunEventQueue::kPausedEvent); }))
        Q_EMIT pausedChanged(true);
}

void CrossValidationJob::resumeRun()
{
    if (m_pause.set(false, [this] { queueJobEvent(RunEventQueue::kContinuedEvent); }))
        Q_EMIT pausedChanged(false);
}

QList<QJsonObject> CrossValidationJob::takeEvents()
{
    return m_events.take();
}

void CrossValidationJob::queueJobEvent(const char *type)
{
    if (m_events.push(RunEventQueue::jobEvent(type)))
        Q_EMIT eventsAvailable();
}

bool CrossValidationJob::isPaused() const
{
    return m_pause.isPaused();
}

engine::RunConfig CrossValidationJob::savedConfig(const QString &foldsDir, int *folds)
{
    const QString config = QDir(foldsDir).filePath(QStringLiteral("fold-1/") + QLatin1String(engine::run_layout::kConfigFile));
    if (!QFileInfo::exists(config))
        throw engine::EngineError(QDir::toNativeSeparators(foldsDir).toStdString() +
                                  ": no cross-validation to continue (fold-1 has no config.json)");
    engine::RunConfig saved = engine::readRunConfig(config.toStdString());
    if (saved.data.folds < 2)
        throw engine::EngineError(config.toStdString() + ": data.folds is " + std::to_string(saved.data.folds) +
                                  ", not a fold of a cross-validation");
    if (folds)
        *folds = saved.data.folds;
    return saved;
}

void CrossValidationJob::onEvent(const nlohmann::json &event, int folds, int epochs)
{
    namespace key = engine::event_key;
    namespace type = engine::event_type;
    if (m_events.push(event))
        Q_EMIT eventsAvailable();
    const std::string kind = event.value(key::kType, std::string());
    if (kind == type::kLog) {
        if (const int fold = event.value(key::kFold, 0); fold > 0) {
            m_fold.storeRelease(fold);
            reportProgress(double(fold - 1) / folds, tr("Fold %1 of %2").arg(fold).arg(folds));
        }
        return;
    }
    const int fold = std::max(1, currentFold());
    if (kind == type::kStep) {
        const double total = event.value(key::kTotalSteps, 0.0);
        const double step = event.value(key::kStep, 0.0);
        const double within = total > 0 ? std::clamp(step / total, 0.0, 1.0) : 0.0;
        const int epoch = event.value(key::kEpoch, 0) + 1; // the epoch it trains, 1-based
        const QString status = epochs > 0 ? tr("Fold %1 of %2: epoch %3 of %4, step %5 of %6")
                                                .arg(fold)
                                                .arg(folds)
                                                .arg(epoch)
                                                .arg(epochs)
                                                .arg(qint64(step))
                                                .arg(qint64(total))
                                          : tr("Fold %1 of %2: step %3 of %4")
                                                .arg(fold)
                                                .arg(folds)
                                                .arg(qint64(step))
                                                .arg(qint64(total));
        // Training is most of a fold; scoring its held-out images the rest.
        reportProgress((fold - 1 + 0.95 * within) / folds, status);
    } else if (kind == type::kFinished) {
        reportProgress((fold - 0.05) / folds, tr("Fold %1 of %2: scoring the images it held out").arg(fold).arg(folds));
    }
}

QVariant CrossValidationJob::execute()
{
    int folds = m_params.folds;
    engine::RunConfig config = m_params.resume ? savedConfig(m_params.foldsDir, &folds) : m_params.config;
    reportProgress(0, tr("Fold %1 of %2").arg(1).arg(folds));

    engine::TrainControl control;
    control.cancel = taskControl().cancel;
    control.pause = m_pause.token();
    const int epochs = int(config.optimizer.epochs);
    control.onEvent = [this, folds, epochs](const nlohmann::json &event) { onEvent(event, folds, epochs); };
    // crossValidate throws Cancelled once the fold's checkpoint is written (it sets
    // throwWhenCancelled for its folds): the job ends with cancelled(), the folder resumable.
    nlohmann::json summary;
    try {
        summary = engine::crossValidate(std::move(config), folds, m_params.foldsDir.toStdString(), control);
    } catch (...) {
        Q_EMIT eventsAvailable(); // whatever is still queued
        throw;
    }
    Q_EMIT eventsAvailable();
    reportProgress(1.0, tr("%1 folds done").arg(folds));
    return QVariant::fromValue(toResult(m_params.foldsDir, summary));
}

} // namespace lathe::workspace
