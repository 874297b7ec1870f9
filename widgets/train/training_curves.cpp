// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "train/training_curves.h"

#include "common/plot_palette.h"
#include "engine/run/run_events.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace lathe::ui {
namespace {

namespace event_type = engine::event_type;
namespace event_key = engine::event_key;

constexpr int kFollowSteps = 2000; // steps in view when following the latest
constexpr int kBucket = 64;        // line points per envelope bucket

QCPGraph *addGraph(QCustomPlot *plot, const QString &name, const QColor &colour, bool dots = false,
                   QCPAxis *valueAxis = nullptr)
{
    QCPGraph *graph = plot->addGraph(plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
    graph->setName(name);
    graph->setPen(QPen(colour, dots ? 2 : 1));
    graph->setAdaptiveSampling(true);
    if (dots)
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    return graph;
}

} // namespace

TrainingCurves::TrainingCurves(QWidget *parent)
    : QWidget(parent)
    , m_logScale(new QCheckBox(tr("Log scale"), this))
    , m_follow(new QCheckBox(tr("Follow latest"), this))
    , m_smoothingSlider(new QSlider(Qt::Horizontal, this))
{
    const QStringList titles = {tr("Loss"), tr("Accuracy (top-1)"), tr("Learning rate"), tr("Throughput")};
    auto *grid = new QGridLayout;
    for (int i = 0; i < PlotCount; ++i) {
        auto *plot = new QCustomPlot(this);
        plot->setObjectName(QStringLiteral("curve%1").arg(i));
        plot->setMinimumSize(280, 180);
        plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
        plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
        plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
        plot->plotLayout()->insertRow(0);
        plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, titles[i], QFont(font().family(), -1, QFont::Bold)));
        plot->xAxis->setLabel(tr("Step"));
        plot->legend->setVisible(true);
        plot->legend->setFont(QFont(font().family(), 8));
        placeLegendAbove(plot); // between the title and the axes: the newest points stay in view
        plot->setMouseTracking(true);
        plot->setNoAntialiasingOnDrag(true);
        connect(plot, &QCustomPlot::beforeReplot, this, [this, plot] { chooseDetail(plot); });
        connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent *event) { showHover(plot, event->pos()); });
        // A drag or zoom by the user stops following.
        connect(plot, &QCustomPlot::mousePress, this, [this] { m_follow->setChecked(false); });
        connect(plot, &QCustomPlot::mouseWheel, this, [this] { m_follow->setChecked(false); });
        grid->addWidget(plot, i / 2, i % 2);
        m_plots.append(plot);
    }
    m_stepLoss = addGraph(m_plots[LossPlot], tr("step"), QColor(61, 139, 217, 90));
    m_smoothLoss = addGraph(m_plots[LossPlot], tr("step (smoothed)"), QColor(61, 139, 217));
    m_trainLoss = addGraph(m_plots[LossPlot], tr("train (epoch)"), QColor(40, 90, 170), true);
    m_valLoss = addGraph(m_plots[LossPlot], tr("validation"), QColor(240, 150, 40), true);
    m_trainTop1 = addGraph(m_plots[AccuracyPlot], tr("train"), QColor(61, 139, 217), true);
    m_valTop1 = addGraph(m_plots[AccuracyPlot], tr("validation"), QColor(240, 150, 40), true);
    m_lr = addGraph(m_plots[LearningRatePlot], tr("learning rate"), QColor(70, 170, 90));
    QCustomPlot *speed = m_plots[ThroughputPlot];
    speed->yAxis->setLabel(tr("images/s"));
    speed->yAxis2->setVisible(true);
    speed->yAxis2->setLabel(tr("input wait %"));
    speed->yAxis2->setRange(-100 * kPlotPadding, 100 * (1 + kPlotPadding));
    m_throughput = addGraph(speed, tr("images/s"), QColor(150, 110, 200));
    m_inputWait = addGraph(speed, tr("input wait %"), QColor(200, 80, 80), false, speed->yAxis2);
    // 0..100 % and a little beyond, so that a point at 100 % is drawn whole.
    m_plots[AccuracyPlot]->yAxis->setRange(-100 * kPlotPadding, 100 * (1 + kPlotPadding));
    for (QCPGraph *line : {m_stepLoss, m_smoothLoss, m_lr, m_throughput, m_inputWait}) {
        auto *envelope = line->parentPlot()->addGraph(line->keyAxis(), line->valueAxis());
        envelope->setPen(line->pen());
        envelope->setAdaptiveSampling(true);
        envelope->setName(QString()); // no legend entry, no hover line
        envelope->removeFromLegend();
        envelope->setVisible(false);
        m_envelopes.append(Envelope{line, envelope});
    }

    m_logScale->setToolTip(tr("Logarithmic loss axis."));
    m_follow->setToolTip(tr("Keep the newest steps in view; dragging or zooming a plot turns it off."));
    m_follow->setChecked(true);
    m_smoothingSlider->setRange(0, 99);
    m_smoothingSlider->setValue(90);
    m_smoothingSlider->setMaximumWidth(160);
    m_smoothingSlider->setToolTip(tr("Smoothing of the step loss (exponential moving average)."));
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Smoothing:"), this));
    controls->addWidget(m_smoothingSlider);
    controls->addWidget(m_logScale);
    controls->addWidget(m_follow);
    controls->addStretch(1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(grid, 1);

    connect(m_smoothingSlider, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
    connect(m_logScale, &QCheckBox::toggled, this, &TrainingCurves::setLogScale);
    connect(m_follow, &QCheckBox::toggled, this, &TrainingCurves::setFollowLatest);
}

void TrainingCurves::clear()
{
    for (QCustomPlot *plot : m_plots)
        for (int i = 0; i < plot->graphCount(); ++i)
            plot->graph(i)->data()->clear();
    for (Envelope &e : m_envelopes)
        e.summarized = 0;
    m_smoothStarted = false;
    m_lastStep = 0;
    scheduleReplot();
}

void TrainingCurves::addEvents(const QList<QJsonObject> &events)
{
    for (const QJsonObject &event : events) {
        const QString type = event.value(QLatin1String(event_key::kType)).toString();
        if (type == QLatin1String(event_type::kStep))
            addStep(event);
        else if (type == QLatin1String(event_type::kEpoch))
            addEpoch(event);
    }
    if (!events.isEmpty())
        scheduleReplot();
}

void TrainingCurves::addStep(const QJsonObject &event)
{
    const double step = event.value(QLatin1String(event_key::kStep)).toDouble();
    const double loss = event.value(QLatin1String(event_key::kLoss)).toDouble(std::nan(""));
    m_lastStep = std::max(m_lastStep, step);
    if (std::isfinite(loss)) {
        m_stepLoss->addData(step, loss);
        m_smoothState = m_smoothStarted ? m_smoothing * m_smoothState + (1 - m_smoothing) * loss : loss;
        m_smoothStarted = true;
        m_smoothLoss->addData(step, m_smoothState);
    }
    const auto has = [&event](const char *key) { return event.contains(QLatin1String(key)); };
    const auto number = [&event](const char *key) { return event.value(QLatin1String(key)).toDouble(); };
    if (has(event_key::kLr))
        m_lr->addData(step, number(event_key::kLr));
    if (has(event_key::kImagesPerSecond))
        m_throughput->addData(step, number(event_key::kImagesPerSecond));
    if (has(event_key::kInputWaitFraction))
        m_inputWait->addData(step, 100 * number(event_key::kInputWaitFraction));
}

void TrainingCurves::addEpoch(const QJsonObject &event)
{
    const double step = event.value(QLatin1String(event_key::kStep)).toDouble();
    m_lastStep = std::max(m_lastStep, step);
    // The metrics under the run config's names.
    const auto add = [&](QCPGraph *graph, const char *key, double scale) {
        const QJsonValue value = event.value(QLatin1String(key));
        if (value.isDouble())
            graph->addData(step, scale * value.toDouble());
    };
    add(m_trainLoss, "train_loss", 1);
    add(m_valLoss, "val_loss", 1);
    add(m_trainTop1, "train_top1", 100);
    add(m_valTop1, "val_top1", 100);
}

int TrainingCurves::stepPoints() const
{
    return m_stepLoss->dataCount();
}

int TrainingCurves::epochPoints() const
{
    return std::max(m_valTop1->dataCount(), m_trainLoss->dataCount());
}

void TrainingCurves::setSmoothing(double smoothing)
{
    m_smoothing = std::clamp(smoothing, 0.0, 0.999);
    rebuildSmoothed();
    scheduleReplot();
}

void TrainingCurves::rebuildSmoothed()
{
    QVector<QCPGraphData> smoothed;
    smoothed.reserve(m_stepLoss->dataCount());
    double state = 0;
    bool started = false;
    for (auto it = m_stepLoss->data()->constBegin(); it != m_stepLoss->data()->constEnd(); ++it) {
        state = started ? m_smoothing * state + (1 - m_smoothing) * it->value : it->value;
        started = true;
        smoothed.append(QCPGraphData(it->key, state));
    }
    m_smoothLoss->data()->set(smoothed, true);
    for (Envelope &e : m_envelopes)
        if (e.line == m_smoothLoss) {
            e.envelope->data()->clear();
            e.summarized = 0;
        }
    m_smoothState = state;
    m_smoothStarted = started;
}

void TrainingCurves::setLogScale(bool on)
{
    QCPAxis *axis = m_plots[LossPlot]->yAxis;
    axis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    axis->setTicker(on ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog) : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    if (m_logScale->isChecked() != on)
        m_logScale->setChecked(on);
    scheduleReplot();
}

void TrainingCurves::setFollowLatest(bool on)
{
    if (m_follow->isChecked() != on)
        m_follow->setChecked(on);
    scheduleReplot();
}

void TrainingCurves::scheduleReplot()
{
    if (m_replotQueued)
        return;
    m_replotQueued = true;
    QTimer::singleShot(0, this, &TrainingCurves::replotNow);
}

void TrainingCurves::replotNow()
{
    m_replotQueued = false;
    if (!isVisible()) {
        m_replotWhenShown = true;
        return;
    }
    QElapsedTimer timer;
    timer.start();
    if (m_follow->isChecked())
        for (QCustomPlot *plot : m_plots)
            followLatest(plot);
    for (Envelope &e : m_envelopes)
        updateEnvelope(e);
    for (QCustomPlot *plot : m_plots)
        plot->replot();
    Q_EMIT replotted(timer.nsecsElapsed() / 1e6);
}

// Summarizes the line's new complete buckets (the cost follows the points added since the last
// call) and refreshes the raw tail after them.
void TrainingCurves::updateEnvelope(Envelope &e)
{
    const QSharedPointer<QCPGraphDataContainer> line = e.line->data();
    const QSharedPointer<QCPGraphDataContainer> envelope = e.envelope->data();
    if (e.summarized == 0)
        envelope->clear();
    else
        envelope->removeAfter(line->at(e.summarized - 1)->key); // the previous raw tail
    for (; e.summarized + kBucket <= line->size(); e.summarized += kBucket) {
        auto low = line->at(e.summarized);
        auto high = low;
        for (auto it = low; it != line->at(e.summarized + kBucket); ++it) {
            if (it->value < low->value)
                low = it;
            if (it->value > high->value)
                high = it;
        }
        envelope->add(low->key <= high->key ? *low : *high);
        envelope->add(low->key <= high->key ? *high : *low);
    }
    for (auto it = line->at(e.summarized); it != line->constEnd(); ++it)
        envelope->add(*it);
}

// Before every replot of the plot (ours, or a drag or zoom): each line, or its envelope when the
// envelope still gives at least four points per pixel column.
void TrainingCurves::chooseDetail(QCustomPlot *plot)
{
    for (const Envelope &e : std::as_const(m_envelopes)) {
        if (e.line->parentPlot() != plot)
            continue;
        const QCPRange keys = e.line->keyAxis()->range();
        const QSharedPointer<QCPGraphDataContainer> data = e.line->data();
        const qint64 inView = data->findEnd(keys.upper) - data->findBegin(keys.lower);
        const bool coarse = inView > 2 * kBucket * qint64(plot->axisRect()->width());
        e.line->setVisible(!coarse);
        e.envelope->setVisible(coarse);
    }
}

void TrainingCurves::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (std::exchange(m_replotWhenShown, false))
        scheduleReplot();
}

