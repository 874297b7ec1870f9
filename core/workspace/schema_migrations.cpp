#include "schema_migrations.h"

#include "workspace_error.h"

#include <QCoreApplication>
#include <QSqlError>
#include <QSqlQuery>

namespace lathe::workspace {
namespace {

class Tr
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::Migrations)
};

} // namespace

const std::vector<Migration> &projectMigrations()
{
    static const std::vector<Migration> migrations = {
        {1,
         {QStringLiteral("CREATE TABLE project_meta ("
                         " key TEXT PRIMARY KEY NOT NULL,"
                         " value TEXT NOT NULL)")}},
    };
    return migrations;
}

int schemaVersion(QSqlDatabase &db, const QString &dbLabel)
{
    QSqlQuery query(db);
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        throw WorkspaceError(Tr::tr("%1: cannot read the database (%2). The file is damaged or is not a "
                                    "Lathe project database.")
                                 .arg(dbLabel, query.lastError().text()));
    return query.value(0).toInt();
}

void migrate(QSqlDatabase &db, const std::vector<Migration> &migrations, const QString &dbLabel)
{
    const int current = schemaVersion(db, dbLabel);
    for (const Migration &migration : migrations) {
        if (migration.version <= current)
            continue;
        if (!db.transaction())
            throw WorkspaceError(Tr::tr("%1: cannot start a transaction (%2)").arg(dbLabel, db.lastError().text()));
        QSqlQuery query(db);
        QStringList statements = migration.statements;
        statements << QStringLiteral("PRAGMA user_version = %1").arg(migration.version);
        for (const QString &statement : statements) {
            if (!query.exec(statement)) {
                const QString reason = query.lastError().text();
                db.rollback();
                throw WorkspaceError(Tr::tr("%1: upgrading the schema to version %2 failed (%3); the project "
                                            "was left unchanged at version %4")
                                         .arg(dbLabel)
                                         .arg(migration.version)
                                         .arg(reason)
                                         .arg(schemaVersion(db, dbLabel)));
            }
        }
        if (!db.commit())
            throw WorkspaceError(Tr::tr("%1: cannot commit the schema upgrade (%2)").arg(dbLabel, db.lastError().text()));
    }
}

} // namespace lathe::workspace
