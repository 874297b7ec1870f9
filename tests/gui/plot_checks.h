#pragma once

// Checks shared by the GUI tests of the charts (the rules of widgets/common/plot_palette.h):
// the legend outside the axis rect, axes reaching beyond the data's extreme points, and the
// colours of the application's palette (the dark theme's included).
//
// qcustomplot.h uses the bare signals/slots keywords: a test that includes this header is built
// without QT_NO_KEYWORDS (`#undef QT_NO_KEYWORDS` before its first Qt header, or -UQT_NO_KEYWORDS).
#include <qcustomplot.h>

#include <QApplication>
#include <QPalette>
#include <QTest>

#include <algorithm>

namespace plot_checks {

// The plot's background as it is painted.
inline QColor backgroundOf(QCustomPlot *plot)
{
    return plot->toPixmap(120, 90).toImage().pixelColor(1, 1);
}

// The legend, laid out at the plot's size, lies outside the axis rect (or is hidden).
inline void checkLegendOutsideAxes(QCustomPlot *plot)
{
    plot->replot();
    const QRect legend = plot->legend->outerRect();
    const QRect axes = plot->axisRect()->rect();
    QVERIFY2(!plot->legend->visible() || !legend.intersects(axes),
             qPrintable(QStringLiteral("%1 (%2x%3): legend (%4, %5) %6x%7, axes (%8, %9) %10x%11")
                            .arg(plot->objectName())
                            .arg(plot->width())
                            .arg(plot->height())
                            .arg(legend.x())
                            .arg(legend.y())
                            .arg(legend.width())
                            .arg(legend.height())
                            .arg(axes.x())
                            .arg(axes.y())
                            .arg(axes.width())
                            .arg(axes.height())));
}

// The legend outside the axis rect (or hidden), and each axis range strictly contains the range
// of the visible plottables on it, except a bar chart's value axis, which starts at zero.
inline void checkLegendAndPadding(QCustomPlot *plot)
{
    checkLegendOutsideAxes(plot);
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        bool found = false;
        bool barValues = false;
        QCPRange data;
        for (int i = 0; i < plot->plottableCount(); ++i) {
            QCPAbstractPlottable *p = plot->plottable(i);
            if (!p->visible() || (p->keyAxis() != axis && p->valueAxis() != axis))
                continue;
            bool ok = false;
            const QCPRange range = p->keyAxis() == axis ? p->getKeyRange(ok) : p->getValueRange(ok);
            if (ok)
                data = found ? QCPRange(std::min(data.lower, range.lower), std::max(data.upper, range.upper)) : range;
            found = found || ok;
            barValues = barValues || (qobject_cast<QCPBars *>(p) && p->valueAxis() == axis);
        }
        if (!found)
            continue;
        const QString where = QStringLiteral("%1 %2: axis [%3, %4], data [%5, %6]")
                                  .arg(plot->objectName(), axis == plot->xAxis ? QStringLiteral("x") : QStringLiteral("y"))
                                  .arg(axis->range().lower)
                                  .arg(axis->range().upper)
                                  .arg(data.lower)
                                  .arg(data.upper);
        QVERIFY2(axis->range().upper > data.upper, qPrintable(where));
        if (!barValues)
            QVERIFY2(axis->range().lower < data.lower, qPrintable(where));
    }
}

// The plot wears the application's current palette: background and legend in its Base colour,
// axis text and legend text in its WindowText colour.
inline void checkPlotColours(QCustomPlot *plot)
{
    const QPalette palette = QApplication::palette();
    const QString name = plot->objectName();
    const QString base = palette.color(QPalette::Base).name();
    const QString text = palette.color(QPalette::WindowText).name();
    QVERIFY2(backgroundOf(plot).name() == base, qPrintable(name + QLatin1Char(' ') + backgroundOf(plot).name() + QStringLiteral(" != ") + base));
    QVERIFY2(plot->legend->brush().color().name() == base, qPrintable(name));
    QVERIFY2(plot->legend->textColor().name() == text, qPrintable(name));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        QVERIFY2(axis->tickLabelColor().name() == text, qPrintable(name + QStringLiteral(" tick labels ") + axis->tickLabelColor().name()));
        QVERIFY2(axis->labelColor().name() == text, qPrintable(name));
    }
}

// In the dark theme: a dark background, light text.
inline void checkDarkPlot(QCustomPlot *plot)
{
    checkPlotColours(plot);
    QVERIFY2(backgroundOf(plot).lightness() < 100, qPrintable(plot->objectName()));
    QVERIFY2(plot->xAxis->tickLabelColor().lightness() > 150, qPrintable(plot->objectName()));
    QVERIFY2(plot->legend->textColor().lightness() > 150, qPrintable(plot->objectName()));
}

} // namespace plot_checks
