// The project database's record of exports (ExportStore::record/load/list and the schema
// migration that adds the table): paths inside the project are kept relative to it, so a moved
// project keeps its history; paths outside stay absolute.
#include "workspace/export_store.h"
#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using namespace lathe::workspace;

class TestExportStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTripAndOrder();
    void movedProjectKeepsItsHistory();
    void missingExportIsReported();
    void migratesAnOlderProject();

private:
    static ExportRequest request(const QString &runDir, const QString &outDir);
};

ExportRequest TestExportStore::request(const QString &runDir, const QString &outDir)
{
    ExportRequest p;
    p.runDir = runDir;
    p.checkpoint = QStringLiteral("last");
    p.formats = {QStringLiteral("onnx"), QStringLiteral("safetensors")};
    p.outDir = outDir;
    return p;
}

void TestExportStore::roundTripAndOrder()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    const QString db = project->databasePath();
    const QString run = QDir(project->runsDir()).filePath(QStringLiteral("r1"));
    const QString inside = QDir(project->exportsDir()).filePath(QStringLiteral("r1-last"));
    const QString outside = QDir::cleanPath(tmp.filePath(QStringLiteral("elsewhere/out")));
    const qint64 first = ExportStore::record(db, request(run, inside), true, QStringLiteral("{\"status\":\"passed\"}"));
    const qint64 second = ExportStore::record(db, request(run + QStringLiteral("/"), outside), false,
                                              QStringLiteral("{\"error\":\"no checkpoint\"}"));
    QVERIFY(first > 0 && second > first);

    const QVector<StoredExport> all = ExportStore::list(db);
    QCOMPARE(all.size(), 2);
    QCOMPARE(all.at(0).id, second); // newest first
    QCOMPARE(all.at(1).id, first);
    const StoredExport ok = ExportStore::load(db, first);
    QCOMPARE(ok.runDir, QDir::cleanPath(run));
    QCOMPARE(ok.outDir, QDir::cleanPath(inside));
    QCOMPARE(ok.checkpoint, QStringLiteral("last"));
    QCOMPARE(ok.formats, (QStringList{QStringLiteral("onnx"), QStringLiteral("safetensors")}));
    QVERIFY(ok.ok);
    QCOMPARE(ok.reportJson, QStringLiteral("{\"status\":\"passed\"}"));
    QVERIFY(!ok.created.isEmpty());
    const StoredExport failed = all.at(0);
    QVERIFY(!failed.ok);
    QCOMPARE(failed.runDir, QDir::cleanPath(run));
    QCOMPARE(failed.outDir, outside);

    // As stored: relative inside the project, absolute outside.
    QSqlQuery query(project->database());
    QVERIFY(query.exec(QStringLiteral("SELECT run_dir, out_dir, status FROM exports ORDER BY id")));
    QVERIFY(query.next());
    QCOMPARE(query.value(0).toString(), QStringLiteral("runs/r1"));
    QCOMPARE(query.value(1).toString(), QStringLiteral("exports/r1-last"));
    QCOMPARE(query.value(2).toString(), QStringLiteral("ok"));
    QVERIFY(query.next());
    QCOMPARE(query.value(1).toString(), outside);
    QCOMPARE(query.value(2).toString(), QStringLiteral("failed"));
}

void TestExportStore::movedProjectKeepsItsHistory()
{
    QTemporaryDir tmp;
    const QString before = tmp.filePath(QStringLiteral("before"));
    {
        auto project = Project::create(before);
        ExportStore::record(project->databasePath(),
                            request(QDir(project->runsDir()).filePath(QStringLiteral("r")),
                                    QDir(project->exportsDir()).filePath(QStringLiteral("e"))),
                            true, QStringLiteral("{}"));
    }
    const QString after = QDir::cleanPath(tmp.filePath(QStringLiteral("after")));
    QVERIFY(QDir().rename(before, after));
    auto project = Project::open(after);
    const QVector<StoredExport> all = ExportStore::list(project->databasePath());
    QCOMPARE(all.size(), 1);
    QCOMPARE(all.first().runDir, after + QStringLiteral("/runs/r"));
    QCOMPARE(all.first().outDir, after + QStringLiteral("/exports/e"));
}

void TestExportStore::missingExportIsReported()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    try {
        ExportStore::load(project->databasePath(), 42);
        QFAIL("loading a missing export did not throw");
    } catch (const WorkspaceError &e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("42")));
        QVERIFY(QString::fromUtf8(e.what()).contains(project->databasePath()));
    }
    // A file that is not a project database is refused, naming it.
    try {
        ExportStore::list(tmp.filePath(QStringLiteral("missing.sqlite")));
        QFAIL("listing a missing database did not throw");
    } catch (const WorkspaceError &e) {
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("missing.sqlite")));
    }
}

void TestExportStore::migratesAnOlderProject()
{
    QTemporaryDir tmp;
    const QString folder = tmp.filePath(QStringLiteral("p"));
    QString db;
    {
        auto project = Project::create(folder);
        db = project->databasePath();
        QSqlQuery query(project->database());
        // Back to version 3, as a project written before exports were recorded.
        QVERIFY(query.exec(QStringLiteral("DROP TABLE exports")));
        QVERIFY(query.exec(QStringLiteral("PRAGMA user_version = 3")));
    }
    QVERIFY(ExportStore::list(db).isEmpty()); // the store's own connection migrates first
    auto project = Project::open(folder);
    QCOMPARE(project->schemaVersion(), projectMigrations().back().version);
    QVERIFY(ExportStore::record(db, request(folder + QStringLiteral("/runs/r"), folder + QStringLiteral("/exports/e")),
                                true, QStringLiteral("{}"))
            > 0);
}

QTEST_MAIN(TestExportStore)
#include "test_export_store.moc"
