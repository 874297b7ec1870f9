#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCustomPlot;
class QLabel;

namespace lathe::ui {

// An evaluation's calibration and ranking quality side by side, drawn with QCustomPlot: the
// reliability diagram (accuracy per confidence bin against the diagonal of perfect calibration,
// with each bin's mean confidence and the ECE) and one-vs-rest precision-recall curves per
// class with their average precision. The legends sit above the plots; the theme's colours come
// from followThemeInEveryPlot().
class CalibrationPlot : public QWidget
{
    Q_OBJECT

public:
    explicit CalibrationPlot(QWidget *parent = nullptr);

    // Reads metrics "calibration" and "pr_curves" (engine::computeMetrics' object).
    void setMetrics(const nlohmann::json &metrics);
    void clear() { setMetrics(nlohmann::json()); }

    QCustomPlot *reliabilityPlot() const { return m_reliability; }
    QCustomPlot *prPlot() const { return m_pr; }
    // What is drawn: accuracy per non-empty bin (by bin centre), the ECE, the curves' classes.
    QVector<QPointF> binAccuracy() const;
    double ece() const { return m_ece; }
    QStringList curveClasses() const { return m_curveClasses; }
    QString summary() const;

private:
    QCustomPlot *m_reliability;
    QCustomPlot *m_pr;
    QLabel *m_summary;
    double m_ece = 0;
    double m_mce = 0;
    QStringList m_curveClasses;
};

} // namespace lathe::ui
