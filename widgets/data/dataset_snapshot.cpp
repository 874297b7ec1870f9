#include "data/dataset_snapshot.h"

#include "workspace/project_connection.h"

#include <QMap>

namespace lathe::ui {

DatasetSnapshot DatasetSnapshot::load(const QString &databasePath, int datasetId)
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
    return snapshot;
}

} // namespace lathe::ui
