#include "workspace/evaluate_job.h"

#include "workspace/workspace_error.h"

#include <QDir>

namespace lathe::workspace {

EvaluateJob::EvaluateJob(Params params, QObject *parent)
    : Job(tr("Evaluate %1").arg(QDir(params.runDir).dirName()), parent)
    , m_params(std::move(params))
{
}

QVariant EvaluateJob::execute()
{
    if (m_params.runDir.isEmpty())
        throw WorkspaceError(tr("No run was given to evaluate"));
    engine::EvalOptions options;
    options.runDir = QDir::cleanPath(QDir(m_params.runDir).absolutePath()).toStdString();
    options.checkpoint = m_params.checkpoint.toStdString();
    options.dataDir = m_params.dataDir.toStdString();
    options.split = m_params.split.toStdString();
    options.tta = m_params.tta;
    options.batchSize = m_params.batchSize;
    options.topK = m_params.topK;
    options.threads = m_params.threads;
    // The store keeps a multi-label evaluation's scores, from which the page recomputes its
    // metrics at edited thresholds (N x K floats: small beside the images).
    options.keepProbabilities = true;

    const engine::EvalResult evaluation = engine::evaluate(options, taskControl(tr("Evaluating")));
    checkCancel();
    EvaluateResult result;
    if (!m_params.databasePath.isEmpty()) {
        reportProgress(1.0, tr("Storing the predictions"));
        result.evaluationId = EvaluationStore::store(m_params.databasePath, m_params.runDir, m_params.checkpoint,
                                                     m_params.split, evaluation);
    }
    result.count = qint64(evaluation.predictions.size());
    result.top1 = evaluation.metrics.value("top1", 0.0);
    result.skipped = evaluation.metrics.value("skipped", qint64(0));
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
