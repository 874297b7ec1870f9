// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "common/plot_palette.h"

#include <qcustomplot.h>

#include <QPalette>

namespace lathe::ui {

void applyPlotPalette(QCustomPlot *plot, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    plot->setBackground(palette.brush(QPalette::Base));
    plot->legend->setBrush(palette.brush(QPalette::Base));
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(palette.color(QPalette::Mid)));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(palette.color(QPalette::Mid), 0, Qt::DotLine));
    }
    plot->replot();
}

} // namespace lathe::ui
