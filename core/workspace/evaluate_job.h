#pragma once

#include "workspace/evaluation_store.h"
#include "workspace/job.h"

#include <QMetaType>
#include <QString>

namespace lathe::workspace {

// What an EvaluateJob returns (Job::result().value<EvaluateResult>()).
struct EvaluateResult
{
    qint64 evaluationId = 0; // the stored evaluation; 0 when no database was given
    qint64 count = 0;        // images evaluated
    double top1 = 0;         // the top-1 accuracy (a multi-label model's: its top label is one of the image's)
    qint64 skipped = 0;      // records that could not be read or decoded
};

// Runs a run's checkpoint over a split (engine::evaluate) on this job's worker thread, then
// stores the metrics and every image's prediction in the project database (EvaluationStore).
// Result: EvaluateResult.
class EvaluateJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString databasePath; // the project's project.sqlite; empty: nothing is stored
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

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::EvaluateResult)
