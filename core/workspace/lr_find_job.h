#pragma once

#include "workspace/job.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace lathe::workspace {

// One step of the learning-rate range test (engine::LrFinderPoint).
struct LrFindPoint
{
    double lr = 0;       // the step's base learning rate
    double loss = 0;     // its training loss, before the update
    double smoothed = 0; // the bias-corrected moving average of the losses so far
};

// A suggestion read off the curve (engine::LrSuggestion).
struct LrFindSuggestion
{
    double lr = 0;
    double smoothed = 0; // the smoothed loss there
    int index = -1;      // into LrFindResult::points
};

// What a finished LrFindJob returns (Job::result().value<LrFindResult>()).
struct LrFindResult
{
    QList<LrFindPoint> points;               // in the order measured: increasing lr
    std::optional<LrFindSuggestion> steepest; // none when the trimmed curve is too short
    std::optional<LrFindSuggestion> valley;
    bool diverged = false;  // stopped because the smoothed loss blew up (that point is the last)
    bool nonFinite = false; // stopped because a step's loss was NaN or infinite
    int stepsPlanned = 0;
    int stepsDone = 0;
    int batchSize = 0;
    QString device;
    int trimStart = 0; // the points the rules read: [trimStart, trimEnd)
    int trimEnd = 0;
};

// The learning-rate range test (engine::findLearningRate, fastai's lr_find) of a run config on
// this job's worker thread: real training steps from the config's initial weights with the
// learning rate growing exponentially from startLr to endLr, stopped once the smoothed loss
// diverges. Each measured point is announced with pointMeasured() (emitted from the worker
// thread: receivers in the GUI thread get it queued), in increasing lr. Nothing is written to
// disk and the config is not changed. Cancel stops it within a step. Result: LrFindResult.
class LrFindJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        nlohmann::json config; // a run config as the Train page builds it (engine::parseRunConfig)
        int steps = 100;
        double startLr = 1e-7;
        double endLr = 10;
    };

    explicit LrFindJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

Q_SIGNALS:
    void pointMeasured(int index, const lathe::workspace::LrFindPoint &point);

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::LrFindPoint)
Q_DECLARE_METATYPE(lathe::workspace::LrFindResult)
