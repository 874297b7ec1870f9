#include "common/help_links.h"
#include "data/data_page.h"
#include "evaluate/evaluate_page.h"
#include "export/export_page.h"
#include "model/model_page.h"
#include "runs/runs_page.h"
#include "shell/about_dialog.h"
#include "shell/job_list_model.h"
#include "shell/jobs_panel.h"
#include "shell/main_window.h"
#include "train/train_page.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/settings.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUrl>
#include <QTest>
#include <QTranslator>
#include <QTreeView>

using namespace lathe;
using lathe::ui::MainWindow;

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    QString settingsPath() const { return m_tmp.filePath(QStringLiteral("lathe.conf")); }

private Q_SLOTS:
    void opensAProjectAndVisitsEveryPage()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("p1"));
        workspace::Project::create(folder, QStringLiteral("Birds"));
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QSignalSpy opened(&window, &MainWindow::projectOpened);
        QVERIFY(window.openProject(folder));
        QCOMPARE(opened.count(), 1);
        QVERIFY(window.project());
        QCOMPARE(window.project()->name(), QStringLiteral("Birds"));
        QVERIFY(window.windowTitle().contains(QStringLiteral("Birds")));

        auto *list = window.findChild<QListWidget *>(QStringLiteral("pageList"));
        QVERIFY(list);
        QCOMPARE(list->count(), int(MainWindow::PageCount));
        QVERIFY(list->isVisible());
        const QStringList titles = {QStringLiteral("Data"), QStringLiteral("Model"), QStringLiteral("Train"),
                                    QStringLiteral("Runs"), QStringLiteral("Evaluate"), QStringLiteral("Export")};
        for (int i = 0; i < MainWindow::PageCount; ++i) {
            // Click the entry as a user would.
            const QRect rect = list->visualItemRect(list->item(i));
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rect.center());
            QCOMPARE(int(window.currentPage()), i);
            QCOMPARE(list->item(i)->text(), titles.at(i));
            QWidget *page = window.pageWidget(MainWindow::Page(i));
            QVERIFY(page->isVisible());
            if (i == MainWindow::DataPage) {
                QCOMPARE(page, window.dataPage());
                continue;
            }
            if (i == MainWindow::ModelPage) {
                QCOMPARE(page, window.modelPage());
                continue;
            }
            if (i == MainWindow::TrainPage) {
                QCOMPARE(page, window.trainPage());
                continue;
            }
            if (i == MainWindow::RunsPage) {
                QCOMPARE(page, window.runsPage());
                continue;
            }
            if (i == MainWindow::EvaluatePage) {
                QCOMPARE(page, window.evaluatePage());
                continue;
            }
            QCOMPARE(page, window.exportPage());
        }
        window.showPage(MainWindow::DataPage);
        const QStringList facts = window.dataPage()->facts();
        QVERIFY(!facts.isEmpty());
        QVERIFY(facts.first().contains(QDir::toNativeSeparators(folder)));
        // A project without a dataset: the page shows its facts and offers an import.
        auto *factsLabel = window.dataPage()->findChild<QLabel *>(QStringLiteral("pageFacts"));
        QTRY_VERIFY(factsLabel->isVisible());
        QVERIFY(factsLabel->text().contains(QDir::toNativeSeparators(folder)));
        QTRY_VERIFY(window.dataPage()->findChild<QPushButton *>(QStringLiteral("emptyImportButton"))->isEnabled());

        QCOMPARE(settings.recentProjects().first(), QDir::cleanPath(folder));
        window.close();
        QVERIFY(!window.isVisible());
        QVERIFY(!settings.windowGeometry().isEmpty());
        QVERIFY(!settings.windowState().isEmpty());
    }

    // The Runs page's Evaluate and Export buttons open those pages on the run and checkpoint.
    void runsPageHandsCheckpointsToEvaluateAndExport()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("handoff"));
        workspace::Project::create(folder);
        const QString run = QDir(folder).filePath(QStringLiteral("runs/r1"));
        QVERIFY(QDir().mkpath(run + QStringLiteral("/checkpoints")));
        QFile config(run + QStringLiteral("/config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("{}");
        config.close();
        const QString checkpoint = run + QStringLiteral("/checkpoints/step-000007.safetensors");

        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(folder));

        Q_EMIT window.runsPage()->evaluateCheckpointRequested(run, checkpoint);
        QCOMPARE(window.currentPage(), MainWindow::EvaluatePage);
        QTRY_COMPARE(window.evaluatePage()->currentRun(), QDir::cleanPath(run));
        QCOMPARE(window.evaluatePage()->currentCheckpoint(), checkpoint);
        QCOMPARE(window.evaluatePage()->checkpointCombo()->currentText(), QStringLiteral("step-000007"));

        Q_EMIT window.runsPage()->exportCheckpointRequested(run, checkpoint);
        QCOMPARE(window.currentPage(), MainWindow::ExportPage);
        QTRY_COMPARE(window.exportPage()->runCombo()->currentData().toString(), QDir::cleanPath(run));
        QCOMPARE(window.exportPage()->checkpointCombo()->currentData().toString(), checkpoint);
    }

    // Each error section the pages link to is a heading of docs/troubleshooting.md, found from
    // the build tree as it is when installed.
    void errorsLinkToTheirTroubleshootingSection()
    {
        for (const char *section : {"importing-and-converting-images", "projects", "weights-and-the-model-zoo", "training",
                                    "evaluation-and-prediction", "export"}) {
            const QString anchor = QString::fromLatin1(section);
            const QString link = ui::troubleshootingLink(anchor);
            const QRegularExpressionMatch href = QRegularExpression(QStringLiteral("href=\"([^\"]+)\"")).match(link);
            QVERIFY2(href.hasMatch(), qPrintable(link));
            const QUrl url(href.captured(1));
            QCOMPARE(url.fragment(), anchor);
            QFile guide(url.toLocalFile());
            QVERIFY2(guide.open(QIODevice::ReadOnly), qPrintable(url.toLocalFile()));
            QStringList slugs;
            for (const QString &line : QString::fromUtf8(guide.readAll()).split(QLatin1Char('\n')))
                if (line.startsWith(QLatin1String("## ")))
                    slugs << line.mid(3).trimmed().toLower().replace(QLatin1Char(' '), QLatin1Char('-'));
            QVERIFY2(slugs.contains(anchor), qPrintable(slugs.join(QLatin1Char(','))));
        }
        // A label shows the message, escaped, and the link.
        QLabel label;
        ui::showErrorWithHelp(&label, QStringLiteral("a <b> is not bold"), QStringLiteral("training"));
        QVERIFY(label.text().contains(QStringLiteral("a &lt;b&gt; is not bold")));
        QVERIFY(label.text().contains(QStringLiteral("troubleshooting.md#training")));
        QVERIFY(label.openExternalLinks());
    }

    void aFailedOpenKeepsTheCurrentProject()
    {
        const QString good = m_tmp.filePath(QStringLiteral("p2"));
        workspace::Project::create(good);
        const QString bad = m_tmp.filePath(QStringLiteral("bad"));
        QDir().mkpath(bad);
        QFile junk(QDir(bad).filePath(QStringLiteral("project.sqlite")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("this is not a database");
        junk.close();

        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(good));
        QSignalSpy errors(&window, &MainWindow::errorShown);
        QVERIFY(!window.openProject(bad));
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.first().first().toString().contains(QStringLiteral("project.sqlite")));
        QVERIFY(window.project());
        QCOMPARE(window.project()->folder(), QDir::cleanPath(good));
        // The message box is window-modal and asynchronous; close it so the test ends cleanly.
        for (QWidget *w : QApplication::topLevelWidgets())
            if (w->inherits("QMessageBox"))
                w->close();
    }

    void closingAProjectReturnsToTheWelcomePage()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("p3"));
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.createProject(folder, QStringLiteral("Cats")));
        QVERIFY(workspace::Project::isProjectFolder(folder));
        QSignalSpy closed(&window, &MainWindow::projectClosed);
        window.closeProject();
        QCOMPARE(closed.count(), 1);
        QVERIFY(!window.project());
        auto *central = qobject_cast<QStackedWidget *>(window.centralWidget());
        QVERIFY(central->currentWidget()->findChild<QPushButton *>(QStringLiteral("newProjectButton")));
    }

    void demoRunsAsAJobAndOpensTheProject()
    {
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QSignalSpy opened(&window, &MainWindow::projectOpened);
        window.startDemo(m_tmp.filePath(QStringLiteral("demo")));
        auto *view = window.findChild<QTreeView *>(QStringLiteral("jobsView"));
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 1);
        QVERIFY(opened.wait(60000));
        QVERIFY(window.project());
        const QStringList facts = window.dataPage()->facts();
        QVERIFY2(facts.join(QLatin1Char('\n')).contains(QStringLiteral("1,000")), qPrintable(facts.join(QLatin1Char('\n'))));
        // The Data page offers to import the demo images.
        QTRY_VERIFY(window.dataPage()->findChild<QPushButton *>(QStringLiteral("demoImportButton"))->isVisible());
        const QModelIndex status = view->model()->index(0, ui::JobListModel::StatusColumn);
        QTRY_COMPARE(status.data().toString(), QStringLiteral("Finished"));
        QCOMPARE(view->model()->index(0, ui::JobListModel::ProgressColumn).data().toInt(), 100);
        // Clear Finished empties the panel.
        auto *clear = window.findChild<QPushButton *>(QStringLiteral("clearJobsButton"));
        QTRY_VERIFY(clear->isEnabled());
        QTest::mouseClick(clear, Qt::LeftButton);
        QTRY_COMPARE(view->model()->rowCount(), 0);
    }

    void windowStateIsRestored()
    {
        workspace::Settings settings(m_tmp.filePath(QStringLiteral("restore.conf")));
        {
            MainWindow window(&settings);
            window.show();
            window.resize(1111, 777);
            window.findChild<QDockWidget *>(QStringLiteral("jobsDock"))->hide();
            window.close();
        }
        MainWindow again(&settings);
        again.show();
        QCOMPARE(again.size(), QSize(1111, 777));
        QVERIFY(!again.findChild<QDockWidget *>(QStringLiteral("jobsDock"))->isVisible());
    }

    void chineseTranslationIsEmbeddedAndComplete()
    {
        QTranslator translator;
        QVERIFY(translator.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("lathe"), QStringLiteral("_"),
                                QStringLiteral(":/i18n")));
        QVERIFY(QCoreApplication::installTranslator(&translator));
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        auto *list = window.findChild<QListWidget *>(QStringLiteral("pageList"));
        QCOMPARE(list->item(0)->text(), QStringLiteral("数据"));
        QCOMPARE(list->item(2)->text(), QStringLiteral("训练"));
        QCOMPARE(list->item(MainWindow::ExportPage)->text(), QStringLiteral("导出"));
        QCoreApplication::removeTranslator(&translator);
    }

    void aboutListsTheLibraryVersions()
    {
        ui::AboutDialog about;
        const QString details = about.details();
        QVERIFY(details.contains(QStringLiteral("Qt: ") + QString::fromLatin1(qVersion())));
        // The LibTorch this tree links, and whether it has CUDA (LATHE_LIBTORCH).
        const QString cuda = QStringLiteral(LATHE_EXPECT_LIBTORCH_CUDA);
        const QString libtorch = QStringLiteral("LibTorch: ") + QStringLiteral(LATHE_EXPECT_LIBTORCH) +
                                 (cuda.isEmpty() ? QStringLiteral(", CPU only") : QStringLiteral(" with CUDA ") + cuda);
        QVERIFY2(details.contains(libtorch), qPrintable(details));
        QVERIFY(details.contains(QStringLiteral("OpenCV: 4.")));
        QVERIFY(details.contains(QStringLiteral("libjpeg-turbo: 2.")));
        QVERIFY(details.contains(QStringLiteral("CUDA devices: ")));
    }

    void themeSwitchChangesThePalette()
    {
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        QAction *dark = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == QStringLiteral("Dark"))
                dark = a;
        QVERIFY(dark);
        dark->trigger();
        QCOMPARE(settings.theme(), QStringLiteral("dark"));
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
        QAction *light = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == QStringLiteral("Light"))
                light = a;
        light->trigger();
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
    }

    void closeWaitsForRunningJobsAfterAsking()
    {
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        window.startDemo(m_tmp.filePath(QStringLiteral("demo-close")));
        window.close();
        // A question appears instead of closing with a job running (unless it already ended).
        if (window.jobManager()->activeCount() > 0)
            QVERIFY(window.isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(window.jobManager()->activeCount(), 0, 60000);
        for (QWidget *w : QApplication::topLevelWidgets())
            if (w->inherits("QMessageBox"))
                w->close();
        window.close();
        QTRY_VERIFY(!window.isVisible());
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
