// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "tune/study_charts.h"

#include "common/plot_palette.h"
#include "engine/tune/param_importance.h"
#include "tune/trial_table_model.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

namespace lathe::ui {
namespace {

using engine::ParamSpec;
using engine::StudyState;
using engine::Trial;
using engine::TrialState;

const QColor kCompleted(61, 139, 217);
const QColor kPruned(140, 140, 140);
const QColor kBest(240, 150, 40);
const QColor kRunning(70, 170, 90);
const QColor kFailed(200, 80, 80);

// What the charts plot for a trial: a completed trial's value, a pruned one's last reported
// metric; none for running and failed trials.
std::optional<double> endedMetric(const Trial &t)
{
    if (t.state == TrialState::Completed && t.value && std::isfinite(*t.value))
        return t.value;
    if (t.state == TrialState::Pruned) {
        const std::optional<double> last = t.lastIntermediate();
        if (last && std::isfinite(*last))
            return last;
    }
    return std::nullopt;
}

bool isTop1(const std::string &metric)
{
    return QString::fromStdString(metric).endsWith(QLatin1String("top1"));
}

// Top-1 metrics are shown in percent.
double metricScale(const StudyState &state)
{
    return isTop1(state.space.metric) ? 100.0 : 1.0;
}

QString metricAxisLabel(const StudyState &state)
{
    const QString title = StudyCharts::metricTitle(QString::fromStdString(state.space.metric));
    return isTop1(state.space.metric) ? StudyCharts::tr("%1 (%)").arg(title) : title;
}

QString metricText(const StudyState &state, double value)
{
    return isTop1(state.space.metric) ? StudyCharts::tr("%1 %").arg(100 * value, 0, 'f', 1)
                                      : QString::number(value, 'g', 4);
}

bool better(const StudyState &state, double a, double b)
{
    return state.space.maximize ? a > b : a < b;
}

// The best completed trial (the first of equals), or -1.
int bestTrial(const StudyState &state)
{
    int best = -1;
    for (const Trial &t : state.trials)
        if (t.state == TrialState::Completed && t.value && std::isfinite(*t.value) &&
            (best < 0 || better(state, *t.value, *state.trials[size_t(best)].value)))
            best = int(&t - state.trials.data());
    return best;
}

// A parameter's value as the axes show it: choices by their name in the space ("sgd").
QString valueText(const nlohmann::json &value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_number_integer())
        return QString::number(value.get<qint64>());
    if (value.is_number())
        return QString::number(value.get<double>(), 'g', 4);
    return QString::fromStdString(value.dump());
}

// The x axis counts trials or epochs: whole numbers only.
void useIntegerTicks(QCPAxis *axis)
{
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(ticker);
}

// A short text in the middle of the axis rect, for a plot with nothing to draw yet.
void addEmptyText(QCustomPlot *plot, const QString &text)
{
    auto *item = new QCPItemText(plot);
    item->setObjectName(QStringLiteral("emptyText"));
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setPositionAlignment(Qt::AlignCenter);
    item->setText(text);
    item->setColor(plot->palette().color(QPalette::PlaceholderText));
    item->setBrush(plot->palette().brush(QPalette::Base));
    item->setPadding(QMargins(8, 4, 8, 4));
    item->setClipToAxisRect(false);
}

QCustomPlot *newPlot(const QString &objectName, QWidget *parent)
{
    auto *plot = new QCustomPlot(parent);
    plot->setObjectName(objectName);
    plot->setMinimumSize(360, 240);
    plot->setMouseTracking(true);
    return plot;
}

// One axis of the parallel-coordinates plot: where a value lies in [0, 1], and the tick labels.
struct ParallelAxis
{
    QString title;
    std::function<double(const nlohmann::json &)> position; // NaN: no such value
    QList<QPair<double, QString>> ticks;
};

ParallelAxis parameterAxis(const ParamSpec &spec)
{
    ParallelAxis axis;
    axis.title = QString::fromStdString(spec.name);
    if (spec.categorical()) {
        const std::vector<nlohmann::json> values = spec.values;
        const double count = double(values.size());
        const auto at = [count](size_t i) { return count > 1 ? double(i) / (count - 1) : 0.5; };
        axis.position = [values, at](const nlohmann::json &v) {
            for (size_t i = 0; i < values.size(); ++i)
                if (engine::paramValuesEqual(values[i], v))
                    return at(i);
            return std::numeric_limits<double>::quiet_NaN();
        };
        for (size_t i = 0; i < values.size(); ++i)
            axis.ticks.append({at(i), valueText(values[i])});
        return axis;
    }
    const bool log = spec.logScale() && spec.low > 0;
    const auto t = [log](double x) { return log ? std::log10(x) : x; };
    const double low = t(spec.low), high = t(spec.high);
    const auto at = [low, high](double tx) { return high > low ? (tx - low) / (high - low) : 0.5; };
    axis.position = [t, at](const nlohmann::json &v) {
        if (!v.is_number())
            return std::numeric_limits<double>::quiet_NaN();
        return std::clamp(at(t(v.get<double>())), 0.0, 1.0);
    };
    const bool integer = spec.type == engine::ParamType::IntUniform;
    const auto label = [integer](double x) {
        return integer ? QString::number(std::llround(x)) : QString::number(x, 'g', 3);
    };
    if (log) {
        // Powers of ten when the range holds at least two, else five steps in log space.
        for (int k = int(std::ceil(low - 1e-9)); k <= int(std::floor(high + 1e-9)); ++k) {
            const double x = std::pow(10.0, k);
            axis.ticks.append({at(k), integer || (k >= -3 && k <= 3) ? label(x) : QStringLiteral("1e%1").arg(k)});
        }
        if (axis.ticks.size() >= 2)
            return axis;
        axis.ticks.clear();
    }
    for (int i = 0; i <= 4; ++i) {
        const double tx = low + (high - low) * i / 4;
        const QString text = label(log ? std::pow(10.0, tx) : tx);
        if (axis.ticks.isEmpty() || axis.ticks.last().second != text)
            axis.ticks.append({at(tx), text});
    }
    return axis;
}

} // namespace

