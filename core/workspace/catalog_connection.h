#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace lathe::workspace {

class Catalog;

// A database connection of its own to a project's catalog, for a worker thread (a Project's
// connection belongs to the thread that opened it). The file is checked like Project::open
// checks it (never written when refused), an older schema is migrated, and the uniquely
// named connection is removed when this object goes. Throws WorkspaceError.
class CatalogConnection
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::CatalogConnection)

public:
    explicit CatalogConnection(const QString &databasePath);
    ~CatalogConnection();
    CatalogConnection(const CatalogConnection &) = delete;
    CatalogConnection &operator=(const CatalogConnection &) = delete;

    Catalog &catalog() { return *m_catalog; }

private:
    QString m_name;
    std::unique_ptr<Catalog> m_catalog;
};

} // namespace lathe::workspace
