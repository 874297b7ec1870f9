#include "catalog_connection.h"

#include "catalog.h"
#include "workspace_error.h"

#include <QAtomicInteger>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

namespace lathe::ui {

CatalogConnection::CatalogConnection(const QString &databasePath)
{
    static QAtomicInteger<quint64> counter;
    m_name = QStringLiteral("lathe-ui-catalog-%1").arg(counter.fetchAndAddRelaxed(1));
    // SQLite would quietly create a new, empty file; a missing project is an error.
    if (!QFileInfo(databasePath).isFile())
        throw workspace::WorkspaceError(tr("%1: the project database does not exist").arg(databasePath));
    QString error;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(databasePath);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
        if (db.open()) {
            QSqlQuery(db).exec(QStringLiteral("PRAGMA foreign_keys = ON"));
            m_catalog = std::make_unique<workspace::Catalog>(db);
            return;
        }
        error = db.lastError().text();
    }
    QSqlDatabase::removeDatabase(m_name);
    throw workspace::WorkspaceError(tr("%1: cannot open the database (%2)").arg(databasePath, error));
}

CatalogConnection::~CatalogConnection()
{
    m_catalog.reset();
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

} // namespace lathe::ui
