// The thumbnail cache on a full disk (issue 21): a tmpfs with no free byte, in a private mount
// namespace of this test. The thumbnail is shown all the same; the reason it was not kept names
// the cache file and says the disk is full (once, as the loader's cacheWriteFailed); no
// half-written cache file is left; with room again the cache is written. Skipped where no tmpfs
// can be mounted.
#include "../unit/workspace/full_disk_mount.h"

#include "common/thumbnail_loader.h"

#include <QApplication>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace lathe;

class TestThumbnailFullDisk : public QObject
{
    Q_OBJECT

public:
    explicit TestThumbnailFullDisk(const QString &namespaceError)
        : m_namespaceError(namespaceError)
    {
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_disk = m_tmp.filePath(QStringLiteral("disk"));
        const QString skip = test::mountTestDisk(m_namespaceError, m_disk, "1m");
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        m_mounted = true;
        // A picture outside the small file system, noisy so its thumbnail's PNG is not tiny.
        QImage picture(300, 200, QImage::Format_RGB32);
        for (int y = 0; y < picture.height(); ++y)
            for (int x = 0; x < picture.width(); ++x)
                picture.setPixel(x, y, qRgb((x * 37 + y * 11) % 256, (x * y) % 256, (x ^ y) % 256));
        m_picture = m_tmp.filePath(QStringLiteral("picture.png"));
        QVERIFY(picture.save(m_picture));
    }

    void cleanupTestCase()
    {
        if (m_mounted)
            test::unmount(m_disk);
    }

    void renderShowsTheThumbnailAndSaysWhyItWasNotKept()
    {
        const QString cacheFile = m_disk + QStringLiteral("/cache/ab/") + QString(64, QLatin1Char('a')) + QStringLiteral(".png");
        const QString filler = m_disk + QStringLiteral("/filler");
        QVERIFY(test::fillUp(filler) > 0);
        QString error;
        QString cacheError;
        const QImage image = ui::ThumbnailLoader::render(m_picture, cacheFile, &error, &cacheError);
        QVERIFY2(!image.isNull(), qPrintable(error));
        QCOMPARE(image.size(), QSize(128, 85));
        QVERIFY2(cacheError.contains(cacheFile + QStringLiteral(": the disk is full")), qPrintable(cacheError));
        QVERIFY(!QFileInfo::exists(cacheFile));
        QCOMPARE(QDir(QFileInfo(cacheFile).absolutePath()).entryList(QDir::Files | QDir::Hidden), QStringList());

        QVERIFY(QFile::remove(filler));
        cacheError.clear();
        QCOMPARE(ui::ThumbnailLoader::render(m_picture, cacheFile, &error, &cacheError).size(), QSize(128, 85));
        QVERIFY2(cacheError.isEmpty(), qPrintable(cacheError));
        QCOMPARE(QImage(cacheFile).size(), QSize(128, 85));
        QVERIFY(QFile::remove(cacheFile));
    }

    void theLoaderReportsTheFullDiskOnceAndShowsThumbnails()
    {
        ui::ThumbnailLoader loader;
        loader.setCacheDir(m_disk + QStringLiteral("/cache"));
        const QString filler = m_disk + QStringLiteral("/filler");
        QVERIFY(test::fillUp(filler) > 0);
        QSignalSpy failed(&loader, &ui::ThumbnailLoader::cacheWriteFailed);
        QSignalSpy ready(&loader, &ui::ThumbnailLoader::thumbnailReady);
        const QStringList keys = {QString(64, QLatin1Char('b')), QString(64, QLatin1Char('c'))};
        for (const QString &key : keys)
            QVERIFY(loader.thumbnail(key, m_picture).isNull()); // queued
        QTRY_COMPARE(ready.count(), 2);
        for (const QString &key : keys)
            QCOMPARE(loader.state(key), ui::ThumbnailLoader::State::Ready);
        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("the disk is full")) && message.contains(m_disk + QStringLiteral("/cache/")),
                 qPrintable(message));
        QVERIFY(QFile::remove(filler));
    }

private:
    QString m_namespaceError;
    QTemporaryDir m_tmp;
    QString m_disk;
    QString m_picture;
    bool m_mounted = false;
};

int main(int argc, char **argv)
{
    // Before QApplication and any thread it may start.
    const QString namespaceError = lathe::test::enterPrivateMountNamespace();
    QApplication app(argc, argv);
    TestThumbnailFullDisk test(namespaceError);
    return QTest::qExec(&test, argc, argv);
}

#include "test_thumbnail_full_disk.moc"
