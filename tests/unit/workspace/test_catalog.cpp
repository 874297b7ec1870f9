#include "engine/dataset/demo_data.h"
#include "workspace/catalog.h"
#include "workspace/import_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <filesystem>
#include <memory>

using namespace lathe;
using namespace lathe::workspace;

namespace {

engine::ScannedImage scanned(const char *relPath, const char *className, const char *split, std::int64_t size,
                             engine::ImageStatus status = engine::ImageStatus::Ok, const char *reason = "")
{
    engine::ScannedImage image;
    image.relPath = relPath;
    image.className = className;
    image.split = split;
    image.size = size;
    image.mtimeNs = 1'700'000'000'000'000'000 + size;
    image.header.format = engine::ImageFormat::Png;
    image.header.width = 32;
    image.header.height = 24;
    image.header.channels = 3;
    image.status = status;
    image.reason = reason;
    if (status != engine::ImageStatus::Rejected)
        image.sha256 = std::string(60, 'a') + std::to_string(1000 + size);
    if (status != engine::ImageStatus::Rejected) // only decoded files have a perceptual hash
        image.hash = {0x8000'0000'0000'0000ULL | std::uint64_t(size), 0, ~0ULL, std::uint64_t(size)}; // every bit kept
    return image;
}

engine::ScanResult makeScan(std::vector<engine::ScannedImage> images)
{
    engine::ScanResult scan;
    scan.root = "/data/pets";
    for (const engine::ScannedImage &image : images) {
        if (!image.className.empty()
            && std::find(scan.classes.begin(), scan.classes.end(), image.className) == scan.classes.end())
            scan.classes.push_back(image.className);
    }
    std::sort(scan.classes.begin(), scan.classes.end());
    std::sort(images.begin(), images.end(), [](const auto &a, const auto &b) { return a.relPath < b.relPath; });
    scan.images = std::move(images);
    return scan;
}

// The first scan most tests start from: two classes, one rejected and one duplicate file.
engine::ScanResult petsScan()
{
    using S = engine::ImageStatus;
    engine::ScanResult scan = makeScan({
        scanned("cat/a.png", "cat", "train", 101),
        scanned("cat/b.png", "cat", "train", 102),
        scanned("cat/c.png", "cat", "val", 103),
        scanned("dog/d.png", "dog", "train", 104),
        scanned("dog/e.png", "dog", "test", 105),
        scanned("dog/broken.png", "dog", "train", 106, S::Rejected, "truncated header"),
        scanned("dog/copy.png", "dog", "train", 101, S::Duplicate, "duplicate of cat/a.png"),
    });
    scan.nearDuplicates = {{0, 5}}; // cat/a.png and dog/d.png (indices in relPath order)
    return scan;
}

engine::ScanOptions petsOptions()
{
    engine::ScanOptions options;
    options.root = "/data/pets";
    options.seed = 0xFEDC'BA98'7654'3210ULL; // above INT64_MAX: must survive as a bit pattern
    options.valFraction = 0.2;
    options.testFraction = 0.15;
    return options;
}

QHash<QString, CatalogImage> byPath(const QVector<CatalogImage> &images)
{
    QHash<QString, CatalogImage> result;
    for (const CatalogImage &image : images)
        result.insert(image.relPath, image);
    return result;
}

QStringList countsText(const QVector<ClassCount> &counts)
{
    QStringList result;
    for (const ClassCount &count : counts)
        result << QStringLiteral("%1/%2=%3").arg(count.className, count.split).arg(count.count);
    return result;
}

QString summaryText(const ImportSummary &s)
{
    return QStringLiteral("added=%1 removed=%2 changed=%3 unchanged=%4 ok=%5 rejected=%6 duplicates=%7 near=%8")
        .arg(s.added)
        .arg(s.removed)
        .arg(s.changed)
        .arg(s.unchanged)
        .arg(s.ok)
        .arg(s.rejected)
        .arg(s.duplicates)
        .arg(s.nearDuplicateGroups);
}

QVariant scalar(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return QStringLiteral("error: ") + query.lastError().text();
    return query.value(0);
}

QString readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

// A fresh project in a temporary folder.
struct Fixture
{
    Fixture()
        : project(Project::create(tmp.filePath(QStringLiteral("proj"))))
        , catalog(project->database())
    {
    }
    QTemporaryDir tmp;
    std::unique_ptr<Project> project;
    Catalog catalog;
};

// Everything a cancelled or failed import must leave alone.
QStringList catalogSnapshot(const Catalog &catalog)
{
    QStringList lines;
    for (const DatasetInfo &d : catalog.datasets()) {
        lines << QStringLiteral("dataset %1 %2 %3").arg(d.id).arg(d.name, d.importedAt);
        lines << catalog.classes(d.id);
        for (const CatalogImage &i : catalog.images(d.id))
            lines << QStringLiteral("%1 %2 %3 %4 %5 %6").arg(i.id).arg(i.relPath, i.className, i.status, i.sha256).arg(i.excluded);
    }
    return lines;
}

struct JobOutcome
{
    QString state;
    ImportSummary result;
    QString error;
};

// Runs an import on the JobManager's pool; onProgress, if given, runs on the worker thread.
// With openThrottle, the job's first progress report is delivered at once: the worker waits
// out the ~30 Hz throttle window before execute() starts.
JobOutcome runImport(const ImportJob::Params &params, const std::function<void(ImportJob *)> &onProgress = {},
                     bool openThrottle = false)
{
    JobManager manager;
    auto *job = new ImportJob(params);
    if (onProgress)
        QObject::connect(job, &Job::progressChanged, job, [job, onProgress] { onProgress(job); }, Qt::DirectConnection);
    if (openThrottle)
        QObject::connect(job, &Job::started, job, [] { QThread::msleep(Job::kProgressIntervalMs * 2); }, Qt::DirectConnection);
    // Queued to this thread, so it cannot arrive before wait() starts listening.
    QSignalSpy ended(&manager, &JobManager::jobEnded);
    manager.start(job);
    if (!ended.wait(120'000))
        return {QStringLiteral("timeout"), {}, {}};
    switch (job->state()) {
    case Job::State::Finished:
        return {QStringLiteral("finished"), job->result().value<ImportSummary>(), {}};
    case Job::State::Failed:
        return {QStringLiteral("failed"), {}, job->errorMessage()};
    case Job::State::Cancelled:
        return {QStringLiteral("cancelled"), {}, {}};
    default:
        return {QStringLiteral("other"), {}, {}};
    }
}

void writeDemoImages(const QString &dir, int perClass, int testPerClass)
{
    engine::DemoDataOptions options;
    options.outDir = dir.toStdString();
    options.perClass = perClass;
    options.testPerClass = testPerClass;
    engine::writeDemoData(options);
}

} // namespace

class TestCatalog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void migrationFromVersion1KeepsProjectMeta()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QString::fromLatin1(Project::kDatabaseFile));
        {
            // A project as the first released Lathe wrote it: schema 1 only.
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v1"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("PRAGMA application_id = %1").arg(Project::kApplicationId)));
            const std::vector<Migration> v1(projectMigrations().begin(), projectMigrations().begin() + 1);
            QCOMPARE(v1.back().version, 1);
            migrate(db, v1, path);
            QVERIFY(q.exec(QStringLiteral("INSERT INTO project_meta(key, value) VALUES('name', 'Old'), ('note', 'kept')")));
            QCOMPARE(schemaVersion(db, path), 1);
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v1"));

        auto project = Project::open(tmp.path());
        QCOMPARE(project->schemaVersion(), projectMigrations().back().version);
        QCOMPARE(project->name(), QStringLiteral("Old"));
        QCOMPARE(project->meta(QStringLiteral("note")), QStringLiteral("kept"));
        const QStringList tables = project->database().tables();
        for (const char *table : {"project_meta", "datasets", "classes", "images"})
            QVERIFY2(tables.contains(QLatin1String(table)), table);
        QCOMPARE(scalar(project->database(),
                        QStringLiteral("SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master"
                                       " WHERE type = 'index' AND name LIKE 'images_by_%' ORDER BY name)"))
                     .toString(),
                 QStringLiteral("images_by_class_split images_by_override images_by_sha256 images_by_status"));
        Catalog catalog(project->database());
        QVERIFY(catalog.datasets().isEmpty());
    }

    void applyScanCreatesDatasetClassesAndImages()
    {
        Fixture f;
        const ImportSummary summary = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan());
        QCOMPARE(summaryText(summary),
                 QStringLiteral("added=7 removed=0 changed=0 unchanged=0 ok=5 rejected=1 duplicates=1 near=1"));
        QVERIFY(summary.datasetId > 0);
        QCOMPARE(f.catalog.datasetId(QStringLiteral("pets")), summary.datasetId);
        QCOMPARE(f.catalog.datasetId(QStringLiteral("nope")), 0);

        const QVector<DatasetInfo> datasets = f.catalog.datasets();
        QCOMPARE(datasets.size(), 1);
        const DatasetInfo d = f.catalog.dataset(summary.datasetId);
        QCOMPARE(d.id, summary.datasetId);
        QCOMPARE(d.name, QStringLiteral("pets"));
        QCOMPARE(d.sourceDir, QStringLiteral("/data/pets"));
        QCOMPARE(d.seed, quint64(0xFEDC'BA98'7654'3210ULL));
        QCOMPARE(d.valFraction, 0.2);
        QCOMPARE(d.testFraction, 0.15);
        QCOMPARE(d.folderSplits, false);
        QVERIFY2(QDateTime::fromString(d.importedAt, Qt::ISODate).isValid(), qPrintable(d.importedAt));
        QCOMPARE(datasets.first().name, d.name);

        QCOMPARE(f.catalog.classes(summary.datasetId), QStringList({QStringLiteral("cat"), QStringLiteral("dog")}));

        const QVector<CatalogImage> images = f.catalog.images(summary.datasetId);
        QStringList paths;
        for (const CatalogImage &image : images)
            paths << image.relPath;
        QCOMPARE(paths, QStringList({QStringLiteral("cat/a.png"), QStringLiteral("cat/b.png"), QStringLiteral("cat/c.png"),
                                     QStringLiteral("dog/broken.png"), QStringLiteral("dog/copy.png"),
                                     QStringLiteral("dog/d.png"), QStringLiteral("dog/e.png")}));
        const QHash<QString, CatalogImage> rows = byPath(images);
        const CatalogImage a = rows[QStringLiteral("cat/a.png")];
        QCOMPARE(a.folderClass, QStringLiteral("cat"));
        QCOMPARE(a.className, QStringLiteral("cat"));
        QCOMPARE(a.split, QStringLiteral("train"));
        QCOMPARE(a.status, QStringLiteral("ok"));
        QCOMPARE(a.size, qint64(101));
        QCOMPARE(a.width, 32);
        QCOMPARE(a.height, 24);
        QCOMPARE(a.channels, 3);
        QCOMPARE(a.bitDepth, 8);
        QCOMPARE(a.format, QStringLiteral("png"));
        QCOMPARE(a.exifOrientation, 1);
        QCOMPARE(a.sha256, QString(60, QLatin1Char('a')) + QStringLiteral("1101"));
        QCOMPARE(a.excluded, false);
        QCOMPARE(a.nearDuplicateGroup, 0);
        QVERIFY(a.usable());
        QCOMPARE(rows[QStringLiteral("dog/d.png")].nearDuplicateGroup, 0);
        QCOMPARE(rows[QStringLiteral("cat/b.png")].nearDuplicateGroup, -1);
        const CatalogImage broken = rows[QStringLiteral("dog/broken.png")];
        QCOMPARE(broken.status, QStringLiteral("rejected"));
        QCOMPARE(broken.reason, QStringLiteral("truncated header"));
        QVERIFY(!broken.usable());
        QCOMPARE(rows[QStringLiteral("dog/copy.png")].status, QStringLiteral("duplicate"));

        const CatalogImage one = f.catalog.image(a.id);
        QCOMPARE(one.relPath, a.relPath);
        QCOMPARE(one.sha256, a.sha256);
        QCOMPARE(f.catalog.image(a.id + 1000).id, qint64(0));
    }

    void previousScanRebuildsTheScannedRecords()
    {
        Fixture f;
        engine::ScanResult scan = petsScan();
        scan.images[1].header = {engine::ImageFormat::Jpeg, 4000, 3000, 4, 8, true, 6};
        scan.images[2].header.bitDepth = 16;
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), scan).datasetId;
        const std::vector<engine::ScannedImage> previous = f.catalog.previousScan(id);
        QCOMPARE(previous.size(), scan.images.size());
        for (std::size_t i = 0; i < previous.size(); ++i) {
            const engine::ScannedImage &got = previous[i];
            const engine::ScannedImage &want = scan.images[i];
            QCOMPARE(got.relPath, want.relPath);
            QCOMPARE(got.className, want.className);
            QCOMPARE(got.split, want.split);
            QCOMPARE(got.size, want.size);
            QCOMPARE(got.mtimeNs, want.mtimeNs);
            QCOMPARE(got.header.format, want.header.format);
            QCOMPARE(got.header.width, want.header.width);
            QCOMPARE(got.header.height, want.header.height);
            QCOMPARE(got.header.channels, want.header.channels);
            QCOMPARE(got.header.bitDepth, want.header.bitDepth);
            QCOMPARE(got.header.cmyk, want.header.cmyk);
            QCOMPARE(got.header.exifOrientation, want.header.exifOrientation);
            QCOMPARE(got.sha256, want.sha256);
            QVERIFY(got.hash == want.hash);
            QCOMPARE(got.status, want.status);
            QCOMPARE(got.reason, want.reason);
            QCOMPARE(got.reused, false);
        }
    }

