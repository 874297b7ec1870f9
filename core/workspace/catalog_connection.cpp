#include "catalog_connection.h"

#include "catalog.h"
#include "project_database.h"
#include "schema_migrations.h"
#include "workspace_error.h"

#include <QAtomicInteger>
#include <QSqlError>
#include <QSqlQuery>

namespace lathe::workspace {

CatalogConnection::CatalogConnection(const QString &databasePath)
{
    static QAtomicInteger<quint64> counter;
    m_name = QStringLiteral("lathe-catalog-%1").arg(counter.fetchAndAddRelaxed(1));
    ProjectDatabase::checkFile(databasePath); // SQLite would quietly create a missing file
    try {
        QSqlDatabase db = ProjectDatabase::addConnection(m_name, databasePath);
        if (!db.open())
            throw WorkspaceError(tr("%1: cannot open the database (%2)").arg(databasePath, db.lastError().text()));
        const int version = ProjectDatabase::checkOwnership(db, databasePath);
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
            throw WorkspaceError(tr("%1: cannot enable foreign keys (%2)").arg(databasePath, query.lastError().text()));
        // Normally Project::open has migrated already; a file handed over directly may be older.
        if (version < projectMigrations().back().version)
            migrate(db, projectMigrations(), databasePath);
        m_catalog = std::make_unique<Catalog>(db);
    } catch (...) {
        QSqlDatabase::removeDatabase(m_name);
        throw;
    }
}

CatalogConnection::~CatalogConnection()
{
    m_catalog.reset(); // its copy of the connection must go before the connection is removed
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

} // namespace lathe::workspace
