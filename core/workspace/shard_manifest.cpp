#include "workspace/shard_manifest.h"

#include "engine/dataset/shard_converter.h"
#include "workspace/split_names.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFileInfo>

namespace lathe::workspace {

QString ShardManifest::folder() const
{
    return QFileInfo(path).absolutePath();
}

qint64 ShardManifest::totalBytes() const
{
    qint64 total = 0;
    for (const Shard &shard : shards)
        total += shard.bytes;
    return total;
}

qint64 ShardManifest::splitRecords(const QString &split) const
{
    qint64 total = 0;
    for (const Shard &shard : shards) {
        if (shard.split == split)
            total += shard.records;
    }
    return total;
}

int ShardManifest::splitShards(const QString &split) const
{
    int total = 0;
    for (const Shard &shard : shards)
        total += shard.split == split ? 1 : 0;
    return total;
}

QStringList ShardManifest::splits() const
{
    QStringList result;
    for (const QString &split : SplitNames::keys()) {
        if (counts.contains(split) || splitShards(split) > 0)
            result << split;
    }
    auto addOther = [&](const QString &split) {
        if (!result.contains(split))
            result << split;
    };
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        addOther(it.key());
    for (const Shard &shard : shards)
        addOther(shard.split);
    return result;
}

ShardManifest ShardManifest::read(const QString &path)
{
    const QFileInfo info(path);
    // The engine reads a dataset folder's dataset.json; another file there would be ignored.
    if (info.fileName() != fileName())
        throw workspace::WorkspaceError(tr("%1: not a dataset.json; choose the dataset.json in a converted "
                                           "dataset's folder")
                                            .arg(QDir::toNativeSeparators(path)));
    engine::DatasetManifest read;
    try {
        read = engine::readDatasetManifest(QFile::encodeName(info.absolutePath()).toStdString());
    } catch (const engine::EngineError &e) {
        throw workspace::WorkspaceError(QString::fromStdString(e.what()));
    }
    auto text = [](const std::string &s) { return QString::fromStdString(s); };

    ShardManifest m;
    m.path = info.absoluteFilePath();
    m.source = text(read.source);
    m.created = text(read.created);
    for (const std::string &name : read.classes)
        m.classes << text(name);
    for (const auto &[split, perClass] : read.counts) {
        QMap<QString, qint64> &target = m.counts[text(split)];
        for (const auto &[cls, n] : perClass)
            target[text(cls)] = qint64(n);
    }
    m.shards.reserve(int(read.shards.size()));
    for (const engine::ShardInfo &s : read.shards)
        m.shards.append({text(s.file), text(s.index), text(s.split), qint64(s.records), qint64(s.bytes), text(s.sha256)});
    m.records = qint64(read.records);
    m.reencoded = qint64(read.reencoded);
    m.scanned = qint64(read.scanned);
    m.rejected.reserve(int(read.rejected.size()));
    for (const engine::RejectedFile &r : read.rejected)
        m.rejected.append({text(r.path), text(r.status), text(r.reason)});
    return m;
}

} // namespace lathe::workspace
