#pragma once

#include <QCoreApplication>
#include <QString>

#include <memory>

namespace lathe::workspace {
class Catalog;
}

namespace lathe::ui {

// A short-lived database connection of its own, for reading or writing the catalog on a
// worker thread (a Project's connection belongs to the GUI thread). The connection has a
// unique name and is removed when this object goes. Throws WorkspaceError when the
// database cannot be opened.
class CatalogConnection
{
    Q_DECLARE_TR_FUNCTIONS(lathe::ui::CatalogConnection)

public:
    explicit CatalogConnection(const QString &databasePath);
    ~CatalogConnection();
    CatalogConnection(const CatalogConnection &) = delete;
    CatalogConnection &operator=(const CatalogConnection &) = delete;

    workspace::Catalog &catalog() { return *m_catalog; }

private:
    QString m_name;
    std::unique_ptr<workspace::Catalog> m_catalog;
};

} // namespace lathe::ui
