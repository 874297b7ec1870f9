#include "data/image_list_model.h"

#include "common/thumbnail_loader.h"

#include <QDir>
#include <QFileInfo>

namespace lathe::ui {

using workspace::CatalogImage;

ImageListModel::ImageListModel(ThumbnailLoader *thumbnails, QObject *parent)
    : QAbstractListModel(parent)
    , m_thumbnails(thumbnails)
{
    connect(thumbnails, &ThumbnailLoader::thumbnailReady, this, &ImageListModel::thumbnailDone);
    connect(thumbnails, &ThumbnailLoader::thumbnailFailed, this, &ImageListModel::thumbnailDone);
}

void ImageListModel::setImages(const QVector<CatalogImage> &images, const QString &sourceDir)
{
    beginResetModel();
    m_images = images;
    m_sourceDir = sourceDir;
    m_waiting.clear();
    endResetModel();
}

void ImageListModel::clear()
{
    setImages({}, {});
}

int ImageListModel::rowOfId(qint64 imageId) const
{
    for (int row = 0; row < m_images.size(); ++row) {
        if (m_images.at(row).id == imageId)
            return row;
    }
    return -1;
}

bool ImageListModel::updateImage(const CatalogImage &image)
{
    const int row = rowOfId(image.id);
    if (row < 0)
        return false;
    m_images[row] = image;
    const QModelIndex changed = index(row);
    Q_EMIT dataChanged(changed, changed);
    return true;
}

QString ImageListModel::absolutePath(int row) const
{
    return QDir(m_sourceDir).filePath(m_images.at(row).relPath);
}

int ImageListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_images.size());
}

QString ImageListModel::statusText(const CatalogImage &image)
{
    if (image.status == QLatin1String("rejected"))
        return tr("Rejected");
    if (image.status == QLatin1String("duplicate"))
        return tr("Duplicate");
    if (image.excluded)
        return tr("Excluded");
    return tr("OK");
}

QVariant ImageListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_images.size())
        return {};
    const CatalogImage &image = m_images.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return QFileInfo(image.relPath).fileName();
    case Qt::DecorationRole:
        return decoration(index.row());
    case Qt::ToolTipRole: {
        const QString labels = image.labels.isEmpty() ? tr("Class: %1").arg(image.className)
                                                      : tr("Labels: %1").arg(image.labels.join(QStringLiteral(", ")));
        QString tip = image.relPath + QLatin1Char('\n') + labels + QLatin1Char('\n')
                      + tr("Split: %1").arg(image.split) + QLatin1Char('\n') + tr("Status: %1").arg(statusText(image));
        if (!image.reason.isEmpty())
            tip += QLatin1Char('\n') + tr("Reason: %1").arg(image.reason);
        return tip;
    }
    case ImageIdRole:
        return image.id;
    case RelPathRole:
        return image.relPath;
    case ClassRole:
        return image.className;
    case LabelsRole:
        return image.labels;
    case SplitRole:
        return image.split;
    case StatusRole:
        return image.status;
    case ReasonRole:
        return image.reason;
    case ExcludedRole:
        return image.excluded;
    case NearDuplicateGroupRole:
        return image.nearDuplicateGroup;
    case Sha256Role:
        return image.sha256;
    case AbsolutePathRole:
        return absolutePath(index.row());
    case ThumbnailStateRole:
        if (image.status == QLatin1String("rejected") || image.sha256.isEmpty() || !m_thumbnails)
            return int(ThumbnailLoader::State::Failed);
        return int(m_thumbnails->state(image.sha256));
    default:
        return {};
    }
}

QVariant ImageListModel::decoration(int row) const
{
    if (!m_thumbnails)
        return {};
    const CatalogImage &image = m_images.at(row);
    // A rejected file could not be decoded at import: no point in trying again.
    if (image.status == QLatin1String("rejected") || image.sha256.isEmpty())
        return m_thumbnails->brokenIcon();
    const QPixmap pixmap = m_thumbnails->thumbnail(image.sha256, absolutePath(row));
    if (!pixmap.isNull())
        return pixmap;
    if (m_thumbnails->state(image.sha256) == ThumbnailLoader::State::Failed)
        return m_thumbnails->brokenIcon();
    QVector<int> &rows = m_waiting[image.sha256];
    if (!rows.contains(row))
        rows.append(row);
    return m_thumbnails->loadingIcon();
}

void ImageListModel::thumbnailDone(const QString &key)
{
    const QVector<int> rows = m_waiting.take(key);
    for (int row : rows) {
        if (row < m_images.size()) {
            const QModelIndex changed = index(row);
            Q_EMIT dataChanged(changed, changed, {Qt::DecorationRole, ThumbnailStateRole});
        }
    }
}

} // namespace lathe::ui
