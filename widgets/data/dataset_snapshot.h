#pragma once

#include "workspace/catalog.h"
#include "workspace/shard_manifest.h"

#include <QMetaType>
#include <QStringList>
#include <QVector>

namespace lathe::ui {

// Everything the Data page shows of one dataset, read in one go on a worker thread.
struct DatasetSnapshot
{
    QVector<workspace::DatasetInfo> datasets; // every dataset of the project
    workspace::DatasetInfo dataset;           // the one shown; id 0 when there is none
    QStringList classes;
    QVector<workspace::CatalogImage> images; // handed to the image model, then dropped here
    QVector<workspace::ClassCount> counts;
    workspace::LabelCooccurrence cooccurrence; // a multi-label dataset's; empty otherwise
    // Derived on the worker too, so the GUI thread never walks every row.
    QVector<int> rejectedRows;                  // rows of images that are rejected or duplicate
    QVector<QPair<int, QVector<int>>> nearDuplicateGroups; // group id, rows of images
    int usable = 0;
    int rejected = 0;
    int duplicates = 0;
    int excluded = 0;
    // The dataset's shards: the conversion the catalog recorded (DatasetInfo::shardsDir), else
    // the newest one in datasetsDir converted from the dataset's folder; null when none is found.
    workspace::ShardManifest shards;

    // Reads the dataset datasetId (0 or unknown: the first one) from databasePath, and looks for
    // its shards. Blocking: call it on a worker thread. Throws WorkspaceError.
    static DatasetSnapshot load(const QString &databasePath, const QString &datasetsDir, int datasetId);

    // Whether manifest was converted from dataset's folder.
    static bool isConversionOf(const workspace::ShardManifest &manifest, const workspace::DatasetInfo &dataset);
};

} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::DatasetSnapshot)
Q_DECLARE_METATYPE(lathe::workspace::CatalogImage)
Q_DECLARE_METATYPE(lathe::workspace::ClassCount)
