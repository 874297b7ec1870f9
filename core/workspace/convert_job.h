#pragma once

#include "engine/dataset/shard_converter.h"
#include "workspace/job.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

namespace lathe::workspace {

// What a ConvertJob returns (Job::result().value<ConvertSummary>()); named apart from the
// engine's ConvertResult, whose manifest it sums up.
struct ConvertSummary
{
    QString outDir;      // the shards' folder, absolute and clean
    qint64 records = 0;
    qint64 reencoded = 0;
    qint64 shards = 0;
    qint64 bytes = 0;    // total of the shards
    qint64 rejected = 0; // files left out
    QStringList classes;
    bool multiLabel = false; // the shards hold label sets (dataset.json "task": "multi_label")
};

// Converts an image folder to record shards (engine::convertFolder) on this job's worker
// thread: TFRecord shards with a DALI index beside each, and dataset.json. The engine writes
// into a temporary folder that is renamed at the end, so a cancelled or failed conversion
// leaves no output folder. Result: ConvertSummary.
class ConvertJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString sourceDir;
        QString outDir;  // must not exist, or be an empty folder
        // When both are given, the catalog's dataset of that name supplies its scan (files
        // that did not change are not decoded again) and the user's exclusions and relabels;
        // for a multi-label dataset, its labels file and its images' label sets.
        QString databasePath;
        QString datasetName;
        // Used when the folder has no train/val/test folders; with the catalog's values the
        // shards get the same splits as the images the Data page shows.
        double valFraction = 0.1;
        double testFraction = 0.1;
        quint64 seed = 0; // split assignment and the order of records across a split's shards
        qint64 maxPixels = 100'000'000;
        qint64 shardSizeMb = 64; // target shard size in MiB ...
        qint64 shardRecords = 0; // ... unless > 0: records per shard
        int maxSide = 0;         // > 0: re-encode images whose longer side is larger as JPEG ...
        int quality = 90;        // ... with this quality
        // A multi-label labels file (empty: the catalog dataset's, if it is multi-label; else
        // class folders).
        QString labelsFile;
    };

    explicit ConvertJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

protected:
    QVariant execute() override;

private:
    void applyCatalog(engine::ConvertOptions &options) const;

    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ConvertSummary)
