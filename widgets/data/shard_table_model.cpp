#include "data/shard_table_model.h"

#include "workspace/split_names.h"

#include <QFontDatabase>
#include <QLocale>

namespace lathe::ui {

ShardTableModel::ShardTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ShardTableModel::setShards(const QVector<workspace::ShardManifest::Shard> &shards)
{
    beginResetModel();
    m_shards = shards;
    endResetModel();
}

int ShardTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_shards.size());
}

int ShardTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ShardTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_shards.size())
        return {};
    const workspace::ShardManifest::Shard &shard = m_shards.at(index.row());
    if (role == Qt::TextAlignmentRole && (index.column() == RecordsColumn || index.column() == SizeColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && index.column() == Sha256Column)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    const QLocale locale;
    switch (index.column()) {
    case FileColumn:
        return role == Qt::ToolTipRole ? tr("%1\nIndex: %2").arg(shard.file, shard.index) : shard.file;
    case SplitColumn:
        return workspace::SplitNames::displayName(shard.split);
    case RecordsColumn:
        return locale.toString(shard.records);
    case SizeColumn:
        return role == Qt::ToolTipRole ? tr("%1 bytes").arg(locale.toString(shard.bytes))
                                       : locale.formattedDataSize(shard.bytes);
    case Sha256Column:
        return shard.sha256;
    default:
        return {};
    }
}

QVariant ShardTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case FileColumn:
        return tr("File");
    case SplitColumn:
        return tr("Split");
    case RecordsColumn:
        return tr("Records");
    case SizeColumn:
        return tr("Size");
    case Sha256Column:
        return tr("SHA-256");
    default:
        return {};
    }
}

} // namespace lathe::ui
