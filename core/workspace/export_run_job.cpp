#include "export_run_job.h"

#include "export_job.h" // the engine's exportModel (core/engine)
#include "project_connection.h"
#include "workspace_error.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QVariantMap>

#include <nlohmann/json.hpp>

namespace lathe::workspace {
namespace {

QString projectFolder(const QString &databasePath)
{
    return QFileInfo(databasePath).absolutePath();
}

// Relative to the project folder when inside it, so a moved project keeps its history.
QString storedPath(const QString &projectDir, const QString &path)
{
    const QString absolute = QDir::cleanPath(QDir(path).absolutePath());
    const QString relative = QDir(projectDir).relativeFilePath(absolute);
    return relative.startsWith(QLatin1String("..")) || QDir::isAbsolutePath(relative) ? absolute : relative;
}

QString absolutePath(const QString &projectDir, const QString &stored)
{
    return QDir::cleanPath(QDir(projectDir).absoluteFilePath(stored));
}

StoredExport fromRow(const QSqlQuery &query, const QString &projectDir)
{
    StoredExport e;
    e.id = query.value(0).toLongLong();
    e.created = query.value(1).toString();
    e.runDir = absolutePath(projectDir, query.value(2).toString());
    e.checkpoint = query.value(3).toString();
    e.formats = query.value(4).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
    e.outDir = absolutePath(projectDir, query.value(5).toString());
    e.ok = query.value(6).toString() == QLatin1String("ok");
    e.reportJson = query.value(7).toString();
    return e;
}

const QString kColumns = QStringLiteral("id, created, run_dir, checkpoint, formats, out_dir, status, report_json");

} // namespace

ExportRunJob::ExportRunJob(Params params, QObject *parent)
    : Job(tr("Export %1").arg(QDir(params.runDir).dirName()), parent)
    , m_params(std::move(params))
{
}

QVariant ExportRunJob::execute()
{
    if (m_params.runDir.isEmpty())
        throw WorkspaceError(tr("No run was given to export"));
    if (m_params.outDir.isEmpty())
        throw WorkspaceError(tr("No output folder was given for the export"));
    engine::ExportOptions options;
    options.runDir = QDir::cleanPath(QDir(m_params.runDir).absolutePath()).toStdString();
    options.checkpoint = m_params.checkpoint.toStdString();
    options.formats.clear();
    for (const QString &format : m_params.formats)
        options.formats.push_back(format.toStdString());
    options.outDir = QDir::cleanPath(QDir(m_params.outDir).absolutePath()).toStdString();
    options.preprocessing = m_params.preprocessing;
    options.softmax = m_params.softmax;
    options.calibMethod = m_params.calibMethod.toStdString();
    options.calibImages = m_params.calibImages;

    nlohmann::json report;
    try {
        report = engine::exportModel(options, taskControl(tr("Exporting")));
    } catch (const engine::Cancelled &) {
        throw;
    } catch (const std::exception &e) {
        // The history shows failed exports too, with the reason.
        const QString message = QString::fromUtf8(e.what());
        if (!m_params.databasePath.isEmpty()) {
            try {
                record(m_params, false, QString::fromStdString(nlohmann::json{{"error", e.what()}}.dump()));
            } catch (const std::exception &) {
                // The export's own failure is what the user needs to read.
            }
        }
        throw WorkspaceError(message);
    }
    checkCancel();
    const bool ok = report.value("status", std::string()) == "passed";
    const QString reportJson = QString::fromStdString(report.dump());
    QVariantMap summary;
    if (!m_params.databasePath.isEmpty()) {
        reportProgress(1.0, tr("Recording the export"));
        summary[QStringLiteral("exportId")] = record(m_params, ok, reportJson);
    }
    summary[QStringLiteral("outDir")] = QString::fromStdString(options.outDir);
    summary[QStringLiteral("ok")] = ok;
    summary[QStringLiteral("report")] = reportJson;
    return summary;
}

qint64 ExportRunJob::record(const Params &params, bool ok, const QString &reportJson)
{
    ProjectConnection connection(params.databasePath);
    const QString projectDir = projectFolder(params.databasePath);
    QSqlQuery insert = connection.prepare(
        QStringLiteral("INSERT INTO exports (created, run_dir, checkpoint, formats, out_dir, status, report_json)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?)"));
    insert.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    insert.addBindValue(storedPath(projectDir, params.runDir));
    insert.addBindValue(params.checkpoint);
    insert.addBindValue(params.formats.join(QLatin1Char(',')));
    insert.addBindValue(storedPath(projectDir, params.outDir));
    insert.addBindValue(ok ? QStringLiteral("ok") : QStringLiteral("failed"));
    insert.addBindValue(reportJson);
    connection.exec(insert);
    return insert.lastInsertId().toLongLong();
}

StoredExport ExportRunJob::load(const QString &databasePath, qint64 exportId)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(QStringLiteral("SELECT %1 FROM exports WHERE id = ?").arg(kColumns));
    query.addBindValue(exportId);
    connection.exec(query);
    if (!query.next())
        throw WorkspaceError(tr("%1: there is no recorded export %2").arg(databasePath).arg(exportId));
    return fromRow(query, projectFolder(databasePath));
}

QVector<StoredExport> ExportRunJob::list(const QString &databasePath)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(QStringLiteral("SELECT %1 FROM exports ORDER BY id DESC").arg(kColumns));
    connection.exec(query);
    const QString projectDir = projectFolder(databasePath);
    QVector<StoredExport> out;
    while (query.next())
        out.append(fromRow(query, projectDir));
    return out;
}

} // namespace lathe::workspace
