#include "data/near_duplicate_group_model.h"

#include <QFileInfo>

#include <algorithm>

namespace lathe::ui {
namespace {

int maxDistance(const NearDuplicateGroupModel::Group &group)
{
    return group.distances.isEmpty() ? -1 : *std::max_element(group.distances.cbegin(), group.distances.cend());
}

} // namespace

NearDuplicateGroupModel::NearDuplicateGroupModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

void NearDuplicateGroupModel::setGroups(const QVector<Group> &groups, int threshold, int hashBits)
{
    beginResetModel();
    m_groups = groups;
    m_threshold = threshold;
    m_hashBits = hashBits;
    endResetModel();
}

QString NearDuplicateGroupModel::distanceText(int distance, int hashBits)
{
    if (distance < 0 || hashBits <= 0)
        return {};
    return tr("within %1 of %2 bits of the representative").arg(distance).arg(hashBits);
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
        // The distance first: a narrow list cuts the end of the line off.
        const int farthest = maxDistance(group);
        if (farthest < 0 || m_hashBits <= 0)
            return tr("%n image(s): %1", nullptr, int(group.files.size())).arg(names.join(QStringLiteral(", ")));
        return tr("%n image(s), within %1 of %2 bits: %3", nullptr, int(group.files.size()))
            .arg(QString::number(farthest), QString::number(m_hashBits), names.join(QStringLiteral(", ")));
    }
    case Qt::ToolTipRole: {
        QStringList lines;
        for (qsizetype i = 0; i < group.files.size(); ++i) {
            const int distance = i < group.distances.size() ? group.distances.at(i) : -1;
            lines << (i == 0             ? tr("%1: the representative").arg(group.files.at(i))
                      : distance < 0     ? group.files.at(i)
                                         : tr("%1: %2").arg(group.files.at(i), distanceText(distance, m_hashBits)));
        }
        return lines.join(QLatin1Char('\n'));
    }
    case GroupRole:
        return group.id;
    case MaxDistanceRole:
        return maxDistance(group);
    default:
        return {};
    }
}

} // namespace lathe::ui
