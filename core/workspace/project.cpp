#include "workspace/project.h"

#include "workspace/project_database.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QAtomicInteger>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>

namespace lathe::workspace {
namespace {

QString newConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("lathe-project-%1").arg(counter.fetchAndAddRelaxed(1));
}

const QStringList &subfolders()
{
    static const QStringList names = {QStringLiteral("datasets"), QStringLiteral("runs"), QStringLiteral("exports")};
    return names;
}

// SQLite's quick_check, summarised: empty when the file is sound, else its first findings.
QString integrityProblem(QSqlDatabase &db)
{
    QSqlQuery check(db);
    if (!check.exec(QStringLiteral("PRAGMA quick_check(4)")))
        return check.lastError().text();
    QStringList findings;
    while (check.next()) {
        const QStringList lines = check.value(0).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString &line : lines) {
            if (line != QStringLiteral("ok") && !line.startsWith(QStringLiteral("***")) && findings.size() < 3)
                findings << line;
        }
    }
    return findings.join(QStringLiteral("; "));
}

} // namespace

Project::Project(const QString &folder, const QString &connection)
    : m_folder(folder)
    , m_connection(connection)
{
}

Project::~Project()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

bool Project::isProjectFolder(const QString &folder)
{
    return QFileInfo(QDir(folder).filePath(QString::fromLatin1(kDatabaseFile))).isFile();
}

std::unique_ptr<Project> Project::create(const QString &folder, const QString &name)
{
    const QString path = QDir::cleanPath(QDir(folder).absolutePath());
    QDir dir(path);
    if (QFileInfo(path).exists() && !QFileInfo(path).isDir())
        throw WorkspaceError(tr("%1: exists and is not a folder").arg(path));
    if (dir.exists() && !dir.isEmpty())
        throw WorkspaceError(tr("%1: the folder is not empty; a new project needs a new or empty folder").arg(path));
    if (!dir.mkpath(QStringLiteral(".")))
        throw WorkspaceError(tr("%1: cannot create the folder").arg(path));

    std::unique_ptr<Project> project(new Project(path, newConnectionName()));
    QSqlDatabase db = ProjectDatabase::addConnection(project->m_connection, project->databasePath());
    if (!db.open())
        throw WorkspaceError(tr("%1: cannot create the database (%2)").arg(project->databasePath(), db.lastError().text()));
    QSqlQuery(db).exec(QStringLiteral("PRAGMA application_id = %1").arg(kApplicationId));
    project->configureConnection();
    migrate(db, projectMigrations(), project->databasePath());
    project->createSubfolders();
    project->setMeta(QStringLiteral("name"), name.isEmpty() ? QFileInfo(path).fileName() : name);
    project->setMeta(QStringLiteral("created"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    project->setMeta(QStringLiteral("created_by"), QStringLiteral(LATHE_VERSION));
    return project;
}

std::unique_ptr<Project> Project::open(const QString &folder)
{
    const QString path = QDir::cleanPath(QDir(folder).absolutePath());
    if (!QFileInfo(path).isDir())
        throw WorkspaceError(tr("%1: folder not found").arg(path));
    const QString dbPath = QDir(path).filePath(QString::fromLatin1(kDatabaseFile));
    const QFileInfo dbInfo(dbPath);
    if (!dbInfo.exists())
        throw WorkspaceError(tr("%1: not a Lathe project (it has no %2)").arg(path, QString::fromLatin1(kDatabaseFile)));
    // Before SQLite sees the file: it would take a zero-byte file for a new database, and we
    // must not write into something that is not ours.
    ProjectDatabase::checkFile(dbPath);

    std::unique_ptr<Project> project(new Project(path, newConnectionName()));
    QSqlDatabase db = ProjectDatabase::addConnection(project->m_connection, dbPath);
    if (!db.open())
        throw WorkspaceError(tr("%1: cannot open the database (%2)").arg(dbPath, db.lastError().text()));

    // Read-only checks first: nothing is written until we know the file is ours and not newer.
    ProjectDatabase::checkOwnership(db, dbPath);
    const QString damage = integrityProblem(db);
    if (!damage.isEmpty())
        throw WorkspaceError(tr("%1: the database is damaged (%2); it was left untouched").arg(dbPath, damage));

    project->configureConnection();
    migrate(db, projectMigrations(), dbPath);
    project->createSubfolders();
    return project;
}

void Project::configureConnection()
{
    QSqlDatabase db = database();
    QSqlQuery query(db);
    // WAL: readers never block the writer and a killed process leaves a consistent file.
    if (!query.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !query.next()
        || query.value(0).toString().compare(QStringLiteral("wal"), Qt::CaseInsensitive) != 0)
        throw WorkspaceError(tr("%1: cannot switch the database to WAL mode (%2)")
                                 .arg(databasePath(), query.lastError().text()));
    query.exec(QStringLiteral("PRAGMA synchronous = NORMAL"));
    if (!query.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
        throw WorkspaceError(tr("%1: cannot enable foreign keys (%2)").arg(databasePath(), query.lastError().text()));
}

void Project::createSubfolders() const
{
    QDir dir(m_folder);
    for (const QString &sub : subfolders()) {
        if (!dir.mkpath(sub))
            throw WorkspaceError(tr("%1: cannot create the folder").arg(dir.filePath(sub)));
    }
}

QString Project::databasePath() const
{
    return QDir(m_folder).filePath(QString::fromLatin1(kDatabaseFile));
}

QString Project::datasetsDir() const
{
    return QDir(m_folder).filePath(subfolders().at(0));
}

QString Project::runsDir() const
{
    return QDir(m_folder).filePath(subfolders().at(1));
}

QString Project::exportsDir() const
{
    return QDir(m_folder).filePath(subfolders().at(2));
}

QString Project::name() const
{
    return meta(QStringLiteral("name"), QFileInfo(m_folder).fileName());
}

int Project::schemaVersion()
{
    QSqlDatabase db = database();
    return lathe::workspace::schemaVersion(db, databasePath());
}

QSqlDatabase Project::database() const
{
    return QSqlDatabase::database(m_connection, false);
}

QString Project::meta(const QString &key, const QString &fallback) const
{
    QSqlQuery query(database());
    query.prepare(QStringLiteral("SELECT value FROM project_meta WHERE key = ?"));
    query.addBindValue(key);
    if (query.exec() && query.next())
        return query.value(0).toString();
    return fallback;
}

void Project::setMeta(const QString &key, const QString &value)
{
    QSqlQuery query(database());
    query.prepare(QStringLiteral("INSERT INTO project_meta(key, value) VALUES(?, ?) "
                                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
    query.addBindValue(key);
    query.addBindValue(value.isNull() ? QStringLiteral("") : value); // a null QString binds as SQL NULL
    if (!query.exec())
        throw WorkspaceError(ProjectDatabase::writeErrorMessage(
            databasePath(), query.lastError(),
            tr("%1: cannot write to the database (%2)").arg(databasePath(), query.lastError().text())));
}

} // namespace lathe::workspace
