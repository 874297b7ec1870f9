// The project database's stored evaluations (EvaluationStore::store/load/latest/list and the
// schema migration that adds them), on hand-made predictions with computeMetrics' metrics.
#include "workspace/evaluation_store.h"
#include "workspace/project.h"
#include "workspace/schema_migrations.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

using namespace lathe;
using namespace lathe::workspace;

class TestEvaluateStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void latestAndList();
    void malformedRowsAreReported();
    void migratesAnOlderProject();
    void summariesSayTopOneOrMap();

private:
    static engine::EvalResult makeResult(int n, bool tta);
};

engine::EvalResult TestEvaluateStore::makeResult(int n, bool tta)
{
    engine::EvalResult result;
    result.classes = {"cat", "dog", "fox"};
    std::vector<int> labels;
    std::vector<std::vector<float>> probs;
    for (int i = 0; i < n; ++i) {
        const int label = i % 3;
        const int predicted = (i % 4 == 0) ? (label + 1) % 3 : label;
        std::vector<float> row(3, 0.1f);
        row[std::size_t(predicted)] = 0.8f;
        labels.push_back(label);
        probs.push_back(row);
        engine::Prediction p;
        p.record = std::uint64_t(i);
        p.filename = "val/" + result.classes[std::size_t(label)] + "/img, \"" + std::to_string(i) + "\".png";
        p.label = label;
        p.topClasses = {predicted, (predicted + 1) % 3, (predicted + 2) % 3};
        p.topProbs = {0.8f, 0.1f, 0.1f};
        p.loss = -std::log(row[std::size_t(label)]);
        result.predictions.push_back(p);
    }
    result.metrics = engine::computeMetrics(labels, probs, result.classes);
    result.metrics["tta"] = tta;
    result.metrics["data_dir"] = "/data/shards";
    return result;
}

void TestEvaluateStore::roundTrip()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    QVERIFY(project->schemaVersion() >= 3); // the version that added stored evaluations
    const engine::EvalResult result = makeResult(12, false);
    const qint64 id = EvaluationStore::store(project->databasePath(), tmp.filePath(QStringLiteral("runs/r1/")),
                                             QStringLiteral("best"), QStringLiteral("val"), result);
    QVERIFY(id > 0);
    const StoredEvaluation stored = EvaluationStore::load(project->databasePath(), id);
    QCOMPARE(stored.id, id);
    QCOMPARE(stored.runDir, QDir::cleanPath(tmp.filePath(QStringLiteral("runs/r1"))));
    QCOMPARE(stored.checkpoint, QStringLiteral("best"));
    QCOMPARE(stored.split, QStringLiteral("val"));
    QVERIFY(!stored.created.isEmpty());
    QCOMPARE(stored.result.classes, result.classes);
    QVERIFY(stored.result.metrics == result.metrics); // "classes" travels beside the metrics, not in them
    QCOMPARE(stored.result.predictions.size(), result.predictions.size());
    for (std::size_t i = 0; i < result.predictions.size(); ++i) {
        const engine::Prediction &a = result.predictions[i];
        const engine::Prediction &b = stored.result.predictions[i];
        QCOMPARE(b.record, a.record);
        QCOMPARE(b.filename, a.filename);
        QCOMPARE(b.label, a.label);
        QCOMPARE(b.topClasses, a.topClasses);
        QCOMPARE(b.topProbs, a.topProbs);
        QCOMPARE(b.loss, a.loss);
    }
    // The pred and prob columns hold the top-1 for SQL users.
    QSqlQuery query(project->database());
    QVERIFY(query.exec(QStringLiteral("SELECT COUNT(*) FROM predictions WHERE pred = label")));
    QVERIFY(query.next());
    QCOMPARE(query.value(0).toInt(), 9);
    QVERIFY_THROWS_EXCEPTION(WorkspaceError, EvaluationStore::load(project->databasePath(), id + 100));
}

