#pragma once

#include "workspace/lr_find_job.h"

#include <QGroupBox>
#include <QList>
#include <QPointer>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;

namespace lathe::workspace {
class JobManager;
} // namespace lathe::workspace

namespace lathe::ui {

// The learning-rate range test (fastai's lr_find) of the current settings: "Find Learning Rate"
// runs an LrFindJob on the run config the page would start (real training steps with the rate
// growing exponentially, stopped when the loss diverges; nothing is written and the settings do
// not change), its loss against the learning rate on a log scale arriving live (each step faint,
// smoothed bold), then the two suggestions (valley, fastai's default, and steepest descent) as
// vertical lines with their values, each with a "Use" button that emits learningRateChosen()
// with the value shown on it.
class LrFinderPanel : public QGroupBox
{
    Q_OBJECT

public:
    explicit LrFinderPanel(workspace::JobManager *jobs, QWidget *parent = nullptr);

    // The run config to test (the page's runConfig()) and, when not empty, why it cannot be
    // tested now (the page's pre-flight).
    void setSources(std::function<nlohmann::json()> config, std::function<QString()> problem);
    // While blocked (a run is training) Find is disabled, with the reason as its tooltip.
    void setBlocked(const QString &reason);

    // Starts a test; false, with the reason in the status line, when it cannot.
    bool find();
    void cancel();
    bool isRunning() const { return m_job != nullptr; }
    workspace::LrFindJob *currentJob() const { return m_job; }

    // The points measured by the current (or last) test, in the order measured.
    const QList<workspace::LrFindPoint> &points() const { return m_points; }
    // The last finished test's outcome; none while one runs or before the first.
    const std::optional<workspace::LrFindResult> &result() const { return m_result; }
    // A suggestion as its Use button shows and applies it: two significant digits.
    static double rounded(double lr);
    static QString formatLr(double lr);

    QPushButton *findButton() const { return m_find; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *useValleyButton() const { return m_useValley; }
    QPushButton *useSteepestButton() const { return m_useSteepest; }
    QSpinBox *stepsEdit() const { return m_steps; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *suggestionLabel() const { return m_suggestion; }
    QCustomPlot *plot() const { return m_plot; }

Q_SIGNALS:
    void started();
    // "finished", "failed" or "cancelled".
    void ended(const QString &state);
    void pointAdded(int index);
    // A Use button: the suggestion (rounded as shown) for optimizer.lr.
    void learningRateChosen(double lr);

private:
    void addPoint(int index, const workspace::LrFindPoint &point);
    void jobEnded(const QString &state, const QString &message, const QVariant &result);
    void showResult();
    void clearPlot();
    void rescale();
    void updateButtons();

    workspace::JobManager *m_jobs;
    std::function<nlohmann::json()> m_config;
    std::function<QString()> m_problem;
    QString m_blocked;
    QPointer<workspace::LrFindJob> m_job;
    QList<workspace::LrFindPoint> m_points;
    std::optional<workspace::LrFindResult> m_result;

    QPushButton *m_find;
    QPushButton *m_cancel;
    QSpinBox *m_steps;
    QLabel *m_status;
    QCustomPlot *m_plot;
    QCPGraph *m_raw = nullptr;
    QCPGraph *m_smoothed = nullptr;
    QCPItemStraightLine *m_valleyLine = nullptr;
    QCPItemText *m_valleyText = nullptr;
    QCPItemStraightLine *m_steepestLine = nullptr;
    QCPItemText *m_steepestText = nullptr;
    QLabel *m_suggestion;
    QPushButton *m_useValley;
    QPushButton *m_useSteepest;
};

} // namespace lathe::ui
