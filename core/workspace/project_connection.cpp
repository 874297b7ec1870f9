#include "workspace/project_connection.h"

#include "workspace/catalog.h"
#include "workspace/project_database.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QAtomicInteger>
#include <QSqlError>

namespace lathe::workspace {

ProjectConnection::ProjectConnection(const QString &databasePath)
    : m_path(databasePath)
{
    static QAtomicInteger<quint64> counter;
    m_name = QStringLiteral("lathe-project-worker-%1").arg(counter.fetchAndAddRelaxed(1));
    ProjectDatabase::checkFile(databasePath); // SQLite would quietly create a missing file
    try {
        m_db = ProjectDatabase::addConnection(m_name, databasePath);
        if (!m_db.open())
            throw WorkspaceError(tr("%1: cannot open the database (%2)").arg(databasePath, m_db.lastError().text()));
        const int version = ProjectDatabase::checkOwnership(m_db, databasePath);
        QSqlQuery query(m_db);
        if (!query.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
            fail(query);
        // Normally Project::open has migrated already; a file handed over directly may be older.
        if (version < projectMigrations().back().version)
            migrate(m_db, projectMigrations(), databasePath);
        m_catalog = std::make_unique<Catalog>(m_db);
    } catch (...) {
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_name);
        throw;
    }
}

ProjectConnection::~ProjectConnection()
{
    m_catalog.reset(); // its copy of the connection must go before the connection is removed
    m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_name);
}

QSqlQuery ProjectConnection::prepare(const QString &sql)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        fail(query);
    return query;
}

void ProjectConnection::exec(QSqlQuery &query)
{
    if (!query.exec())
        fail(query);
}

void ProjectConnection::fail(const QSqlQuery &query)
{
    throw WorkspaceError(ProjectDatabase::writeErrorMessage(
        m_path, query.lastError(), tr("%1: database error (%2)").arg(m_path, query.lastError().text())));
}

} // namespace lathe::workspace
