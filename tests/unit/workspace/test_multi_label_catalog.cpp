// Multi-label datasets in the catalog: the schema step that adds label sets, importing an image
// folder with a labels file (every bad row refused with its reason), editing label sets, adding
// a label the dataset did not have, resetting an image to its labels file's set, and converting
// with the catalog's sets (read back from the shards).

#include "engine/dataset/shard_converter.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/import_job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <map>
#include <memory>

using namespace lathe;
using namespace lathe::workspace;

namespace {

const QString kPhotos = QStringLiteral("/usr/share/darknet/data/");

void copyFile(const QString &from, const QString &to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    QFile::remove(to);
    QVERIFY2(QFile::copy(from, to), qPrintable(from + QStringLiteral(" -> ") + to));
}

void writeText(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text);
}

// Six real photos under images/photos, a byte copy of one, a text file named .jpg; the labels
// file gives them label sets, and has a row for a missing file and rows that are bad.
struct PhotoSet
{
    QString images;
    QString labels;
};

PhotoSet makePhotos(const QTemporaryDir &tmp)
{
    PhotoSet set{tmp.filePath(QStringLiteral("images")), tmp.filePath(QStringLiteral("labels.csv"))};
    for (const char *photo : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg", "kite.jpg"})
        copyFile(kPhotos + QLatin1String(photo), set.images + QStringLiteral("/photos/") + QLatin1String(photo));
    copyFile(kPhotos + QStringLiteral("dog.jpg"), set.images + QStringLiteral("/photos/puppy.jpg"));
    writeText(set.images + QStringLiteral("/photos/notes.jpg"), "not a picture\n");
    writeText(set.labels, "path,labels\n"
                          "photos/dog.jpg,animal;pet\n"           // 2
                          "photos/eagle.jpg,animal|bird|sky\n"    // 3
                          "photos/giraffe.jpg,animal\n"           // 4
                          "photos/horses.jpg,\"animal; outdoor\"\n" // 5
                          "photos/person.jpg,person;outdoor\n"    // 6
                          "photos/kite.jpg,sky;person;outdoor\n"  // 7
                          "photos/missing.jpg,animal\n"           // 8
                          "photos/puppy.jpg,pet\n"                // 9
                          "photos/notes.jpg,animal\n"             // 10
                          "/abs/x.jpg,animal\n"                   // 11
                          "../up.jpg,animal\n"                    // 12
                          "photos/eagle.jpg,bird\n"               // 13
                          "photos/gap.jpg,bird;;sky\n"            // 14
                          "photos/none.jpg,\n");                  // 15
    return set;
}

ImportJob::Params importParams(const Project &project, const PhotoSet &set)
{
    ImportJob::Params params;
    params.databasePath = project.databasePath();
    params.sourceDir = set.images;
    params.labelsFile = set.labels;
    params.valFraction = 0.0;
    params.testFraction = 0.0;
    return params;
}

// Runs a job to its end on a JobManager; its result, or its error message.
QVariant runJob(Job *job, QString *error)
{
    JobManager manager;
    QSignalSpy ended(&manager, &JobManager::jobEnded);
    manager.start(job);
    if (!ended.wait(120'000)) {
        *error = QStringLiteral("timeout");
        return {};
    }
    *error = job->state() == Job::State::Finished ? QString() : job->errorMessage();
    return job->result();
}

QString errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const WorkspaceError &e) {
        return QString::fromUtf8(e.what());
    }
    return QStringLiteral("no error");
}

void setModified(const QString &path, const QDateTime &time)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(time, QFileDevice::FileModificationTime));
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

QStringList labels(const char *text)
{
    return QString::fromLatin1(text).split(QLatin1Char(','), Qt::SkipEmptyParts);
}

// A converted dataset's records: file name -> label texts (sorted as stored).
std::map<std::string, std::vector<std::string>> readRecords(const QString &datasetDir)
{
    const engine::DatasetManifest m = engine::readDatasetManifest(datasetDir.toStdString());
    std::map<std::string, std::vector<std::string>> records;
    for (const engine::ShardInfo &shard : m.shards) {
        engine::TFRecordReader reader(QDir(datasetDir).filePath(QString::fromStdString(shard.file)).toStdString());
        std::string record;
        while (reader.next(record)) {
            const engine::ImageExample example = engine::parseImageExample(record);
            records[example.filename] = example.classTexts;
        }
    }
    return records;
}

} // namespace

