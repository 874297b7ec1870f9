#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "workspace/catalog.h"
#include "workspace/convert_job.h"
#include "workspace/demo_project_job.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/project_connection.h"
#include "workspace/run_event_queue.h"
#include "workspace/train_job.h"
#include "workspace/workspace_error.h"

#include <QFileInfo>
#include <QJsonObject>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <functional>

#include <nlohmann/json.hpp>

using namespace lathe;
using namespace lathe::workspace;

namespace {

// A job whose work is a function; lets each test script the worker side.
class FnJob : public Job
{
public:
    explicit FnJob(std::function<QVariant(FnJob &)> work)
        : Job(QStringLiteral("test job"))
        , m_work(std::move(work))
    {
    }
    std::atomic<bool> executed{false};
    using Job::checkCancel;
    using Job::reportProgress;
    using Job::taskControl;

protected:
    QVariant execute() override
    {
        executed = true;
        return m_work(*this);
    }

private:
    std::function<QVariant(FnJob &)> m_work;
};

struct Spies
{
    explicit Spies(Job *job)
        : finished(job, &Job::finished)
        , failed(job, &Job::failed)
        , cancelled(job, &Job::cancelled)
        , ended(job, &Job::ended)
        , progress(job, &Job::progressChanged)
    {
    }
    int terminals() const { return int(finished.count() + failed.count() + cancelled.count()); }
    QSignalSpy finished, failed, cancelled, ended, progress;
};

} // namespace

