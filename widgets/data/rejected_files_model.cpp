#include "data/rejected_files_model.h"

#include "data/image_list_model.h"

#include <QLocale>

namespace lathe::ui {

RejectedFilesModel::RejectedFilesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RejectedFilesModel::setImages(const QVector<workspace::CatalogImage> &images)
{
    beginResetModel();
    m_images = images;
    endResetModel();
}

int RejectedFilesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_images.size());
}

int RejectedFilesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RejectedFilesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_images.size())
        return {};
    const workspace::CatalogImage &image = m_images.at(index.row());
    if (role == ImageIdRole)
        return image.id;
    if (role == Qt::TextAlignmentRole && index.column() == SizeColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case FileColumn:
        return image.relPath;
    case StatusColumn:
        return ImageListModel::statusText(image);
    case ReasonColumn:
        return image.reason;
    case SizeColumn:
        return role == Qt::ToolTipRole ? tr("%1 bytes").arg(QLocale().toString(image.size))
                                       : QLocale().formattedDataSize(image.size);
    default:
        return {};
    }
}

QVariant RejectedFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case FileColumn:
        return tr("File");
    case StatusColumn:
        return tr("Status");
    case ReasonColumn:
        return tr("Reason");
    case SizeColumn:
        return tr("Size");
    default:
        return {};
    }
}

} // namespace lathe::ui
