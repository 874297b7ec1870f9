#pragma once

#include <QSqlDatabase>
#include <QString>
#include <QStringList>

#include <vector>

namespace lathe::workspace {

// A column a migration adds (ALTER TABLE table ADD COLUMN name definition), skipped when the
// table has it already: SQLite has no ADD COLUMN IF NOT EXISTS, and a database whose
// user_version was set back by hand must not fail on its own columns.
struct AddedColumn
{
    QString table;
    QString name;
    QString definition;
};

// One step of the project database's schema: adding its columns, then running its statements
// on a database at version - 1 brings it to version.
struct Migration
{
    int version = 0;
    QStringList statements;
    std::vector<AddedColumn> columns = {};
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
