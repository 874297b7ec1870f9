// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "training_curves.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace lathe::ui {
namespace {

constexpr int kFollowSteps = 2000; // steps in view when following the latest

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
        plot->setMouseTracking(true);
        plot->setNoAntialiasingOnDrag(true);
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
    speed->yAxis2->setRange(0, 100);
    m_throughput = addGraph(speed, tr("images/s"), QColor(150, 110, 200));
    m_inputWait = addGraph(speed, tr("input wait %"), QColor(200, 80, 80), false, speed->yAxis2);
    m_plots[AccuracyPlot]->yAxis->setRange(0, 100);

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
    m_smoothStarted = false;
    m_lastStep = 0;
    scheduleReplot();
}

void TrainingCurves::addEvents(const QList<QJsonObject> &events)
{
    for (const QJsonObject &event : events) {
        const QString type = event.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("step"))
            addStep(event);
        else if (type == QLatin1String("epoch"))
            addEpoch(event);
    }
    if (!events.isEmpty())
        scheduleReplot();
}

void TrainingCurves::addStep(const QJsonObject &event)
{
    const double step = event.value(QStringLiteral("step")).toDouble();
    const double loss = event.value(QStringLiteral("loss")).toDouble(std::nan(""));
    m_lastStep = std::max(m_lastStep, step);
    if (std::isfinite(loss)) {
        m_stepLoss->addData(step, loss);
        m_smoothState = m_smoothStarted ? m_smoothing * m_smoothState + (1 - m_smoothing) * loss : loss;
        m_smoothStarted = true;
        m_smoothLoss->addData(step, m_smoothState);
    }
    if (event.contains(QStringLiteral("lr")))
        m_lr->addData(step, event.value(QStringLiteral("lr")).toDouble());
    if (event.contains(QStringLiteral("images_per_s")))
        m_throughput->addData(step, event.value(QStringLiteral("images_per_s")).toDouble());
    if (event.contains(QStringLiteral("input_wait_fraction")))
        m_inputWait->addData(step, 100 * event.value(QStringLiteral("input_wait_fraction")).toDouble());
}

void TrainingCurves::addEpoch(const QJsonObject &event)
{
    const double step = event.value(QStringLiteral("step")).toDouble();
    m_lastStep = std::max(m_lastStep, step);
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
    for (QCustomPlot *plot : m_plots) {
        if (m_follow->isChecked()) {
            bool found = false;
            QCPRange range;
            for (int i = 0; i < plot->graphCount(); ++i) {
                bool ok = false;
                const QCPRange keys = plot->graph(i)->getKeyRange(ok);
                if (ok)
                    range = found ? QCPRange(std::min(range.lower, keys.lower), std::max(range.upper, keys.upper)) : keys;
                found = found || ok;
            }
            if (found) {
                const double upper = std::max(range.upper, 1.0);
                plot->xAxis->setRange(std::max(range.lower, upper - kFollowSteps), upper);
                plot->yAxis->rescale(true);
                if (plot == m_plots[AccuracyPlot])
                    plot->yAxis->setRange(0, 100);
            }
        }
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void TrainingCurves::showHover(QCustomPlot *plot, const QPoint &pos)
{
    QStringList lines;
    const double key = plot->xAxis->pixelToCoord(pos.x());
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph *graph = plot->graph(i);
        if (graph->dataCount() == 0)
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