StudyCharts::StudyCharts(QWidget *parent)
    : QTabWidget(parent)
    , m_bestSoFar(newPlot(QStringLiteral("bestSoFarPlot"), this))
    , m_curves(newPlot(QStringLiteral("curvesPlot"), this))
    , m_parallel(newPlot(QStringLiteral("parallelPlot"), this))
    , m_importance(newPlot(QStringLiteral("importancePlot"), this))
    , m_importanceNote(new QLabel(this))
{
    setObjectName(QStringLiteral("studyCharts"));
    for (QCustomPlot *plot : {m_bestSoFar, m_curves}) {
        plot->legend->setVisible(true);
        plot->legend->setFont(QFont(font().family(), 8));
        placeLegendAbove(plot);
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        useIntegerTicks(plot->xAxis);
    }
    m_bestSoFar->xAxis->setLabel(tr("Trial"));
    m_bestSoFar->xAxis->grid()->setZeroLinePen(Qt::NoPen); // trial 0 is no origin
    m_curves->xAxis->setLabel(tr("Epoch"));
    for (QCustomPlot *plot : {m_bestSoFar, m_curves, m_parallel})
        connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent *event) { showHover(plot, event->pos()); });

    m_parallel->yAxis->setVisible(false);
    m_parallel->xAxis->grid()->setVisible(false);
    m_parallel->yAxis->grid()->setVisible(false);
    m_parallel->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_parallel->xAxis->setSubTicks(false);
    m_parallel->xAxis->setTickLength(0, 0);
    // The palette follower restyles every axis: this one keeps no line and no ticks.
    connect(m_parallel, &QCustomPlot::beforeReplot, this, [this] {
        m_parallel->xAxis->setBasePen(Qt::NoPen);
        m_parallel->xAxis->setTickPen(Qt::NoPen);
    });
    m_parallel->yAxis->setRange(-0.04, 1.04);

    m_importance->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_importance->yAxis->setSubTicks(false);
    m_importance->yAxis->grid()->setVisible(false);
    m_importance->xAxis->setLabel(tr("Share of the explained variance (%)"));
    m_importance->xAxis->setRange(0, 100 * (1 + kPlotPadding));

    m_importanceNote->setObjectName(QStringLiteral("importanceNote"));
    m_importanceNote->setWordWrap(true);
    m_importanceNote->setTextFormat(Qt::PlainText);
    auto *importancePage = new QWidget(this);
    auto *importanceLayout = new QVBoxLayout(importancePage);
    importanceLayout->setContentsMargins(0, 4, 0, 0);
    importanceLayout->addWidget(m_importanceNote);
    importanceLayout->addWidget(m_importance, 1);

    addTab(m_bestSoFar, tr("Best so far"));
    addTab(m_curves, tr("Learning curves"));
    addTab(m_parallel, tr("Parallel coordinates"));
    addTab(importancePage, tr("Importance"));
    setTabToolTip(0, tr("The metric of each finished trial and the best value so far."));
    setTabToolTip(1, tr("Each trial's metric after every epoch."));
    setTabToolTip(2, tr("Each finished trial's parameters and metric, one line per trial."));
    setTabToolTip(3, tr("How much of the metric's variation each parameter explains on its own."));

    setStudy(StudyState{});
}

