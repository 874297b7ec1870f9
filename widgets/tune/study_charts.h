#pragma once

#include "engine/tune/study_state.h"

#include <QTabWidget>

class QCustomPlot;
class QLabel;

namespace lathe::ui {

// The Tune page's charts of a study, one tab each, all redrawn from its state:
//  - Best so far: the metric of each ended trial by trial id (completed as filled dots, pruned as
//    hollow ones at their last reported epoch) and the best completed value so far as a step line;
//  - Learning curves: every trial's metric per epoch, overlaid; pruned ones dimmer, the best
//    completed trial highlighted;
//  - Parallel coordinates: one vertical axis per parameter and one for the metric, each
//    normalised to [0, 1] over its range (log for log-scale parameters, categorical values
//    spread evenly), one line per completed trial coloured by its metric, pruned ones grey and dashed;
//  - Importance: engine::paramImportance() as horizontal bars, a note above naming the method
//    (or how many completed trials it still needs).
// Top-1 metrics are shown in percent. An empty study shows in each plot what will appear there.
class StudyCharts : public QTabWidget
{
    Q_OBJECT

public:
    explicit StudyCharts(QWidget *parent = nullptr);

    // Redraws all four from the state (cheap: called after every trial event).
    void setStudy(const engine::StudyState &state);

    QCustomPlot *bestSoFarPlot() const { return m_bestSoFar; }
    QCustomPlot *curvesPlot() const { return m_curves; }
    QCustomPlot *parallelPlot() const { return m_parallel; }
    QCustomPlot *importancePlot() const { return m_importance; }
    // "Needs %n completed trial(s)…" until there are enough, then names the method.
    QLabel *importanceNote() const { return m_importanceNote; }

    // The metric's name as the charts show it: "Validation top-1" for val_top1, else the raw name.
    static QString metricTitle(const QString &metric);

protected:
    // A theme switch: redrawn in its colours once the plots have theirs (the event reaches this
    // widget before its children take the new palette).
    void changeEvent(QEvent *event) override;

private:
    void drawBestSoFar(const engine::StudyState &state);
    void drawCurves(const engine::StudyState &state);
    void drawParallel(const engine::StudyState &state);
    void drawImportance(const engine::StudyState &state);
    void showHover(QCustomPlot *plot, const QPoint &pos);

    QCustomPlot *m_bestSoFar;
    QCustomPlot *m_curves;
    QCustomPlot *m_parallel;
    QCustomPlot *m_importance;
    QLabel *m_importanceNote;
    engine::StudyState m_state; // for the hover texts
    bool m_redrawQueued = false;
};

} // namespace lathe::ui
