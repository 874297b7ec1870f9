#pragma once

#include <QSqlDatabase>
#include <QStringList>

#include <vector>

namespace lathe::workspace {

// One step of the project database's schema: running its statements on a database at
// version - 1 brings it to version.
struct Migration
{
    int version = 0;
    QStringList statements;
};

// The project schema, oldest first. Append; never edit a released step.
const std::vector<Migration> &projectMigrations();

// Reads PRAGMA user_version; throws WorkspaceError naming dbLabel if the file is unreadable.
int schemaVersion(QSqlDatabase &db, const QString &dbLabel);

// Applies every migration newer than the database's user_version, each in its own
// transaction together with the user_version update, so a failure leaves the database at
// the last complete version. Throws WorkspaceError naming dbLabel and the failing step.
void migrate(QSqlDatabase &db, const std::vector<Migration> &migrations, const QString &dbLabel);

} // namespace lathe::workspace