    void classCountsCountOnlyUsableImages_data()
    {
        QTest::addColumn<QString>("exclude");
        QTest::addColumn<QString>("relabelPath");
        QTest::addColumn<QString>("relabelTo");
        QTest::addColumn<QStringList>("expected");
        // The scan: cat train 2, cat val 1, dog train 1, dog test 1; broken and copy never count.
        QTest::newRow("as scanned") << QString() << QString() << QString()
                                    << QStringList{QStringLiteral("cat/train=2"), QStringLiteral("cat/val=1"),
                                                   QStringLiteral("dog/train=1"), QStringLiteral("dog/test=1")};
        QTest::newRow("excluded") << QStringLiteral("cat/b.png") << QString() << QString()
                                  << QStringList{QStringLiteral("cat/train=1"), QStringLiteral("cat/val=1"),
                                                 QStringLiteral("dog/train=1"), QStringLiteral("dog/test=1")};
        QTest::newRow("relabelled") << QString() << QStringLiteral("dog/d.png") << QStringLiteral("cat")
                                    << QStringList{QStringLiteral("cat/train=3"), QStringLiteral("cat/val=1"),
                                                   QStringLiteral("dog/test=1")};
        QTest::newRow("rejected relabelled") << QString() << QStringLiteral("dog/broken.png") << QStringLiteral("cat")
                                             << QStringList{QStringLiteral("cat/train=2"), QStringLiteral("cat/val=1"),
                                                            QStringLiteral("dog/train=1"), QStringLiteral("dog/test=1")};
        QTest::newRow("excluded rejected") << QStringLiteral("dog/broken.png") << QString() << QString()
                                           << QStringList{QStringLiteral("cat/train=2"), QStringLiteral("cat/val=1"),
                                                          QStringLiteral("dog/train=1"), QStringLiteral("dog/test=1")};
    }

