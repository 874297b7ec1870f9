#pragma once

#include <QPointF>
#include <QString>
#include <QVector>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCustomPlot;
class QLabel;

namespace lathe::ui {

// One label's precision-recall curve of a multi-label evaluation (a pr_curves entry of
// engine::computeMultiLabelMetrics' object), drawn with QCustomPlot, with the operating point of
// the label's current threshold marked on it.
class LabelPrPlot : public QWidget
{
    Q_OBJECT

public:
    explicit LabelPrPlot(QWidget *parent = nullptr);

    // curve: {class, average_precision, points: [{threshold, precision, recall}]}; null: nothing.
    void setCurve(const nlohmann::json &curve);
    // The threshold and the precision and recall it gives (drawn as a marker).
    void setOperatingPoint(double threshold, double precision, double recall);
    void clear();

    QCustomPlot *plot() const { return m_plot; }
    QString label() const { return m_label; }
    int pointCount() const { return m_points; }
    // The marker: x recall, y precision (null when none).
    QPointF operatingPoint() const { return m_operating; }
    double threshold() const { return m_threshold; }
    QString caption() const;

private:
    void redraw();

    QCustomPlot *m_plot;
    QLabel *m_caption;
    QString m_label;
    double m_ap = -1; // < 0: no positives
    QVector<double> m_recall;
    QVector<double> m_precision;
    int m_points = 0;
    QPointF m_operating;
    double m_threshold = -1; // < 0: no marker
};

} // namespace lathe::ui