QString StudyCharts::metricTitle(const QString &metric)
{
    if (metric == QLatin1String("val_top1"))
        return tr("Validation top-1");
    if (metric == QLatin1String("val_loss"))
        return tr("Validation loss");
    if (metric == QLatin1String("train_loss"))
        return tr("Training loss");
    if (metric == QLatin1String("train_top1"))
        return tr("Training top-1");
    return metric;
}

void StudyCharts::setStudy(const engine::StudyState &state)
{
    m_state = state;
    drawBestSoFar(state);
    drawCurves(state);
    drawParallel(state);
    drawImportance(state);
}

void StudyCharts::changeEvent(QEvent *event)
{
    QTabWidget::changeEvent(event);
    // The items take their colours when drawn, from the plots' palettes: those change after this
    // event (a parent hears of a new palette before its children), so the redraw waits a turn.
    if (event->type() == QEvent::PaletteChange && !m_redrawQueued) {
        m_redrawQueued = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_redrawQueued = false;
                setStudy(m_state);
            },
            Qt::QueuedConnection);
    }
}

void StudyCharts::drawBestSoFar(const StudyState &state)
{
    QCustomPlot *plot = m_bestSoFar;
    plot->clearGraphs();
    plot->clearItems();
    const double scale = metricScale(state);
    const auto dots = [plot](const QString &name, const QColor &colour, QCPScatterStyle::ScatterShape shape) {
        QCPGraph *graph = plot->addGraph();
        graph->setName(name);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(QCPScatterStyle(shape, QPen(colour, 1.5), shape == QCPScatterStyle::ssDisc ? QBrush(colour) : QBrush(Qt::NoBrush), 7));
        graph->setProperty("hover", true);
        return graph;
    };
    QCPGraph *completed = dots(tr("Completed"), kCompleted, QCPScatterStyle::ssDisc);
    QCPGraph *pruned = dots(tr("Pruned"), kPruned, QCPScatterStyle::ssCircle);
    QCPGraph *best = plot->addGraph();
    best->setName(tr("Best so far"));
    best->setLineStyle(QCPGraph::lsStepLeft);
    best->setPen(QPen(kBest, 2));

    std::optional<double> bestValue;
    int lastId = -1;
    for (const Trial &t : state.trials) {
        const std::optional<double> metric = endedMetric(t);
        if (!metric)
            continue;
        lastId = t.id;
        if (t.state == TrialState::Completed) {
            completed->addData(t.id, scale * *metric);
            if (!bestValue || better(state, *metric, *bestValue))
                bestValue = metric;
            best->addData(t.id, scale * *bestValue);
        } else {
            pruned->addData(t.id, scale * *metric);
        }
    }
    // The best line reaches the last ended trial (a pruned one after the last completed).
    if (bestValue && lastId > best->data()->at(best->dataCount() - 1)->key)
        best->addData(lastId, scale * *bestValue);

    plot->yAxis->setLabel(metricAxisLabel(state));
    const bool empty = lastId < 0;
    plot->legend->setVisible(!empty);
    if (empty) {
        addEmptyText(plot, tr("The metric of each finished trial will appear here."));
        plot->xAxis->setRange(-0.5, 9.5);
        plot->yAxis->setRange(scale > 1 ? QCPRange(0, 100) : QCPRange(0, 1));
    } else {
        rescaleWithPadding(plot);
        plot->xAxis->setRange(-0.5, std::max(lastId, 1) + 0.5);
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void StudyCharts::drawCurves(const StudyState &state)
{
    QCustomPlot *plot = m_curves;
    plot->clearGraphs();
    plot->clearItems();
    const double scale = metricScale(state);
    const int bestId = bestTrial(state);
    QCPGraph *bestGraph = nullptr;
    QMap<TrialState, QCPGraph *> firstOf;
    int maxEpoch = 0;
    for (const Trial &t : state.trials) {
        if (t.intermediate.empty() || t.id == bestId)
            continue;
        QColor colour = kCompleted;
        double width = 1.5;
        switch (t.state) {
        case TrialState::Completed:
            colour.setAlpha(190);
            break;
        case TrialState::Pruned:
            colour = kPruned;
            colour.setAlpha(110);
            width = 1;
            break;
        case TrialState::Running:
            colour = kRunning;
            break;
        case TrialState::Failed:
            colour = kFailed;
            colour.setAlpha(110);
            width = 1;
            break;
        }
        QCPGraph *graph = plot->addGraph();
        graph->setPen(QPen(colour, width));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 4));
        graph->setProperty("trial", t.id);
        graph->setProperty("hover", true);
        graph->setName(tr("Trial %1").arg(t.id));
        graph->removeFromLegend();
        for (const auto &[epoch, value] : t.intermediate)
            graph->addData(epoch, scale * value);
        maxEpoch = std::max(maxEpoch, t.lastEpoch());
        if (!firstOf.contains(t.state))
            firstOf.insert(t.state, graph);
    }
    if (bestId >= 0 && !state.trials[size_t(bestId)].intermediate.empty()) {
        // Drawn last: on top of the others.
        const Trial &t = state.trials[size_t(bestId)];
        bestGraph = plot->addGraph();
        bestGraph->setPen(QPen(kBest, 3));
        bestGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kBest, 6));
        bestGraph->setProperty("trial", t.id);
        bestGraph->setProperty("hover", true);
        bestGraph->setName(tr("Best: trial %1").arg(t.id));
        bestGraph->removeFromLegend();
        for (const auto &[epoch, value] : t.intermediate)
            bestGraph->addData(epoch, scale * value);
        maxEpoch = std::max(maxEpoch, t.lastEpoch());
    }
    // One legend entry per kind of line.
    const QList<QPair<TrialState, QString>> kinds = {{TrialState::Completed, tr("Completed")},
                                                     {TrialState::Pruned, tr("Pruned")},
                                                     {TrialState::Running, tr("Running")},
                                                     {TrialState::Failed, tr("Failed")}};
    if (bestGraph)
        bestGraph->addToLegend();
    for (const auto &[kind, name] : kinds)
        if (QCPGraph *graph = firstOf.value(kind)) {
            graph->setName(name);
            graph->addToLegend();
        }

    plot->yAxis->setLabel(metricAxisLabel(state));
    const bool empty = plot->graphCount() == 0;
    plot->legend->setVisible(!empty);
    if (empty) {
        addEmptyText(plot, tr("Each trial's metric after every epoch will appear here."));
        plot->yAxis->setRange(scale > 1 ? QCPRange(0, 100) : QCPRange(0, 1));
    } else {
        rescaleWithPadding(plot);
    }
    // The whole budget of epochs in view, when there is one.
    const int epochs = std::max({maxEpoch, state.space.budget.epochs, 1});
    const double pad = std::max(0.3, kPlotPadding * (epochs - 1));
    plot->xAxis->setRange(1 - pad, epochs + pad);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void StudyCharts::drawParallel(const StudyState &state)
{
    QCustomPlot *plot = m_parallel;
    plot->clearGraphs();
    plot->clearItems();

    QList<ParallelAxis> axes;
    for (const ParamSpec &spec : state.space.params)
        axes.append(parameterAxis(spec));

    // The lines: completed and pruned trials, the metric's axis over their range.
    struct Line
    {
        const Trial *trial;
        double metric;
    };
    std::vector<Line> lines;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const Trial &t : state.trials)
        if (const std::optional<double> metric = endedMetric(t)) {
            lines.push_back({&t, *metric});
            low = std::min(low, *metric);
            high = std::max(high, *metric);
        }
    const double scale = metricScale(state);
    ParallelAxis metricAxis;
    metricAxis.title = metricAxisLabel(state);
    const auto metricAt = [low, high](double m) { return high > low ? (m - low) / (high - low) : 0.5; };
    if (!lines.empty()) {
        if (high > low)
            for (int i = 0; i <= 4; ++i) {
                const double m = low + (high - low) * i / 4;
                metricAxis.ticks.append({metricAt(m), QString::number(scale * m, 'g', 3)});
            }
        else
            metricAxis.ticks.append({0.5, QString::number(scale * low, 'g', 3)});
    }
    axes.append(metricAxis);

    // Pruned lines first, grey and dashed (their metric is from an earlier epoch), then the
    // completed ones from the worst to the best: the best on top. The completed ones' colours run
    // from blue (worst) through teal to orange (best) over their own range, whatever the direction.
    std::stable_sort(lines.begin(), lines.end(), [&state](const Line &a, const Line &b) {
        const bool aPruned = a.trial->state == TrialState::Pruned, bPruned = b.trial->state == TrialState::Pruned;
        if (aPruned != bPruned)
            return aPruned;
        return better(state, b.metric, a.metric);
    });
    double completedLow = std::numeric_limits<double>::infinity(), completedHigh = -completedLow;
    for (const Line &line : lines)
        if (line.trial->state == TrialState::Completed) {
            completedLow = std::min(completedLow, line.metric);
            completedHigh = std::max(completedHigh, line.metric);
        }
    QCPColorGradient gradient;
    gradient.setColorStops({{0.0, QColor(70, 110, 210)}, {0.5, QColor(40, 170, 150)}, {1.0, QColor(240, 130, 30)}});
    for (const Line &line : lines) {
        const bool pruned = line.trial->state == TrialState::Pruned;
        QColor colour = kPruned;
        colour.setAlpha(120);
        if (!pruned) {
            const double at = completedHigh > completedLow ? (line.metric - completedLow) / (completedHigh - completedLow) : 1.0;
            colour = QColor::fromRgb(gradient.color(state.space.maximize ? at : 1 - at, QCPRange(0, 1)));
            colour.setAlpha(220);
        }
        QCPGraph *graph = plot->addGraph();
        graph->setPen(QPen(colour, pruned ? 1 : 2, pruned ? Qt::DashLine : Qt::SolidLine));
        graph->setProperty("trial", line.trial->id);
        graph->setProperty("hover", true);
        graph->setName(tr("Trial %1").arg(line.trial->id));
        graph->removeFromLegend();
        for (int i = 0; i + 1 < axes.size(); ++i) {
            const auto it = line.trial->params.find(state.space.params[size_t(i)].name);
            // A gap where the trial lacks a conditional parameter.
            graph->addData(i, it == line.trial->params.end() ? std::numeric_limits<double>::quiet_NaN() : axes[i].position(*it));
        }
        graph->addData(axes.size() - 1, metricAt(line.metric));
    }

    // The vertical axes, their tick labels on their left (the metric's on its right), their
    // names below.
    const QPalette palette = plot->palette();
    const QColor text = palette.color(QPalette::WindowText);
    QColor labelBackground = palette.color(QPalette::Base);
    labelBackground.setAlpha(200);
    const QFont tickFont(font().family(), 8);
    auto ticker = plot->xAxis->ticker().staticCast<QCPAxisTickerText>();
    ticker->clear();
    for (int i = 0; i < axes.size(); ++i) {
        ticker->addTick(i, axes[i].title);
        auto *axisLine = new QCPItemLine(plot);
        axisLine->start->setCoords(i, 0);
        axisLine->end->setCoords(i, 1);
        axisLine->setPen(QPen(text, 1));
        axisLine->setClipToAxisRect(false);
        const bool right = i + 1 == axes.size();
        for (const auto &[at, label] : std::as_const(axes[i].ticks)) {
            auto *tick = new QCPItemLine(plot);
            tick->start->setCoords(i, at);
            tick->end->setParentAnchor(tick->start);
            tick->end->setType(QCPItemPosition::ptAbsolute);
            tick->end->setCoords(right ? 4 : -4, 0);
            tick->setPen(QPen(text, 1));
            tick->setClipToAxisRect(false);
            auto *item = new QCPItemText(plot);
            item->position->setParentAnchor(tick->end);
            item->position->setType(QCPItemPosition::ptAbsolute);
            item->position->setCoords(right ? 1 : -1, 0);
            item->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
            item->setText(label);
            item->setFont(tickFont);
            item->setColor(text);
            item->setBrush(labelBackground);
            item->setPadding(QMargins(2, 0, 2, 0));
            item->setClipToAxisRect(false);
        }
    }
    plot->xAxis->setTickLabelRotation(axes.size() > 6 ? 30 : 0);
    // Room left of the first axis for its tick labels; right of the metric's, a margin that
    // holds its tick labels and half its name (QCustomPlot drops a tick label that the widget's
    // border would cut).
    const QFontMetrics titleMetrics(plot->xAxis->tickLabelFont());
    const QFontMetrics tickMetrics(tickFont);
    int tickWidth = 0;
    for (const auto &tick : std::as_const(axes.last().ticks))
        tickWidth = std::max(tickWidth, tickMetrics.horizontalAdvance(tick.second));
    const int rightMargin = std::max(tickWidth + 12, titleMetrics.horizontalAdvance(axes.last().title) / 2 + 6);
    plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    plot->axisRect()->setMargins(QMargins(0, 0, rightMargin, 0));
    plot->xAxis->setRange(-0.45, std::max<double>(axes.size() - 1, 1) + 0.01);
    if (lines.empty())
        addEmptyText(plot, tr("One line per finished trial, through its parameters and metric, will appear here."));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void StudyCharts::drawImportance(const StudyState &state)
{
    QCustomPlot *plot = m_importance;
    plot->clearPlottables();
    plot->clearItems();
    int completed = 0;
    for (const Trial &t : state.trials)
        completed += t.state == TrialState::Completed && t.value && std::isfinite(*t.value);
    const std::vector<engine::ParamImportance> importance = engine::paramImportance(state);

    const bool varies = std::any_of(importance.begin(), importance.end(),
                                    [](const engine::ParamImportance &p) { return p.importance > 0; });
    if (completed < engine::kImportanceMinTrials)
        m_importanceNote->setText(tr("Needs %n completed trial(s) to estimate how much each parameter matters "
                                     "(%1 so far).", nullptr, engine::kImportanceMinTrials)
                                      .arg(completed));
    else if (importance.empty())
        m_importanceNote->setText(tr("The search space has no parameters."));
    else if (!varies)
        m_importanceNote->setText(tr("All %n completed trial(s) reached the same metric: no parameter explains "
                                     "any difference yet.", nullptr, completed));
    else
        m_importanceNote->setText(
            tr("The share of the metric's variance each parameter explains on its own, over %n completed "
               "trial(s): a main-effect variance decomposition (η²), a simplification of fANOVA's first-order "
               "terms, not fANOVA itself. Effects that only appear when parameters act together are not "
               "counted, and with few trials even an irrelevant parameter explains a little.",
               nullptr, completed));

    auto ticker = plot->yAxis->ticker().staticCast<QCPAxisTickerText>();
    ticker->clear();
    const int count = int(importance.size());
    if (count > 0) {
        auto *bars = new QCPBars(plot->yAxis, plot->xAxis); // horizontal: keys on the y axis
        bars->setName(tr("Importance"));
        bars->setWidth(0.6);
        bars->setPen(QPen(kCompleted.darker(120)));
        bars->setBrush(kCompleted);
        const QColor text = plot->palette().color(QPalette::WindowText);
        for (int i = 0; i < count; ++i) {
            const double key = count - i; // the most important at the top
            const double percent = 100 * importance[size_t(i)].importance;
            bars->addData(key, percent);
            ticker->addTick(key, QString::fromStdString(importance[size_t(i)].param));
            auto *label = new QCPItemText(plot);
            label->position->setCoords(percent, key);
            const bool inside = percent > 85;
            label->setPositionAlignment((inside ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
            label->setPadding(QMargins(4, 0, 4, 0));
            label->setText(tr("%1 %").arg(percent, 0, 'f', percent < 10 ? 1 : 0));
            label->setColor(inside ? QColor(Qt::white) : text);
        }
    } else {
        addEmptyText(plot, tr("How much each parameter matters will appear here after %n completed trial(s).",
                              nullptr, engine::kImportanceMinTrials));
    }
    plot->yAxis->setRange(0.4, std::max(count, 1) + 0.6);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void StudyCharts::showHover(QCustomPlot *plot, const QPoint &pos)
{
    double nearest = plot->selectionTolerance();
    int trialId = -1;
    double key = 0;
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph *graph = plot->graph(i);
        if (!graph->property("hover").toBool() || graph->dataCount() == 0)
            continue;
        QVariant details;
        const double distance = graph->selectTest(pos, false, &details);
        if (distance < 0 || distance >= nearest)
            continue;
        const QCPDataSelection selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        key = graph->data()->at(selection.dataRange().begin())->key;
        const QVariant trial = graph->property("trial");
        trialId = trial.isValid() ? trial.toInt() : int(std::lround(key));
        nearest = distance;
    }
    if (trialId < 0 || trialId >= int(m_state.trials.size())) {
        QToolTip::hideText();
        return;
    }
    const Trial &t = m_state.trials[size_t(trialId)];
    QStringList lines;
    const QString metric = metricTitle(QString::fromStdString(m_state.space.metric));
    lines << tr("Trial %1 (%2)").arg(t.id).arg(TrialTableModel::stateLabel(t.state));
    if (plot == m_curves) {
        const auto it = t.intermediate.find(int(std::lround(key)));
        if (it != t.intermediate.end())
            lines << tr("%1 after epoch %2: %3").arg(metric).arg(it->first).arg(metricText(m_state, it->second));
    } else if (const std::optional<double> value = endedMetric(t)) {
        lines << (t.state == TrialState::Pruned
                      ? tr("%1: %2 (epoch %3, when pruned)").arg(metric, metricText(m_state, *value)).arg(t.lastEpoch())
                      : tr("%1: %2").arg(metric, metricText(m_state, *value)));
    }
    for (const ParamSpec &spec : m_state.space.params) {
        const auto it = t.params.find(spec.name);
        if (it != t.params.end())
            lines << tr("%1 = %2").arg(QString::fromStdString(spec.name), valueText(*it));
    }
    QToolTip::showText(plot->mapToGlobal(pos), lines.join(QLatin1Char('\n')), plot);
}

} // namespace lathe::ui
