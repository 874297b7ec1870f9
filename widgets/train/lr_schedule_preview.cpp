// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "train/lr_schedule_preview.h"

#include "common/plot_palette.h"
#include "engine/base/engine_error.h"
#include "engine/training/lr_schedule.h"
#include "engine/run/run_config.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>

namespace lathe::ui {

LrSchedulePreview::LrSchedulePreview(QWidget *parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_message(new QLabel(this))
{
    m_plot->setObjectName(QStringLiteral("lrPreview"));
    m_plot->setMinimumHeight(150);
    m_plot->xAxis->setLabel(tr("Optimizer step"));
    m_plot->yAxis->setLabel(tr("Learning rate"));
    m_plot->addGraph()->setPen(QPen(QColor(70, 170, 90), 2));
    m_message->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_message);
}

void LrSchedulePreview::setConfig(const nlohmann::json &config, qint64 trainImages)
{
    QVector<double> steps;
    QVector<double> lrs;
    try {
        const engine::RunConfig parsed = engine::parseRunConfig(config);
        const std::int64_t batch = std::max(1, parsed.optimizer.batchSize * std::max(1, parsed.optimizer.accumulateSteps));
        const std::int64_t stepsPerEpoch = std::max<std::int64_t>(1, trainImages / batch);
        const engine::LrSchedule schedule(parsed.schedule, parsed.optimizer.lr, stepsPerEpoch, parsed.optimizer.epochs);
        for (const auto &[step, lr] : schedule.curve(400)) {
            steps.append(double(step));
            lrs.append(lr);
        }
        m_message->setText(trainImages > 0
                               ? tr("%1 steps: %2 epochs of %3 steps (%4 training images, batch %5).")
                                     .arg(schedule.totalSteps())
                                     .arg(parsed.optimizer.epochs)
                                     .arg(stepsPerEpoch)
                                     .arg(trainImages)
                                     .arg(batch)
                               : tr("Choose the shards to see the steps per epoch; one step per epoch is drawn."));
    } catch (const engine::EngineError &e) {
        m_message->setText(QString::fromUtf8(e.what()));
    }
    m_plot->graph(0)->setData(steps, lrs, true);
    rescaleWithPadding(m_plot); // a rate that falls to 0 is drawn whole, not along the axis
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int LrSchedulePreview::pointCount() const
{
    return m_plot->graph(0)->dataCount();
}

double LrSchedulePreview::lrAtStep(qint64 step) const
{
    auto it = m_plot->graph(0)->data()->findBegin(double(step), false);
    return it == m_plot->graph(0)->data()->constEnd() ? 0 : it->value;
}

QString LrSchedulePreview::message() const
{
    return m_message->text();
}

} // namespace lathe::ui
