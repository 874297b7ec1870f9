// qcustomplot.h uses the bare signals/slots keywords (what -UQT_NO_KEYWORDS does for the
// widgets' files that include it); before any Qt header.
#undef QT_NO_KEYWORDS
#include <qcustomplot.h>

#include "common/help_links.h"
#include "common/help_viewer.h"
#include "common/wheel_guard.h"
#include "data/class_balance_chart.h"
#include "engine/run/run_events.h"
#include "evaluate/calibration_plot.h"
#include "evaluate/confusion_matrix_view.h"
#include "data/data_page.h"
#include "evaluate/evaluate_page.h"
#include "export/export_page.h"
#include "model/model_page.h"
#include "plot_checks.h"
#include "runs/run_overlay_plot.h"
#include "runs/runs_page.h"
#include "shell/about_dialog.h"
#include "shell/job_list_model.h"
#include "shell/jobs_panel.h"
#include "shell/main_window.h"
#include "tune/tune_page.h"
#include "train/lr_schedule_preview.h"
#include "train/run_config_form.h"
#include "train/train_page.h"
#include "train/training_curves.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/settings.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QComboBox>
#include <QFile>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QTest>
#include <QTranslator>
#include <QTreeView>
#include <QWheelEvent>
#include <QtTest/qtestspontaneevent.h>

using namespace lathe;
using lathe::ui::MainWindow;

