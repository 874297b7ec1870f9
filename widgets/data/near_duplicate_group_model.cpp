#include "data/near_duplicate_group_model.h"

#include <QFileInfo>

namespace lathe::ui {

NearDuplicateGroupModel::NearDuplicateGroupModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void NearDuplicateGroupModel::setGroups(const QVector<Group> &groups)
{
    beginResetModel();
    m_groups = groups;
    endResetModel();
}

int NearDuplicateGroupModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_groups.size());
}

QVariant NearDuplicateGroupModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_groups.size())
        return {};
    const Group &group = m_groups.at(index.row());
    switch (role) {
    case Qt::DisplayRole: {
        QStringList names;
        for (const QString &file : group.files.mid(0, 3))
            names << QFileInfo(file).fileName();
        if (group.files.size() > 3)
            names << QStringLiteral("…");
        return tr("%n image(s): %1", nullptr, int(group.files.size())).arg(names.join(QStringLiteral(", ")));
    }
    case Qt::ToolTipRole:
        return group.files.join(QLatin1Char('\n'));
    case GroupRole:
        return group.id;
    default:
        return {};
    }
}

} // namespace lathe::ui
