#include "data/shard_counts_model.h"

#include "workspace/split_names.h"

#include <QFont>
#include <QLocale>

namespace lathe::ui {

ShardCountsModel::ShardCountsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ShardCountsModel::setManifest(const workspace::ShardManifest &manifest)
{
    beginResetModel();
    m_classes = manifest.classes;
    // Classes that appear only in the counts (a hand-edited file) still get their row.
    for (auto split = manifest.counts.cbegin(); split != manifest.counts.cend(); ++split) {
        for (auto cls = split->cbegin(); cls != split->cend(); ++cls) {
            if (!m_classes.contains(cls.key()))
                m_classes << cls.key();
        }
    }
    m_splits = manifest.splits();
    m_counts = QVector<QVector<qint64>>(m_classes.size(), QVector<qint64>(m_splits.size(), 0));
    for (int c = 0; c < m_classes.size(); ++c) {
        for (int s = 0; s < m_splits.size(); ++s)
            m_counts[c][s] = manifest.counts.value(m_splits.at(s)).value(m_classes.at(c));
    }
    endResetModel();
}

qint64 ShardCountsModel::count(int row, int column) const
{
    const int split = column - 1;
    if (row < 0 || row > m_classes.size() || split < 0 || split > m_splits.size())
        return 0;
    qint64 total = 0;
    for (int c = 0; c < m_classes.size(); ++c) {
        if (row != m_classes.size() && c != row)
            continue;
        for (int s = 0; s < m_splits.size(); ++s) {
            if (split == m_splits.size() || s == split)
                total += m_counts.at(c).at(s);
        }
    }
    return total;
}

int ShardCountsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_classes.isEmpty() ? 0 : int(m_classes.size()) + 1;
}

int ShardCountsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_splits.size()) + 2;
}

QVariant ShardCountsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const bool totalRow = index.row() == m_classes.size();
    const bool totalColumn = index.column() == m_splits.size() + 1;
    if (role == Qt::FontRole && (totalRow || totalColumn)) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole && index.column() > 0)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    if (index.column() == 0)
        return totalRow ? tr("Total") : m_classes.at(index.row());
    return QLocale().toString(count(index.row(), index.column()));
}

QVariant ShardCountsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == 0)
        return tr("Class");
    if (section == m_splits.size() + 1)
        return tr("Total");
    if (section > 0 && section <= m_splits.size())
        return workspace::SplitNames::displayName(m_splits.at(section - 1));
    return {};
}

} // namespace lathe::ui
