// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "evaluate/calibration_plot.h"

#include "common/plot_palette.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

namespace lathe::ui {
namespace {

// Twelve distinct colours, then repeated: PR curves of more classes get the legend's names.
QColor curveColour(int i)
{
    static const QColor colours[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                     {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                     {188, 189, 34},  {23, 190, 207}, {57, 59, 121},  {173, 73, 74}};
    return colours[i % 12];
}

double number(const nlohmann::json &object, const char *key, double fallback = 0)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

} // namespace

CalibrationPlot::CalibrationPlot(QWidget *parent)
    : QWidget(parent)
    , m_reliability(new QCustomPlot(this))
    , m_pr(new QCustomPlot(this))
    , m_summary(new QLabel(this))
{
    m_reliability->setObjectName(QStringLiteral("reliabilityPlot"));
    m_pr->setObjectName(QStringLiteral("prCurvePlot"));
    m_reliability->xAxis->setLabel(tr("Confidence (top probability)"));
    m_reliability->yAxis->setLabel(tr("Accuracy"));
    m_pr->xAxis->setLabel(tr("Recall"));
    m_pr->yAxis->setLabel(tr("Precision"));
    for (QCustomPlot *plot : {m_reliability, m_pr}) {
        // 0..1 with room beyond: a perfect precision or recall is drawn whole.
        plot->xAxis->setRange(-kPlotPadding, 1 + kPlotPadding);
        plot->yAxis->setRange(-kPlotPadding, 1 + kPlotPadding);
        plot->setMinimumSize(240, 220);
        plot->legend->setFont(QFont(font().family(), 8));
        placeLegendAbove(plot);
    }
    m_pr->legend->setVisible(false);
    m_reliability->legend->setVisible(true);

    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *plots = new QHBoxLayout;
    plots->addWidget(m_reliability, 1);
    plots->addWidget(m_pr, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(plots, 1);
    layout->addWidget(m_summary);
    clear();
}

void CalibrationPlot::setMetrics(const nlohmann::json &metrics)
{
    m_reliability->clearPlottables();
    m_pr->clearPlottables();
    m_curveClasses.clear();
    m_ece = m_mce = 0;

    const nlohmann::json calibration =
        metrics.is_object() && metrics.contains("calibration") ? metrics["calibration"] : nlohmann::json();
    if (calibration.is_object()) {
        m_ece = number(calibration, "ece");
        m_mce = number(calibration, "mce");
        auto *bars = new QCPBars(m_reliability->xAxis, m_reliability->yAxis);
        bars->setName(tr("Accuracy"));
        bars->setPen(QPen(QColor(31, 96, 181)));
        bars->setBrush(QColor(31, 96, 181, 150));
        auto *confidence = m_reliability->addGraph();
        confidence->setName(tr("Mean confidence"));
        confidence->setLineStyle(QCPGraph::lsNone);
        confidence->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(214, 39, 40), 6));
        QVector<double> keys, values, confKeys, confValues;
        double width = 1.0 / 15;
        for (const nlohmann::json &bin : calibration.value("bins", nlohmann::json::array())) {
            if (number(bin, "count") <= 0)
                continue;
            const double lower = number(bin, "lower");
            const double upper = number(bin, "upper", lower);
            width = upper - lower;
            keys << (lower + upper) / 2;
            values << number(bin, "accuracy");
            confKeys << (lower + upper) / 2;
            confValues << number(bin, "confidence");
        }
        bars->setWidth(width);
        bars->setData(keys, values, true);
        confidence->setData(confKeys, confValues, true);
        auto *diagonal = m_reliability->addGraph();
        diagonal->setName(tr("Perfect calibration"));
        diagonal->setPen(QPen(QColor(128, 128, 128), 1, Qt::DashLine)); // grey: either theme
        diagonal->setData({0, 1}, {0, 1}, true);
    }

    const nlohmann::json curves =
        metrics.is_object() && metrics.contains("pr_curves") ? metrics["pr_curves"] : nlohmann::json();
    if (curves.is_array()) {
        int i = 0;
        for (const nlohmann::json &curve : curves) {
            const QString name = QString::fromStdString(curve.value("class", std::string()));
            const auto ap = curve.find("average_precision");
            const bool hasAp = ap != curve.end() && ap->is_number();
            // A QCPCurve keeps the points' order (threshold from high to low): several points
            // share a recall, which a graph would reorder.
            auto *graph = new QCPCurve(m_pr->xAxis, m_pr->yAxis);
            graph->setName(hasAp ? tr("%1 (AP %2)").arg(name, QLocale().toString(ap->get<double>(), 'f', 3))
                                 : tr("%1 (no positives)").arg(name));
            graph->setPen(QPen(curveColour(i), 1.5));
            QVector<double> recall, precision;
            for (const nlohmann::json &point : curve.value("points", nlohmann::json::array())) {
                recall << number(point, "recall");
                precision << number(point, "precision");
            }
            graph->setData(recall, precision);
            m_curveClasses << name;
            ++i;
        }
        m_pr->legend->setVisible(i > 0 && i <= 12);
    }
    m_reliability->legend->setVisible(calibration.is_object());
    m_reliability->replot();
    m_pr->replot();
    m_summary->setText(summary());
}

QVector<QPointF> CalibrationPlot::binAccuracy() const
{
    QVector<QPointF> points;
    for (int i = 0; i < m_reliability->plottableCount(); ++i) {
        auto *bars = qobject_cast<QCPBars *>(m_reliability->plottable(i));
        if (!bars)
            continue;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            points << QPointF(it->key, it->value);
    }
    return points;
}

QString CalibrationPlot::summary() const
{
    if (m_reliability->plottableCount() == 0)
        return tr("No evaluation to show.");
    QString text = tr("Expected calibration error (ECE): %1; largest bin gap (MCE): %2. Bars at the diagonal mean the "
                      "model's confidence matches how often it is right.")
                       .arg(QLocale().toString(m_ece, 'f', 4), QLocale().toString(m_mce, 'f', 4));
    if (m_curveClasses.size() > 12)
        text += QLatin1Char(' ') + tr("%n precision-recall curve(s); the legend is hidden with more than 12 classes.",
                                      nullptr, int(m_curveClasses.size()));
    return text;
}

} // namespace lathe::ui
