// The project database on a full disk (issue 21): a tmpfs with no free byte, in a private mount
// namespace of this test. A catalog write that finds no room fails with a message naming the
// database and saying the disk is full; the project still opens, sound, with its earlier state;
// and once there is room the same connection goes on. Skipped where no tmpfs can be mounted.
#include "full_disk_mount.h"

#include "engine/dataset/folder_scan.h"
#include "workspace/catalog.h"
#include "workspace/project.h"
#include "workspace/workspace_error.h"

#include <QCoreApplication>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace lathe;
using namespace lathe::workspace;

namespace {

// A scan of count usable images in two classes (no files are read: the catalog only records it).
engine::ScanResult scanOf(int count, const char *prefix)
{
    engine::ScanResult scan;
    scan.root = "/data/pets";
    scan.classes = {"cat", "dog"};
    for (int i = 0; i < count; ++i) {
        engine::ScannedImage image;
        image.className = i % 2 ? "dog" : "cat";
        image.relPath = image.className + "/" + prefix + "-" + std::to_string(100000 + i) + ".png";
        image.split = i % 5 ? "train" : "val";
        image.size = 1000 + i;
        image.mtimeNs = 1'700'000'000'000'000'000 + i;
        image.header.format = engine::ImageFormat::Png;
        image.header.width = 32;
        image.header.height = 24;
        image.header.channels = 3;
        image.status = engine::ImageStatus::Ok;
        image.sha256 = std::string(56, 'b') + std::to_string(10'000'000 + i) + prefix[0];
        image.hash = {std::uint64_t(i) * 0x9E37'79B9'7F4A'7C15ULL, std::uint64_t(i), ~std::uint64_t(i), 7};
        scan.images.push_back(image);
    }
    std::sort(scan.images.begin(), scan.images.end(), [](const auto &a, const auto &b) { return a.relPath < b.relPath; });
    return scan;
}

engine::ScanOptions options()
{
    engine::ScanOptions o;
    o.root = "/data/pets";
    o.valFraction = 0.2;
    return o;
}

QStringList datasetNames(const Catalog &catalog)
{
    QStringList names;
    for (const DatasetInfo &d : catalog.datasets())
        names << d.name;
    return names;
}

QString integrity(const Project &project)
{
    QSqlQuery query(project.database());
    if (!query.exec(QStringLiteral("PRAGMA integrity_check")) || !query.next())
        return QStringLiteral("integrity_check did not run");
    return query.value(0).toString();
}

} // namespace

class TestFullDisk : public QObject
{
    Q_OBJECT

public:
    explicit TestFullDisk(const QString &namespaceError)
        : m_namespaceError(namespaceError)
    {
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_disk = m_tmp.filePath(QStringLiteral("disk"));
        const QString skip = test::mountTestDisk(m_namespaceError, m_disk, "8m");
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        m_mounted = true;
    }

    void cleanupTestCase()
    {
        if (m_mounted)
            test::unmount(m_disk);
    }

    void aCatalogWriteOnAFullDiskKeepsTheEarlierState()
    {
        const QString folder = m_disk + QStringLiteral("/project");
        const QString filler = m_disk + QStringLiteral("/filler");
        auto project = Project::create(folder);
        auto catalog = std::make_unique<Catalog>(project->database());
        catalog->applyScan(QStringLiteral("small"), options(), scanOf(20, "s"));

        QVERIFY(test::fillUp(filler) > 0);
        // Thousands of rows: more than the write-ahead log has room for already.
        const engine::ScanResult big = scanOf(6000, "b");
        try {
            catalog->applyScan(QStringLiteral("big"), options(), big);
            QFAIL("an import into a full disk succeeded");
        } catch (const WorkspaceError &e) {
            QVERIFY2(e.message().contains(project->databasePath()), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QStringLiteral("the disk is full")), qPrintable(e.message()));
        }
        QCOMPARE(datasetNames(*catalog), QStringList{QStringLiteral("small")});

        {
            // Another connection, as after a restart: the project opens, sound, as it was.
            auto reopened = Project::open(folder);
            Catalog again(reopened->database());
            QCOMPARE(datasetNames(again), QStringList{QStringLiteral("small")});
            QCOMPARE(again.images(again.datasetId(QStringLiteral("small"))).size(), 20);
            QCOMPARE(integrity(*reopened), QStringLiteral("ok"));
        }

        // Room again: the same connection goes on.
        QVERIFY(QFile::remove(filler));
        catalog->applyScan(QStringLiteral("big"), options(), big);
        QCOMPARE(datasetNames(*catalog), (QStringList{QStringLiteral("big"), QStringLiteral("small")}));
        catalog.reset();
        project.reset();

        {
            auto reopened = Project::open(folder);
            Catalog again(reopened->database());
            QCOMPARE(again.images(again.datasetId(QStringLiteral("big"))).size(), 6000);
            QCOMPARE(integrity(*reopened), QStringLiteral("ok"));
        }
        QVERIFY(QDir(folder).removeRecursively()); // room for the next test
    }

    void aFileBesideTheDatabaseOnAFullDiskSaysSo()
    {
        // The catalog's CSV of rejected files goes through the atomic writer: the same message,
        // and no file that looks written.
        const QString folder = m_disk + QStringLiteral("/project-csv");
        const QString filler = m_disk + QStringLiteral("/filler");
        auto project = Project::create(folder);
        Catalog catalog(project->database());
        engine::ScanResult scan = scanOf(3000, "r");
        for (engine::ScannedImage &image : scan.images) {
            image.status = engine::ImageStatus::Rejected;
            image.reason = "truncated file (the decoder stopped before the end of the image data)";
            image.sha256.clear();
            image.hash = {};
        }
        const int id = catalog.applyScan(QStringLiteral("rejects"), options(), scan).datasetId;
        QVERIFY(test::fillUp(filler) > 0);
        const QString csv = folder + QStringLiteral("/rejected.csv");
        try {
            catalog.writeRejectedCsv(id, csv);
            QFAIL("a CSV written to a full disk");
        } catch (const WorkspaceError &e) {
            QVERIFY2(e.message().startsWith(csv + QStringLiteral(": the disk is full")), qPrintable(e.message()));
        }
        QVERIFY(!QFile::exists(csv));
        QCOMPARE(QDir(folder).entryList(QStringList{QStringLiteral("*tmp-*")}, QDir::Files | QDir::Hidden), QStringList());
        QVERIFY(QFile::remove(filler));
        catalog.writeRejectedCsv(id, csv);
        QVERIFY(QFileInfo(csv).size() > 3000 * 40);
    }

private:
    QString m_namespaceError;
    QTemporaryDir m_tmp;
    QString m_disk;
    bool m_mounted = false;
};

int main(int argc, char **argv)
{
    // Before QCoreApplication and any thread it may start.
    const QString namespaceError = lathe::test::enterPrivateMountNamespace();
    QCoreApplication app(argc, argv);
    TestFullDisk test(namespaceError);
    return QTest::qExec(&test, argc, argv);
}

#include "test_full_disk.moc"