class TestJob : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void finishesWithResultAndFinalProgress()
    {
        JobManager manager;
        auto *job = new FnJob([](FnJob &j) {
            j.reportProgress(0.5, QStringLiteral("half"));
            j.reportProgress(1.0, QStringLiteral("all"));
            return QVariant(42);
        });
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.terminals(), 1);
        QCOMPARE(spies.finished.count(), 1);
        QCOMPARE(spies.finished.first().first().toInt(), 42);
        QCOMPARE(job->state(), Job::State::Finished);
        QVERIFY(!spies.progress.isEmpty());
        QCOMPARE(spies.progress.last().at(0).toDouble(), 1.0);
        QCOMPARE(spies.progress.last().at(1).toString(), QStringLiteral("all"));
        QTRY_COMPARE(manager.activeCount(), 0); // the manager hears of the end through a queued signal
    }

    void failureCarriesTheMessage_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("workspace error") << 0;
        QTest::newRow("engine error") << 1;
        QTest::newRow("std exception") << 2;
    }

    void failureCarriesTheMessage()
    {
        QFETCH(int, kind);
        JobManager manager;
        auto *job = new FnJob([kind](FnJob &) -> QVariant {
            if (kind == 0)
                throw WorkspaceError(QStringLiteral("/x/y.png: truncated"));
            if (kind == 1)
                throw engine::EngineError("/x/y.png: truncated");
            throw std::runtime_error("/x/y.png: truncated");
        });
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.terminals(), 1);
        QCOMPARE(spies.failed.count(), 1);
        QCOMPARE(spies.failed.first().first().toString(), QStringLiteral("/x/y.png: truncated"));
        QCOMPARE(job->errorMessage(), QStringLiteral("/x/y.png: truncated"));
    }

    void cancelStopsARunningJob()
    {
        JobManager manager;
        QSemaphore running;
        auto *job = new FnJob([&running](FnJob &j) -> QVariant {
            running.release();
            for (;;) {
                j.checkCancel();
                QThread::msleep(1);
            }
        });
        Spies spies(job);
        manager.start(job);
        running.acquire();
        manager.cancel(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.terminals(), 1);
        QCOMPARE(spies.cancelled.count(), 1);
        QCOMPARE(job->state(), Job::State::Cancelled);
    }

    void cancelOfAQueuedJobEndsItWithoutRunning()
    {
        JobManager manager(1);
        QSemaphore release;
        auto *blocker = new FnJob([&release](FnJob &) {
            release.acquire();
            return QVariant();
        });
        auto *queued = new FnJob([](FnJob &) { return QVariant(1); });
        Spies blockerSpies(blocker);
        Spies spies(queued);
        manager.start(blocker);
        manager.start(queued);
        QCOMPARE(manager.activeCount(), 2);
        manager.cancel(queued);
        QCOMPARE(spies.cancelled.count(), 1); // at once, not when a slot frees
        release.release();
        QTRY_COMPARE_WITH_TIMEOUT(blockerSpies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.terminals(), 1);
        QVERIFY(!queued->executed);
        QTRY_COMPARE(manager.activeCount(), 0); // the manager hears of the end through a queued signal
    }

    void engineCancelTokenIsShared()
    {
        JobManager manager;
        QSemaphore running;
        auto *job = new FnJob([&running](FnJob &j) -> QVariant {
            const engine::TaskControl control = j.taskControl();
            running.release();
            while (true) {
                control.report(0.1, "working");
                control.checkCancel(); // the engine's own check sees the job's cancel
                QThread::msleep(1);
            }
        });
        Spies spies(job);
        manager.start(job);
        running.acquire();
        job->requestCancel();
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.cancelled.count(), 1);
        QCOMPARE(spies.progress.last().at(1).toString(), QStringLiteral("working"));
    }

    void progressIsThrottledButTheLastReportArrives()
    {
        JobManager manager;
        constexpr int reports = 200000;
        auto *job = new FnJob([](FnJob &j) {
            for (int i = 1; i <= reports; ++i)
                j.reportProgress(double(i) / reports, QStringLiteral("step"));
            return QVariant();
        });
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 30000); // it may end before we look
        // The worker made 200k reports; receivers get a few per 33 ms, far from all of them.
        QVERIFY2(spies.progress.count() < reports / 100, qPrintable(QString::number(spies.progress.count())));
        QCOMPARE(spies.progress.last().at(0).toDouble(), 1.0);
    }

    // A run's events (TrainJob's, CrossValidationJob's) reach the GUI all of them and in order;
    // steps are announced a few per 33 ms however fast they come, any other event at once.
    void runEventQueueKeepsEveryEventAndThrottlesSteps()
    {
        RunEventQueue queue;
        constexpr int steps = 100000;
        int announced = 0;
        for (int i = 0; i < steps; ++i)
            announced += queue.push(QJsonObject{{QStringLiteral("type"), QStringLiteral("step")}, {QStringLiteral("step"), i}});
        QVERIFY2(announced >= 1 && announced < steps / 100, qPrintable(QString::number(announced)));
        QVERIFY(queue.push(nlohmann::json{{"type", "epoch"}, {"epoch", 0}}));
        QVERIFY(queue.push(RunEventQueue::jobEvent(RunEventQueue::kPausedEvent)));
        const QList<QJsonObject> events = queue.take();
        QCOMPARE(events.size(), steps + 2);
        for (int i = 0; i < steps; ++i)
            QCOMPARE(events.at(i).value(QStringLiteral("step")).toInt(), i);
        QCOMPARE(events.at(steps).value(QStringLiteral("type")).toString(), QStringLiteral("epoch"));
        QCOMPARE(events.last().value(QStringLiteral("type")).toString(), QStringLiteral("paused"));
        QVERIFY(events.last().value(QStringLiteral("time")).toDouble() > 1.7e9); // seconds since 1970
        QVERIFY(queue.take().isEmpty());
    }

    void clearEndedRemovesOnlyEndedJobs()
    {
        JobManager manager;
        QSemaphore release;
        auto *running = new FnJob([&release](FnJob &) {
            release.acquire();
            return QVariant();
        });
        auto *quick = new FnJob([](FnJob &) { return QVariant(); });
        Spies quickSpies(quick);
        Spies runningSpies(running);
        QSignalSpy endedInManager(&manager, &JobManager::jobEnded);
        manager.start(running);
        manager.start(quick);
        QTRY_COMPARE(endedInManager.count(), 1);
        QSignalSpy removed(&manager, &JobManager::jobRemoved);
        manager.clearEnded();
        QCOMPARE(removed.count(), 1);
        QCOMPARE(manager.jobs().size(), 1);
        QCOMPARE(manager.jobs().first(), running);
        release.release();
        QTRY_COMPARE_WITH_TIMEOUT(runningSpies.ended.count(), 1, 10000); // it may end before we look
    }

    void demoProjectJobBuildsARealProject()
    {
        QTemporaryDir tmp;
        JobManager manager;
        DemoProjectJob::Params params;
        params.root = tmp.path();
        params.perClass = 3;
        params.valPerClass = 2;
        params.testPerClass = 1;
        auto *job = new DemoProjectJob(params);
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 60000); // it may end before we look
        QCOMPARE(spies.finished.count(), 1);
        const DemoProjectResult r = job->result().value<DemoProjectResult>();
        QCOMPARE(r.train, 30);
        QCOMPARE(r.val, 20);
        QCOMPARE(r.test, 10);
        QCOMPARE(r.classes.size(), 10);
        // The demo images are in the catalog as the dataset "fashion-mnist".
        QCOMPARE(r.import.ok, 60);
        auto project = Project::open(r.project);
        QCOMPARE(project->meta(QStringLiteral("demo_images")), DemoProjectJob::imagesFolder(tmp.path()));
        QCOMPARE(project->meta(QStringLiteral("demo_train_images")), QStringLiteral("30"));
        project.reset();

        // A second run reuses both parts.
        auto *again = new DemoProjectJob(params);
        Spies againSpies(again);
        manager.start(again);
        QTRY_COMPARE_WITH_TIMEOUT(againSpies.ended.count(), 1, 60000); // it may end before we look
        QCOMPARE(againSpies.finished.count(), 1);
        QVERIFY(again->result().value<DemoProjectResult>().reused);
        QCOMPARE(again->result().value<DemoProjectResult>().train, 30);
        const ImportSummary reimport = again->result().value<DemoProjectResult>().import;
        QCOMPARE(reimport.unchanged, 60);
        QCOMPARE(reimport.added, 0);
    }

    void convertJobAppliesTheCatalogsCorrections()
    {
        QTemporaryDir tmp;
        JobManager manager;
        DemoProjectJob::Params demo;
        demo.root = tmp.path();
        demo.perClass = 3;
        demo.valPerClass = 0;
        demo.testPerClass = 0;
        auto *job = new DemoProjectJob(demo);
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 60000);
        const QString dbPath = QDir(job->result().value<DemoProjectResult>().project)
                                   .filePath(QString::fromLatin1(Project::kDatabaseFile));
        {
            ProjectConnection connection(dbPath);
            Catalog &catalog = connection.catalog();
            const int id = catalog.datasetId(QStringLiteral("fashion-mnist"));
            const QVector<CatalogImage> images = catalog.images(id);
            catalog.setExcluded(images.at(0).id, true);
            catalog.relabel(images.at(1).id, QStringLiteral("Trouser"));
        }
        ConvertJob::Params params;
        params.sourceDir = DemoProjectJob::imagesFolder(tmp.path());
        params.outDir = tmp.filePath(QStringLiteral("shards"));
        params.databasePath = dbPath;
        params.datasetName = QStringLiteral("fashion-mnist");
        params.valFraction = 0;
        params.testFraction = 0;
        auto *convert = new ConvertJob(params);
        Spies convertSpies(convert);
        manager.start(convert);
        QTRY_COMPARE_WITH_TIMEOUT(convertSpies.ended.count(), 1, 60000);
        QCOMPARE(convertSpies.finished.count(), 1);
        QCOMPARE(convert->result().value<ConvertSummary>().records, qint64(29)); // 30 less the excluded
        const engine::DatasetManifest m = engine::readDatasetManifest(params.outDir.toStdString());
        QCOMPARE(int(m.counts.at("train").at("Trouser")), 4); // 3 of its own and the relabelled one
        QVERIFY(std::any_of(m.rejected.begin(), m.rejected.end(),
                            [](const engine::RejectedFile &r) { return r.status == "excluded"; }));
    }

    void demoProjectJobFailsClearlyWithoutTheData()
    {
        QTemporaryDir tmp;
        JobManager manager;
        DemoProjectJob::Params params;
        params.root = tmp.filePath(QStringLiteral("demo"));
        params.sourceDir = tmp.filePath(QStringLiteral("missing"));
        auto *job = new DemoProjectJob(params);
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 10000); // it may end before we look
        QCOMPARE(spies.failed.count(), 1);
        QVERIFY2(job->errorMessage().contains(QStringLiteral("dataset-fashion-mnist")), qPrintable(job->errorMessage()));
        QVERIFY(!Project::isProjectFolder(DemoProjectJob::projectFolder(params.root)));
    }

    // Stop ends a training job with cancelled(), as cancel ends every other job, after the
    // trainer wrote a checkpoint; resuming the run finishes it with the trainer's summary.
    void trainJobStopsWithCancelledAndResumes()
    {
        QTemporaryDir tmp;
        engine::DemoDataOptions demo;
        demo.outDir = tmp.filePath(QStringLiteral("images")).toStdString();
        demo.perClass = 2;
        demo.valPerClass = 0;
        demo.testPerClass = 0;
        engine::writeDemoData(demo);
        engine::ConvertOptions convert;
        convert.scan.root = demo.outDir;
        convert.scan.valFraction = 0;
        convert.scan.testFraction = 0;
        convert.outDir = tmp.filePath(QStringLiteral("shards")).toStdString();
        engine::convertFolder(convert);

        TrainJob::Params params;
        params.runDir = tmp.filePath(QStringLiteral("run"));
        params.config.data.shards = convert.outDir;
        params.config.data.valSplit = "";
        params.config.data.imageSize = 32;
        params.config.data.augment = {};
        params.config.data.workers = 1;
        params.config.model.arch = "resnet18";
        params.config.model.inChannels = 1;
        params.config.optimizer.batchSize = 4; // 5 steps an epoch
        params.config.optimizer.epochs = 2;
        params.config.checkpoints.bestMetric = "train_loss"; // no validation split
        params.config.featureCache.mode = "off";
        params.config.seed = 7;

        JobManager manager;
        auto *job = new TrainJob(params);
        // On the worker thread: Stop at the first optimizer step.
        connect(job, &TrainJob::eventsAvailable, job, [job] {
            for (const QJsonObject &event : job->takeEvents())
                if (event.value(QStringLiteral("type")).toString() == QLatin1String("step"))
                    job->requestCancel();
        }, Qt::DirectConnection);
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, 120000);
        QVERIFY2(spies.failed.isEmpty(), qPrintable(job->errorMessage()));
        QCOMPARE(spies.cancelled.count(), 1);
        QCOMPARE(spies.finished.count(), 0);
        QCOMPARE(job->state(), Job::State::Cancelled);
        QVERIFY(QFileInfo::exists(QDir(params.runDir).filePath(QStringLiteral("checkpoints/last.json"))));

        TrainJob::Params resume;
        resume.runDir = params.runDir;
        resume.resume = true;
        auto *again = new TrainJob(resume);
        Spies againSpies(again);
        manager.start(again);
        QTRY_COMPARE_WITH_TIMEOUT(againSpies.ended.count(), 1, 120000);
        QVERIFY2(againSpies.failed.isEmpty(), qPrintable(again->errorMessage()));
        QCOMPARE(againSpies.finished.count(), 1);
        const TrainResult result = again->result().value<TrainResult>();
        QCOMPARE(result.runDir, params.runDir);
        QCOMPARE(result.epochs, qint64(2));
        QCOMPARE(result.steps, qint64(10));
        QVERIFY(!result.stoppedEarly);
        QVERIFY(QFileInfo::exists(result.lastCheckpoint));
    }
};

QTEST_GUILESS_MAIN(TestJob)
#include "test_job.moc"
