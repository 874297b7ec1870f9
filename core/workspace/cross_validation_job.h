#pragma once

#include "engine/run/run_config.h"
#include "workspace/job.h"
#include "workspace/pause_switch.h"
#include "workspace/run_event_queue.h"

#include <QAtomicInt>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// What a finished CrossValidationJob returns (Job::result().value<CrossValidationResult>()):
// the folder and its folds.json.
struct CrossValidationResult
{
    QString foldsDir;
    int folds = 0;
    QString task;               // "single_label" or "multi_label"
    QString metric;             // folds.json's "metric": "val_top1", or "val_map" (multi-label)
    QVector<double> foldMetrics; // fold 1 first: each fold's metric on the images it held out
    double mean = 0;
    double std = 0;             // population standard deviation, as folds.json has it
    QStringList runs;           // the folds' run folders, relative to foldsDir ("fold-1", ...)
};

// K-fold cross-validation (engine::crossValidate, what `lathe-cli train --folds K` runs) on a
// worker thread: K runs of one config in foldsDir/fold-1 ... fold-K, each holding out one
// hash-stable fold of the training split, then folds.json (each fold's metric, their mean and
// std) and oof_predictions.jsonl (every training image scored by the fold that never saw it:
// what the Data page's Suspected Label Errors tab reads; listFoldsRuns finds the folder).
//
// Progress: the fold being trained (i of K) and, within it, its optimizer steps. The folds' own
// events (engine::crossValidate's: before each fold a log event with its number, event_key::kFold,
// then that fold's run's events) are queued and announced as TrainJob's are (eventsAvailable(),
// takeEvents(), with its paused and continued events), so the Train page draws each fold's
// curves live. Pause holds the fold's training between steps. Cancel (Stop) makes the fold's run
// write a checkpoint and end; the job then ends with cancelled(), and a job on the same folder
// with resume set continues: finished folds are kept, the unfinished one resumes from its
// checkpoint.
class CrossValidationJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString foldsDir;
        engine::RunConfig config; // a new cross-validation (data.folds and data.fold are set per fold)
        int folds = 5;            // 2 to 100 (engine::crossValidate's range)
        // Continue the cross-validation already in foldsDir: its config and fold count are its
        // fold-1 run's (config and folds above are ignored).
        bool resume = false;
    };

    explicit CrossValidationJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }
    // Thread-safe: the fold being trained or scored (1 to K), 0 before the first.
    int currentFold() const { return m_fold.loadAcquire(); }

    // Thread-safe. Each does nothing when the job is paused already (pause) or not (resumeRun).
    void pause();
    void resumeRun();
    bool isPaused() const;
    // The events queued since the last call, oldest first.
    QList<QJsonObject> takeEvents();

    // The config and fold count a resumed job takes from foldsDir (its fold-1 run's config.json);
    // throws EngineError when foldsDir holds no fold run.
    static engine::RunConfig savedConfig(const QString &foldsDir, int *folds);

Q_SIGNALS:
    void eventsAvailable();
    void pausedChanged(bool paused);

protected:
    QVariant execute() override;

private:
    void onEvent(const nlohmann::json &event, int folds, int epochs);
    void queueJobEvent(const char *type); // RunEventQueue::kPausedEvent, kContinuedEvent

    const Params m_params;
    PauseSwitch m_pause;
    RunEventQueue m_events;
    QAtomicInt m_fold{0};
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::CrossValidationResult)
