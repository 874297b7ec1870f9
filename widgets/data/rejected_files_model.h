#pragma once

#include "workspace/catalog.h"

#include <QAbstractTableModel>
#include <QVector>

namespace lathe::ui {

// The files an import refused (rejected) or set aside (duplicate), with the reason.
class RejectedFilesModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { FileColumn, StatusColumn, ReasonColumn, SizeColumn, ColumnCount };
    static constexpr int ImageIdRole = Qt::UserRole + 1;

    explicit RejectedFilesModel(QObject *parent = nullptr);

    void setImages(const QVector<workspace::CatalogImage> &images);
    const workspace::CatalogImage &image(int row) const { return m_images.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<workspace::CatalogImage> m_images;
};

} // namespace lathe::ui
