#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <memory>

namespace lathe::workspace {

class Catalog;

// A connection of its own to a project database, for a worker thread or a short look-up (a
// Project's connection belongs to the thread that opened it): the one way the jobs, the
// stores and the pages' background work reach the database. The file is checked like
// Project::open checks it (never written when refused), foreign keys are enabled, an older
// schema is migrated, and the uniquely named connection is removed when this object goes.
// Use it on the thread that created it. Throws WorkspaceError naming the database.
class ProjectConnection
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::ProjectConnection)

public:
    explicit ProjectConnection(const QString &databasePath);
    ~ProjectConnection();
    ProjectConnection(const ProjectConnection &) = delete;
    ProjectConnection &operator=(const ProjectConnection &) = delete;

    QSqlDatabase &db() { return m_db; }
    const QString &path() const { return m_path; }
    // The dataset catalog on this connection.
    Catalog &catalog() { return *m_catalog; }

    // A forward-only prepared query; exec() runs it. Both throw WorkspaceError on SQL errors.
    QSqlQuery prepare(const QString &sql);
    void exec(QSqlQuery &query);

private:
    [[noreturn]] void fail(const QSqlQuery &query);

    QString m_path;
    QString m_name;
    QSqlDatabase m_db;
    std::unique_ptr<Catalog> m_catalog; // holds a copy of m_db: goes before the connection
};

} // namespace lathe::workspace
