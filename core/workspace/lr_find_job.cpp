#include "workspace/lr_find_job.h"

#include "engine/run/run_config.h"
#include "engine/training/lr_finder.h"

namespace lathe::workspace {
namespace {

std::optional<LrFindSuggestion> suggestionOf(const engine::LrFinderResult &result, const char *rule)
{
    const engine::LrSuggestion *s = result.suggestion(rule);
    if (!s)
        return std::nullopt;
    return LrFindSuggestion{s->lr, s->smoothed, s->index};
}

} // namespace

LrFindJob::LrFindJob(Params params, QObject *parent)
    : Job(tr("Finding the learning rate"), parent)
    , m_params(std::move(params))
{
    qRegisterMetaType<LrFindPoint>();
    qRegisterMetaType<LrFindResult>();
}

QVariant LrFindJob::execute()
{
    const engine::RunConfig config = engine::parseRunConfig(m_params.config);
    engine::LrFinderOptions options;
    options.steps = m_params.steps;
    options.startLr = m_params.startLr;
    options.endLr = m_params.endLr;
    const int steps = m_params.steps;
    options.onPoint = [this, steps](const engine::LrFinderPoint &p, int index) {
        Q_EMIT pointMeasured(index, LrFindPoint{p.lr, p.loss, p.smoothed});
        reportProgress(steps > 0 ? double(index + 1) / steps : 0.0,
                       tr("Step %1 of %2: learning rate %3").arg(index + 1).arg(steps).arg(p.lr, 0, 'g', 3));
    };
    reportProgress(0, tr("Building the model…"));
    // The cancel shared with this job; the progress comes from onPoint, with the step's rate.
    engine::TaskControl control;
    control.cancel = taskControl().cancel;
    const engine::LrFinderResult r = engine::findLearningRate(config, options, control);

    LrFindResult result;
    result.points.reserve(qsizetype(r.points.size()));
    for (const engine::LrFinderPoint &p : r.points)
        result.points.append(LrFindPoint{p.lr, p.loss, p.smoothed});
    result.steepest = suggestionOf(r, "steepest");
    result.valley = suggestionOf(r, "valley");
    result.diverged = r.stoppedEarly == "diverged";
    result.nonFinite = r.stoppedEarly == "non_finite";
    result.stepsPlanned = r.stepsPlanned;
    result.stepsDone = r.stepsDone;
    result.batchSize = r.batchSize;
    result.device = QString::fromStdString(r.device);
    result.trimStart = r.trimStart;
    result.trimEnd = r.trimEnd;
    reportProgress(1.0); // also when it stopped early, at divergence
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