namespace {

// A wheel turn over the middle of a widget as the mouse gives it: to the innermost widget there,
// spontaneous, so that QApplication hands it on to the parents until one takes it.
void turnWheel(QWidget *over, int delta)
{
    const QPoint centre = over->rect().center();
    QWidget *target = over->childAt(centre) ? over->childAt(centre) : over;
    const QPointF local = target->mapFrom(over, QPointF(centre));
    QWheelEvent event(local, target->mapToGlobal(local), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&event);
    qApp->notify(target, &event); // as QTest delivers its key events: sendEvent() would drop "spontaneous"
}

QVariant settingValue(const QWidget *editor)
{
    if (const auto *spin = qobject_cast<const QSpinBox *>(editor))
        return spin->value();
    return qobject_cast<const QComboBox *>(editor)->currentIndex();
}

using plot_checks::backgroundOf;
using plot_checks::checkLegendAndPadding;

} // namespace

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
                                    QStringLiteral("Tune"), QStringLiteral("Runs"), QStringLiteral("Evaluate"),
                                    QStringLiteral("Export")};
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
            if (i == MainWindow::TunePage) {
                QCOMPARE(page, window.tunePage());
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
        QVERIFY2(ui::documentationFolder().endsWith(QStringLiteral("/share/doc/lathe/docs")),
                 qPrintable(ui::documentationFolder()));
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
        QVERIFY(!label.openExternalLinks()); // the program's help viewer opens them
    }

    // "What to do" opens the guide in the program's viewer (no web browser), at the heading of
    // its section; links inside it, back and forward and the contents work there.
    void troubleshootingLinksOpenTheHelpViewerAtTheirHeading()
    {
        QLabel label;
        ui::showErrorWithHelp(&label, QStringLiteral("The download failed"), QStringLiteral("weights-and-the-model-zoo"));
        const QString href = QRegularExpression(QStringLiteral("href=\"([^\"]+)\"")).match(label.text()).captured(1);
        Q_EMIT label.linkActivated(href); // what a click on it does
        QPointer<ui::HelpViewer> viewer = ui::HelpViewer::current();
        QVERIFY(viewer);
        QVERIFY(QTest::qWaitForWindowExposed(viewer));
        QCOMPARE(viewer->source(), QUrl(href));
        QTextBrowser *browser = viewer->browser();
        // The Markdown is rendered: the section is a heading, with the cursor on it, at the top.
        QCOMPARE(viewer->currentHeading(), QStringLiteral("Weights and the model zoo"));
        QCOMPARE(browser->textCursor().block().blockFormat().headingLevel(), 2);
        QTRY_VERIFY(browser->verticalScrollBar()->value() > 0);
        const QRect heading = browser->cursorRect();
        QVERIFY(browser->viewport()->rect().contains(heading));
        QVERIFY2(heading.top() < browser->viewport()->height() / 4, qPrintable(QString::number(heading.top())));
        QVERIFY(viewer->windowTitle().startsWith(QStringLiteral("Troubleshooting")));

        // Its table of contents links to #training: a click there.
        const int weightsScroll = browser->verticalScrollBar()->value();
        QTextCursor link;
        for (QTextBlock block = browser->document()->begin(); block.isValid() && link.isNull(); block = block.next())
            for (auto it = block.begin(); !it.atEnd(); ++it)
                if (it.fragment().charFormat().anchorHref() == QLatin1String("#training")) {
                    link = QTextCursor(browser->document());
                    link.setPosition(it.fragment().position() + 1);
                    break;
                }
        QVERIFY(!link.isNull());
        browser->verticalScrollBar()->setValue(0);
        QTest::mouseClick(browser->viewport(), Qt::LeftButton, {}, browser->cursorRect(link).center());
        QTRY_COMPARE(viewer->currentHeading(), QStringLiteral("Training"));
        QCOMPARE(viewer->source().fragment(), QStringLiteral("training"));
        QVERIFY(viewer->backButton()->isEnabled());
        QVERIFY(!viewer->forwardButton()->isEnabled());
        QVERIFY(viewer->contents()->currentItem());
        QCOMPARE(viewer->contents()->currentItem()->text(0), QStringLiteral("Training"));

        // Back where the link was followed from, then forward again.
        viewer->backButton()->click();
        QCOMPARE(viewer->source(), QUrl(href));
        QVERIFY(viewer->forwardButton()->isEnabled());
        viewer->forwardButton()->click();
        QCOMPARE(viewer->source().fragment(), QStringLiteral("training"));
        QVERIFY(browser->verticalScrollBar()->value() != weightsScroll);

        // The contents: every document with its sections; a section opens at its heading.
        QTreeWidget *contents = viewer->contents();
        QStringList titles;
        for (int i = 0; i < contents->topLevelItemCount(); ++i)
            titles << contents->topLevelItem(i)->text(0);
        QCOMPARE(titles.first(), QStringLiteral("Lathe user guide"));
        QVERIFY(titles.contains(QStringLiteral("Troubleshooting")));
        QTreeWidgetItem *guide = contents->topLevelItem(0);
        QTreeWidgetItem *exportSection = nullptr;
        for (int i = 0; i < guide->childCount(); ++i)
            if (guide->child(i)->text(0) == QLatin1String("Export"))
                exportSection = guide->child(i);
        QVERIFY(exportSection);
        contents->setCurrentItem(exportSection);
        QCOMPARE(viewer->source().fileName(), QStringLiteral("user-guide.md"));
        QCOMPARE(viewer->source().fragment(), QStringLiteral("export"));
        QCOMPARE(viewer->currentHeading(), QStringLiteral("Export"));
        QVERIFY(viewer->windowTitle().startsWith(QStringLiteral("Lathe user guide")));

        // Help ▸ User Guide shows the guide in the same viewer.
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        QAction *userGuide = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->text() == QStringLiteral("&User Guide"))
                userGuide = a;
        QVERIFY(userGuide && userGuide->isEnabled());
        userGuide->trigger();
        QCOMPARE(ui::HelpViewer::current(), viewer.data());
        QCOMPARE(viewer->source().fileName(), QStringLiteral("user-guide.md"));
        QVERIFY(!viewer->source().hasFragment());
        QCOMPARE(browser->verticalScrollBar()->value(), 0);
        viewer->activateWindow();
        QTest::keyClick(browser, Qt::Key_Escape); // closes it, as a help window should
        QTRY_VERIFY(!viewer); // deleted when closed
    }

    // The wheel over a setting that has no focus scrolls the page (the Train page's form in
    // its scroll area); a focused setting takes it. The guard is installed as lathe_main does.
    void theWheelScrollsThePageNotAnUnfocusedSetting()
    {
        ui::installWheelGuard(*qApp);
        const QString folder = m_tmp.filePath(QStringLiteral("wheel"));
        workspace::Project::create(folder);
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.resize(1100, 620);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openProject(folder));
        window.showPage(MainWindow::TrainPage);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));

        QSpinBox *spin = window.trainPage()->imageSizeEdit();
        QComboBox *combo = nullptr;
        for (QComboBox *c : window.trainPage()->findChild<ui::RunConfigForm *>()->findChildren<QComboBox *>())
            if (!combo && c->isVisible() && c->isEnabled() && c->currentIndex() + 1 < c->count())
                combo = c;
        QVERIFY(spin && combo);
        QScrollArea *scroll = nullptr;
        for (QWidget *w = spin; w && !scroll; w = w->parentWidget())
            scroll = qobject_cast<QScrollArea *>(w);
        QVERIFY(scroll && scroll->isAncestorOf(combo));
        QScrollBar *bar = scroll->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the page must be taller than its view for this test");

        for (QWidget *editor : {static_cast<QWidget *>(spin), static_cast<QWidget *>(combo)}) {
            QCOMPARE(editor->focusPolicy(), Qt::StrongFocus); // a wheel gives no focus
            scroll->ensureWidgetVisible(editor);
            const int scrolled = bar->value();
            const QVariant value = settingValue(editor);
            turnWheel(editor, scrolled > 0 ? 120 : -120); // towards where the page can go
            QCOMPARE(settingValue(editor), value);
            QVERIFY(!editor->hasFocus());
            QVERIFY2(bar->value() != scrolled, editor->metaObject()->className());
        }

        // Focused (clicked or tabbed into), the setting takes the wheel.
        spin->setFocus();
        QTRY_VERIFY(spin->hasFocus());
        scroll->ensureWidgetVisible(spin);
        const int size = spin->value();
        const int scrolled = bar->value();
        turnWheel(spin, size < spin->maximum() ? 120 : -120);
        QVERIFY(spin->value() != size);
        QCOMPARE(bar->value(), scrolled);
        combo->setFocus();
        QTRY_VERIFY(combo->hasFocus());
        scroll->ensureWidgetVisible(combo);
        const int index = combo->currentIndex();
        turnWheel(combo, -120);
        QCOMPARE(combo->currentIndex(), index + 1);
    }

    // Legends beside the plot, never over its newest points; axes with room beyond the extreme
    // points, which would otherwise be cut in half at the edge.
    void chartsKeepLegendsAndExtremePointsInView()
    {
        namespace key = engine::event_key;
        const auto l1 = [](const char *text) { return QLatin1String(text); };
        ui::TrainingCurves curves;
        curves.resize(1100, 700);
        curves.show();
        QVERIFY(QTest::qWaitForWindowExposed(&curves));
        QList<QJsonObject> events;
        for (int step = 1; step <= 50; ++step)
            events << QJsonObject{{l1(key::kType), l1(engine::event_type::kStep)}, {l1(key::kStep), step},
                                  {l1(key::kLoss), 2.0 / step}, {l1(key::kLr), 0.1}, {l1(key::kImagesPerSecond), 100 + step},
                                  {l1(key::kInputWaitFraction), step == 50 ? 1.0 : 0.2}};
        events << QJsonObject{{l1(key::kType), l1(engine::event_type::kEpoch)}, {l1(key::kStep), 50}, {l1(key::kEpoch), 0},
                              {QStringLiteral("train_loss"), 0.5}, {QStringLiteral("val_loss"), 0.4},
                              {QStringLiteral("train_top1"), 1.0}, {QStringLiteral("val_top1"), 1.0}};
        QSignalSpy replotted(&curves, &ui::TrainingCurves::replotted);
        curves.addEvents(events);
        QVERIFY(replotted.wait());
        for (int i = 0; i < ui::TrainingCurves::PlotCount; ++i)
            checkLegendAndPadding(curves.plot(ui::TrainingCurves::Plot(i)));
        QVERIFY(curves.plot(ui::TrainingCurves::AccuracyPlot)->yAxis->range().upper > 100); // 100 % drawn whole
        QVERIFY(curves.plot(ui::TrainingCurves::AccuracyPlot)->xAxis->range().upper > 50);
        QVERIFY(curves.plot(ui::TrainingCurves::ThroughputPlot)->yAxis2->range().upper > 100);

        ui::ClassBalanceChart balance;
        balance.resize(700, 400);
        balance.show();
        balance.setCounts({QStringLiteral("cat"), QStringLiteral("dog")},
                          {{QStringLiteral("cat"), QStringLiteral("train"), 40}, {QStringLiteral("dog"), QStringLiteral("train"), 12},
                           {QStringLiteral("cat"), QStringLiteral("val"), 10}, {QStringLiteral("dog"), QStringLiteral("val"), 3}});
        QVERIFY(QTest::qWaitForWindowExposed(&balance));
        checkLegendAndPadding(balance.plot());

        ui::CalibrationPlot calibration;
        calibration.resize(900, 400);
        const nlohmann::json metrics = {
            {"calibration", {{"ece", 0.05}, {"mce", 0.1}, {"bins", {{{"lower", 0.9}, {"upper", 1.0}, {"count", 5},
                                                                      {"accuracy", 1.0}, {"confidence", 1.0}}}}}},
            {"pr_curves", {{{"class", "cat"}, {"average_precision", 1.0},
                            {"points", {{{"recall", 0.0}, {"precision", 1.0}}, {{"recall", 1.0}, {"precision", 1.0}}}}}}}};
        calibration.setMetrics(metrics);
        calibration.show();
        QVERIFY(QTest::qWaitForWindowExposed(&calibration));
        checkLegendAndPadding(calibration.reliabilityPlot());
        checkLegendAndPadding(calibration.prPlot());

        ui::RunOverlayPlot overlay;
        overlay.resize(700, 400);
        QList<QJsonObject> epochs;
        for (int epoch = 0; epoch < 3; ++epoch)
            epochs << QJsonObject{{l1(key::kType), l1(engine::event_type::kEpoch)}, {l1(key::kEpoch), epoch},
                                  {QStringLiteral("val_top1"), 0.5 + 0.25 * epoch}};
        overlay.setRuns({{QStringLiteral("run-a"), epochs}, {QStringLiteral("run-b"), epochs.mid(0, 2)}});
        overlay.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overlay));
        checkLegendAndPadding(overlay.plot());
        QVERIFY(overlay.plot()->yAxis->range().upper > 100); // the last epoch's 100 % drawn whole

        ui::LrSchedulePreview preview;
        preview.resize(700, 300);
        preview.setConfig({{"optimizer", {{"lr", 0.1}, {"epochs", 4}, {"batch_size", 10}}},
                           {"schedule", {{"name", "cosine"}, {"warmup_epochs", 1}}}},
                          100);
        preview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&preview));
        checkLegendAndPadding(preview.plot());
        QVERIFY(preview.plot()->yAxis->range().lower < 0); // a rate falling to 0 is not drawn along the axis
    }

    // Every chart of every page follows the theme, at startup and when it is switched; so does
    // a chart made after the switch and the painted confusion matrix.
    void everyChartFollowsTheTheme()
    {
        const QString folder = m_tmp.filePath(QStringLiteral("charts"));
        workspace::Project::create(folder);
        workspace::Settings settings(settingsPath());
        MainWindow window(&settings);
        window.show();
        QVERIFY(window.openProject(folder));
        const QList<QCustomPlot *> plots = window.findChildren<QCustomPlot *>();
        QVERIFY2(plots.size() >= 8, qPrintable(QString::number(plots.size()))); // data, train (5), runs, evaluate (2)
        QAction *dark = nullptr;
        QAction *light = nullptr;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->text() == QStringLiteral("Dark"))
                dark = a;
            if (a->text() == QStringLiteral("Light"))
                light = a;
        }
        QVERIFY(dark && light);
        dark->trigger();
        for (QCustomPlot *plot : plots)
            plot_checks::checkDarkPlot(plot); // the dark palette's colours, not merely dark ones
        ui::TrainingCurves later;
        later.show();
        QVERIFY(QTest::qWaitForWindowExposed(&later));
        QVERIFY(backgroundOf(later.plot(ui::TrainingCurves::LossPlot)).lightness() < 100);
        ui::ConfusionMatrixView matrix;
        matrix.resize(300, 300);
        matrix.setMatrix({QStringLiteral("cat"), QStringLiteral("dog")}, {{3, 1}, {0, 4}});
        const auto matrixBackground = [&matrix] { return matrix.grab().toImage().pixelColor(1, 1); };
        QVERIFY(matrixBackground().isValid());
        QVERIFY(matrixBackground().lightness() < 100);

        light->trigger();
        for (QCustomPlot *plot : plots) {
            QVERIFY2(backgroundOf(plot).lightness() > 150, qPrintable(plot->objectName()));
            plot_checks::checkPlotColours(plot);
        }
        QVERIFY(matrixBackground().lightness() > 150);
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
            window.resize(1211, 777); // above the Data page's minimum width (its import buttons)
            window.findChild<QDockWidget *>(QStringLiteral("jobsDock"))->hide();
            window.close();
        }
        MainWindow again(&settings);
        again.show();
        QCOMPARE(again.size(), QSize(1211, 777));
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
