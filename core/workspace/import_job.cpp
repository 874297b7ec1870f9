#include "import_job.h"

#include "catalog.h"
#include "project_database.h"
#include "schema_migrations.h"
#include "workspace_error.h"

#include <QAtomicInteger>
#include <QDir>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariantMap>

namespace lathe::workspace {
namespace {

// Removes the job's connection when execute() leaves, however it leaves. Declared before
// every QSqlDatabase and QSqlQuery copy so that they are gone by then.
class ConnectionGuard
{
public:
    explicit ConnectionGuard(QString name)
        : m_name(std::move(name))
    {
    }
    ~ConnectionGuard()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    const QString &name() const { return m_name; }

private:
    QString m_name;
};

QString newConnectionName()
{
    static QAtomicInteger<int> counter;
    return QStringLiteral("lathe-import-%1").arg(counter.fetchAndAddRelaxed(1));
}

} // namespace

ImportJob::ImportJob(Params params, QObject *parent)
    : Job(tr("Import images"), parent)
    , m_params(std::move(params))
{
}

QVariant ImportJob::execute()
{
    return toVariantMap(importFolder(m_params, taskControl(tr("Scanning images"))));
}

ImportSummary ImportJob::importFolder(const Params &params, const engine::TaskControl &control)
{
    if (params.sourceDir.isEmpty())
        throw WorkspaceError(tr("No image folder was given to import"));
    const QString dbPath = params.databasePath;
    const QString sourceDir = QDir::cleanPath(QDir(params.sourceDir).absolutePath());
    const QString name = params.name.isEmpty() ? QFileInfo(sourceDir).fileName() : params.name;

    ProjectDatabase::checkFile(dbPath);
    const ConnectionGuard connection(newConnectionName());
    QSqlDatabase db = ProjectDatabase::addConnection(connection.name(), dbPath);
    if (!db.open())
        throw WorkspaceError(tr("%1: cannot open the database (%2)").arg(dbPath, db.lastError().text()));
    const int version = ProjectDatabase::checkOwnership(db, dbPath);
    {
        QSqlQuery query(db);
        if (!query.exec(QStringLiteral("PRAGMA foreign_keys = ON")))
            throw WorkspaceError(tr("%1: cannot enable foreign keys (%2)").arg(dbPath, query.lastError().text()));
    }
    // Normally Project::open has done this already; a project file handed over directly may
    // still be older than the catalog.
    if (version < projectMigrations().back().version)
        migrate(db, projectMigrations(), dbPath);

    Catalog catalog(db);
    engine::ScanOptions options;
    options.root = sourceDir.toStdString();
    options.maxPixels = params.maxPixels;
    options.valFraction = params.valFraction;
    options.testFraction = params.testFraction;
    options.seed = params.seed;
    // Files are only taken over unread from the same folder: same relative path elsewhere is
    // another file.
    if (const int existing = catalog.datasetId(name);
        existing != 0 && QDir::cleanPath(catalog.dataset(existing).sourceDir) == sourceDir)
        options.previous = catalog.previousScan(existing);

    const engine::ScanResult scan = engine::scanFolder(options, control);
    control.checkCancel(); // the last moment at which cancelling still leaves the catalog untouched
    control.report(1.0, tr("Updating the catalog").toStdString());
    return catalog.applyScan(name, options, scan);
}

QVariantMap ImportJob::toVariantMap(const ImportSummary &summary)
{
    QVariantMap result;
    result[QStringLiteral("datasetId")] = summary.datasetId;
    result[QStringLiteral("added")] = summary.added;
    result[QStringLiteral("removed")] = summary.removed;
    result[QStringLiteral("changed")] = summary.changed;
    result[QStringLiteral("unchanged")] = summary.unchanged;
    result[QStringLiteral("ok")] = summary.ok;
    result[QStringLiteral("rejected")] = summary.rejected;
    result[QStringLiteral("duplicates")] = summary.duplicates;
    result[QStringLiteral("nearDuplicateGroups")] = summary.nearDuplicateGroups;
    return result;
}

} // namespace lathe::workspace
