#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

namespace lathe::workspace {

// A connection of its own to a project database, for a worker thread or a short look-up (a
// Project's connection belongs to the thread that opened it). The file is checked like
// Project::open checks it (never written when refused), an older schema is migrated, and the
// uniquely named connection is removed when this object goes. Throws WorkspaceError naming
// the database.
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

    // A forward-only prepared query; exec() runs it. Both throw WorkspaceError on SQL errors.
    QSqlQuery prepare(const QString &sql);
    void exec(QSqlQuery &query);

private:
    [[noreturn]] void fail(const QSqlQuery &query);

    QString m_path;
    QString m_name;
    QSqlDatabase m_db;
};

} // namespace lathe::workspace
