#include "data/image_filter_model.h"

#include "data/image_list_model.h"

namespace lathe::ui {

ImageFilterModel::ImageFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
}

void ImageFilterModel::setSourceModel(QAbstractItemModel *model)
{
    // Rows are read directly (no QVariant per row and role): filtering 100,000 rows stays cheap.
    m_images = qobject_cast<ImageListModel *>(model);
    Q_ASSERT(m_images);
    QSortFilterProxyModel::setSourceModel(model);
}

void ImageFilterModel::setClassFilter(const QString &className)
{
    if (className == m_class)
        return;
    refilter([&] { m_class = className; });
}

void ImageFilterModel::setSplitFilter(const QString &split)
{
    if (split == m_split)
        return;
    refilter([&] { m_split = split; });
}

void ImageFilterModel::setStatusFilter(const QString &status)
{
    if (status == m_status)
        return;
    refilter([&] { m_status = status; });
}

void ImageFilterModel::setNearDuplicateGroup(int group)
{
    if (group == m_group && !m_nothing)
        return;
    refilter([&] {
        m_group = group;
        m_nothing = false;
    });
}

void ImageFilterModel::setShowNothing(bool nothing)
{
    if (nothing == m_nothing)
        return;
    refilter([&] { m_nothing = nothing; });
}

void ImageFilterModel::refilter(const std::function<void()> &change)
{
    // A reset, not invalidateFilter(): that one reports every run of removed or inserted
    // rows on its own, and a filter that keeps every tenth of 100,000 rows makes 10,000
    // such signals, each costing the view a pass over its items. A reset costs one pass.
    beginResetModel();
    change();
    endResetModel();
}

bool ImageFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_nothing || !m_images || sourceParent.isValid())
        return false;
    const workspace::CatalogImage &image = m_images->image(sourceRow);
    if (!m_class.isEmpty() && image.className != m_class && !image.labels.contains(m_class))
        return false;
    if (!m_split.isEmpty() && image.split != m_split)
        return false;
    if (m_group >= 0 && image.nearDuplicateGroup != m_group)
        return false;
    if (m_status.isEmpty())
        return true;
    if (m_status == QLatin1String("ok"))
        return image.usable();
    if (m_status == QLatin1String("excluded"))
        return image.excluded;
    return image.status == m_status;
}

} // namespace lathe::ui
