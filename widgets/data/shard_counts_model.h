#pragma once

#include "workspace/shard_manifest.h"

#include <QAbstractTableModel>

namespace lathe::ui {

// Records per class (rows) and split (columns) of a converted dataset, with totals: the last
// row sums the classes, the last column the splits.
class ShardCountsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    explicit ShardCountsModel(QObject *parent = nullptr);

    void setManifest(const workspace::ShardManifest &manifest);
    // For a row and a column after the class column: the count shown (totals included).
    qint64 count(int row, int column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_classes;
    QStringList m_splits;
    QVector<QVector<qint64>> m_counts; // [class][split]
};

} // namespace lathe::ui
