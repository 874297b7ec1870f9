#include "convert_job.h"

#include "catalog.h"
#include "catalog_connection.h"
#include "shard_converter.h"
#include "workspace_error.h"

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
    CatalogConnection connection(m_params.databasePath);
    Catalog &catalog = connection.catalog();
    const int id = catalog.datasetId(m_params.datasetName);
    if (id == 0)
        throw WorkspaceError(tr("%1: the project has no dataset \"%2\"").arg(m_params.databasePath, m_params.datasetName));
    if (QDir::cleanPath(catalog.dataset(id).sourceDir) == QString::fromStdString(options.scan.root))
        options.scan.previous = catalog.previousScan(id);
    for (const CatalogImage &image : catalog.images(id)) {
        if (image.excluded)
            options.excluded.insert(image.relPath.toStdString());
        else if (image.className != image.folderClass)
            options.relabels[image.relPath.toStdString()] = image.className.toStdString();
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
    if (!m_params.databasePath.isEmpty() && !m_params.datasetName.isEmpty())
        applyCatalog(options);

    const engine::ConvertResult converted = engine::convertFolder(options, taskControl(tr("Converting to shards")));
    const engine::DatasetManifest &manifest = converted.manifest;

    QStringList classes;
    classes.reserve(int(manifest.classes.size()));
    for (const std::string &name : manifest.classes)
        classes << QString::fromStdString(name);
    quint64 bytes = 0;
    for (const engine::ShardInfo &shard : manifest.shards)
        bytes += shard.bytes;

    QVariantMap result;
    result[QStringLiteral("outDir")] =
        QString::fromStdString(converted.outDir.empty() ? options.outDir : converted.outDir);
    result[QStringLiteral("records")] = qulonglong(manifest.records);
    result[QStringLiteral("reencoded")] = qulonglong(manifest.reencoded);
    result[QStringLiteral("shards")] = qulonglong(manifest.shards.size());
    result[QStringLiteral("bytes")] = qulonglong(bytes);
    result[QStringLiteral("rejected")] = qulonglong(manifest.rejected.size());
    result[QStringLiteral("classes")] = classes;
    return result;
}

} // namespace lathe::workspace