class TestMultiLabelCatalog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void migrationAddsLabelSetsToAnOlderProject()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QString::fromLatin1(Project::kDatabaseFile));
        {
            // A project at schema 5, with a dataset of class folders.
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v5"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("PRAGMA application_id = %1").arg(Project::kApplicationId)));
            const std::vector<Migration> v5(projectMigrations().begin(), projectMigrations().begin() + 5);
            QCOMPARE(v5.back().version, 5);
            migrate(db, v5, path);
            for (const char *sql :
                 {"INSERT INTO project_meta(key, value) VALUES('name', 'Old')",
                  "INSERT INTO datasets(id, name, source_dir, val_fraction, test_fraction, imported_at)"
                  " VALUES(1, 'pets', '/data/pets', 0.1, 0.1, '2024-01-01T00:00:00Z')",
                  "INSERT INTO classes(id, dataset_id, name) VALUES(1, 1, 'cat')",
                  "INSERT INTO images(id, dataset_id, rel_path, class_id, split, size, mtime_ns, format, status)"
                  " VALUES(1, 1, 'cat/a.png', 1, 'train', 10, 1, 'png', 'ok')"})
                QVERIFY2(q.exec(QLatin1String(sql)), qPrintable(q.lastError().text()));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v5"));

        auto project = Project::open(tmp.path());
        QCOMPARE(project->schemaVersion(), 6);
        QCOMPARE(projectMigrations().back().version, 6);
        QVERIFY(project->database().tables().contains(QStringLiteral("image_labels")));
        Catalog catalog(project->database());
        const DatasetInfo pets = catalog.dataset(1);
        QCOMPARE(pets.task, QStringLiteral("single_label"));
        QVERIFY(!pets.multiLabel());
        QCOMPARE(pets.labelsFile, QString());
        const CatalogImage image = catalog.image(1);
        QCOMPARE(image.className, QStringLiteral("cat"));
        QVERIFY(image.labels.isEmpty());
        QVERIFY(!image.labelsEdited);
        QCOMPARE(countsText(catalog.classCounts(1)), QStringList{QStringLiteral("cat/train=1")});
        // The task is one of two names.
        QSqlQuery q(project->database());
        QVERIFY(!q.exec(QStringLiteral("UPDATE datasets SET task = 'regression' WHERE id = 1")));
        // A single-label image takes no label set.
        QCOMPARE(QString::fromStdString([&] {
                     try {
                         catalog.setLabels(1, {QStringLiteral("cat")});
                     } catch (const WorkspaceError &e) {
                         return std::string(e.what());
                     }
                     return std::string("no error");
                 }()),
                 QStringLiteral("cat/a.png: dataset \"pets\" has one class per image (its class folders); relabel the "
                                "image instead of giving it a label set"));
    }

    void importWithALabelsFileRefusesEveryBadRowWithItsReason()
    {
        QTemporaryDir tmp;
        const PhotoSet set = makePhotos(tmp);
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        const ImportSummary summary = ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(summary.ok, 6);
        QCOMPARE(summary.duplicates, 1);
        QCOMPARE(summary.rejected, 2 + 5); // missing and notes.jpg; five bad rows

        Catalog catalog(project->database());
        const int id = catalog.datasetId(QStringLiteral("images"));
        QCOMPARE(summary.datasetId, id);
        const DatasetInfo dataset = catalog.dataset(id);
        QVERIFY(dataset.multiLabel());
        QCOMPARE(dataset.labelsFile, QDir::cleanPath(set.labels));
        QCOMPARE(catalog.classes(id), labels("animal,bird,outdoor,person,pet,sky"));

        const QHash<QString, CatalogImage> images = byPath(catalog.images(id));
        QCOMPARE(images.size(), 14);
        QCOMPARE(images.value(QStringLiteral("photos/eagle.jpg")).labels, labels("animal,bird,sky"));
        QCOMPARE(images.value(QStringLiteral("photos/horses.jpg")).labels, labels("animal,outdoor"));
        QCOMPARE(images.value(QStringLiteral("photos/kite.jpg")).labels, labels("outdoor,person,sky"));
        QVERIFY(images.value(QStringLiteral("photos/kite.jpg")).className.isEmpty());
        QVERIFY(!images.value(QStringLiteral("photos/kite.jpg")).labelsEdited);
        const std::map<QString, QString> refused = {
            {QStringLiteral("photos/missing.jpg"), QStringLiteral("listed in labels.csv line 8 but not found")},
            {QStringLiteral("photos/puppy.jpg"), QStringLiteral("duplicate of photos/dog.jpg")},
            {QStringLiteral("labels.csv:11"),
             QStringLiteral("absolute path /abs/x.jpg (paths are relative to the image folder)")},
            {QStringLiteral("labels.csv:12"),
             QStringLiteral("path ../up.jpg goes up with '..' (paths stay inside the image folder)")},
            {QStringLiteral("labels.csv:13"), QStringLiteral("a second row for photos/eagle.jpg (the first is on line 3)")},
            {QStringLiteral("labels.csv:14"),
             QStringLiteral("an empty label for photos/gap.jpg (two separators in a row, or one at an end)")},
            {QStringLiteral("labels.csv:15"), QStringLiteral("no labels for photos/none.jpg")},
        };
        for (const auto &[path, reason] : refused) {
            QVERIFY2(images.contains(path), qPrintable(path));
            QCOMPARE(images.value(path).reason, reason);
            QVERIFY(!images.value(path).usable());
        }
        const CatalogImage notes = images.value(QStringLiteral("photos/notes.jpg"));
        QCOMPARE(notes.status, QStringLiteral("rejected"));
        QVERIFY2(!notes.reason.isEmpty(), "a file that does not decode is refused with its reason");
        // The rejected list names each of them, as a folder import's does.
        const QString csv = tmp.filePath(QStringLiteral("rejected.csv"));
        catalog.writeRejectedCsv(id, csv);
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains(QStringLiteral("labels.csv:15,rejected,no labels for photos/none.jpg\n")), qPrintable(text));
        QCOMPARE(text.count(QLatin1Char('\n')), 1 + 8);

        // Per label: the usable images that carry it.
        QCOMPARE(countsText(catalog.classCounts(id)),
                 labels("animal/train=4,bird/train=1,outdoor/train=3,person/train=2,pet/train=1,sky/train=2"));
        const LabelCooccurrence co = catalog.labelCooccurrence(id);
        QCOMPARE(co.labels, catalog.classes(id));
        auto at = [&co](const char *a, const char *b) {
            return co.count(int(co.labels.indexOf(QLatin1String(a))), int(co.labels.indexOf(QLatin1String(b))));
        };
        QCOMPARE(at("animal", "animal"), 4);
        QCOMPARE(at("outdoor", "person"), 2); // person.jpg and kite.jpg
        QCOMPARE(at("person", "outdoor"), 2);
        QCOMPARE(at("animal", "sky"), 1);     // eagle.jpg
        QCOMPARE(at("pet", "bird"), 0);
        QCOMPARE(at("sky", "sky"), 2);

        // The same folder and labels file again: nothing is read, nothing changes.
        const ImportSummary again = ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(again.added, 0);
        QCOMPARE(again.removed, 0);
        QCOMPARE(again.changed, 0);
        QCOMPARE(countsText(catalog.classCounts(id)), countsText(catalog.classCounts(id)));

        // A labels file that cannot be used at all fails the import, naming the file.
        ImportJob::Params missing = importParams(*project, set);
        missing.labelsFile = tmp.filePath(QStringLiteral("nope.csv"));
        missing.name = QStringLiteral("other");
        QString message;
        try {
            ImportJob::importFolder(missing, {});
        } catch (const std::exception &e) {
            message = QString::fromUtf8(e.what());
        }
        QCOMPARE(message, QDir::cleanPath(missing.labelsFile) + QStringLiteral(": labels file not found"));
        QCOMPARE(catalog.datasetId(QStringLiteral("other")), 0);
    }

    void editedLabelSetsGoIntoTheShardsAndSurviveAReimport()
    {
        QTemporaryDir tmp;
        const PhotoSet set = makePhotos(tmp);
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        const int id = ImportJob::importFolder(importParams(*project, set), {}).datasetId;
        Catalog catalog(project->database());
        QHash<QString, CatalogImage> images = byPath(catalog.images(id));
        const qint64 eagle = images.value(QStringLiteral("photos/eagle.jpg")).id;
        const qint64 giraffe = images.value(QStringLiteral("photos/giraffe.jpg")).id;
        const qint64 horses = images.value(QStringLiteral("photos/horses.jpg")).id;

        QCOMPARE(errorOf([&] { catalog.setLabels(eagle, {}); }),
                 QStringLiteral("photos/eagle.jpg: an image needs at least one label; exclude it instead"));
        QCOMPARE(errorOf([&] { catalog.setLabels(eagle, labels("bird,zebra")); }),
                 QStringLiteral("photos/eagle.jpg: cannot give it the label \"zebra\": dataset \"images\" has no such "
                                "label"));
        QCOMPARE(errorOf([&] { catalog.relabel(eagle, QStringLiteral("bird")); }),
                 QStringLiteral("photos/eagle.jpg: cannot relabel it as \"bird\": dataset \"images\" is multi-label; "
                                "edit the image's label set instead"));
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,sky")); // the refused edits changed nothing

        catalog.setLabels(eagle, labels("sky,bird,sky"));
        catalog.setLabels(giraffe, labels("outdoor,animal"));
        catalog.setExcluded(horses, true);
        QCOMPARE(catalog.image(eagle).labels, labels("bird,sky"));
        QVERIFY(catalog.image(eagle).labelsEdited);
        QCOMPARE(countsText(catalog.classCounts(id)),
                 labels("animal/train=2,bird/train=1,outdoor/train=3,person/train=2,pet/train=1,sky/train=2"));
        const LabelCooccurrence co = catalog.labelCooccurrence(id);
        QCOMPARE(co.count(int(co.labels.indexOf(QStringLiteral("animal"))), int(co.labels.indexOf(QStringLiteral("outdoor")))),
                 1); // giraffe.jpg now; horses.jpg is excluded

        // A re-import keeps the edits of files whose content did not change.
        ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(catalog.image(eagle).labels, labels("bird,sky"));
        QCOMPARE(catalog.image(giraffe).labels, labels("animal,outdoor"));

        // Convert from the catalog: the edited sets, the exclusion, the file's sets elsewhere.
        ConvertJob::Params params;
        params.sourceDir = set.images;
        params.outDir = tmp.filePath(QStringLiteral("shards"));
        params.databasePath = project->databasePath();
        params.datasetName = QStringLiteral("images");
        params.valFraction = 0.0;
        params.testFraction = 0.0;
        QString error;
        const ConvertSummary converted = runJob(new ConvertJob(params), &error).value<ConvertSummary>();
        QCOMPARE(error, QString());
        QVERIFY(converted.multiLabel);
        QCOMPARE(converted.records, qint64(5));
        const std::map<std::string, std::vector<std::string>> records = readRecords(params.outDir);
        using Labels = std::vector<std::string>;
        QCOMPARE(records.size(), std::size_t(5));
        QVERIFY(records.at("photos/eagle.jpg") == (Labels{"bird", "sky"}));
        QVERIFY(records.at("photos/giraffe.jpg") == (Labels{"animal", "outdoor"}));
        QVERIFY(records.at("photos/kite.jpg") == (Labels{"outdoor", "person", "sky"}));
        QVERIFY(records.count("photos/horses.jpg") == 0);
        const engine::DatasetManifest manifest = engine::readDatasetManifest(params.outDir.toStdString());
        QCOMPARE(QString::fromStdString(manifest.task), QStringLiteral("multi_label"));
        QCOMPARE(manifest.counts.at("train").at("animal"), std::uint64_t(2));
        const engine::VerifyReport verify = engine::verifyDataset(params.outDir.toStdString());
        QVERIFY2(verify.ok(), verify.problems.empty() ? "" : verify.problems.front().c_str());

        // A file that now holds another picture takes the labels file's set again.
        copyFile(kPhotos + QStringLiteral("scream.jpg"), set.images + QStringLiteral("/photos/giraffe.jpg"));
        const ImportSummary changed = ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(changed.changed, 1);
        QCOMPARE(catalog.image(giraffe).labels, labels("animal"));
        QVERIFY(!catalog.image(giraffe).labelsEdited);
        QCOMPARE(catalog.image(eagle).labels, labels("bird,sky"));
    }

    void labelNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("problem");
        QTest::newRow("plain") << QStringLiteral("outdoor") << QString();
        QTest::newRow("spaces inside") << QStringLiteral("  hot air balloon ") << QString();
        QTest::newRow("not ascii") << QStringLiteral("狗") << QString();
        QTest::newRow("quote") << QStringLiteral("6\" nail") << QString();
        QTest::newRow("longest") << QString(Catalog::kMaxLabelLength, QLatin1Char('x')) << QString();
        QTest::newRow("empty") << QString() << QStringLiteral("a label needs a name (spaces alone are none)");
        QTest::newRow("spaces") << QStringLiteral("   ") << QStringLiteral("a label needs a name (spaces alone are none)");
        QTest::newRow("too long") << QString(Catalog::kMaxLabelLength + 1, QLatin1Char('x'))
                                  << QStringLiteral("a label has at most 100 characters; this one has 101");
        QTest::newRow("semicolon") << QStringLiteral("cat;dog")
                                   << QStringLiteral("a label cannot hold ';' or '|' (they separate the labels in a "
                                                     "labels file)");
        QTest::newRow("bar") << QStringLiteral("cat|dog")
                             << QStringLiteral("a label cannot hold ';' or '|' (they separate the labels in a labels "
                                               "file)");
        QTest::newRow("comma") << QStringLiteral("cat,dog")
                               << QStringLiteral("a label cannot hold ',' (it separates the columns of a CSV labels "
                                                 "file)");
        QTest::newRow("line break") << QStringLiteral("cat\ndog")
                                    << QStringLiteral("a label cannot hold a line break, a tab or another control "
                                                      "character");
        QTest::newRow("tab") << QStringLiteral("cat\tdog")
                             << QStringLiteral("a label cannot hold a line break, a tab or another control character");
    }

    void labelNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, problem);
        QCOMPARE(Catalog::labelNameProblem(name), problem);
    }

    void addsANewLabelAndConvertsWithIt()
    {
        QTemporaryDir tmp;
        const PhotoSet set = makePhotos(tmp);
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        const int id = ImportJob::importFolder(importParams(*project, set), {}).datasetId;
        Catalog catalog(project->database());
        const QHash<QString, CatalogImage> images = byPath(catalog.images(id));
        const qint64 eagle = images.value(QStringLiteral("photos/eagle.jpg")).id;
        const qint64 kite = images.value(QStringLiteral("photos/kite.jpg")).id;
        const qint64 giraffe = images.value(QStringLiteral("photos/giraffe.jpg")).id;

        // A new label (trimmed) joins the dataset's labels and the image's set, with the set given.
        QCOMPARE(catalog.addLabel(eagle, QStringLiteral("  flying "), labels("animal,bird,sky")),
                 QStringLiteral("flying"));
        QCOMPARE(catalog.classes(id), labels("animal,bird,flying,outdoor,person,pet,sky"));
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,flying,sky"));
        QVERIFY(catalog.image(eagle).labelsEdited);
        // The set given replaces the image's, as setLabels does; the label is added to it.
        QCOMPARE(catalog.addLabel(kite, QStringLiteral("flying"), labels("sky")), QStringLiteral("flying"));
        QCOMPARE(catalog.image(kite).labels, labels("flying,sky"));
        // A label the dataset has (the same text) is simply added: no second class.
        QCOMPARE(catalog.addLabel(giraffe, QStringLiteral("outdoor"), labels("animal")), QStringLiteral("outdoor"));
        QCOMPARE(catalog.image(giraffe).labels, labels("animal,outdoor"));
        QCOMPARE(catalog.classes(id).size(), 7);
        QCOMPARE(countsText(catalog.classCounts(id)),
                 labels("animal/train=4,bird/train=1,flying/train=2,outdoor/train=3,person/train=1,pet/train=1,"
                        "sky/train=2"));
        const LabelCooccurrence co = catalog.labelCooccurrence(id);
        QCOMPARE(co.labels, catalog.classes(id));
        QCOMPARE(co.count(int(co.labels.indexOf(QStringLiteral("flying"))), int(co.labels.indexOf(QStringLiteral("sky")))),
                 2);

        // Bad names are refused with the reason, and change nothing.
        QCOMPARE(errorOf([&] { catalog.addLabel(eagle, QStringLiteral("sky;blue"), labels("bird")); }),
                 QStringLiteral("photos/eagle.jpg: cannot add the label \"sky;blue\": a label cannot hold ';' or '|' "
                                "(they separate the labels in a labels file)"));
        QCOMPARE(errorOf([&] { catalog.addLabel(eagle, QStringLiteral(" "), labels("bird")); }),
                 QStringLiteral("photos/eagle.jpg: cannot add the label \"\": a label needs a name (spaces alone are "
                                "none)"));
        QCOMPARE(errorOf([&] { catalog.addLabel(eagle, QStringLiteral("new"), labels("bird,zebra")); }),
                 QStringLiteral("photos/eagle.jpg: cannot give it the label \"zebra\": dataset \"images\" has no such "
                                "label"));
        QCOMPARE(catalog.classes(id).size(), 7); // the refused "new" was rolled back with the rest
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,flying,sky"));

        // A re-import keeps the edits and the label they use, though the labels file never names it.
        ImportJob::importFolder(importParams(*project, set), {});
        QVERIFY(catalog.classes(id).contains(QStringLiteral("flying")));
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,flying,sky"));

        // Converted, the new label is a class of dataset.json (in the sorted order the classes
        // always have) and the images carry it.
        ConvertJob::Params params;
        params.sourceDir = set.images;
        params.outDir = tmp.filePath(QStringLiteral("shards"));
        params.databasePath = project->databasePath();
        params.datasetName = QStringLiteral("images");
        params.valFraction = 0.0;
        params.testFraction = 0.0;
        QString error;
        const ConvertSummary converted = runJob(new ConvertJob(params), &error).value<ConvertSummary>();
        QCOMPARE(error, QString());
        QCOMPARE(converted.classes, labels("animal,bird,flying,outdoor,person,pet,sky"));
        const engine::DatasetManifest manifest = engine::readDatasetManifest(params.outDir.toStdString());
        QVERIFY(manifest.classes
                == (std::vector<std::string>{"animal", "bird", "flying", "outdoor", "person", "pet", "sky"}));
        QCOMPARE(manifest.counts.at("train").at("flying"), std::uint64_t(2));
        const std::map<std::string, std::vector<std::string>> records = readRecords(params.outDir);
        using Labels = std::vector<std::string>;
        QVERIFY(records.at("photos/eagle.jpg") == (Labels{"animal", "bird", "flying", "sky"}));
        QVERIFY(records.at("photos/kite.jpg") == (Labels{"flying", "sky"}));
        QVERIFY(records.at("photos/giraffe.jpg") == (Labels{"animal", "outdoor"}));
        const engine::VerifyReport verify = engine::verifyDataset(params.outDir.toStdString());
        QVERIFY2(verify.ok(), verify.problems.empty() ? "" : verify.problems.front().c_str());
    }

    void resetGoesBackToTheLabelsFileSet()
    {
        QTemporaryDir tmp;
        const PhotoSet set = makePhotos(tmp);
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        const int id = ImportJob::importFolder(importParams(*project, set), {}).datasetId;
        Catalog catalog(project->database());
        const QHash<QString, CatalogImage> images = byPath(catalog.images(id));
        const qint64 eagle = images.value(QStringLiteral("photos/eagle.jpg")).id;
        const qint64 kite = images.value(QStringLiteral("photos/kite.jpg")).id;
        const qint64 dog = images.value(QStringLiteral("photos/dog.jpg")).id;

        catalog.setLabels(eagle, labels("bird"));
        catalog.addLabel(kite, QStringLiteral("toy"), labels("sky"));
        QCOMPARE(catalog.image(kite).labels, labels("sky,toy"));

        catalog.resetLabels(eagle);
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,sky"));
        QVERIFY(!catalog.image(eagle).labelsEdited);
        catalog.resetLabels(kite);
        QCOMPARE(catalog.image(kite).labels, labels("outdoor,person,sky"));
        QVERIFY(!catalog.image(kite).labelsEdited);
        // The label no image carries any more stays until a re-import (counted 0 meanwhile).
        QVERIFY(catalog.classes(id).contains(QStringLiteral("toy")));
        // An image that was not edited is left alone.
        catalog.resetLabels(dog);
        QCOMPARE(catalog.image(dog).labels, labels("animal,pet"));

        // A re-import follows the file for the reset images, and drops the unused label.
        catalog.setLabels(dog, labels("pet"));
        const ImportSummary again = ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(again.changed, 0);
        QCOMPARE(catalog.image(eagle).labels, labels("animal,bird,sky"));
        QVERIFY(!catalog.image(eagle).labelsEdited);
        QCOMPARE(catalog.image(kite).labels, labels("outdoor,person,sky"));
        QCOMPARE(catalog.classes(id), labels("animal,bird,outdoor,person,pet,sky"));
        QCOMPARE(catalog.image(dog).labels, labels("pet")); // the edit since is kept, as ever
        QVERIFY(catalog.image(dog).labelsEdited);

        // A labels file modified after the import may not hold the import's rows: refused until a
        // re-import (which keeps the edit); then the file's current row is the set.
        writeText(set.labels, "path,labels\n"
                              "photos/dog.jpg,animal;pet;outdoor\n"
                              "photos/eagle.jpg,animal|bird|sky\n");
        setModified(set.labels, QDateTime::currentDateTimeUtc().addSecs(120));
        const QString shown = QDir::toNativeSeparators(QDir::cleanPath(set.labels));
        const QString message = errorOf([&] { catalog.resetLabels(dog); });
        QVERIFY2(message.startsWith(QStringLiteral("photos/dog.jpg: cannot reset its labels: %1 was modified (").arg(shown)),
                 qPrintable(message));
        QVERIFY2(message.endsWith(QStringLiteral("so its rows may no longer be the ones imported; re-import the "
                                                 "dataset (your edits are kept), then reset the image")),
                 qPrintable(message));
        QCOMPARE(catalog.image(dog).labels, labels("pet"));
        setModified(set.labels, QDateTime::currentDateTimeUtc().addSecs(-120));
        ImportJob::importFolder(importParams(*project, set), {});
        QCOMPARE(catalog.image(dog).labels, labels("pet"));
        catalog.resetLabels(dog);
        QCOMPARE(catalog.image(dog).labels, labels("animal,outdoor,pet"));
        QVERIFY(!catalog.image(dog).labelsEdited);

        // No usable row for the image: said so (the file is as imported; its row is bad).
        catalog.setLabels(eagle, labels("sky"));
        writeText(set.labels, "path,labels\n"
                              "photos/dog.jpg,animal;pet;outdoor\n"
                              "photos/eagle.jpg,\n");
        setModified(set.labels, QDateTime::currentDateTimeUtc().addSecs(-120));
        QCOMPARE(errorOf([&] { catalog.resetLabels(eagle); }),
                 QStringLiteral("photos/eagle.jpg: cannot reset its labels: %1 has no usable row for it").arg(shown));
        // The file is gone.
        QVERIFY(QFile::remove(set.labels));
        QCOMPARE(errorOf([&] { catalog.resetLabels(eagle); }),
                 QStringLiteral("photos/eagle.jpg: cannot reset its labels to the labels file's: %1 is gone (re-import "
                                "the dataset with its labels file, or tick the labels by hand)")
                     .arg(shown));
        QCOMPARE(catalog.image(eagle).labels, labels("sky"));
        QVERIFY(catalog.image(eagle).labelsEdited);
        QCOMPARE(errorOf([&] { catalog.resetLabels(999999); }),
                 QStringLiteral("No image 999999 in the catalog; it may have been removed by a re-import"));
    }

    void singleLabelImagesHaveNoLabelSetToAddToOrReset()
    {
        QTemporaryDir tmp;
        copyFile(kPhotos + QStringLiteral("dog.jpg"), tmp.filePath(QStringLiteral("pets/dog/a.jpg")));
        copyFile(kPhotos + QStringLiteral("eagle.jpg"), tmp.filePath(QStringLiteral("pets/bird/b.jpg")));
        auto project = Project::create(tmp.filePath(QStringLiteral("proj")));
        ImportJob::Params params;
        params.databasePath = project->databasePath();
        params.sourceDir = tmp.filePath(QStringLiteral("pets"));
        params.valFraction = 0.0;
        params.testFraction = 0.0;
        const int id = ImportJob::importFolder(params, {}).datasetId;
        Catalog catalog(project->database());
        const qint64 dog = byPath(catalog.images(id)).value(QStringLiteral("dog/a.jpg")).id;
        QVERIFY(dog > 0);
        QCOMPARE(errorOf([&] { catalog.addLabel(dog, QStringLiteral("puppy"), {}); }),
                 QStringLiteral("dog/a.jpg: dataset \"pets\" has one class per image (its class folders); relabel the "
                                "image instead of giving it a label set"));
        QCOMPARE(errorOf([&] { catalog.resetLabels(dog); }),
                 QStringLiteral("dog/a.jpg: dataset \"pets\" has one class per image (its class folders); it has no "
                                "labels file to reset the image's labels to"));
        QCOMPARE(catalog.classes(id), labels("bird,dog"));
    }
};

QTEST_GUILESS_MAIN(TestMultiLabelCatalog)
#include "test_multi_label_catalog.moc"
