// The Tune page's study charts on a study built by hand (optimizer.lr log-uniform, optimizer.name
// a choice; trials completed, pruned and running with their epochs): what each plot holds, where
// the parallel coordinates put each value, the importance bars and their note before and after
// the third completed trial, and the texts of an empty study; legends off the points, the
// extreme points inside the axes, and the dark theme's colours after a switch. With LATHE_STUDY_CHARTS_SHOTS=DIR it
// also saves each tab of a 30-trial study there, light and dark (study-charts-<tab>-<theme>.png).
// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "common/theme.h"
#include "engine/tune/param_importance.h"
#include "plot_checks.h"
#include "tune/study_charts.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QTest>

#include <cmath>
#include <random>

using namespace lathe;
using lathe::ui::StudyCharts;
using json = nlohmann::json;

namespace {

engine::SearchSpace space()
{
    return engine::parseSearchSpace(json::parse(R"({
      "params": {
        "optimizer.lr": {"type": "log_uniform", "low": 1e-4, "high": 1e-1},
        "optimizer.name": {"type": "choice", "values": ["sgd", "adamw"]}
      },
      "budget": {"epochs": 3},
      "metric": "val_top1"
    })"));
}

engine::Trial trial(int id, double lr, const char *name, engine::TrialState state, std::map<int, double> epochs)
{
    engine::Trial t;
    t.id = id;
    t.params = {{"optimizer.lr", lr}, {"optimizer.name", name}};
    t.state = state;
    t.intermediate = std::move(epochs);
    if (state == engine::TrialState::Completed)
        t.value = t.lastIntermediate();
    return t;
}

using S = engine::TrialState;

// Completed 0, 2, 4 (70, 80, 75 %), pruned 1, 3, running 5.
std::vector<engine::Trial> trials()
{
    return {trial(0, 1e-3, "sgd", S::Completed, {{1, 0.5}, {2, 0.6}, {3, 0.7}}),
            trial(1, 1e-1, "adamw", S::Pruned, {{1, 0.2}}),
            trial(2, 1e-2, "adamw", S::Completed, {{1, 0.55}, {2, 0.7}, {3, 0.8}}),
            trial(3, 1e-4, "sgd", S::Pruned, {{1, 0.3}, {2, 0.35}}),
            trial(4, 3e-3, "sgd", S::Completed, {{1, 0.6}, {2, 0.72}, {3, 0.75}}),
            trial(5, 2e-3, "adamw", S::Running, {{1, 0.4}})};
}

QList<QPair<double, double>> points(QCPGraph *graph)
{
    QList<QPair<double, double>> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.append({it->key, it->value});
    return out;
}

QString emptyText(QCustomPlot *plot)
{
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)); text && text->objectName() == QLatin1String("emptyText"))
            return text->text();
    return {};
}

QStringList tickLabels(QCPAxis *axis)
{
    QStringList labels;
    for (const QString &label : axis->ticker().dynamicCast<QCPAxisTickerText>()->ticks())
        labels << label;
    return labels;
}

const QStringList kParallelTitles = {QStringLiteral("optimizer.lr"), QStringLiteral("optimizer.name"),
                                     QStringLiteral("Validation top-1 (%)")};

bool near(double a, double b)
{
    return std::abs(a - b) < 1e-9;
}

} // namespace

