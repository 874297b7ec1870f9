#pragma once

#include "workspace/catalog.h"

#include <QAbstractListModel>
#include <QHash>
#include <QPointer>
#include <QVector>

namespace lathe::ui {

class ThumbnailLoader;

// The images of one dataset, one row each. The thumbnail (DecorationRole) is asked of the
// ThumbnailLoader only when a view paints the row; rows update when it arrives.
class ImageListModel : public QAbstractListModel
{
    Q_OBJECT

public:
    enum Role {
        ImageIdRole = Qt::UserRole + 1,
        RelPathRole,
        ClassRole,
        SplitRole,
        StatusRole,      // ok, rejected, duplicate
        ReasonRole,
        ExcludedRole,
        NearDuplicateGroupRole,
        Sha256Role,
        AbsolutePathRole,
        ThumbnailStateRole, // ThumbnailLoader::State as int
        LabelsRole,         // a multi-label image's label set (QStringList)
    };

    explicit ImageListModel(ThumbnailLoader *thumbnails, QObject *parent = nullptr);

    // sourceDir: the dataset's folder, that relative paths are relative to.
    void setImages(const QVector<workspace::CatalogImage> &images, const QString &sourceDir);
    void clear();
    // Replaces the row with the same id (after an exclusion or relabel).
    bool updateImage(const workspace::CatalogImage &image);

    const QVector<workspace::CatalogImage> &images() const { return m_images; }
    const workspace::CatalogImage &image(int row) const { return m_images.at(row); }
    int rowOfId(qint64 imageId) const;
    QString sourceDir() const { return m_sourceDir; }
    QString absolutePath(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    static QString statusText(const workspace::CatalogImage &image);

private:
    QVariant decoration(int row) const;
    void thumbnailDone(const QString &key);

    QPointer<ThumbnailLoader> m_thumbnails;
    QVector<workspace::CatalogImage> m_images;
    QString m_sourceDir;
    // Rows that asked for a thumbnail still on its way, by thumbnail key.
    mutable QHash<QString, QVector<int>> m_waiting;
};

} // namespace lathe::ui
