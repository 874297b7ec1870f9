// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "common/plot_palette.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QPalette>
#include <QPointer>

#include <algorithm>

namespace lathe::ui {
namespace {

class PlotThemeFollower : public QObject
{
public:
    using QObject::QObject;

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        switch (event->type()) {
        case QEvent::Polish:
        case QEvent::PaletteChange:
        case QEvent::StyleChange:
            if (auto *plot = qobject_cast<QCustomPlot *>(watched))
                applyPlotPalette(plot, plot->palette());
            break;
        default:
            break;
        }
        return false;
    }
};

// Between the background and the text: grid lines that show in both themes without shouting.
QColor mix(const QColor &from, const QColor &to, double t)
{
    return QColor::fromRgbF(float(from.redF() + (to.redF() - from.redF()) * t),
                            float(from.greenF() + (to.greenF() - from.greenF()) * t),
                            float(from.blueF() + (to.blueF() - from.blueF()) * t));
}

// As many legend entries side by side as the plot's width holds, the others in more rows.
void fitLegendColumns(QCustomPlot *plot)
{
    QCPLegend *legend = plot->legend;
    if (!legend->visible())
        return;
    int count = 0;
    int widest = 1;
    for (int i = 0; i < legend->itemCount(); ++i) {
        QCPAbstractLegendItem *item = legend->item(i); // null for an empty cell of the grid
        if (!item)
            continue;
        ++count;
        item->setMargins(QMargins(0, 0, 0, 2)); // an entry clips its text: room for "_" below the baseline
        widest = std::max(widest, item->minimumOuterSizeHint().width());
    }
    if (count == 0)
        return;
    const int spacing = legend->columnSpacing();
    const int available = plot->viewport().width() - legend->margins().left() - legend->margins().right();
    const int columns = std::clamp((available + spacing) / (widest + spacing), 1, count);
    if (columns != legend->wrap()) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

} // namespace

void applyPlotPalette(QCustomPlot *plot, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor faint = mix(palette.color(QPalette::Base), text, 0.3);
    const QPen grid(faint, 0, Qt::DotLine);
    plot->setBackground(palette.brush(QPalette::Base));
    for (QCPLayoutElement *element : plot->plotLayout()->elements(true)) {
        if (auto *legend = qobject_cast<QCPLegend *>(element)) {
            legend->setBrush(palette.brush(QPalette::Base));
            legend->setTextColor(text);
            if (legend->borderPen().style() != Qt::NoPen)
                legend->setBorderPen(QPen(faint));
        } else if (auto *title = qobject_cast<QCPTextElement *>(element)) {
            title->setTextColor(text);
        } else if (auto *rect = qobject_cast<QCPAxisRect *>(element)) {
            for (QCPAxis *axis : rect->axes()) {
                axis->setBasePen(QPen(text));
                axis->setTickPen(QPen(text));
                axis->setSubTickPen(QPen(text));
                axis->setTickLabelColor(text);
                axis->setLabelColor(text);
                axis->grid()->setPen(grid);
            }
        }
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void followThemeInEveryPlot()
{
    static QPointer<PlotThemeFollower> installed; // gone with its application
    if (installed || !qApp)
        return;
    installed = new PlotThemeFollower(qApp);
    qApp->installEventFilter(installed);
    // The plots that exist already.
    for (QWidget *widget : QApplication::allWidgets())
        if (auto *plot = qobject_cast<QCustomPlot *>(widget))
            applyPlotPalette(plot, plot->palette());
}

void placeLegendAbove(QCustomPlot *plot)
{
    QCPLegend *legend = plot->legend;
    // Row: stretch | legend | stretch, the legend as narrow as its entries.
    auto *row = new QCPLayoutGrid;
    int at = 0;
    while (at < plot->plotLayout()->rowCount() && plot->plotLayout()->element(at, 0) != plot->axisRect())
        ++at;
    plot->plotLayout()->insertRow(at);
    plot->plotLayout()->addElement(at, 0, row);
    plot->plotLayout()->setRowStretchFactor(at, 0.001);
    row->addElement(0, 0, new QCPLayoutElement(plot));
    row->addElement(0, 1, legend); // takes it out of the axis rect's inset layout
    row->addElement(0, 2, new QCPLayoutElement(plot));
    row->setColumnStretchFactors({1, 0.001, 1});
    row->setMargins(QMargins(0, 0, 0, 0));
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 6, 4, 0));
    legend->setColumnSpacing(10);
    legend->setRowSpacing(2);
    legend->setIconSize(18, 10); // narrow entries: more of them side by side
    // Before every replot (a resize, new entries): the entries wrap to the width.
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { fitLegendColumns(plot); });
}

QCPRange paddedRange(const QCPRange &range)
{
    const double margin = range.size() > 0 ? kPlotPadding * range.size() : std::max(1e-9, kPlotPadding * std::abs(range.upper));
    return QCPRange(range.lower - margin, range.upper + margin);
}

void rescaleWithPadding(QCustomPlot *plot)
{
    // The data's own bounds per axis, not QCustomPlot's rescaleAxes(): for a flat series (every
    // value equal) that keeps the axis's old span around it, which paddedRange() then pads.
    for (QCPAxis *axis : plot->axisRect()->axes()) {
        if (!axis->visible())
            continue;
        // A logarithmic axis takes the positive values only, as rescaleAxes() does.
        const QCP::SignDomain sign = axis->scaleType() == QCPAxis::stLogarithmic
                                         ? (axis->range().upper < 0 ? QCP::sdNegative : QCP::sdPositive)
                                         : QCP::sdBoth;
        QCPRange total;
        bool any = false;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            QCPAbstractPlottable *p = plot->plottable(i);
            bool found = false;
            QCPRange range;
            if (p->keyAxis() == axis)
                range = p->getKeyRange(found, sign);
            else if (p->valueAxis() == axis)
                range = p->getValueRange(found, sign);
            if (!found)
                continue;
            if (any)
                total.expand(range);
            else
                total = range;
            any = true;
        }
        if (any)
            axis->setRange(paddedRange(total));
    }
}

} // namespace lathe::ui
