#include "workspace/project_database.h"

#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QFile>
#include <QFileInfo>
#include <QSqlQuery>

namespace lathe::workspace {
namespace {

// The 16-byte header every SQLite 3 database starts with.
bool hasSqliteHeader(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    return file.read(16) == QByteArray("SQLite format 3\0", 16);
}

int pragmaInt(QSqlDatabase &db, const QString &pragma)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA ") + pragma) || !query.next())
        return -1;
    return query.value(0).toInt();
}

} // namespace

QSqlDatabase ProjectDatabase::addConnection(const QString &connection, const QString &path)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    return db;
}

void ProjectDatabase::checkFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        throw WorkspaceError(tr("%1: file not found").arg(path));
    if (!info.isReadable())
        throw WorkspaceError(tr("%1: no permission to read the file").arg(path));
    if (info.size() == 0 || !hasSqliteHeader(path))
        throw WorkspaceError(tr("%1: the file is damaged or is not a SQLite database; it was left untouched").arg(path));
}

int ProjectDatabase::checkOwnership(QSqlDatabase &db, const QString &path)
{
    const int version = schemaVersion(db, path);
    if (pragmaInt(db, QStringLiteral("application_id")) != Project::kApplicationId)
        throw WorkspaceError(tr("%1: a SQLite database of another program, not a Lathe project; it was left untouched")
                                 .arg(path));
    const int newest = projectMigrations().back().version;
    if (version > newest)
        throw WorkspaceError(tr("%1: written by a newer version of Lathe (schema %2; this version reads up to %3). "
                                "Update Lathe to open it; the project was left untouched.")
                                 .arg(path)
                                 .arg(version)
                                 .arg(newest));
    return version;
}

bool ProjectDatabase::isDiskFull(const QSqlError &error)
{
    // QSQLITE reports sqlite3's result code, primary or extended: SQLITE_FULL is 13 in its low byte.
    bool ok = false;
    const int code = error.nativeErrorCode().toInt(&ok);
    return ok && (code & 0xff) == 13;
}

QString ProjectDatabase::writeErrorMessage(const QString &path, const QSqlError &error, const QString &otherwise)
{
    if (isDiskFull(error))
        return tr("%1: the disk is full (%2); the change was rolled back and the project keeps its earlier state")
            .arg(path, error.text());
    return otherwise;
}

} // namespace lathe::workspace
