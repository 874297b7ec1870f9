#pragma once

#include <QJsonObject>
#include <QList>
#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QCPGraph;
class QSlider;

namespace lathe::ui {

// Live curves of a run, drawn from its events (metrics.jsonl objects): loss (per step, its
// smoothed line, per epoch train and validation), accuracy (train and validation top-1),
// learning rate, and throughput with the input-wait share. Points are appended to QCustomPlot's
// data containers (never rebuilt) and drawn with adaptive sampling, so a million steps stay
// smooth; a burst of events costs one queued replot. Zoom and pan with the mouse, hover for
// values, log scale for the loss, "follow latest" keeps the newest steps in view: its value axes
// fit the points in view (a binary search and a pass over the window, not over all the data).
// Each step line also keeps a min/max envelope of every 64 points, drawn instead of the line when
// the view holds so many points that the envelope still has several per pixel column: a whole
// run of a million steps is then drawn from ~31,000 points instead of scanning every one.
// A hidden widget does not draw; it replots once when shown again. The legends sit above the
// axes and the followed ranges leave room beyond the first and newest points, so no point is
// covered or cut.
class TrainingCurves : public QWidget
{
    Q_OBJECT

public:
    enum Plot { LossPlot, AccuracyPlot, LearningRatePlot, ThroughputPlot, PlotCount };

    explicit TrainingCurves(QWidget *parent = nullptr);

    void clear();
    void addEvents(const QList<QJsonObject> &events);

    // 0 (raw) .. 0.999: exponential moving average of the step loss line.
    void setSmoothing(double smoothing);
    void setLogScale(bool on);
    void setFollowLatest(bool on);

    QCustomPlot *plot(Plot plot) const { return m_plots[plot]; }
    int stepPoints() const;  // step-loss points held
    int epochPoints() const; // validation points held

Q_SIGNALS:
    // After each replot of the four plots, with the time it took (ranges and drawing).
    void replotted(double milliseconds);

protected:
    void showEvent(QShowEvent *event) override;

private:
    struct Envelope
    {
        QCPGraph *line;
        QCPGraph *envelope; // min and max of each complete bucket of the line, then its raw tail
        int summarized = 0; // line points in complete buckets
    };

    void updateEnvelope(Envelope &e);
    void chooseDetail(QCustomPlot *plot);
    void addStep(const QJsonObject &event);
    void addEpoch(const QJsonObject &event);
    void rebuildSmoothed();
    void scheduleReplot();
    void replotNow();
    void followLatest(QCustomPlot *plot);
    void showHover(QCustomPlot *plot, const QPoint &pos);

    QList<QCustomPlot *> m_plots;
    QList<Envelope> m_envelopes;
    QCPGraph *m_stepLoss = nullptr;
    QCPGraph *m_smoothLoss = nullptr;
    QCPGraph *m_trainLoss = nullptr;
    QCPGraph *m_valLoss = nullptr;
    QCPGraph *m_trainTop1 = nullptr;
    QCPGraph *m_valTop1 = nullptr;
    QCPGraph *m_lr = nullptr;
    QCPGraph *m_throughput = nullptr;
    QCPGraph *m_inputWait = nullptr;
    QCheckBox *m_logScale;
    QCheckBox *m_follow;
    QSlider *m_smoothingSlider;
    double m_smoothing = 0.9;
    double m_smoothState = 0;
    bool m_smoothStarted = false;
    double m_lastStep = 0;
    bool m_replotQueued = false;
    bool m_replotWhenShown = false;
};

} // namespace lathe::ui
