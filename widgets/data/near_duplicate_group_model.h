#pragma once

#include <QAbstractListModel>
#include <QPair>
#include <QStringList>
#include <QVector>

namespace lathe::ui {

// Groups of images that look alike without being byte-identical, one row per group. Each
// group has a representative (its first file); every other member's perceptual hash lies
// within the threshold of the representative's, and the rows say by how many bits.
class NearDuplicateGroupModel : public QAbstractListModel
{
    Q_OBJECT

public:
    static constexpr int GroupRole = Qt::UserRole + 1;
    static constexpr int MaxDistanceRole = Qt::UserRole + 2; // the farthest member's distance

    struct Group
    {
        int id = -1;
        QStringList files;    // relative paths, the representative first
        QVector<int> distances; // per file: hash bits from the representative (-1: unknown)
    };

    explicit NearDuplicateGroupModel(QObject *parent = nullptr);

    // threshold and hashBits: how the groups were made (DatasetInfo's nearDuplicate*).
    void setGroups(const QVector<Group> &groups, int threshold = 0, int hashBits = 0);
    const QVector<Group> &groups() const { return m_groups; }
    int threshold() const { return m_threshold; }
    int hashBits() const { return m_hashBits; }

    // "within 3 of 64 bits of the representative"; empty when the distance is unknown.
    static QString distanceText(int distance, int hashBits);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QVector<Group> m_groups;
    int m_threshold = 0;
    int m_hashBits = 0;
};

} // namespace lathe::ui