class TestStudyCharts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyStudyShowsWhatWillAppear()
    {
        StudyCharts charts;
        engine::StudyState state;
        state.space = space();
        charts.setStudy(state);
        QCOMPARE(charts.count(), 4);
        QCOMPARE(charts.tabText(0), QStringLiteral("Best so far"));
        QCOMPARE(charts.tabText(3), QStringLiteral("Importance"));
        QCOMPARE(charts.bestSoFarPlot()->objectName(), QStringLiteral("bestSoFarPlot"));
        QCOMPARE(charts.importancePlot()->objectName(), QStringLiteral("importancePlot"));
        for (QCustomPlot *plot : {charts.bestSoFarPlot(), charts.curvesPlot(), charts.parallelPlot(), charts.importancePlot()})
            QVERIFY2(emptyText(plot).contains(QLatin1String("will appear here")), qPrintable(plot->objectName()));
        for (int i = 0; i < charts.bestSoFarPlot()->graphCount(); ++i)
            QCOMPARE(charts.bestSoFarPlot()->graph(i)->dataCount(), 0);
        QCOMPARE(charts.curvesPlot()->graphCount(), 0);
        QCOMPARE(charts.parallelPlot()->graphCount(), 0);
        // The axes of the space are there already.
        QCOMPARE(tickLabels(charts.parallelPlot()->xAxis),
                 kParallelTitles);
        QCOMPARE(charts.importancePlot()->plottableCount(), 0);
        // No translator here: the source's plural form (lathe_en.ts turns it into English).
        QCOMPARE(charts.importanceNote()->text(),
                 QStringLiteral("Needs 3 completed trial(s) to estimate how much each parameter matters (0 so far)."));
        QCOMPARE(StudyCharts::metricTitle(QStringLiteral("val_top1")), QStringLiteral("Validation top-1"));
        QCOMPARE(StudyCharts::metricTitle(QStringLiteral("my_metric")), QStringLiteral("my_metric"));
    }

    void bestSoFarPlotsEndedTrialsAndTheBestStep()
    {
        StudyCharts charts;
        engine::StudyState state;
        state.space = space();
        state.trials = trials();
        charts.setStudy(state);
        QCustomPlot *plot = charts.bestSoFarPlot();
        QCOMPARE(plot->graphCount(), 3);
        using P = QList<QPair<double, double>>;
        QCOMPARE(points(plot->graph(0)), P({{0, 70}, {2, 80}, {4, 75}}));    // completed
        QCOMPARE(points(plot->graph(1)), P({{1, 20}, {3, 35}}));             // pruned, at their last epoch
        QCOMPARE(points(plot->graph(2)), P({{0, 70}, {2, 80}, {4, 80}}));    // best so far
        QCOMPARE(plot->graph(2)->lineStyle(), QCPGraph::lsStepLeft);
        QVERIFY(plot->graph(0)->scatterStyle().shape() != plot->graph(1)->scatterStyle().shape());
        QCOMPARE(plot->yAxis->label(), QStringLiteral("Validation top-1 (%)"));
        QVERIFY(emptyText(plot).isEmpty());

        // Minimising: the best is the lowest.
        state.space.maximize = false;
        state.space.metric = "val_loss";
        charts.setStudy(state);
        QCOMPARE(points(plot->graph(2)), P({{0, 0.7}, {2, 0.7}, {4, 0.7}}));
        QCOMPARE(plot->yAxis->label(), QStringLiteral("Validation loss"));
    }

    void learningCurvesOverlayEveryTrial()
    {
        StudyCharts charts;
        engine::StudyState state;
        state.space = space();
        state.trials = trials();
        charts.setStudy(state);
        QCustomPlot *plot = charts.curvesPlot();
        QCOMPARE(plot->graphCount(), 6);
        int total = 0;
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph *graph = plot->graph(i);
            const engine::Trial &t = state.trials[size_t(graph->property("trial").toInt())];
            QCOMPARE(graph->dataCount(), int(t.intermediate.size()));
            QCOMPARE(graph->data()->at(0)->value, 100 * t.intermediate.begin()->second);
            total += graph->dataCount();
        }
        QCOMPARE(total, 13);
        // The best (trial 2) last, on top, the widest; pruned ones dimmer than completed.
        QCPGraph *best = plot->graph(plot->graphCount() - 1);
        QCOMPARE(best->property("trial").toInt(), 2);
        QCOMPARE(best->name(), QStringLiteral("Best: trial 2"));
        const auto graphOf = [plot](int id) {
            for (int i = 0; i < plot->graphCount(); ++i)
                if (plot->graph(i)->property("trial").toInt() == id)
                    return plot->graph(i);
            return static_cast<QCPGraph *>(nullptr);
        };
        QVERIFY(best->pen().widthF() > graphOf(0)->pen().widthF());
        QVERIFY(graphOf(1)->pen().color().alpha() < graphOf(0)->pen().color().alpha());
        // One legend entry per kind: best, completed, pruned, running.
        QCOMPARE(plot->legend->itemCount(), 4);
        QVERIFY(plot->xAxis->range().contains(1) && plot->xAxis->range().contains(3));
    }

    void parallelCoordinatesNormaliseEachAxis()
    {
        StudyCharts charts;
        engine::StudyState state;
        state.space = space();
        state.trials = trials();
        charts.setStudy(state);
        QCustomPlot *plot = charts.parallelPlot();
        QCOMPARE(plot->graphCount(), 5); // completed and pruned
        QSet<int> ids;
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph *graph = plot->graph(i);
            QCOMPARE(graph->dataCount(), 3);
            ids.insert(graph->property("trial").toInt());
            const engine::Trial &t = state.trials[size_t(graph->property("trial").toInt())];
            // lr in log space over [1e-4, 1e-1]; sgd 0, adamw 1; the metric over [20, 80] %.
            const double lr = (std::log10(t.params["optimizer.lr"].get<double>()) + 4) / 3;
            QVERIFY2(near(graph->data()->at(0)->value, lr), qPrintable(QString::number(t.id)));
            QCOMPARE(graph->data()->at(1)->value, t.params["optimizer.name"] == "sgd" ? 0.0 : 1.0);
            const double metric = t.value ? *t.value : *t.lastIntermediate();
            QVERIFY(near(graph->data()->at(2)->value, (metric - 0.2) / 0.6));
        }
        QCOMPARE(ids, QSet<int>({0, 1, 2, 3, 4}));
        QCOMPARE(plot->graph(plot->graphCount() - 1)->property("trial").toInt(), 2); // the best on top
        QCOMPARE(tickLabels(plot->xAxis), kParallelTitles);
        // The axes' tick labels: powers of ten, the choices, the metric's range.
        QStringList labels;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)))
                labels << text->text();
        for (const char *label : {"1e-4", "0.001", "0.01", "0.1", "sgd", "adamw", "20", "80"})
            QVERIFY2(labels.contains(QLatin1String(label)), label);
    }

    void importanceNeedsThreeCompletedTrials()
    {
        StudyCharts charts;
        engine::StudyState state;
        state.space = space();
        state.trials = trials();
        state.trials.resize(4); // completed 0 and 2
        charts.setStudy(state);
        QCOMPARE(charts.importanceNote()->text(),
                 QStringLiteral("Needs 3 completed trial(s) to estimate how much each parameter matters (2 so far)."));
        QCOMPARE(charts.importancePlot()->plottableCount(), 0);
        QVERIFY(!emptyText(charts.importancePlot()).isEmpty());

        state.trials = trials(); // completed 0, 2 and 4
        charts.setStudy(state);
        const QString note = charts.importanceNote()->text();
        QVERIFY2(note.contains(QLatin1String("over 3 completed trial(s)")), qPrintable(note));
        QVERIFY(note.contains(QStringLiteral("η²")));
        QVERIFY(note.contains(QLatin1String("not fANOVA itself")));
        QCOMPARE(charts.importancePlot()->plottableCount(), 1);
        auto *bars = qobject_cast<QCPBars *>(charts.importancePlot()->plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->keyAxis(), charts.importancePlot()->yAxis); // horizontal
        QCOMPARE(bars->dataCount(), 2);
        const std::vector<engine::ParamImportance> expected = engine::paramImportance(state);
        QCOMPARE(int(expected.size()), 2);
        // The most important at the top (the highest key), in percent; the names as tick labels.
        QCOMPARE(bars->data()->at(1)->key, 2.0);
        QVERIFY(near(bars->data()->at(1)->value, 100 * expected[0].importance));
        QVERIFY(near(bars->data()->at(0)->value + bars->data()->at(1)->value, 100));
        QCOMPARE(tickLabels(charts.importancePlot()->yAxis),
                 QStringList({QString::fromStdString(expected[1].param), QString::fromStdString(expected[0].param)}));
        QVERIFY(emptyText(charts.importancePlot()).isEmpty());

        // Equal values: bars of zero, and the note says why.
        for (engine::Trial &t : state.trials)
            if (t.value)
                t.value = 0.5;
        charts.setStudy(state);
        QVERIFY2(charts.importanceNote()->text().contains(QLatin1String("same metric")),
                 qPrintable(charts.importanceNote()->text()));
        bars = qobject_cast<QCPBars *>(charts.importancePlot()->plottable(0));
        QCOMPARE(bars->data()->at(0)->value, 0.0);
        QCOMPARE(bars->data()->at(1)->value, 0.0);
    }

    // The legends above the axes, every point inside them (the importance bars from zero), and
    // after a theme switch every plot and its drawn labels in the dark palette, then light again.
    void chartsKeepPointsInViewInBothThemes()
    {
        StudyCharts charts;
        charts.resize(900, 560);
        engine::StudyState state;
        state.space = space();
        state.trials = trials();
        charts.setStudy(state);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        const QList<QCustomPlot *> plots = {charts.bestSoFarPlot(), charts.curvesPlot(), charts.parallelPlot(),
                                            charts.importancePlot()};
        // Each tab's plot laid out as shown (a hidden tab's keeps its size from before).
        const auto checkEachTab = [&] {
            for (int i = 0; i < charts.count(); ++i) {
                charts.setCurrentIndex(i);
                QTRY_VERIFY(plots[i]->isVisible() && plots[i]->viewport().size() == plots[i]->size());
                plot_checks::checkLegendAndPadding(plots[i]);
            }
        };
        checkEachTab();
        QVERIFY(charts.bestSoFarPlot()->legend->visible());
        QVERIFY(charts.curvesPlot()->legend->visible());
        QCOMPARE(charts.importancePlot()->plottableCount(), 1);
        QVERIFY(charts.importancePlot()->xAxis->range().lower <= 0); // bars from zero, whole
        charts.setCurrentIndex(0);

        // The labels drawn as items (the parallel axes' ticks) take the palette's text colour.
        const auto itemTextColours = [](QCustomPlot *plot) {
            QSet<QString> colours;
            for (int i = 0; i < plot->itemCount(); ++i)
                if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)))
                    colours.insert(text->color().name());
            return colours;
        };
        ui::applyTheme(QStringLiteral("dark"));
        QTRY_VERIFY(plot_checks::backgroundOf(charts.bestSoFarPlot()).lightness() < 100);
        for (QCustomPlot *plot : plots)
            plot_checks::checkDarkPlot(plot);
        const QString darkText = QApplication::palette().color(QPalette::WindowText).name();
        QTRY_COMPARE(itemTextColours(charts.parallelPlot()), QSet<QString>({darkText})); // redrawn a turn later
        checkEachTab();
        charts.setCurrentIndex(0);

        ui::applyTheme(QStringLiteral("light"));
        QTRY_VERIFY(plot_checks::backgroundOf(charts.bestSoFarPlot()).lightness() > 150);
        for (QCustomPlot *plot : plots)
            plot_checks::checkPlotColours(plot);
        QTRY_COMPARE(itemTextColours(charts.parallelPlot()),
                     QSet<QString>({QApplication::palette().color(QPalette::WindowText).name()}));
    }

    // Not a check: the four tabs of a larger study, for a look (LATHE_STUDY_CHARTS_SHOTS=DIR).
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("LATHE_STUDY_CHARTS_SHOTS");
        if (dir.isEmpty())
            QSKIP("LATHE_STUDY_CHARTS_SHOTS is not set");
        engine::StudyState state;
        state.space = space();
        state.space.budget.epochs = 9;
        std::mt19937 rng(11);
        std::uniform_real_distribution<double> logLr(-4, -1), noise(-0.02, 0.02);
        for (int id = 0; id < 30; ++id) {
            const double lr = std::pow(10.0, logLr(rng));
            const char *name = rng() % 2 ? "sgd" : "adamw";
            const double quality = 0.92 - 0.12 * std::abs(std::log10(lr) + 2.3) - (name[0] == 's' ? 0.03 : 0);
            std::map<int, double> epochs;
            const int last = id % 3 == 1 ? 1 + int(rng() % 3) : 9; // every third trial pruned early
            for (int e = 1; e <= last; ++e)
                epochs[e] = quality * (1 - std::exp(-e / 2.5)) + noise(rng);
            state.trials.push_back(trial(id, lr, name, last < 9 ? S::Pruned : S::Completed, epochs));
        }
        for (const QString &theme : {QStringLiteral("light"), QStringLiteral("dark")}) {
            ui::applyTheme(theme);
            StudyCharts charts;
            charts.resize(900, 560);
            charts.setStudy(state);
            charts.show();
            QVERIFY(QTest::qWaitForWindowExposed(&charts));
            const QStringList names = {QStringLiteral("best"), QStringLiteral("curves"), QStringLiteral("parallel"), QStringLiteral("importance")};
            for (int i = 0; i < charts.count(); ++i) {
                charts.setCurrentIndex(i);
                QTest::qWait(50);
                for (QCustomPlot *plot : {charts.bestSoFarPlot(), charts.curvesPlot(), charts.parallelPlot(), charts.importancePlot()})
                    plot->replot();
                QVERIFY(charts.grab().save(QStringLiteral("%1/study-charts-%2-%3.png").arg(dir, names[i], theme)));
            }
            StudyCharts empty;
            engine::StudyState none;
            none.space = state.space;
            empty.resize(900, 560);
            empty.setStudy(none);
            empty.show();
            QVERIFY(QTest::qWaitForWindowExposed(&empty));
            for (int i = 0; i < empty.count(); ++i) {
                empty.setCurrentIndex(i);
                QTest::qWait(50);
                QVERIFY(empty.grab().save(QStringLiteral("%1/study-charts-empty-%2-%3.png").arg(dir, names[i], theme)));
            }
        }
    }
};

QTEST_MAIN(TestStudyCharts)
#include "test_study_charts.moc"
