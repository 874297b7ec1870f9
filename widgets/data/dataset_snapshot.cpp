#include "data/dataset_snapshot.h"

#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>

namespace lathe::ui {
namespace {

QString cleanAbsolute(const QString &path)
{
    return QDir::cleanPath(QDir(path).absolutePath());
}

// A folder's dataset.json, or a null manifest when it has none or it cannot be used.
workspace::ShardManifest readShards(const QString &folder)
{
    const QString path = QDir(folder).filePath(workspace::ShardManifest::fileName());
    if (folder.isEmpty() || !QFileInfo::exists(path))
        return {};
    try {
        return workspace::ShardManifest::read(path);
    } catch (const workspace::WorkspaceError &) {
        return {}; // a damaged or foreign file is not this dataset's conversion
    }
}

workspace::ShardManifest findShards(const workspace::DatasetInfo &dataset, const QString &datasetsDir)
{
    workspace::ShardManifest recorded = readShards(dataset.shardsDir);
    if (DatasetSnapshot::isConversionOf(recorded, dataset))
        return recorded;
    // Conversions the catalog did not record (lathe-cli convert, or before it recorded them) are
    // found where the convert dialog puts them, as the Train page finds them.
    workspace::ShardManifest newest;
    if (datasetsDir.isEmpty())
        return newest;
    const QDir dir(datasetsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        workspace::ShardManifest candidate = readShards(dir.filePath(name));
        if (DatasetSnapshot::isConversionOf(candidate, dataset) && (newest.isNull() || candidate.created > newest.created))
            newest = std::move(candidate);
    }
    return newest;
}

} // namespace

bool DatasetSnapshot::isConversionOf(const workspace::ShardManifest &manifest, const workspace::DatasetInfo &dataset)
{
    return !manifest.isNull() && dataset.id != 0 && cleanAbsolute(manifest.source) == cleanAbsolute(dataset.sourceDir);
}

DatasetSnapshot DatasetSnapshot::load(const QString &databasePath, const QString &datasetsDir, int datasetId)
{
    workspace::ProjectConnection connection(databasePath);
    workspace::Catalog &catalog = connection.catalog();
    DatasetSnapshot snapshot;
    snapshot.datasets = catalog.datasets();
    if (snapshot.datasets.isEmpty())
        return snapshot;
    snapshot.dataset = snapshot.datasets.constFirst();
    for (const workspace::DatasetInfo &info : std::as_const(snapshot.datasets)) {
        if (info.id == datasetId)
            snapshot.dataset = info;
    }
    const int id = snapshot.dataset.id;
    snapshot.classes = catalog.classes(id);
    snapshot.images = catalog.images(id);
    snapshot.counts = catalog.classCounts(id);
    if (snapshot.dataset.multiLabel())
        snapshot.cooccurrence = catalog.labelCooccurrence(id);

    QMap<int, QVector<int>> groups;
    for (int row = 0; row < snapshot.images.size(); ++row) {
        const workspace::CatalogImage &image = snapshot.images.at(row);
        if (image.status == QLatin1String("rejected"))
            ++snapshot.rejected;
        else if (image.status == QLatin1String("duplicate"))
            ++snapshot.duplicates;
        if (image.status != QLatin1String("ok"))
            snapshot.rejectedRows.append(row);
        if (image.excluded)
            ++snapshot.excluded;
        if (image.usable())
            ++snapshot.usable;
        if (image.nearDuplicateGroup >= 0)
            groups[image.nearDuplicateGroup].append(row);
    }
    for (auto it = groups.cbegin(); it != groups.cend(); ++it)
        snapshot.nearDuplicateGroups.append({it.key(), it.value()});
    snapshot.shards = findShards(snapshot.dataset, datasetsDir);
    return snapshot;
}

} // namespace lathe::ui
