#include "workspace/evaluation_store.h"

#include "workspace/project_connection.h"
#include "workspace/project_database.h"
#include "workspace/workspace_error.h"

#include <QDateTime>
#include <QDir>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariantList>

namespace lathe::workspace {
namespace {

QString runKey(const QString &runDir)
{
    return QDir::cleanPath(QDir(runDir).absolutePath());
}

} // namespace

qint64 EvaluationStore::store(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                              const QString &split, const engine::EvalResult &result)
{
    ProjectConnection connection(databasePath);
    QSqlDatabase &db = connection.db();
    if (!db.transaction())
        throw WorkspaceError(tr("%1: cannot start a transaction (%2)").arg(databasePath, db.lastError().text()));
    try {
        nlohmann::json metrics = result.metrics;
        metrics["classes"] = result.classes;
        QSqlQuery insert = connection.prepare(
            QStringLiteral("INSERT INTO evaluations (run_dir, checkpoint, split, tta, created, metrics_json)"
                           " VALUES (?, ?, ?, ?, ?, ?)"));
        insert.addBindValue(runKey(runDir));
        insert.addBindValue(checkpoint);
        insert.addBindValue(split);
        insert.addBindValue(int(result.metrics.value("tta", false)));
        insert.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
        insert.addBindValue(QString::fromStdString(metrics.dump()));
        connection.exec(insert);
        const qint64 id = insert.lastInsertId().toLongLong();

        QSqlQuery row = connection.prepare(
            QStringLiteral("INSERT INTO predictions (evaluation_id, record, filename, label, pred, prob, loss, top_json)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
        // A multi-label evaluation also keeps each image's label set and every class's score:
        // the Evaluate page recomputes its metrics from them at thresholds the user edits.
        const bool multiLabel = result.metrics.value("task", std::string()) == "multi_label";
        const bool keepScores = multiLabel && result.probabilities.size() == result.predictions.size();
        for (std::size_t i = 0; i < result.predictions.size(); ++i) {
            const engine::Prediction &p = result.predictions[i];
            nlohmann::json top = {{"classes", p.topClasses}, {"probs", p.topProbs}};
            if (multiLabel)
                top["labels"] = p.labels;
            if (keepScores)
                top["scores"] = result.probabilities[i];
            row.bindValue(0, id);
            row.bindValue(1, qint64(p.record));
            row.bindValue(2, QString::fromStdString(p.filename));
            row.bindValue(3, p.label);
            row.bindValue(4, p.topClasses.empty() ? -1 : p.topClasses.front());
            row.bindValue(5, p.topProbs.empty() ? 0.0 : double(p.topProbs.front()));
            row.bindValue(6, double(p.loss));
            row.bindValue(7, QString::fromStdString(top.dump()));
            connection.exec(row);
        }
        if (!db.commit())
            throw WorkspaceError(ProjectDatabase::writeErrorMessage(
                databasePath, db.lastError(),
                tr("%1: cannot store the evaluation (%2)").arg(databasePath, db.lastError().text())));
        return id;
    } catch (...) {
        db.rollback();
        throw;
    }
}

StoredEvaluation EvaluationStore::load(const QString &databasePath, qint64 evaluationId)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(
        QStringLiteral("SELECT run_dir, checkpoint, split, created, metrics_json FROM evaluations WHERE id = ?"));
    query.addBindValue(evaluationId);
    connection.exec(query);
    if (!query.next())
        throw WorkspaceError(tr("%1: there is no stored evaluation %2").arg(databasePath).arg(evaluationId));
    StoredEvaluation stored;
    stored.id = evaluationId;
    stored.runDir = query.value(0).toString();
    stored.checkpoint = query.value(1).toString();
    stored.split = query.value(2).toString();
    stored.created = query.value(3).toString();
    nlohmann::json metrics = nlohmann::json::parse(query.value(4).toString().toStdString(), nullptr, false);
    if (!metrics.is_object())
        throw WorkspaceError(tr("%1: the metrics of evaluation %2 are not a JSON object").arg(databasePath).arg(evaluationId));
    try {
        stored.result.classes = metrics.value("classes", std::vector<std::string>());
    } catch (const std::exception &e) {
        throw WorkspaceError(
            tr("%1: evaluation %2 has a malformed class list (%3)").arg(databasePath).arg(evaluationId).arg(QString::fromUtf8(e.what())));
    }
    metrics.erase("classes");
    stored.result.metrics = std::move(metrics);

    QSqlQuery rows = connection.prepare(QStringLiteral(
        "SELECT record, filename, label, loss, top_json FROM predictions WHERE evaluation_id = ? ORDER BY record"));
    rows.addBindValue(evaluationId);
    connection.exec(rows);
    std::vector<std::vector<float>> scores;
    const std::size_t classCount = stored.result.classes.size();
    while (rows.next()) {
        engine::Prediction p;
        p.record = rows.value(0).toULongLong();
        p.filename = rows.value(1).toString().toStdString();
        p.label = rows.value(2).toInt();
        p.loss = rows.value(3).toFloat();
        const nlohmann::json top = nlohmann::json::parse(rows.value(4).toString().toStdString(), nullptr, false);
        try {
            p.topClasses = top.at("classes").get<std::vector<int>>();
            p.topProbs = top.at("probs").get<std::vector<float>>();
            p.labels = top.contains("labels") ? top.at("labels").get<std::vector<int>>() : std::vector<int>{p.label};
            if (top.contains("scores"))
                scores.push_back(top.at("scores").get<std::vector<float>>());
        } catch (const std::exception &e) {
            throw WorkspaceError(tr("%1: prediction %2 of evaluation %3 is malformed (%4)")
                                     .arg(databasePath)
                                     .arg(p.record)
                                     .arg(evaluationId)
                                     .arg(QString::fromUtf8(e.what())));
        }
        if (p.topClasses.size() != p.topProbs.size())
            throw WorkspaceError(tr("%1: prediction %2 of evaluation %3 has %4 classes but %5 probabilities")
                                     .arg(databasePath)
                                     .arg(p.record)
                                     .arg(evaluationId)
                                     .arg(p.topClasses.size())
                                     .arg(p.topProbs.size()));
        for (int c : p.labels)
            if (c < 0 || std::size_t(c) >= classCount)
                throw WorkspaceError(tr("%1: prediction %2 of evaluation %3 has label %4 outside the %5 classes")
                                         .arg(databasePath)
                                         .arg(p.record)
                                         .arg(evaluationId)
                                         .arg(c)
                                         .arg(classCount));
        if (!scores.empty() && scores.back().size() != classCount)
            throw WorkspaceError(tr("%1: prediction %2 of evaluation %3 has %4 scores for %5 classes")
                                     .arg(databasePath)
                                     .arg(p.record)
                                     .arg(evaluationId)
                                     .arg(scores.back().size())
                                     .arg(classCount));
        stored.result.predictions.push_back(std::move(p));
    }
    // Scores for every image or none (an evaluation stored without them shows its metrics only).
    if (scores.size() == stored.result.predictions.size())
        stored.result.probabilities = std::move(scores);
    return stored;
}

qint64 EvaluationStore::latest(const QString &databasePath, const QString &runDir, const QString &checkpoint,
                               const QString &split, bool tta)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(
        QStringLiteral("SELECT id FROM evaluations WHERE run_dir = ? AND checkpoint = ? AND split = ? AND tta = ?"
                       " ORDER BY id DESC LIMIT 1"));
    query.addBindValue(runKey(runDir));
    query.addBindValue(checkpoint);
    query.addBindValue(split);
    query.addBindValue(int(tta));
    connection.exec(query);
    return query.next() ? query.value(0).toLongLong() : 0;
}

namespace {

// The evaluations that `where` picks (a condition on e, with bound values), newest first. The
// task and the mAP come from the stored metrics (json_valid: a malformed row still lists).
QVector<EvaluationSummary> summaries(const QString &databasePath, const QString &where, const QVariantList &values)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(
        QStringLiteral("SELECT e.id, e.run_dir, e.checkpoint, e.split, e.created, e.tta,"
                       " (SELECT COUNT(*) FROM predictions p WHERE p.evaluation_id = e.id),"
                       " (SELECT COUNT(*) FROM predictions p WHERE p.evaluation_id = e.id AND p.pred = p.label),"
                       " CASE WHEN json_valid(e.metrics_json) THEN json_extract(e.metrics_json, '$.task') END,"
                       " CASE WHEN json_valid(e.metrics_json) THEN json_extract(e.metrics_json, '$.map') END"
                       " FROM evaluations e%1 ORDER BY e.id DESC")
            .arg(where.isEmpty() ? QString() : QStringLiteral(" WHERE ") + where));
    for (const QVariant &value : values)
        query.addBindValue(value);
    connection.exec(query);
    QVector<EvaluationSummary> out;
    while (query.next()) {
        EvaluationSummary s;
        s.id = query.value(0).toLongLong();
        s.runDir = query.value(1).toString();
        s.checkpoint = query.value(2).toString();
        s.split = query.value(3).toString();
        s.created = query.value(4).toString();
        s.tta = query.value(5).toBool();
        s.count = query.value(6).toLongLong();
        s.top1 = s.count > 0 ? query.value(7).toDouble() / double(s.count) : 0.0;
        if (query.value(8).toString() == QLatin1String("multi_label"))
            s.task = query.value(8).toString();
        bool number = false;
        const double map = query.value(9).toDouble(&number);
        if (s.multiLabel() && !query.value(9).isNull() && number)
            s.map = map;
        out.append(s);
    }
    return out;
}

} // namespace

QVector<EvaluationSummary> EvaluationStore::list(const QString &databasePath, const QString &runDir)
{
    return runDir.isEmpty() ? summaries(databasePath, {}, {})
                            : summaries(databasePath, QStringLiteral("e.run_dir = ?"), {runKey(runDir)});
}

QHash<QString, EvaluationSummary> EvaluationStore::newestByRun(const QString &databasePath)
{
    QHash<QString, EvaluationSummary> newest;
    for (const EvaluationSummary &s :
         summaries(databasePath, QStringLiteral("e.id IN (SELECT MAX(id) FROM evaluations GROUP BY run_dir)"), {}))
        newest.insert(s.runDir, s);
    return newest;
}

} // namespace lathe::workspace
