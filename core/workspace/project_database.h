#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QString>

namespace lathe::workspace {

// The checks that tell whether a file is a Lathe project database, shared by Project::open
// and by jobs that open their own connection to it (ImportJob). They only read: a file that
// is refused has not been written to.
class ProjectDatabase
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::ProjectDatabase)

public:
    // A QSQLITE connection called connection to path, with the busy timeout every Lathe
    // connection uses. Not opened yet.
    static QSqlDatabase addConnection(const QString &connection, const QString &path);

    // Throws WorkspaceError naming path when the file is missing, unreadable, empty or not a
    // SQLite file. Call it before opening: SQLite takes a zero-byte file for a new database.
    static void checkFile(const QString &path);

    // On an open connection: throws WorkspaceError naming path for a SQLite database of
    // another program or one written by a newer Lathe. Returns the schema version.
    static int checkOwnership(QSqlDatabase &db, const QString &path);

    // Whether a SQLite error says the disk is full (SQLITE_FULL: a write found no room).
    static bool isDiskFull(const QSqlError &error);
    // The message for a failed write to the database at path: one that says the disk is full
    // (and that the failed change was rolled back, the state before it kept) when isDiskFull,
    // else otherwise.
    static QString writeErrorMessage(const QString &path, const QSqlError &error, const QString &otherwise);
};

} // namespace lathe::workspace
