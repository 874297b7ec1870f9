#pragma once

#include <QCoreApplication>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// A converted dataset's dataset.json (DESIGN.md §3) in the types the Data page shows: the
// classes, the records per split and class, the shards with their sizes and SHA-256, and
// the conversion report. The engine reads and checks the file (engine::readDatasetManifest),
// so there is one reader of the format.
class ShardManifest
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::ShardManifest)

public:
    struct Shard
    {
        QString file;  // relative to the dataset folder
        QString index; // its .idx, relative to the dataset folder
        QString split;
        qint64 records = 0;
        qint64 bytes = 0;
        QString sha256;
    };

    struct RejectedFile
    {
        QString path; // relative to the source folder
        QString status;
        QString reason;
    };

    static QString fileName() { return QStringLiteral("dataset.json"); }

    QString path; // the dataset.json that was read; empty when nothing was
    QString source;
    QString created; // ISO 8601, UTC
    QStringList classes;
    QMap<QString, QMap<QString, qint64>> counts; // split -> class -> records
    QVector<Shard> shards;
    qint64 records = 0;
    qint64 reencoded = 0;
    qint64 scanned = 0;
    QVector<RejectedFile> rejected;

    bool isNull() const { return path.isEmpty(); }
    QString folder() const;
    qint64 totalBytes() const;
    qint64 splitRecords(const QString &split) const; // from the shards
    int splitShards(const QString &split) const;
    // The splits present, in train, val, test order, then any others.
    QStringList splits() const;

    // Reads path, which must be a dataset folder's dataset.json. Blocking (the report can be
    // long): call it on a worker thread. Throws WorkspaceError naming the file and the reason
    // (missing, not JSON, not a Lathe dataset, a key missing or of the wrong type).
    static ShardManifest read(const QString &path);
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ShardManifest)
