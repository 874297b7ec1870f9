#include "workspace/import_job.h"

#include "workspace/catalog.h"
#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFileInfo>

namespace lathe::workspace {

ImportJob::ImportJob(Params params, QObject *parent)
    : Job(tr("Import images"), parent)
    , m_params(std::move(params))
{
}

QVariant ImportJob::execute()
{
    return QVariant::fromValue(importFolder(m_params, taskControl(tr("Scanning images"))));
}

ImportSummary ImportJob::importFolder(const Params &params, const engine::TaskControl &control)
{
    if (params.sourceDir.isEmpty())
        throw WorkspaceError(tr("No image folder was given to import"));
    const QString dbPath = params.databasePath;
    const QString sourceDir = QDir::cleanPath(QDir(params.sourceDir).absolutePath());
    const QString name = params.name.isEmpty() ? QFileInfo(sourceDir).fileName() : params.name;

    ProjectConnection connection(dbPath);
    Catalog &catalog = connection.catalog();
    engine::ScanOptions options;
    options.root = sourceDir.toStdString();
    options.maxPixels = params.maxPixels;
    options.valFraction = params.valFraction;
    options.testFraction = params.testFraction;
    options.seed = params.seed;
    if (!params.labelsFile.isEmpty())
        options.labelsFile = QDir::cleanPath(QFileInfo(params.labelsFile).absoluteFilePath()).toStdString();
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

} // namespace lathe::workspace
