#pragma once

#include "workspace/job.h"
#include "workspace/pause_switch.h"

#include "engine/tune/study.h"
#include "engine/tune/study_state.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMetaType>
#include <QMutex>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace lathe::workspace {

// What a finished TuneJob returns (Job::result().value<TuneResult>()): runStudy's study_ended.
struct TuneResult
{
    QString studyDir;
    QString status;                 // finished, cancelled, time_up
    int trials = 0;                 // trials in the study
    int bestTrial = -1;             // -1: no trial completed
    std::optional<double> bestValue;
};

// Where a running trial is within its run: from its run's step and epoch events.
struct TrialProgress
{
    int epoch = 0;        // the epoch it trains (1, 2, ...)
    qint64 step = 0;      // optimizer steps so far
    qint64 totalSteps = 0;
    double loss = 0;      // the last step's training loss
};

// A hyperparameter study (engine::runStudy) on a worker thread: a new study in studyDir from a
// base run config, a search space and a strategy, or (resume) the study already there, continued
// where it stopped: running trials from their checkpoints, then new ones. Every trial event is
// in studyDir/study.json before it is announced; snapshot() is the study as the runner sees it.
// studyChanged() is announced at once for trial events (started, an epoch, ended) and at most
// about 30 times a second for steps. Pause holds every running trial between steps and starts
// no new trial; cancel (Stop) makes each running trial write its checkpoint and stop, so a
// resumed study continues them; the job then ends with cancelled(). Result: TuneResult.
class TuneJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString studyDir;
        bool resume = false;            // continue studyDir; the fields below are ignored
        nlohmann::json baseConfig;      // a run config, as the Train page builds it
        nlohmann::json space;           // a search-space document (engine::parseSearchSpace)
        QString strategy = QStringLiteral("tpe+asha"); // engine::strategyFromName
        // The sampler's settings ({"n_startup_trials": 4} for tpe); missing ones take defaults.
        nlohmann::json samplerOptions = nlohmann::json::object();
        quint64 seed = 0;
        int parallel = 1;
    };

    explicit TuneJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

    // Thread-safe copies. Empty (no trials, default space) until the study is open.
    engine::StudyState snapshot() const;
    QHash<int, TrialProgress> runningProgress() const;
    // The last study_log message (waiting for memory, the time budget), empty when none.
    QString lastLog() const;

    // Thread-safe. Each does nothing when the study is paused already (pause) or not (resumeStudy).
    void pause();
    void resumeStudy();
    bool isPaused() const;

Q_SIGNALS:
    void studyChanged();
    void pausedChanged(bool paused);

protected:
    QVariant execute() override;

private:
    void onStudyEvent(const engine::Study &study, const nlohmann::json &event);

    const Params m_params;
    PauseSwitch m_pause;
    mutable QMutex m_mutex; // guards everything below
    engine::StudyState m_state;
    QHash<int, TrialProgress> m_progress;
    QString m_log;
    qint64 m_lastAnnounceMs = -1000;
    QElapsedTimer m_sinceAnnounce;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::TuneResult)