void TestEvaluateStore::latestAndList()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    const QString db = project->databasePath();
    const QString run = tmp.filePath(QStringLiteral("runs/r1"));
    QCOMPARE(EvaluationStore::latest(db, run, QStringLiteral("best"), QStringLiteral("val"), false), qint64(0));
    const qint64 a = EvaluationStore::store(db, run, QStringLiteral("best"), QStringLiteral("val"), makeResult(8, false));
    const qint64 b = EvaluationStore::store(db, run, QStringLiteral("best"), QStringLiteral("val"), makeResult(8, false));
    const qint64 c = EvaluationStore::store(db, run, QStringLiteral("best"), QStringLiteral("val"), makeResult(8, true));
    const qint64 d = EvaluationStore::store(db, run, QStringLiteral("last"), QStringLiteral("test"), makeResult(6, false));
    const qint64 other = EvaluationStore::store(db, tmp.filePath(QStringLiteral("runs/r2")), QStringLiteral("best"),
                                                QStringLiteral("val"), makeResult(3, false));
    QVERIFY(a < b && b < c && c < d && d < other);
    QCOMPARE(EvaluationStore::latest(db, run, QStringLiteral("best"), QStringLiteral("val"), false), b);
    QCOMPARE(EvaluationStore::latest(db, run, QStringLiteral("best"), QStringLiteral("val"), true), c);
    QCOMPARE(EvaluationStore::latest(db, run, QStringLiteral("last"), QStringLiteral("test"), false), d);
    QCOMPARE(EvaluationStore::latest(db, run, QStringLiteral("last"), QStringLiteral("val"), false), qint64(0));

    const QVector<EvaluationSummary> ofRun = EvaluationStore::list(db, run);
    QCOMPARE(ofRun.size(), 4);
    QCOMPARE(ofRun.first().id, d); // newest first
    QCOMPARE(ofRun.first().count, qint64(6));
    QCOMPARE(ofRun.at(1).tta, true);
    QCOMPARE(ofRun.last().top1, 6.0 / 8.0); // every fourth image is wrong
    QCOMPARE(EvaluationStore::list(db).size(), 5);
}

void TestEvaluateStore::malformedRowsAreReported()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    const QString db = project->databasePath();
    const qint64 id = EvaluationStore::store(db, tmp.filePath(QStringLiteral("r")), QStringLiteral("best"),
                                             QStringLiteral("val"), makeResult(4, false));
    QSqlQuery query(project->database());
    QVERIFY(query.exec(QStringLiteral("UPDATE predictions SET top_json = '{\"classes\": [1, 2]}' WHERE record = 2")));
    try {
        EvaluationStore::load(db, id);
        QFAIL("a malformed prediction row was accepted");
    } catch (const WorkspaceError &e) {
        QVERIFY2(e.message().contains(QStringLiteral("prediction 2")), qPrintable(e.message()));
        QVERIFY(e.message().contains(db));
    }
    QVERIFY(query.exec(QStringLiteral("UPDATE evaluations SET metrics_json = 'not json'")));
    QVERIFY_THROWS_EXCEPTION(WorkspaceError, EvaluationStore::load(db, id));
    // Deleting an evaluation takes its predictions with it.
    QVERIFY(query.exec(QStringLiteral("PRAGMA foreign_keys = ON")));
    QVERIFY(query.exec(QStringLiteral("DELETE FROM evaluations")));
    QVERIFY(query.exec(QStringLiteral("SELECT COUNT(*) FROM predictions")));
    QVERIFY(query.next());
    QCOMPARE(query.value(0).toInt(), 0);
}

void TestEvaluateStore::migratesAnOlderProject()
{
    QTemporaryDir tmp;
    const QString folder = tmp.filePath(QStringLiteral("p"));
    QString db;
    {
        auto project = Project::create(folder);
        db = project->databasePath();
        QSqlDatabase connection = project->database();
        QSqlQuery query(connection);
        // Back to version 2, as a project written before stored evaluations existed.
        QVERIFY(query.exec(QStringLiteral("DROP TABLE exports")));
        QVERIFY(query.exec(QStringLiteral("DROP TABLE predictions")));
        QVERIFY(query.exec(QStringLiteral("DROP TABLE evaluations")));
        QVERIFY(query.exec(QStringLiteral("PRAGMA user_version = 2")));
    }
    // A job's own connection brings it up to date before storing.
    const qint64 id = EvaluationStore::store(db, tmp.filePath(QStringLiteral("r")), QStringLiteral("best"),
                                             QStringLiteral("val"), makeResult(5, false));
    QVERIFY(id > 0);
    auto project = Project::open(folder);
    QCOMPARE(project->schemaVersion(), projectMigrations().back().version);
    QCOMPARE(EvaluationStore::load(db, id).result.predictions.size(), std::size_t(5));
}

