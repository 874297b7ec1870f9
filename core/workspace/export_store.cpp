#include "workspace/export_store.h"

#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

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

qint64 ExportStore::record(const QString &databasePath, const ExportRequest &request, bool ok, const QString &reportJson)
{
    ProjectConnection connection(databasePath);
    const QString projectDir = projectFolder(databasePath);
    QSqlQuery insert = connection.prepare(
        QStringLiteral("INSERT INTO exports (created, run_dir, checkpoint, formats, out_dir, status, report_json)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?)"));
    insert.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    insert.addBindValue(storedPath(projectDir, request.runDir));
    insert.addBindValue(request.checkpoint);
    insert.addBindValue(request.formats.join(QLatin1Char(',')));
    insert.addBindValue(storedPath(projectDir, request.outDir));
    insert.addBindValue(ok ? QStringLiteral("ok") : QStringLiteral("failed"));
    insert.addBindValue(reportJson);
    connection.exec(insert);
    return insert.lastInsertId().toLongLong();
}

StoredExport ExportStore::load(const QString &databasePath, qint64 exportId)
{
    ProjectConnection connection(databasePath);
    QSqlQuery query = connection.prepare(QStringLiteral("SELECT %1 FROM exports WHERE id = ?").arg(kColumns));
    query.addBindValue(exportId);
    connection.exec(query);
    if (!query.next())
        throw WorkspaceError(tr("%1: there is no recorded export %2").arg(databasePath).arg(exportId));
    return fromRow(query, projectFolder(databasePath));
}

QVector<StoredExport> ExportStore::list(const QString &databasePath)
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
