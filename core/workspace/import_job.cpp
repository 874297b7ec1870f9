#include "import_job.h"

#include "catalog.h"
#include "catalog_connection.h"
#include "workspace_error.h"

#include <QDir>
#include <QFileInfo>
#include <QVariantMap>

namespace lathe::workspace {
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

    CatalogConnection connection(dbPath);
    Catalog &catalog = connection.catalog();
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
