// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "runs/run_overlay_plot.h"

#include "common/plot_palette.h"
#include "engine/run/run_events.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace lathe::ui {

RunOverlayPlot::RunOverlayPlot(QWidget *parent)
    : QWidget(parent)
    , m_metric(new QComboBox(this))
    , m_plot(new QCustomPlot(this))
{
    m_metric->addItem(tr("Validation top-1"), QStringLiteral("val_top1"));
    m_metric->addItem(tr("Validation loss"), QStringLiteral("val_loss"));
    m_metric->addItem(tr("Training loss"), QStringLiteral("train_loss"));
    m_metric->addItem(tr("Training top-1"), QStringLiteral("train_top1"));
    m_plot->setObjectName(QStringLiteral("overlayPlot"));
    m_plot->xAxis->setLabel(tr("Epoch"));
    m_plot->legend->setVisible(true);
    placeLegendAbove(m_plot); // never over the newest epochs
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Metric:"), this));
    top->addWidget(m_metric);
    top->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &RunOverlayPlot::redraw);
}

void RunOverlayPlot::setRuns(const QList<QPair<QString, QList<QJsonObject>>> &runs)
{
    m_runs = runs;
    // A multi-label run's validation mAP is offered while a shown run has it.
    const QString map = QStringLiteral("val_map");
    bool hasMap = false;
    for (const auto &run : runs)
        for (const QJsonObject &event : run.second)
            hasMap = hasMap || event.value(map).isDouble();
    const int mapIndex = m_metric->findData(map);
    {
        const QSignalBlocker blocker(m_metric);
        if (hasMap && mapIndex < 0) {
            m_metric->addItem(tr("Validation mAP"), map);
        } else if (!hasMap && mapIndex >= 0) {
            if (m_metric->currentIndex() == mapIndex)
                m_metric->setCurrentIndex(0);
            m_metric->removeItem(mapIndex);
        }
    }
    redraw();
}

QString RunOverlayPlot::metric() const
{
    return m_metric->currentData().toString();
}

int RunOverlayPlot::graphCount() const
{
    return m_plot->graphCount();
}

int RunOverlayPlot::pointCount(int graph) const
{
    return m_plot->graph(graph)->dataCount();
}

void RunOverlayPlot::redraw()
{
    static const QList<QColor> colours = {QColor(61, 139, 217), QColor(240, 150, 40), QColor(70, 170, 90),
                                          QColor(200, 80, 80),  QColor(150, 110, 200), QColor(120, 120, 120)};
    m_plot->clearGraphs();
    const QString key = metric();
    const double scale = key.endsWith(QLatin1String("top1")) ? 100 : 1;
    for (int i = 0; i < m_runs.size(); ++i) {
        QCPGraph *graph = m_plot->addGraph();
        graph->setName(m_runs[i].first);
        graph->setPen(QPen(colours[i % colours.size()], 2));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
        for (const QJsonObject &event : m_runs[i].second)
            if (event.value(QLatin1String(engine::event_key::kType)).toString() == QLatin1String(engine::event_type::kEpoch) &&
                event.value(key).isDouble())
                graph->addData(event.value(QLatin1String(engine::event_key::kEpoch)).toDouble() + 1,
                               scale * event.value(key).toDouble());
    }
    m_plot->yAxis->setLabel(m_metric->currentText() + (scale > 1 ? QStringLiteral(" (%)") : QString()));
    rescaleWithPadding(m_plot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace lathe::ui
