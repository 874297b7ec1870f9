#pragma once

#include <QCache>
#include <QHash>
#include <QImage>
#include <QObject>
#include <QPixmap>
#include <QSet>
#include <QThreadPool>

#include <memory>

namespace lathe::ui {

// Thumbnails for the image grid, made lazily on a thread pool: a memory cache of pixmaps
// (GUI thread) in front of an on-disk cache of PNG files keyed by the image's SHA-256
// (<cacheDir>/<first two hex digits>/<sha256>.png, written atomically). A cache file that
// cannot be read is ignored and written again.
//
// Requests are served newest first and only the most recent kMaxPending wait: when the
// user scrolls quickly, the rows scrolled past are dropped (and asked for again if they
// come back into view).
class ThumbnailLoader : public QObject
{
    Q_OBJECT

public:
    static constexpr int kSize = 128;       // longest side, in pixels
    static constexpr int kMaxPending = 256;

    explicit ThumbnailLoader(QObject *parent = nullptr);
    ~ThumbnailLoader() override;

    // Empty: no disk cache. Changing it forgets every thumbnail and pending request.
    void setCacheDir(const QString &dir);
    QString cacheDir() const { return m_cacheDir; }
    QString cacheFilePath(const QString &sha256) const;

    enum class State { Missing, Loading, Ready, Failed };
    State state(const QString &key) const;

    // The thumbnail when it is in memory. Otherwise a load is queued (once) and a null
    // pixmap returned; thumbnailReady(key) or thumbnailFailed(key) follows. key names the
    // picture (its SHA-256, so identical files share one thumbnail).
    QPixmap thumbnail(const QString &key, const QString &path);

    QPixmap loadingIcon() const { return m_loadingIcon; }
    QPixmap brokenIcon() const { return m_brokenIcon; }

    // Blocking, thread-safe: the thumbnail image from the cache file when it is sound, else
    // decoded from path (EXIF orientation applied) and written to the cache file. When that
    // write fails (a full disk), the image is returned all the same and cacheError, if given,
    // says why it was not kept (the message names the file).
    static QImage render(const QString &path, const QString &cacheFile, QString *error,
                         QString *cacheError = nullptr);

Q_SIGNALS:
    void thumbnailReady(const QString &key);
    void thumbnailFailed(const QString &key);
    // A thumbnail could not be written to the disk cache (once per cache folder, not per
    // picture): thumbnails are still shown, and cached again once a write succeeds.
    void cacheWriteFailed(const QString &message);

private:
    struct Queue;

    void finish(quint64 generation, const QString &key, const QImage &image, const QString &cacheError);

    QString m_cacheDir;
    QThreadPool m_pool;
    std::shared_ptr<Queue> m_queue;
    quint64 m_generation = 0;
    QCache<QString, QPixmap> m_memory;
    QSet<QString> m_loading;
    QSet<QString> m_failed;
    bool m_cacheFailureReported = false;
    QPixmap m_loadingIcon;
    QPixmap m_brokenIcon;
};

} // namespace lathe::ui
