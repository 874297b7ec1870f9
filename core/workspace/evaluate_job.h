#pragma once

#include "evaluation.h"
#include "job.h"

#include <QCoreApplication>
#include <QMetaType>
#include <QString>
#include <QVector>

namespace lathe::workspace {

// An evaluation as the project database keeps it (tables evaluations and predictions): the
// Evaluate page shows a stored one at once instead of running the model again.
struct StoredEvaluation
{
    qint64 id = 0;
    QString runDir;
    QString checkpoint; // as asked: "best", "last" or a file
    QString split;
    QString created;    // ISO 8601, UTC
    engine::EvalResult result; // classes, metrics, predictions by record
};

// A row of the evaluations table, without its predictions.
struct EvaluationSummary
{
    qint64 id = 0;
    QString runDir;
    QString checkpoint;
    QString split;
    QString created;
    bool tta = false;
    double top1 = 0;
    qint64 count = 0;
};

// Runs a run's checkpoint over a split (engine::evaluate) on this job's worker thread, then
// stores the metrics and every image's prediction in the project database through a
// connection of its own. Result: a QVariantMap with evaluationId, count, top1, skipped.
class EvaluateJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString databasePath; // the project's project.sqlite
        QString runDir;
        QString checkpoint = QStringLiteral("best");
        QString dataDir;      // empty: the run's data.shards
        QString split = QStringLiteral("val");
        bool tta = false;
        int batchSize = 64;
        int topK = 5;
        int threads = 0;
    };

    explicit EvaluateJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

    // Storage, each on a connection of its own opened on the calling thread (a worker thread:
    // the GUI never waits for the database). Throw WorkspaceError naming the database.
    static qint64 store(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                        const QString &split, const engine::EvalResult &result);
    static StoredEvaluation load(const QString &databasePath, qint64 evaluationId);
    // The newest stored evaluation of that run, checkpoint, split and TTA setting; 0 when none.
    static qint64 latest(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                         const QString &split, bool tta);
    // Every stored evaluation of runDir (all runs when empty), newest first.
    static QVector<EvaluationSummary> list(const QString &databasePath, const QString &runDir = {});

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::StoredEvaluation)
Q_DECLARE_METATYPE(lathe::workspace::EvaluationSummary)
