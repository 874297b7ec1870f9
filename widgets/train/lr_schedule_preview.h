#pragma once

#include <QWidget>

#include <nlohmann/json.hpp>

class QCustomPlot;
class QLabel;

namespace lathe::ui {

// The learning-rate curve over the planned optimizer steps, computed by the engine's own
// schedule from a run config (the same code the trainer runs), redrawn as settings change.
class LrSchedulePreview : public QWidget
{
    Q_OBJECT

public:
    explicit LrSchedulePreview(QWidget *parent = nullptr);

    // config: a full or partial run config (its optimizer and schedule are used);
    // trainImages: records of the training split (0 when unknown: one step per epoch).
    void setConfig(const nlohmann::json &config, qint64 trainImages);

    int pointCount() const;
    double lrAtStep(qint64 step) const; // from the drawn curve (nearest point)
    QString message() const;
    QCustomPlot *plot() const { return m_plot; }

private:
    QCustomPlot *m_plot;
    QLabel *m_message;
};

} // namespace lathe::ui
