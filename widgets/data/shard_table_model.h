#pragma once

#include "workspace/shard_manifest.h"

#include <QAbstractTableModel>

namespace lathe::ui {

// The shards of a converted dataset, as listed in its dataset.json.
class ShardTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { FileColumn, SplitColumn, RecordsColumn, SizeColumn, Sha256Column, ColumnCount };

    explicit ShardTableModel(QObject *parent = nullptr);

    void setShards(const QVector<workspace::ShardManifest::Shard> &shards);
    const workspace::ShardManifest::Shard &shard(int row) const { return m_shards.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<workspace::ShardManifest::Shard> m_shards;
};

} // namespace lathe::ui
