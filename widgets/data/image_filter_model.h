#pragma once

#include <QSortFilterProxyModel>

#include <functional>

namespace lathe::ui {

class ImageListModel;

// Narrows an ImageListModel by class, split, status and near-duplicate group. An empty
// filter lets everything through. The class filter of a multi-label dataset lets through the
// images whose label set holds that label. Status is one of ok (usable: ok and not excluded),
// rejected, duplicate or excluded.
class ImageFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit ImageFilterModel(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *model) override;

    void setClassFilter(const QString &className);
    void setSplitFilter(const QString &split);
    void setStatusFilter(const QString &status);
    // -1: every image; otherwise only the images of that near-duplicate group.
    void setNearDuplicateGroup(int group);
    // Shows nothing at all until another group is set (for a view with no group chosen).
    void setShowNothing(bool nothing);

    QString classFilter() const { return m_class; }
    QString splitFilter() const { return m_split; }
    QString statusFilter() const { return m_status; }
    int nearDuplicateGroup() const { return m_group; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void refilter(const std::function<void()> &change);

    ImageListModel *m_images = nullptr;
    QString m_class;
    QString m_split;
    QString m_status;
    int m_group = -1;
    bool m_nothing = false;
};

} // namespace lathe::ui
