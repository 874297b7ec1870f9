// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "evaluate/label_pr_plot.h"

#include "common/plot_palette.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

double number(const nlohmann::json &object, const char *key, double fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

} // namespace

LabelPrPlot::LabelPrPlot(QWidget *parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_caption(new QLabel(this))
{
    m_plot->setObjectName(QStringLiteral("labelPrCurvePlot"));
    m_plot->xAxis->setLabel(tr("Recall"));
    m_plot->yAxis->setLabel(tr("Precision"));
    m_plot->xAxis->setRange(-kPlotPadding, 1 + kPlotPadding);
    m_plot->yAxis->setRange(-kPlotPadding, 1 + kPlotPadding);
    m_plot->setMinimumSize(240, 200);
    m_plot->legend->setFont(QFont(font().family(), 8));
    placeLegendAbove(m_plot);
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_caption);
    clear();
}

void LabelPrPlot::clear()
{
    setCurve(nlohmann::json());
}

void LabelPrPlot::setCurve(const nlohmann::json &curve)
{
    m_label = curve.is_object() ? QString::fromStdString(curve.value("class", std::string())) : QString();
    m_ap = number(curve, "average_precision", -1);
    m_recall.clear();
    m_precision.clear();
    if (curve.is_object())
        for (const nlohmann::json &point : curve.value("points", nlohmann::json::array())) {
            m_recall << number(point, "recall", 0);
            m_precision << number(point, "precision", 0);
        }
    m_points = int(m_recall.size());
    m_threshold = -1;
    m_operating = QPointF();
    redraw();
}

void LabelPrPlot::setOperatingPoint(double threshold, double precision, double recall)
{
    m_threshold = threshold;
    m_operating = QPointF(recall, precision);
    redraw();
}

void LabelPrPlot::redraw()
{
    m_plot->clearPlottables();
    if (!m_label.isEmpty()) {
        // A QCPCurve keeps the points' order (threshold from high to low).
        auto *curve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        curve->setName(m_ap >= 0 ? tr("%1 (AP %2)").arg(m_label, QLocale().toString(m_ap, 'f', 3))
                                 : tr("%1 (no positives)").arg(m_label));
        curve->setPen(QPen(QColor(31, 119, 180), 1.8));
        curve->setData(m_recall, m_precision);
        if (m_threshold >= 0) {
            auto *marker = m_plot->addGraph();
            marker->setName(tr("Threshold %1").arg(QLocale().toString(m_threshold, 'f', 3)));
            marker->setLineStyle(QCPGraph::lsNone);
            marker->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(214, 39, 40), 10));
            marker->setData({m_operating.x()}, {m_operating.y()}, true);
        }
    }
    m_plot->legend->setVisible(!m_label.isEmpty());
    m_plot->replot();
    m_caption->setText(caption());
}

QString LabelPrPlot::caption() const
{
    if (m_label.isEmpty())
        return tr("Select a label in the table to see its precision-recall curve.");
    if (m_ap < 0)
        return tr("%1 has no image in this split: it has no precision-recall curve.").arg(m_label);
    if (m_threshold < 0)
        return tr("Precision-recall curve of %1.").arg(m_label);
    return tr("%1 at threshold %2: precision %3, recall %4 (the red dot). Lower thresholds move along the curve to "
              "the right: more recall, usually less precision.")
        .arg(m_label, QLocale().toString(m_threshold, 'f', 4), QLocale().toString(m_operating.y(), 'f', 3),
             QLocale().toString(m_operating.x(), 'f', 3));
}

} // namespace lathe::ui
