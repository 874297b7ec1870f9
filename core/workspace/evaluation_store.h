#pragma once

#include "engine/inference/evaluation.h"

#include <QCoreApplication>
#include <QHash>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <limits>

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
    // classes, metrics, predictions by record (with their label sets); for a multi-label
    // evaluation also probabilities: every class's score per prediction (empty when the
    // evaluation was stored without them).
    engine::EvalResult result;
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
    // The share of images whose top class is their label: a single-label evaluation's top-1
    // accuracy. Meaningless for a multi-label one (an image has a label set): see map.
    double top1 = 0;
    qint64 count = 0;
    // The metrics' "task": "multi_label" for a multi-label model's evaluation, else (also for
    // every evaluation stored before multi-label ones existed) "single_label".
    QString task = QStringLiteral("single_label");
    // A multi-label evaluation's mean average precision over labels (macro; the metrics' "map"):
    // NaN when no label has a positive image, and for single-label evaluations.
    double map = std::numeric_limits<double>::quiet_NaN();
    bool multiLabel() const { return task == QLatin1String("multi_label"); }
    // The number that sums the evaluation up: "top1" (single-label) or "map" (multi-label), and
    // its value (a fraction; NaN for a mAP without positives).
    QString metric() const { return multiLabel() ? QStringLiteral("map") : QStringLiteral("top1"); }
    double value() const { return multiLabel() ? map : top1; }
};

// The project database's stored evaluations. Each call opens a ProjectConnection of its own on
// the calling thread (a worker thread: the GUI never waits for the database), which migrates an
// older project first. Run folders are keyed by their clean absolute path. Throws
// WorkspaceError naming the database.
class EvaluationStore
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::EvaluationStore)

public:
    // The metrics and every image's prediction, in one transaction; a multi-label evaluation
    // also keeps each image's label set and, when result.probabilities is filled, its scores.
    // Returns the new id.
    static qint64 store(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                        const QString &split, const engine::EvalResult &result);
    static StoredEvaluation load(const QString &databasePath, qint64 evaluationId);
    // The newest stored evaluation of that run, checkpoint, split and TTA setting; 0 when none.
    static qint64 latest(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                         const QString &split, bool tta);
    // Every stored evaluation of runDir (all runs when empty), newest first.
    static QVector<EvaluationSummary> list(const QString &databasePath, const QString &runDir = {});
    // The newest stored evaluation of every run that has one (any checkpoint, split and TTA
    // setting), keyed by run folder (clean absolute path, as listRuns spells it).
    static QHash<QString, EvaluationSummary> newestByRun(const QString &databasePath);
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::StoredEvaluation)
Q_DECLARE_METATYPE(lathe::workspace::EvaluationSummary)
