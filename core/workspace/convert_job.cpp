#include "workspace/convert_job.h"

#include "engine/dataset/shard_converter.h"
#include "workspace/catalog.h"
#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QStringList>

namespace lathe::workspace {

ConvertJob::ConvertJob(Params params, QObject *parent)
    : Job(tr("Convert to shards"), parent)
    , m_params(std::move(params))
{
}

void ConvertJob::applyCatalog(engine::ConvertOptions &options) const
{
    ProjectConnection connection(m_params.databasePath);
    Catalog &catalog = connection.catalog();
    const int id = catalog.datasetId(m_params.datasetName);
    if (id == 0)
        throw WorkspaceError(tr("%1: the project has no dataset \"%2\"").arg(m_params.databasePath, m_params.datasetName));
    const DatasetInfo dataset = catalog.dataset(id);
    if (QDir::cleanPath(dataset.sourceDir) == QString::fromStdString(options.scan.root))
        options.scan.previous = catalog.previousScan(id);
    // A multi-label dataset is scanned from its labels file again, and its images get the
    // catalog's label sets (the user's edits included) instead of the file's.
    if (dataset.multiLabel() && options.scan.labelsFile.empty())
        options.scan.labelsFile = dataset.labelsFile.toStdString();
    for (const CatalogImage &image : catalog.images(id)) {
        if (image.excluded) {
            options.excluded.insert(image.relPath.toStdString());
        } else if (dataset.multiLabel()) {
            if (image.status != QLatin1String("ok") || image.labels.isEmpty())
                continue;
            std::vector<std::string> &labels = options.labelSets[image.relPath.toStdString()];
            for (const QString &label : image.labels)
                labels.push_back(label.toStdString());
        } else if (image.className != image.folderClass) {
            options.relabels[image.relPath.toStdString()] = image.className.toStdString();
        }
    }
}

QVariant ConvertJob::execute()
{
    if (m_params.sourceDir.isEmpty())
        throw WorkspaceError(tr("No image folder was given to convert"));
    if (m_params.outDir.isEmpty())
        throw WorkspaceError(tr("No output folder was given for the shards"));
    if (m_params.shardRecords <= 0 && m_params.shardSizeMb <= 0)
        throw WorkspaceError(tr("The shard size must be at least 1 MiB"));

    engine::ConvertOptions options;
    options.scan.root = QDir::cleanPath(QDir(m_params.sourceDir).absolutePath()).toStdString();
    options.scan.maxPixels = m_params.maxPixels;
    options.scan.valFraction = m_params.valFraction;
    options.scan.testFraction = m_params.testFraction;
    options.scan.seed = m_params.seed;
    options.outDir = QDir::cleanPath(QDir(m_params.outDir).absolutePath()).toStdString();
    options.shardBytes = std::uint64_t(qMax<qint64>(m_params.shardSizeMb, 1)) << 20;
    options.shardRecords = std::uint64_t(qMax<qint64>(m_params.shardRecords, 0));
    options.maxSide = qMax(m_params.maxSide, 0);
    options.quality = m_params.quality;
    options.shuffleSeed = m_params.seed;
    options.scan.labelsFile = m_params.labelsFile.toStdString();
    if (!m_params.databasePath.isEmpty() && !m_params.datasetName.isEmpty())
        applyCatalog(options);

    const engine::ConvertResult converted = engine::convertFolder(options, taskControl(tr("Converting to shards")));
    const engine::DatasetManifest &manifest = converted.manifest;

    ConvertSummary summary;
    summary.outDir = QString::fromStdString(converted.outDir.empty() ? options.outDir : converted.outDir);
    summary.records = qint64(manifest.records);
    summary.reencoded = qint64(manifest.reencoded);
    summary.shards = qint64(manifest.shards.size());
    for (const engine::ShardInfo &shard : manifest.shards)
        summary.bytes += qint64(shard.bytes);
    summary.rejected = qint64(manifest.rejected.size());
    summary.multiLabel = manifest.task == engine::kTaskMultiLabel;
    summary.classes.reserve(int(manifest.classes.size()));
    for (const std::string &name : manifest.classes)
        summary.classes << QString::fromStdString(name);
    return QVariant::fromValue(summary);
}

} // namespace lathe::workspace
