// The Train page's learning-rate finder on real shards (the demo's Fashion-MNIST written by the
// engine) and real training steps (the small run's ResNet-18 at 32 pixels): the points arrive
// live in increasing learning rate, the suggestions lie on the measured curve before it
// diverges, Use puts the suggestion into the form, nothing is written into the runs folder,
// cancel stops it with the settings unchanged, and the finder and a training run exclude each
// other. The plot keeps its legend off the curve and the measured points inside its axes.
// qcustomplot.h (plot_checks.h) uses the bare signals/slots keywords; before any Qt header.
#undef QT_NO_KEYWORDS
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "plot_checks.h"
#include "small_run.h"
#include "train/augmentation_editor.h"
#include "train/lr_finder_panel.h"
#include "train/run_config_form.h"
#include "train/train_page.h"
#include "workspace/job_manager.h"
#include "workspace/lr_find_job.h"
#include "workspace/project.h"

#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace lathe;
using lathe::ui::LrFinderPanel;
using lathe::ui::TrainPage;
using lathe::workspace::LrFindPoint;
using lathe::workspace::LrFindResult;
using lathe::workspace::LrFindSuggestion;

class TestLrFinderPanel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager m_jobs{1};

    // Every file under the project's runs folder (none is expected from the finder).
    QStringList runFiles() const
    {
        QStringList files;
        QDirIterator it(m_project->runsDir(), QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next();
        return files;
    }

    // The page with the small run's settings: ResNet-18 from scratch, one channel, 32 pixels.
    std::unique_ptr<TrainPage> openPage()
    {
        auto page = std::make_unique<TrainPage>(&m_jobs);
        page->resize(1400, 900);
        page->setModelSpecProvider([] {
            engine::ModelSpec spec = smallRunConfig("", "").model;
            spec.head.numClasses = 0; // the dataset's
            return spec;
        });
        page->setProject(m_project.get());
        page->show();
        return page;
    }

    bool prepare(TrainPage &page)
    {
        if (!QTest::qWaitFor([&] { return page.datasetPicker()->count() == 1; }, 20000))
            return false;
        const engine::RunConfig small = smallRunConfig("", "");
        page.imageSizeEdit()->setValue(small.data.imageSize);
        page.augmentationEditor()->setSteps(nlohmann::json::array());
        page.form()->setValues({{"optimizer", {{"batch_size", small.optimizer.batchSize}, {"lr", small.optimizer.lr}, {"epochs", 1}}},
                                {"data", {{"workers", 1}, {"val_split", ""}}},
                                {"checkpoints", {{"best_metric", "train_loss"}}},
                                {"feature_cache", {{"mode", "off"}}},
                                {"seed", 7}});
        return page.preflight().isEmpty();
    }

    static double formLr(const TrainPage &page)
    {
        return page.form()->values()["optimizer"]["lr"].get<double>();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const QString images = m_tmp.filePath(QStringLiteral("images"));
        engine::DemoDataOptions demo;
        demo.outDir = images.toStdString();
        demo.perClass = 8;
        demo.testPerClass = 0;
        engine::writeDemoData(demo);
        m_project = workspace::Project::create(m_tmp.filePath(QStringLiteral("project")), QStringLiteral("lr"));
        engine::ConvertOptions convert;
        convert.scan.root = images.toStdString();
        convert.scan.valFraction = 0;
        convert.scan.testFraction = 0;
        convert.outDir = QDir(m_project->datasetsDir()).filePath(QStringLiteral("fashion")).toStdString();
        engine::convertFolder(convert);
    }

    void findsAndApplies()
    {
        auto page = openPage();
        QVERIFY2(prepare(*page), qPrintable(page->preflight()));
        LrFinderPanel *finder = page->lrFinderPanel();
        QVERIFY(finder);
        QVERIFY(finder->findButton()->isEnabled());
        QVERIFY(!finder->cancelButton()->isEnabled());
        QVERIFY(finder->useValleyButton()->isHidden());
        const QStringList before = runFiles();
        const double lrBefore = formLr(*page);

        finder->stepsEdit()->setValue(60);
        QSignalSpy points(finder, &LrFinderPanel::pointAdded);
        QSignalSpy ended(finder, &LrFinderPanel::ended);
        QTest::mouseClick(finder->findButton(), Qt::LeftButton);
        QVERIFY(finder->isRunning());
        // A run cannot start meanwhile.
        QVERIFY(!page->startButton()->isEnabled());
        QVERIFY(!page->preflight().isEmpty());
        QVERIFY(finder->cancelButton()->isEnabled());
        QVERIFY(!finder->findButton()->isEnabled());
        QVERIFY2(ended.wait(120000), qPrintable(finder->statusLabel()->text()));
        QCOMPARE(ended.first().at(0).toString(), QStringLiteral("finished"));
        QVERIFY(!finder->isRunning());
        QVERIFY(page->startButton()->isEnabled());
        QVERIFY(finder->findButton()->isEnabled());

        QVERIFY(finder->result().has_value());
        const LrFindResult &r = *finder->result();
        QCOMPARE(r.stepsPlanned, 60);
        QCOMPARE(r.batchSize, 16);
        QCOMPARE(r.device, QStringLiteral("cpu"));
        QVERIFY(r.points.size() >= 10);
        // Each point arrived live, in order, with increasing learning rates.
        QCOMPARE(points.size(), r.points.size());
        for (int i = 0; i < points.size(); ++i)
            QCOMPARE(points[i].at(0).toInt(), i);
        for (int i = 1; i < r.points.size(); ++i)
            QVERIFY2(r.points[i].lr > r.points[i - 1].lr, qPrintable(QString::number(i)));
        QCOMPARE(r.points.first().lr, 1e-7);

        // Both suggestions, within the measured range and on the trimmed curve.
        QVERIFY(r.valley.has_value());
        QVERIFY(r.steepest.has_value());
        const double first = r.points.first().lr;
        const double last = r.points.last().lr;
        for (const LrFindSuggestion &s : {*r.valley, *r.steepest}) {
            QVERIFY(s.index >= r.trimStart && s.index < r.trimEnd);
            QCOMPARE(s.lr, r.points[s.index].lr);
            QCOMPARE(s.smoothed, r.points[s.index].smoothed);
            QVERIFY(s.lr >= first && s.lr <= last);
        }
        // The from-scratch ResNet at these rates diverges well before 10.
        QVERIFY2(r.diverged, qPrintable(finder->statusLabel()->text()));
        QVERIFY(r.stepsDone < 60);
        QVERIFY(last < 10);
        {
            // Between where the loss starts falling and where it diverged: from the highest
            // smoothed loss before the lowest one (the flat start's noise ends there) to the
            // lowest (the blow-up follows it).
            const auto bySmoothed = [](const LrFindPoint &a, const LrFindPoint &b) { return a.smoothed < b.smoothed; };
            const int lowestIndex = int(std::min_element(r.points.begin(), r.points.end(), bySmoothed) - r.points.begin());
            const int fallStart =
                int(std::max_element(r.points.begin(), r.points.begin() + lowestIndex + 1, bySmoothed) - r.points.begin());
            QVERIFY(lowestIndex < r.points.size() - 1);
            for (const LrFindSuggestion &s : {*r.valley, *r.steepest}) {
                QVERIFY2(s.index >= fallStart && s.index <= lowestIndex,
                         qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(s.index).arg(fallStart).arg(lowestIndex)));
                QVERIFY(s.smoothed < r.points.last().smoothed);
            }
        }

        // The plot has the curve, the text the suggestions, the buttons their values.
        QCOMPARE(finder->points().size(), r.points.size());
        {
            // The legend above the axes; every learning rate measured strictly inside the x
            // range, the lowest loss above the bottom, the starting plateau below the top (the
            // blow-up after the minimum may leave it), and the suggestions inside.
            QCustomPlot *plot = finder->plot();
            plot_checks::checkLegendOutsideAxes(plot);
            QVERIFY(plot->legend->visible());
            QCOMPARE(plot->graph(1)->dataCount(), r.points.size()); // smoothed
            const QCPRange x = plot->xAxis->range();
            const QCPRange y = plot->yAxis->range();
            QVERIFY2(x.lower < first && x.upper > last, qPrintable(QStringLiteral("[%1, %2]").arg(x.lower).arg(x.upper)));
            double low = r.points.first().loss;
            double plateau = 0;
            for (const LrFindPoint &p : r.points)
                low = std::min({low, p.loss, p.smoothed});
            const int lowest = int(std::min_element(r.points.begin(), r.points.end(),
                                                    [](const LrFindPoint &a, const LrFindPoint &b) { return a.smoothed < b.smoothed; }) -
                                   r.points.begin());
            for (int i = 0; i <= lowest; ++i)
                plateau = std::max(plateau, r.points[i].smoothed);
            QVERIFY2(y.lower < low && y.upper > plateau,
                     qPrintable(QStringLiteral("[%1, %2], loss %3 .. %4").arg(y.lower).arg(y.upper).arg(low).arg(plateau)));
            for (const LrFindSuggestion &s : {*r.valley, *r.steepest})
                QVERIFY(x.contains(s.lr) && y.contains(s.smoothed));
        }
        QVERIFY2(finder->suggestionLabel()->text().contains(LrFinderPanel::formatLr(r.valley->lr)),
                 qPrintable(finder->suggestionLabel()->text()));
        QVERIFY(finder->suggestionLabel()->text().contains(LrFinderPanel::formatLr(r.steepest->lr)));
        QVERIFY(!finder->useValleyButton()->isHidden());
        QCOMPARE(finder->useValleyButton()->text(), QStringLiteral("Use %1").arg(LrFinderPanel::formatLr(r.valley->lr)));

        // The test changed nothing: the settings and the disk.
        QCOMPARE(formLr(*page), lrBefore);
        QCOMPARE(runFiles(), before);

        // Use: the suggestion, rounded as shown, becomes the learning rate.
        QTest::mouseClick(finder->useValleyButton(), Qt::LeftButton);
        QCOMPARE(formLr(*page), LrFinderPanel::rounded(r.valley->lr));
        QVERIFY(std::abs(formLr(*page) / r.valley->lr - 1) < 0.05);
        QCOMPARE(page->runConfig()["optimizer"]["lr"].get<double>(), LrFinderPanel::rounded(r.valley->lr));
        QTest::mouseClick(finder->useSteepestButton(), Qt::LeftButton);
        QCOMPARE(formLr(*page), LrFinderPanel::rounded(r.steepest->lr));
        QVERIFY(runFiles() == before);
    }

    void formatsRates()
    {
        QCOMPARE(LrFinderPanel::formatLr(3.2e-3), QStringLiteral("3.2e-3"));
        QCOMPARE(LrFinderPanel::formatLr(0.00316), QStringLiteral("3.2e-3"));
        QCOMPARE(LrFinderPanel::formatLr(9.97e-4), QStringLiteral("1.0e-3"));
        QCOMPARE(LrFinderPanel::formatLr(0.05), QStringLiteral("0.05"));
        QCOMPARE(LrFinderPanel::formatLr(1.2e-5), QStringLiteral("1.2e-5"));
        QCOMPARE(LrFinderPanel::rounded(0.00316), 0.0032);
    }

    void cancels()
    {
        auto page = openPage();
        QVERIFY2(prepare(*page), qPrintable(page->preflight()));
        LrFinderPanel *finder = page->lrFinderPanel();
        const QStringList before = runFiles();
        const double lrBefore = formLr(*page);
        finder->stepsEdit()->setValue(1000);
        QSignalSpy points(finder, &LrFinderPanel::pointAdded);
        QSignalSpy ended(finder, &LrFinderPanel::ended);
        QVERIFY(finder->find());
        QVERIFY(!finder->find()); // one at a time
        QVERIFY(points.wait(60000));
        QTest::mouseClick(finder->cancelButton(), Qt::LeftButton);
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().at(0).toString(), QStringLiteral("cancelled"));
        QVERIFY(!finder->isRunning());
        QVERIFY(!finder->result().has_value());
        QVERIFY(points.size() < 1000);
        QVERIFY(finder->useValleyButton()->isHidden());
        QCOMPARE(formLr(*page), lrBefore);
        QCOMPARE(runFiles(), before);
        QVERIFY(finder->findButton()->isEnabled());
        QVERIFY(page->startButton()->isEnabled());
    }

    // Last: it starts a run, which writes its folder.
    void blockedWhileTraining()
    {
        auto page = openPage();
        QVERIFY2(prepare(*page), qPrintable(page->preflight()));
        LrFinderPanel *finder = page->lrFinderPanel();
        QVERIFY(page->startRun());
        QVERIFY(!finder->findButton()->isEnabled());
        QVERIFY(!finder->find());
        QVERIFY(finder->statusLabel()->text().contains(QStringLiteral("training")));
        QSignalSpy ended(page.get(), &TrainPage::runEnded);
        QTest::mouseClick(page->stopButton(), Qt::LeftButton);
        QVERIFY(ended.wait(120000));
        QVERIFY(finder->findButton()->isEnabled());
    }
};

QTEST_MAIN(TestLrFinderPanel)
#include "test_lr_finder_panel.moc"