    void classCountsCountOnlyUsableImages()
    {
        QFETCH(QString, exclude);
        QFETCH(QString, relabelPath);
        QFETCH(QString, relabelTo);
        QFETCH(QStringList, expected);
        Fixture f;
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan()).datasetId;
        const QHash<QString, CatalogImage> rows = byPath(f.catalog.images(id));
        if (!exclude.isEmpty())
            f.catalog.setExcluded(rows[exclude].id, true);
        if (!relabelPath.isEmpty())
            f.catalog.relabel(rows[relabelPath].id, relabelTo);
        QCOMPARE(countsText(f.catalog.classCounts(id)), expected);
    }

    void reimportIsIncrementalAndKeepsTheUsersWork()
    {
        Fixture f;
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan()).datasetId;
        const QHash<QString, CatalogImage> before = byPath(f.catalog.images(id));
        f.catalog.setExcluded(before[QStringLiteral("cat/b.png")].id, true);   // unchanged later: kept
        f.catalog.relabel(before[QStringLiteral("dog/d.png")].id, QStringLiteral("cat")); // unchanged: kept
        f.catalog.setExcluded(before[QStringLiteral("cat/c.png")].id, true);   // new content: dropped
        f.catalog.relabel(before[QStringLiteral("cat/c.png")].id, QStringLiteral("dog"));
        f.catalog.setExcluded(before[QStringLiteral("dog/e.png")].id, true);   // touched, same content: kept

        // Second scan: cat/a.png is gone, cat/c.png holds another picture, dog/e.png was only
        // touched (same bytes), dog/f.png is new and the rest is taken over unread.
        std::vector<engine::ScannedImage> second;
        for (engine::ScannedImage image : f.catalog.previousScan(id)) {
            if (image.relPath == "cat/a.png")
                continue;
            if (image.relPath == "cat/c.png") {
                image.size = 999;
                image.mtimeNs += 5;
                image.sha256 = std::string(64, 'c');
                image.split = "train";
            } else if (image.relPath == "dog/e.png") {
                image.mtimeNs += 7;
            } else {
                image.reused = true;
            }
            // cat/a.png is gone, so its copy is no longer a duplicate.
            if (image.relPath == "dog/copy.png") {
                image.status = engine::ImageStatus::Ok;
                image.reason.clear();
            }
            second.push_back(image);
        }
        second.push_back(scanned("dog/f.png", "dog", "val", 107));
        const engine::ScanResult scan = makeScan(second);
        const ImportSummary summary = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), scan);
        QCOMPARE(summary.datasetId, id);
        QCOMPARE(summaryText(summary),
                 QStringLiteral("added=1 removed=1 changed=2 unchanged=4 ok=6 rejected=1 duplicates=0 near=0"));

        const QHash<QString, CatalogImage> after = byPath(f.catalog.images(id));
        QCOMPARE(after.size(), 7);
        QVERIFY(!after.contains(QStringLiteral("cat/a.png")));
        for (const char *path : {"cat/b.png", "cat/c.png", "dog/d.png", "dog/e.png", "dog/broken.png", "dog/copy.png"})
            QCOMPARE(after[QLatin1String(path)].id, before[QLatin1String(path)].id);
        QVERIFY(!before.contains(QStringLiteral("dog/f.png")));

        QCOMPARE(after[QStringLiteral("cat/b.png")].excluded, true);
        QCOMPARE(after[QStringLiteral("dog/d.png")].className, QStringLiteral("cat"));
        QCOMPARE(after[QStringLiteral("dog/d.png")].folderClass, QStringLiteral("dog"));
        QCOMPARE(after[QStringLiteral("dog/e.png")].excluded, true);
        const CatalogImage c = after[QStringLiteral("cat/c.png")];
        QCOMPARE(c.excluded, false);
        QCOMPARE(c.className, QStringLiteral("cat"));
        QCOMPARE(c.size, qint64(999));
        QCOMPARE(c.split, QStringLiteral("train"));
        QCOMPARE(after[QStringLiteral("dog/copy.png")].status, QStringLiteral("ok"));
        QCOMPARE(after[QStringLiteral("dog/d.png")].nearDuplicateGroup, -1);
        QCOMPARE(countsText(f.catalog.classCounts(id)),
                 QStringList({QStringLiteral("cat/train=2"), QStringLiteral("dog/train=1"), QStringLiteral("dog/val=1")}));
    }

    void classesWithoutImagesGoUnlessARelabelUsesThem()
    {
        Fixture f;
        engine::ScanResult first = petsScan();
        first.images.push_back(scanned("zebra/z.png", "zebra", "train", 200));
        first.images.push_back(scanned("bird/y.png", "bird", "train", 201));
        first = makeScan(first.images);
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), first).datasetId;
        QCOMPARE(f.catalog.classes(id).join(QLatin1Char(' ')), QStringLiteral("bird cat dog zebra"));
        const qint64 a = byPath(f.catalog.images(id))[QStringLiteral("cat/a.png")].id;
        f.catalog.relabel(a, QStringLiteral("zebra"));

        f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan()); // zebra and bird folders gone
        QCOMPARE(f.catalog.classes(id).join(QLatin1Char(' ')), QStringLiteral("cat dog zebra"));
        QCOMPARE(f.catalog.image(a).className, QStringLiteral("zebra"));
    }

    void failedApplyLeavesTheCatalogAsItWas()
    {
        Fixture f;
        f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan());
        const QStringList before = catalogSnapshot(f.catalog);
        engine::ScanResult broken = petsScan();
        broken.images.push_back(broken.images.front()); // the same path twice cannot be stored
        broken.images.push_back(scanned("new/x.png", "new", "train", 300));
        QVERIFY_THROWS_EXCEPTION(WorkspaceError,
                                 f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), broken));
        QCOMPARE(catalogSnapshot(f.catalog), before);
        QVERIFY_THROWS_EXCEPTION(WorkspaceError, f.catalog.applyScan(QString(), petsOptions(), petsScan()));
        QCOMPARE(catalogSnapshot(f.catalog), before);
    }

    void relabelToAMissingClassIsRefused()
    {
        Fixture f;
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan()).datasetId;
        const qint64 a = byPath(f.catalog.images(id))[QStringLiteral("cat/a.png")].id;
        QString message;
        try {
            f.catalog.relabel(a, QStringLiteral("horse"));
        } catch (const WorkspaceError &e) {
            message = e.message();
        }
        QVERIFY2(message.contains(QStringLiteral("cat/a.png")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("\"horse\"")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("no such class")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("pets")), qPrintable(message));
        QCOMPARE(f.catalog.image(a).className, QStringLiteral("cat"));

        QVERIFY_THROWS_EXCEPTION(WorkspaceError, f.catalog.relabel(a + 1000, QStringLiteral("dog")));
        QVERIFY_THROWS_EXCEPTION(WorkspaceError, f.catalog.setExcluded(a + 1000, true));
    }

    void relabelBackToTheFolderClassClearsTheOverride()
    {
        Fixture f;
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), petsScan()).datasetId;
        const qint64 a = byPath(f.catalog.images(id))[QStringLiteral("cat/a.png")].id;
        const QString overrideOfA = QStringLiteral("SELECT label_override_id IS NULL FROM images WHERE id = %1").arg(a);

        f.catalog.relabel(a, QStringLiteral("dog"));
        QCOMPARE(f.catalog.image(a).className, QStringLiteral("dog"));
        QCOMPARE(f.catalog.image(a).folderClass, QStringLiteral("cat"));
        QCOMPARE(scalar(f.project->database(), overrideOfA).toInt(), 0);

        f.catalog.relabel(a, QStringLiteral("cat"));
        QCOMPARE(f.catalog.image(a).className, QStringLiteral("cat"));
        QCOMPARE(scalar(f.project->database(), overrideOfA).toInt(), 1);

        f.catalog.setExcluded(a, true);
        QCOMPARE(f.catalog.image(a).excluded, true);
        f.catalog.setExcluded(a, false);
        QCOMPARE(f.catalog.image(a).excluded, false);
    }

    void rejectedCsvIsQuotedAndExact()
    {
        Fixture f;
        using S = engine::ImageStatus;
        engine::ScanResult scan = makeScan({
            scanned("cat/a.png", "cat", "train", 1),
            scanned("cat/b, \"the best\".png", "cat", "train", 2, S::Rejected, "not an image"),
            scanned("cat/line\nbreak.jpg", "cat", "train", 3, S::Rejected, "truncated: 12 of 40 bytes"),
            scanned("dog/copy.png", "dog", "train", 1, S::Duplicate, "duplicate of cat/a.png"),
            scanned("dog/plain.png", "dog", "train", 4, S::Rejected, "decompression bomb, 2,000,000,000 pixels"),
        });
        const int id = f.catalog.applyScan(QStringLiteral("pets"), petsOptions(), scan).datasetId;
        const QString path = f.tmp.filePath(QStringLiteral("rejected.csv"));
        f.catalog.writeRejectedCsv(id, path);
        QCOMPARE(readAll(path), QStringLiteral("path,status,reason\n"
                                               "\"cat/b, \"\"the best\"\".png\",rejected,not an image\n"
                                               "\"cat/line\nbreak.jpg\",rejected,truncated: 12 of 40 bytes\n"
                                               "dog/copy.png,duplicate,duplicate of cat/a.png\n"
                                               "dog/plain.png,rejected,\"decompression bomb, 2,000,000,000 pixels\"\n"));

        QVERIFY_THROWS_EXCEPTION(WorkspaceError,
                                 f.catalog.writeRejectedCsv(id, f.tmp.filePath(QStringLiteral("missing/dir/x.csv"))));
    }

    void importJobImportsAFolder()
    {
        QTemporaryDir tmp;
        const QString images = tmp.filePath(QStringLiteral("fashion"));
        writeDemoImages(images, 3, 1);
        QFile stray(QDir(images).filePath(QStringLiteral("README.txt"))); // outside every class folder
        QVERIFY(stray.open(QIODevice::WriteOnly));
        stray.write("not an image\n");
        stray.close();
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));

        ImportJob::Params params;
        params.databasePath = project->databasePath();
        params.sourceDir = images;
        const JobOutcome first = runImport(params);
        QCOMPARE(first.state, QStringLiteral("finished"));
        const ImportSummary &r = first.result;
        Catalog catalog(project->database());
        const int id = catalog.datasetId(QStringLiteral("fashion")); // named after the folder
        QVERIFY(id > 0);
        QCOMPARE(r.datasetId, id);
        QCOMPARE(r.added, 41);
        QCOMPARE(r.ok, 40);
        QCOMPARE(r.rejected, 1);
        for (const auto &[key, value] : {std::pair{"removed", r.removed}, std::pair{"changed", r.changed},
                                         std::pair{"unchanged", r.unchanged}, std::pair{"duplicates", r.duplicates}})
            QVERIFY2(value == 0, key);
        QVERIFY(r.nearDuplicateGroups >= 0); // reported

        QVERIFY(catalog.dataset(id).folderSplits);
        QCOMPARE(catalog.dataset(id).sourceDir, QDir::cleanPath(images));
        QStringList classes;
        for (const std::string &name : engine::fashionMnistClasses())
            classes << QString::fromStdString(name);
        classes.sort();
        QCOMPARE(catalog.classes(id), classes);
        QVector<CatalogImage> rows = catalog.images(id);
        QCOMPARE(rows.size(), 41);
        const CatalogImage readme = rows.takeFirst();
        QCOMPARE(readme.relPath, QStringLiteral("README.txt"));
        QCOMPARE(readme.status, QStringLiteral("rejected"));
        QCOMPARE(readme.reason, QStringLiteral("not inside a class folder"));
        const QString csv = tmp.filePath(QStringLiteral("rejected.csv"));
        catalog.writeRejectedCsv(id, csv);
        QCOMPARE(readAll(csv), QStringLiteral("path,status,reason\nREADME.txt,rejected,not inside a class folder\n"));
        int train = 0;
        int test = 0;
        for (const CatalogImage &image : rows) {
            QVERIFY2(image.usable(), qPrintable(image.relPath + QLatin1Char(' ') + image.reason));
            QCOMPARE(image.format, QStringLiteral("png"));
            QCOMPARE(image.width, 28);
            QCOMPARE(image.height, 28);
            QCOMPARE(image.sha256.size(), 64);
            QVERIFY(image.relPath.startsWith(image.split + QLatin1Char('/') + image.folderClass + QLatin1Char('/')));
            (image.split == QStringLiteral("train") ? train : test) += 1;
        }
        QCOMPARE(train, 30);
        QCOMPARE(test, 10);

        // Nothing changed on disk: everything is taken over unread (the stray file is never
        // read at all), with the same rows.
        const QStringList before = catalogSnapshot(catalog);
        const JobOutcome again = runImport(params);
        QCOMPARE(again.state, QStringLiteral("finished"));
        QCOMPARE(again.result.unchanged, 41);
        QCOMPARE(again.result.added, 0);
        QCOMPARE(again.result.changed, 0);
        QCOMPARE(again.result.removed, 0);
        QCOMPARE(again.result.datasetId, id);
        QCOMPARE(catalogSnapshot(catalog).mid(1), before.mid(1)); // all but the import time
    }

    void cancelledImportLeavesTheCatalogUnchanged()
    {
        QTemporaryDir tmp;
        const QString images = tmp.filePath(QStringLiteral("fashion"));
        writeDemoImages(images, 20, 0);
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        ImportJob::Params params;
        params.databasePath = project->databasePath();
        params.sourceDir = images;
        params.name = QStringLiteral("clothes");
        const JobOutcome first = runImport(params);
        QCOMPARE(first.state, QStringLiteral("finished"));
        Catalog catalog(project->database());
        const QStringList before = catalogSnapshot(catalog);
        QCOMPARE(catalog.images(catalog.datasetId(QStringLiteral("clothes"))).size(), 200);

        // Changes the next import would record, had it not been cancelled: one file gone, and
        // a byte-identical copy of another added.
        const QString trainDir = QDir(images).filePath(QStringLiteral("train"));
        const QStringList classDirs = QDir(trainDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(!classDirs.isEmpty());
        const QString firstClass = QDir(trainDir).filePath(classDirs.first());
        const QStringList files = QDir(firstClass).entryList(QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 2);
        QVERIFY(QFile::remove(QDir(firstClass).filePath(files.first())));
        QVERIFY(QFile::copy(QDir(firstClass).filePath(files.last()), QDir(firstClass).filePath(QStringLiteral("new.png"))));

        // Cancelled at its first progress report, which comes from inside the scan.
        const JobOutcome cancelled = runImport(params, [](ImportJob *job) { job->requestCancel(); }, true);
        QCOMPARE(cancelled.state, QStringLiteral("cancelled"));
        QCOMPARE(catalogSnapshot(catalog), before);

        // The same import, not cancelled, sees the changes.
        const JobOutcome done = runImport(params);
        QCOMPARE(done.state, QStringLiteral("finished"));
        const ImportSummary &r = done.result;
        QCOMPARE(r.added, 1);
        QCOMPARE(r.removed, 1);
        QCOMPARE(r.changed, 0);
        QCOMPARE(r.unchanged, 199);
        QCOMPARE(r.duplicates, first.result.duplicates + 1);
        QCOMPARE(catalog.images(catalog.datasetId(QStringLiteral("clothes"))).size(), 200);
    }

    void importJobRefusesWhatIsNotAProject()
    {
        QTemporaryDir tmp;
        const QString images = tmp.filePath(QStringLiteral("imgs"));
        QVERIFY(QDir().mkpath(images));
        const QString other = tmp.filePath(QStringLiteral("other.sqlite"));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("other"));
            db.setDatabaseName(other);
            QVERIFY(db.open());
            QVERIFY(QSqlQuery(db).exec(QStringLiteral("CREATE TABLE contacts(name TEXT)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("other"));

        ImportJob::Params params;
        params.sourceDir = images;
        params.databasePath = other;
        JobOutcome outcome = runImport(params);
        QCOMPARE(outcome.state, QStringLiteral("failed"));
        QVERIFY2(outcome.error.contains(QStringLiteral("another program")), qPrintable(outcome.error));
        QVERIFY2(outcome.error.contains(other), qPrintable(outcome.error));

        params.databasePath = tmp.filePath(QStringLiteral("missing.sqlite"));
        outcome = runImport(params);
        QCOMPARE(outcome.state, QStringLiteral("failed"));
        QVERIFY2(outcome.error.contains(QStringLiteral("missing.sqlite")), qPrintable(outcome.error));
        QVERIFY(!QFileInfo::exists(params.databasePath)); // not created by SQLite either

        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        params.databasePath = project->databasePath();
        params.sourceDir = tmp.filePath(QStringLiteral("no-such-folder"));
        outcome = runImport(params);
        QCOMPARE(outcome.state, QStringLiteral("failed"));
        QVERIFY2(outcome.error.contains(QStringLiteral("no-such-folder")), qPrintable(outcome.error));
        QVERIFY(Catalog(project->database()).datasets().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCatalog)
#include "test_catalog.moc"
