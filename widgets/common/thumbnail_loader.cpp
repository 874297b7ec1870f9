#include "common/thumbnail_loader.h"

#include "common/background_task.h"
#include "engine/base/file_io.h"
#include "workspace/atomic_file.h"
#include "workspace/workspace_error.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QImageWriter>
#include <QMutex>
#include <QPainter>
#include <QRegularExpression>
#include <QThread>

#include <deque>
#include <filesystem>
#include <system_error>

namespace lathe::ui {
namespace {

// Pictures larger than this are not previewed (the import refuses them too).
constexpr qint64 kMaxPreviewPixels = 100'000'000;
constexpr int kMemoryCacheKiB = 64 * 1024;

QPixmap makeIcon(bool broken)
{
    QPixmap pixmap(ThumbnailLoader::kSize, ThumbnailLoader::kSize);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF box = QRectF(pixmap.rect()).adjusted(8.5, 8.5, -8.5, -8.5);
    if (!broken) {
        painter.setPen(QPen(QColor(150, 150, 150, 120), 1.0));
        painter.setBrush(QColor(150, 150, 150, 40));
        painter.drawRoundedRect(box, 6, 6);
        return pixmap;
    }
    painter.setPen(QPen(QColor(200, 60, 60), 2.0, Qt::DashLine));
    painter.setBrush(QColor(200, 60, 60, 30));
    painter.drawRoundedRect(box, 6, 6);
    painter.setPen(QPen(QColor(200, 60, 60), 4.0, Qt::SolidLine, Qt::RoundCap));
    const QPointF c = box.center();
    painter.drawLine(c + QPointF(-18, -18), c + QPointF(18, 18));
    painter.drawLine(c + QPointF(-18, 18), c + QPointF(18, -18));
    return pixmap;
}

// A worker's outcome, delivered to the loader's thread.
struct RenderedThumbnail
{
    QString key;
    quint64 generation = 0;
    QImage image; // null: the picture could not be read
    QString cacheError; // why the thumbnail was not written to the disk cache
};

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::RenderedThumbnail)

namespace lathe::ui {

struct ThumbnailLoader::Queue
{
    struct Request
    {
        QString key;
        QString path;
        QString cacheFile;
        quint64 generation = 0;
    };
    QMutex mutex;
    std::deque<Request> pending; // newest at the back
};

ThumbnailLoader::ThumbnailLoader(QObject *parent)
    : QObject(parent)
    , m_queue(std::make_shared<Queue>())
    , m_memory(kMemoryCacheKiB)
    , m_loadingIcon(makeIcon(false))
    , m_brokenIcon(makeIcon(true))
{
    m_pool.setMaxThreadCount(qBound(2, QThread::idealThreadCount(), 8));
    m_pool.setObjectName(QStringLiteral("thumbnails"));
}

ThumbnailLoader::~ThumbnailLoader()
{
    // Nothing new starts; the pool's destructor then waits for at most one decode per thread.
    QMutexLocker lock(&m_queue->mutex);
    m_queue->pending.clear();
}

void ThumbnailLoader::setCacheDir(const QString &dir)
{
    m_cacheDir = dir;
    ++m_generation;
    {
        QMutexLocker lock(&m_queue->mutex);
        m_queue->pending.clear();
    }
    m_memory.clear();
    m_loading.clear();
    m_failed.clear();
    m_cacheFailureReported = false;
}

QString ThumbnailLoader::cacheFilePath(const QString &sha256) const
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    if (m_cacheDir.isEmpty() || !hex.match(sha256).hasMatch())
        return {};
    return QDir(m_cacheDir).filePath(sha256.left(2) + QLatin1Char('/') + sha256 + QStringLiteral(".png"));
}

ThumbnailLoader::State ThumbnailLoader::state(const QString &key) const
{
    if (m_memory.contains(key))
        return State::Ready;
    if (m_failed.contains(key))
        return State::Failed;
    if (m_loading.contains(key))
        return State::Loading;
    return State::Missing;
}

QPixmap ThumbnailLoader::thumbnail(const QString &key, const QString &path)
{
    if (const QPixmap *pixmap = m_memory.object(key))
        return *pixmap;
    if (m_failed.contains(key) || m_loading.contains(key))
        return {};

    m_loading.insert(key);
    {
        QMutexLocker lock(&m_queue->mutex);
        m_queue->pending.push_back({key, path, cacheFilePath(key), m_generation});
        while (int(m_queue->pending.size()) > kMaxPending) {
            m_loading.remove(m_queue->pending.front().key);
            m_queue->pending.pop_front();
        }
    }
    // One task per request; each takes the newest request waiting (tasks whose request was
    // dropped find the queue empty and end at once).
    std::shared_ptr<Queue> queue = m_queue;
    BackgroundTask::start(
        &m_pool, this,
        [queue]() -> QVariant {
            Queue::Request request;
            {
                QMutexLocker lock(&queue->mutex);
                if (queue->pending.empty())
                    return {};
                request = std::move(queue->pending.back());
                queue->pending.pop_back();
            }
            QString error;
            QString cacheError;
            const QImage image = render(request.path, request.cacheFile, &error, &cacheError);
            return QVariant::fromValue(RenderedThumbnail{request.key, request.generation, image, cacheError});
        },
        [this](const QVariant &result) {
            if (!result.isValid())
                return;
            const auto rendered = result.value<RenderedThumbnail>();
            finish(rendered.generation, rendered.key, rendered.image, rendered.cacheError);
        });
    return {};
}

void ThumbnailLoader::finish(quint64 generation, const QString &key, const QImage &image, const QString &cacheError)
{
    if (generation != m_generation)
        return; // made for a project that is no longer shown
    m_loading.remove(key);
    if (!cacheError.isEmpty() && !m_cacheFailureReported) {
        m_cacheFailureReported = true;
        Q_EMIT cacheWriteFailed(cacheError);
    }
    if (image.isNull()) {
        m_failed.insert(key);
        Q_EMIT thumbnailFailed(key);
        return;
    }
    auto *pixmap = new QPixmap(QPixmap::fromImage(image));
    m_memory.insert(key, pixmap, qMax<qsizetype>(1, image.sizeInBytes() / 1024));
    Q_EMIT thumbnailReady(key);
}

QImage ThumbnailLoader::render(const QString &path, const QString &cacheFile, QString *error, QString *cacheError)
{
    if (!cacheFile.isEmpty() && QFileInfo::exists(cacheFile)) {
        QImageReader cached(cacheFile, "png");
        const QImage image = cached.read();
        if (!image.isNull() && image.width() <= kSize && image.height() <= kSize)
            return image;
        // Unreadable or not a thumbnail: made again below, and the file replaced.
    }

    QImageReader reader(path);
    reader.setAutoTransform(true); // EXIF orientation, as the user sees the photo
    const QSize size = reader.size(); // as stored; scaling happens before the rotation
    if (size.isValid()) {
        if (qint64(size.width()) * size.height() > kMaxPreviewPixels) {
            *error = tr("too large to preview (%1 × %2 pixels)").arg(size.width()).arg(size.height());
            return {};
        }
        if (size.width() > kSize || size.height() > kSize)
            reader.setScaledSize(size.scaled(kSize, kSize, Qt::KeepAspectRatio).expandedTo(QSize(1, 1)));
    }
    QImage image = reader.read();
    if (image.isNull()) {
        *error = reader.errorString();
        return {};
    }
    if (image.width() > kSize || image.height() > kSize)
        image = image.scaled(kSize, kSize, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    // 16-bit, grey and indexed pictures alike become 8-bit RGB(A) for painting.
    image = image.convertToFormat(image.hasAlphaChannel() ? QImage::Format_ARGB32_Premultiplied
                                                           : QImage::Format_RGB32);

    // The cache is optional: when it cannot be written (a full disk), the thumbnail is shown all
    // the same, made again next time, and the reason reported.
    if (cacheFile.isEmpty())
        return image;
    const QString folder = QFileInfo(cacheFile).absolutePath();
    std::error_code ec;
    std::filesystem::create_directories(QFile::encodeName(folder).toStdString(), ec);
    if (ec) {
        if (cacheError)
            *cacheError = tr("Thumbnails are shown but not kept: %1")
                              .arg(QString::fromStdString(engine::writeErrorMessage(
                                  QFile::encodeName(folder).toStdString(), "create the folder", ec.value())));
        return image;
    }
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    if (writer.write(image)) {
        try {
            workspace::writeFileAtomically(cacheFile, png); // replaces the old one, never half a file
        } catch (const workspace::WorkspaceError &e) {
            if (cacheError)
                *cacheError = tr("Thumbnails are shown but not kept: %1").arg(e.message());
        }
    }
    return image;
}

} // namespace lathe::ui
