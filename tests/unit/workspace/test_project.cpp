#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace lathe::workspace;

namespace {

QByteArray fileHash(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

QVariant pragma(Project &p, const QString &name)
{
    QSqlQuery q(p.database());
    if (!q.exec(QStringLiteral("PRAGMA ") + name) || !q.next())
        return {};
    return q.value(0);
}

// Runs SQL on a database file through a private connection.
void execOn(const QString &path, const QStringList &statements)
{
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        for (const QString &s : statements)
            QVERIFY2(q.exec(s), qPrintable(q.lastError().text()));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
}

QString openError(const QString &folder)
{
    try {
        Project::open(folder);
    } catch (const WorkspaceError &e) {
        return e.message();
    }
    return {};
}

} // namespace

class TestProject : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createMakesFoldersAndAConfiguredDatabase()
    {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("proj"));
        auto p = Project::create(folder, QStringLiteral("Flowers"));
        QCOMPARE(p->name(), QStringLiteral("Flowers"));
        for (const QString &sub : {p->datasetsDir(), p->runsDir(), p->exportsDir()})
            QVERIFY2(QFileInfo(sub).isDir(), qPrintable(sub));
        QCOMPARE(pragma(*p, QStringLiteral("journal_mode")).toString(), QStringLiteral("wal"));
        QCOMPARE(pragma(*p, QStringLiteral("foreign_keys")).toInt(), 1);
        QCOMPARE(pragma(*p, QStringLiteral("application_id")).toInt(), Project::kApplicationId);
        QCOMPARE(p->schemaVersion(), projectMigrations().back().version);
        QVERIFY(!p->meta(QStringLiteral("created")).isEmpty());
        // WAL mode shows on disk as a -wal file beside the database while it is open.
        QVERIFY(QFileInfo::exists(p->databasePath() + QStringLiteral("-wal")));
    }

    void reopenKeepsData()
    {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("proj"));
        Project::create(folder)->setMeta(QStringLiteral("note"), QStringLiteral("kept"));
        auto p = Project::open(folder);
        QCOMPARE(p->meta(QStringLiteral("note")), QStringLiteral("kept"));
        QCOMPARE(p->name(), QStringLiteral("proj"));
        QVERIFY(Project::isProjectFolder(folder));
    }

    void twoProjectsAtOnce()
    {
        QTemporaryDir tmp;
        auto a = Project::create(tmp.filePath(QStringLiteral("a")));
        auto b = Project::create(tmp.filePath(QStringLiteral("b")));
        a->setMeta(QStringLiteral("x"), QStringLiteral("1"));
        b->setMeta(QStringLiteral("x"), QStringLiteral("2"));
        QCOMPARE(a->meta(QStringLiteral("x")), QStringLiteral("1"));
        QCOMPARE(b->meta(QStringLiteral("x")), QStringLiteral("2"));
    }

    void createRefusesANonEmptyFolder()
    {
        QTemporaryDir tmp;
        QFile f(tmp.filePath(QStringLiteral("photo.jpg")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
        f.close();
        QVERIFY_THROWS_EXCEPTION(WorkspaceError, Project::create(tmp.path()));
        QVERIFY(!QFileInfo::exists(tmp.filePath(QString::fromLatin1(Project::kDatabaseFile))));
    }

    void openRefusesWhatIsNotAProject_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero bytes") << QByteArray() << QStringLiteral("damaged or is not a SQLite database");
        QTest::newRow("text") << QByteArray("hello, not a database\n") << QStringLiteral("damaged or is not a SQLite");
        QTest::newRow("random") << QByteArray(8192, '\x9c') << QStringLiteral("damaged or is not a SQLite");
        QTest::newRow("header only") << QByteArray("SQLite format 3\0garbage-garbage-garbage", 40)
                                     << QStringLiteral("project.sqlite");
    }

    void openRefusesWhatIsNotAProject()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const QString db = tmp.filePath(QString::fromLatin1(Project::kDatabaseFile));
        QFile f(db);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        const QByteArray before = fileHash(db);
        const QString message = openError(tmp.path());
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(db), qPrintable(message));
        QCOMPARE(fileHash(db), before); // never modified
        QCOMPARE(QDir(tmp.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 1);
    }

    void openRefusesAFolderWithoutDatabase()
    {
        QTemporaryDir tmp;
        QVERIFY(openError(tmp.path()).contains(QStringLiteral("not a Lathe project")));
        QVERIFY(openError(tmp.filePath(QStringLiteral("missing"))).contains(QStringLiteral("folder not found")));
    }

    void openRefusesANewerSchemaWithoutTouchingIt()
    {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("proj"));
        QString db;
        {
            auto p = Project::create(folder);
            db = p->databasePath();
        }
        execOn(db, {QStringLiteral("PRAGMA user_version = 99"), QStringLiteral("PRAGMA journal_mode = DELETE")});
        const QByteArray before = fileHash(db);
        const QString message = openError(folder);
        QVERIFY2(message.contains(QStringLiteral("newer version of Lathe")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("schema 99")), qPrintable(message));
        QCOMPARE(fileHash(db), before);
    }

    void openRefusesAnotherProgramsDatabase()
    {
        QTemporaryDir tmp;
        const QString db = tmp.filePath(QString::fromLatin1(Project::kDatabaseFile));
        execOn(db, {QStringLiteral("CREATE TABLE contacts(name TEXT)")});
        const QByteArray before = fileHash(db);
        const QString message = openError(tmp.path());
        QVERIFY2(message.contains(QStringLiteral("another program")), qPrintable(message));
        QCOMPARE(fileHash(db), before);
    }

    void openRefusesADamagedDatabase()
    {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("proj"));
        QString db;
        {
            auto p = Project::create(folder);
            db = p->databasePath();
            for (int i = 0; i < 400; ++i)
                p->setMeta(QStringLiteral("key%1").arg(i), QString(200, QLatin1Char('v')));
        }
        execOn(db, {QStringLiteral("PRAGMA journal_mode = DELETE")});
        QFile f(db);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.size() > 8192);
        for (int page = 1; page < 4; ++page) { // the b-tree headers of pages 2-4; the file header stays valid
            f.seek(4096 * page);
            f.write(QByteArray(64, '\xff'));
        }
        f.close();
        const QByteArray before = fileHash(db);
        const QString message = openError(folder);
        QVERIFY2(message.contains(QStringLiteral("damaged")), qPrintable(message));
        QCOMPARE(fileHash(db), before);
    }

    void migrationBringsAnOldDatabaseUpToDate()
    {
        QTemporaryDir tmp;
        const QString db = tmp.filePath(QString::fromLatin1(Project::kDatabaseFile));
        // A version-0 file: ours (application_id) but without any schema yet.
        execOn(db, {QStringLiteral("PRAGMA application_id = %1").arg(Project::kApplicationId)});
        auto p = Project::open(tmp.path());
        QCOMPARE(p->schemaVersion(), projectMigrations().back().version);
        p->setMeta(QStringLiteral("k"), QStringLiteral("v"));
        QCOMPARE(p->meta(QStringLiteral("k")), QStringLiteral("v"));
    }

    void failedMigrationLeavesTheLastCompleteVersion()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("m.sqlite"));
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("m"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            const std::vector<Migration> steps = {
                {1, {QStringLiteral("CREATE TABLE a(x INTEGER)")}},
                {2, {QStringLiteral("CREATE TABLE b(y INTEGER)"), QStringLiteral("THIS IS NOT SQL")}},
            };
            try {
                migrate(db, steps, path);
                QFAIL("expected the migration to fail");
            } catch (const WorkspaceError &e) {
                QVERIFY2(e.message().contains(QStringLiteral("version 2")), qPrintable(e.message()));
                QVERIFY2(e.message().contains(QStringLiteral("unchanged at version 1")), qPrintable(e.message()));
            }
            QCOMPARE(schemaVersion(db, path), 1);
            QVERIFY(db.tables().contains(QStringLiteral("a")));
            QVERIFY(!db.tables().contains(QStringLiteral("b"))); // rolled back with its step
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("m"));
    }

    void metaSurvivesAKilledWriterThanksToWal()
    {
        // A committed write is in the -wal file; a fresh open (another "process") sees it.
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(QStringLiteral("proj"));
        auto writer = Project::create(folder);
        writer->setMeta(QStringLiteral("step"), QStringLiteral("42"));
        auto reader = Project::open(folder);
        QCOMPARE(reader->meta(QStringLiteral("step")), QStringLiteral("42"));
    }
};

QTEST_GUILESS_MAIN(TestProject)
#include "test_project.moc"
