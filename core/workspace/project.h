#pragma once

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace lathe::workspace {

// A Lathe project: a folder with project.sqlite (WAL, foreign keys, schema versioned by
// PRAGMA user_version) and the sub-folders datasets/, runs/ and exports/. The database
// indexes what the engine writes into those folders; it never holds the only copy.
//
// A Project owns one SQLite connection and must be used from the thread that opened it.
class Project
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::Project)

public:
    static constexpr const char *kDatabaseFile = "project.sqlite";
    static constexpr int kApplicationId = 0x4C415448; // "LATH" in PRAGMA application_id

    // Both throw WorkspaceError with a message naming the folder or file and the reason.
    // create() refuses a folder that already holds files; open() refuses a database written
    // by a newer Lathe, a damaged file or a SQLite file of another program, and never
    // modifies the file when it refuses.
    static std::unique_ptr<Project> create(const QString &folder, const QString &name = {});
    static std::unique_ptr<Project> open(const QString &folder);
    static bool isProjectFolder(const QString &folder);

    ~Project();
    Project(const Project &) = delete;
    Project &operator=(const Project &) = delete;

    QString folder() const { return m_folder; }
    QString databasePath() const;
    QString datasetsDir() const;
    QString runsDir() const;
    QString exportsDir() const;
    QString name() const;

    int schemaVersion();
    QSqlDatabase database() const;

    // Small key/value facts about the project (name, creation time, demo data location).
    QString meta(const QString &key, const QString &fallback = {}) const;
    void setMeta(const QString &key, const QString &value);

private:
    Project(const QString &folder, const QString &connection);
    void configureConnection();
    void createSubfolders() const;

    QString m_folder;
    QString m_connection;
};

} // namespace lathe::workspace
