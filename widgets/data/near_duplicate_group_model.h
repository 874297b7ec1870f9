#pragma once

#include <QAbstractListModel>
#include <QPair>
#include <QStringList>
#include <QVector>

namespace lathe::ui {

// Groups of images that look alike without being byte-identical, one row per group.
class NearDuplicateGroupModel : public QAbstractListModel
{
    Q_OBJECT

public:
    static constexpr int GroupRole = Qt::UserRole + 1;

    struct Group
    {
        int id = -1;
        QStringList files; // relative paths
    };

    explicit NearDuplicateGroupModel(QObject *parent = nullptr);

    void setGroups(const QVector<Group> &groups);
    const QVector<Group> &groups() const { return m_groups; }

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QVector<Group> m_groups;
};

} // namespace lathe::ui