// A multi-label evaluation's summary is its mAP (macro), not a top-1; records stored before
// multi-label ones (no "task" in their metrics) and malformed ones list as single-label;
// newestByRun keeps each run's newest.
void TestEvaluateStore::summariesSayTopOneOrMap()
{
    QTemporaryDir tmp;
    auto project = Project::create(tmp.filePath(QStringLiteral("p")));
    const QString db = project->databasePath();
    const QString a = tmp.filePath(QStringLiteral("runs/a"));
    const QString b = tmp.filePath(QStringLiteral("runs/b"));
    const qint64 single = EvaluationStore::store(db, a, QStringLiteral("best"), QStringLiteral("val"), makeResult(8, false));

    engine::EvalResult multi;
    multi.classes = {"sky", "bird", "tree"};
    const std::vector<std::vector<int>> sets = {{0, 1}, {2}, {0}, {1, 2}};
    multi.probabilities = {{0.9f, 0.7f, 0.1f}, {0.2f, 0.1f, 0.8f}, {0.6f, 0.4f, 0.3f}, {0.1f, 0.5f, 0.6f}};
    multi.metrics = engine::computeMultiLabelMetrics(sets, multi.probabilities, multi.classes, {0.5, 0.5, 0.5});
    for (std::size_t i = 0; i < sets.size(); ++i) {
        engine::Prediction p;
        p.record = i;
        p.label = sets[i].front();
        p.labels = sets[i];
        p.topClasses = {0};
        p.topProbs = {multi.probabilities[i][0]};
        multi.predictions.push_back(p);
    }
    const qint64 ml = EvaluationStore::store(db, b, QStringLiteral("best"), QStringLiteral("val"), multi);
    const qint64 legacy = EvaluationStore::store(db, a, QStringLiteral("last"), QStringLiteral("val"), makeResult(4, false));
    {
        // As a version without tasks wrote it: the same metrics, no "task" key.
        QSqlQuery query(project->database());
        QVERIFY(query.prepare(QStringLiteral("UPDATE evaluations SET metrics_json = ? WHERE id = ?")));
        nlohmann::json metrics = makeResult(4, false).metrics;
        metrics.erase("task");
        metrics["classes"] = {"cat", "dog", "fox"};
        query.addBindValue(QString::fromStdString(metrics.dump()));
        query.addBindValue(legacy);
        QVERIFY(query.exec());
    }

    const QVector<EvaluationSummary> all = EvaluationStore::list(db);
    QCOMPARE(all.size(), 3);
    QCOMPARE(all.at(0).id, legacy);
    QVERIFY(!all.at(0).multiLabel());
    QCOMPARE(all.at(0).metric(), QStringLiteral("top1"));
    QCOMPARE(all.at(0).value(), all.at(0).top1);
    QCOMPARE(EvaluationStore::load(db, legacy).result.predictions.size(), std::size_t(4)); // still loads
    QCOMPARE(all.at(1).id, ml);
    QVERIFY(all.at(1).multiLabel());
    QCOMPARE(all.at(1).metric(), QStringLiteral("map"));
    QCOMPARE(all.at(1).map, multi.metrics.at("map").get<double>());
    QCOMPARE(all.at(1).value(), all.at(1).map);
    QCOMPARE(all.at(2).id, single);
    QVERIFY(std::isnan(all.at(2).map));
    QCOMPARE(all.at(2).top1, 6.0 / 8.0);

    const QHash<QString, EvaluationSummary> newest = EvaluationStore::newestByRun(db);
    QCOMPARE(newest.size(), 2);
    QCOMPARE(newest.value(QDir::cleanPath(a)).id, legacy);
    QCOMPARE(newest.value(QDir::cleanPath(b)).id, ml);

    // A row whose metrics are not JSON still lists (load names it); a mAP without positives is NaN.
    QSqlQuery query(project->database());
    QVERIFY(query.exec(QStringLiteral("UPDATE evaluations SET metrics_json = 'not json' WHERE id = %1").arg(single)));
    QCOMPARE(EvaluationStore::list(db).size(), 3);
    QVERIFY(!EvaluationStore::list(db, a).last().multiLabel());
    QVERIFY(query.exec(QStringLiteral("UPDATE evaluations SET metrics_json = '{\"task\": \"multi_label\", \"map\": null}' WHERE id = %1").arg(ml)));
    const EvaluationSummary noPositives = EvaluationStore::list(db, b).first();
    QVERIFY(noPositives.multiLabel());
    QVERIFY(std::isnan(noPositives.value()));
}

QTEST_MAIN(TestEvaluateStore)
#include "test_evaluate_store.moc"