// The newest kFollowSteps steps in view, the value axis fitted to the points in that window:
// each graph's window is found by binary search, so the cost does not grow with the data.
void TrainingCurves::followLatest(QCustomPlot *plot)
{
    if (plot == m_plots[AccuracyPlot]) {
        // Epoch points only, on the loss plot's steps (followed first): the same window, and the
        // value axis stays 0..100 %.
        plot->xAxis->setRange(m_plots[LossPlot]->xAxis->range());
        return;
    }
    bool foundKeys = false;
    QCPRange keys;
    for (int i = 0; i < plot->graphCount(); ++i) {
        bool ok = false;
        const QCPRange range = plot->graph(i)->getKeyRange(ok);
        if (ok)
            keys = foundKeys ? QCPRange(std::min(keys.lower, range.lower), std::max(keys.upper, range.upper)) : range;
        foundKeys = foundKeys || ok;
    }
    if (!foundKeys)
        return;
    const double upper = std::max(keys.upper, 1.0);
    double lower = std::max(keys.lower, upper - kFollowSteps);
    if (lower >= upper) // one point so far: from step 0 to it
        lower = std::max(0.0, upper - kFollowSteps);
    const QCPRange window(lower, upper);
    // Room beyond the first and the newest point, so that neither is cut by the axis rect.
    const double keyPadding = kPlotPadding * (upper - lower);
    plot->xAxis->setRange(lower - keyPadding, upper + keyPadding);

    QCPAxis *axis = plot->yAxis;
    const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
    bool foundValues = false;
    QCPRange values;
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph *graph = plot->graph(i);
        if (graph->valueAxis() != axis)
            continue;
        bool ok = false;
        const QCPRange range = graph->data()->valueRange(ok, log ? QCP::sdPositive : QCP::sdBoth, window);
        if (ok)
            values = foundValues ? QCPRange(std::min(values.lower, range.lower), std::max(values.upper, range.upper)) : range;
        foundValues = foundValues || ok;
    }
    if (!foundValues)
        return;
    if (log)
        axis->setRange(values.lower / 1.1, values.upper * 1.1);
    else
        axis->setRange(paddedRange(values));
}

void TrainingCurves::showHover(QCustomPlot *plot, const QPoint &pos)
{
    QStringList lines;
    const double key = plot->xAxis->pixelToCoord(pos.x());
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph *graph = plot->graph(i);
        if (graph->dataCount() == 0 || graph->name().isEmpty()) // an envelope repeats its line
            continue;
        auto it = graph->data()->findBegin(key, true);
        if (it == graph->data()->constEnd())
            continue;
        lines << tr("%1 at step %2: %3").arg(graph->name()).arg(it->key).arg(it->value, 0, 'g', 4);
    }
    if (lines.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(plot->mapToGlobal(pos), lines.join(QLatin1Char('\n')), plot);
}

} // namespace lathe::ui
