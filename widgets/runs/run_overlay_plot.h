#pragma once

#include <QJsonObject>
#include <QList>
#include <QWidget>

class QComboBox;
class QCustomPlot;

namespace lathe::ui {

// One epoch metric of several runs on one plot, to compare them. Validation mAP is among the
// metrics offered while a shown run (a multi-label one) has it.
class RunOverlayPlot : public QWidget
{
    Q_OBJECT

public:
    explicit RunOverlayPlot(QWidget *parent = nullptr);

    // runs: name -> that run's epoch events.
    void setRuns(const QList<QPair<QString, QList<QJsonObject>>> &runs);
    QString metric() const;
    int graphCount() const;
    int pointCount(int graph) const;
    QCustomPlot *plot() const { return m_plot; }

private:
    void redraw();

    QComboBox *m_metric;
    QCustomPlot *m_plot;
    QList<QPair<QString, QList<QJsonObject>>> m_runs;
};

} // namespace lathe::ui
