// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "train/lr_finder_panel.h"

#include "common/plot_palette.h"
#include "workspace/job_manager.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::ui {
namespace {

const QColor kLoss(61, 139, 217);
const QColor kValley(46, 160, 80);
const QColor kSteepest(230, 130, 30);

// A vertical line at a learning rate over the whole axis rect, its label at the top.
void addMarker(QCustomPlot *plot, const QColor &colour, QCPItemStraightLine *&line, QCPItemText *&text)
{
    line = new QCPItemStraightLine(plot);
    line->setPen(QPen(colour, 1.5, Qt::DashLine));
    line->setVisible(false);
    text = new QCPItemText(plot);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setPadding(QMargins(4, 2, 4, 2));
    text->setColor(colour);
    text->setFont(QFont(plot->font().family(), 8, QFont::Bold));
    text->setClipToAxisRect(true);
    text->setVisible(false);
}

void placeMarker(QCPItemStraightLine *line, QCPItemText *text, const std::optional<workspace::LrFindSuggestion> &s,
                 const QString &label, double y)
{
    line->setVisible(s.has_value());
    text->setVisible(s.has_value());
    if (!s)
        return;
    line->point1->setCoords(s->lr, 0);
    line->point2->setCoords(s->lr, 1);
    text->position->setCoords(s->lr, y);
    text->setText(label);
}

} // namespace

LrFinderPanel::LrFinderPanel(workspace::JobManager *jobs, QWidget *parent)
    : QGroupBox(tr("Learning-Rate Finder"), parent)
    , m_jobs(jobs)
    , m_find(new QPushButton(tr("Find Learning Rate"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_steps(new QSpinBox(this))
    , m_status(new QLabel(this))
    , m_plot(new QCustomPlot(this))
    , m_suggestion(new QLabel(this))
    , m_useValley(new QPushButton(this))
    , m_useSteepest(new QPushButton(this))
{
    setObjectName(QStringLiteral("lrFinder"));
    setWhatsThis(tr("<p><b>Learning-rate finder</b></p><p>A learning-rate range test (Smith 2015; fastai's "
                    "lr_find): real training steps of the current settings from the model's initial weights, the "
                    "learning rate growing exponentially from 1e-7 to 10, stopped once the smoothed loss exceeds four "
                    "times its lowest. A good learning rate lies where the loss falls fastest, before the minimum: "
                    "<i>valley</i> (fastai's default) is about halfway down the longest descent, <i>steepest</i> where "
                    "the smoothed loss falls fastest. Nothing is written to disk; the settings change only when you "
                    "click Use.</p>"));
    m_find->setObjectName(QStringLiteral("lrFindButton"));
    m_find->setToolTip(tr("Train a few steps with a growing learning rate and suggest one (nothing is saved)."));
    m_cancel->setToolTip(tr("Stop the test; the settings stay as they are."));
    m_steps->setRange(10, 1000);
    m_steps->setValue(100);
    m_steps->setSuffix(tr(" steps"));
    m_steps->setToolTip(tr("Optimizer steps of the test, one per learning rate; it stops earlier when the loss "
                           "diverges."));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setText(tr("Runs the current settings for a few steps with a growing learning rate."));
    m_suggestion->setObjectName(QStringLiteral("lrSuggestion"));
    m_suggestion->setWordWrap(true);
    m_suggestion->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_useValley->setObjectName(QStringLiteral("lrUseValley"));
    m_useSteepest->setObjectName(QStringLiteral("lrUseSteepest"));
    m_useValley->setToolTip(tr("Set the learning rate to the valley suggestion (fastai's default)."));
    m_useSteepest->setToolTip(tr("Set the learning rate to the steepest-descent suggestion."));

    m_plot->setObjectName(QStringLiteral("lrFinderPlot"));
    m_plot->setMinimumHeight(200);
    m_plot->xAxis->setLabel(tr("Learning rate (log scale)"));
    m_plot->yAxis->setLabel(tr("Training loss"));
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setNumberFormat(QStringLiteral("eb")); // 10^-3
    m_plot->xAxis->setNumberPrecision(0);
    m_plot->xAxis->setRange(1e-7, 10);
    m_plot->yAxis->setRange(0, 3);
    m_raw = m_plot->addGraph();
    m_raw->setName(tr("loss"));
    m_raw->setPen(QPen(QColor(kLoss.red(), kLoss.green(), kLoss.blue(), 80), 1));
    m_smoothed = m_plot->addGraph();
    m_smoothed->setName(tr("smoothed loss"));
    m_smoothed->setPen(QPen(kLoss, 2.5));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 8));
    placeLegendAbove(m_plot);
    addMarker(m_plot, kValley, m_valleyLine, m_valleyText);
    addMarker(m_plot, kSteepest, m_steepestLine, m_steepestText);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_find);
    controls->addWidget(m_cancel);
    controls->addWidget(m_steps);
    controls->addStretch(1);
    auto *use = new QHBoxLayout;
    use->addWidget(m_suggestion, 1);
    use->addWidget(m_useValley);
    use->addWidget(m_useSteepest);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(m_plot, 1);
    layout->addLayout(use);

    connect(m_find, &QPushButton::clicked, this, &LrFinderPanel::find);
    connect(m_cancel, &QPushButton::clicked, this, &LrFinderPanel::cancel);
    connect(m_useValley, &QPushButton::clicked, this, [this] {
        if (m_result && m_result->valley)
            Q_EMIT learningRateChosen(rounded(m_result->valley->lr));
    });
    connect(m_useSteepest, &QPushButton::clicked, this, [this] {
        if (m_result && m_result->steepest)
            Q_EMIT learningRateChosen(rounded(m_result->steepest->lr));
    });
    showResult();
    updateButtons();
}

void LrFinderPanel::setSources(std::function<nlohmann::json()> config, std::function<QString()> problem)
{
    m_config = std::move(config);
    m_problem = std::move(problem);
}

void LrFinderPanel::setBlocked(const QString &reason)
{
    m_blocked = reason;
    updateButtons();
}

double LrFinderPanel::rounded(double lr)
{
    if (!(lr > 0) || !std::isfinite(lr))
        return lr;
    return QString::number(lr, 'e', 1).toDouble(); // two significant digits, as formatLr shows it
}

QString LrFinderPanel::formatLr(double lr)
{
    if (!(lr > 0) || !std::isfinite(lr))
        return QString::number(lr);
    // 3.2e-3 rather than 3.2e-03; 0.01 and above in plain digits.
    if (lr >= 0.01 && lr < 100)
        return QString::number(rounded(lr), 'g', 2);
    const int exponent = int(std::floor(std::log10(lr) + 1e-9));
    double mantissa = lr / std::pow(10.0, exponent);
    mantissa = std::round(mantissa * 10) / 10;
    if (mantissa >= 10) // 9.96e-4 -> 1.0e-3
        return formatLr(std::pow(10.0, exponent + 1));
    return QStringLiteral("%1e%2").arg(mantissa, 0, 'f', 1).arg(exponent);
}

bool LrFinderPanel::find()
{
    if (m_job)
        return false;
    QString problem = m_blocked;
    if (problem.isEmpty() && !m_config)
        problem = tr("There are no settings to test.");
    if (problem.isEmpty() && m_problem)
        problem = m_problem();
    if (problem.isEmpty() && !m_jobs)
        problem = tr("Jobs cannot run here.");
    if (!problem.isEmpty()) {
        m_status->setText(tr("Cannot test: %1").arg(problem));
        return false;
    }
    workspace::LrFindJob::Params params;
    params.config = m_config();
    params.steps = m_steps->value();
    auto *job = new workspace::LrFindJob(params);
    m_job = job;
    m_points.clear();
    m_result.reset();
    clearPlot();
    showResult();
    connect(job, &workspace::LrFindJob::pointMeasured, this, &LrFinderPanel::addPoint, Qt::QueuedConnection);
    connect(job, &workspace::Job::progressChanged, this, [this](double, const QString &status) {
        if (!status.isEmpty())
            m_status->setText(status);
    });
    connect(job, &workspace::Job::finished, this,
            [this](const QVariant &result) { jobEnded(QStringLiteral("finished"), {}, result); });
    connect(job, &workspace::Job::failed, this,
            [this](const QString &message) { jobEnded(QStringLiteral("failed"), message, {}); });
    connect(job, &workspace::Job::cancelled, this, [this] { jobEnded(QStringLiteral("cancelled"), {}, {}); });
    m_status->setText(tr("Starting the test…"));
    m_jobs->start(job);
    updateButtons();
    Q_EMIT started();
    return true;
}

void LrFinderPanel::cancel()
{
    if (!m_job)
        return;
    m_job->requestCancel();
    m_status->setText(tr("Cancelling after the current step…"));
}

void LrFinderPanel::addPoint(int index, const workspace::LrFindPoint &point)
{
    if (sender() != m_job.data())
        return; // a cancelled test's last points
    m_points.append(point);
    m_raw->addData(point.lr, point.loss);
    m_smoothed->addData(point.lr, point.smoothed);
    rescale();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    Q_EMIT pointAdded(index);
}

void LrFinderPanel::jobEnded(const QString &state, const QString &message, const QVariant &result)
{
    m_job = nullptr;
    if (state == QLatin1String("finished")) {
        m_result = result.value<workspace::LrFindResult>();
        // The result's points are the whole curve (a queued point could only be missing if
        // the job was not ours; redraw from the result to be sure).
        m_points = m_result->points;
        clearPlot();
        for (const workspace::LrFindPoint &p : m_points) {
            m_raw->addData(p.lr, p.loss);
            m_smoothed->addData(p.lr, p.smoothed);
        }
        rescale();
        QString stopped;
        if (m_result->diverged)
            stopped = tr("stopped at step %1 of %2, where the loss diverged").arg(m_result->stepsDone).arg(m_result->stepsPlanned);
        else if (m_result->nonFinite)
            stopped = tr("stopped at step %1 of %2: the loss was not a number").arg(m_result->stepsDone).arg(m_result->stepsPlanned);
        else
            stopped = tr("%1 steps").arg(m_result->stepsDone);
        m_status->setText(tr("Tested on %1 with batch %2: %3. Nothing was saved.")
                              .arg(m_result->device)
                              .arg(m_result->batchSize)
                              .arg(stopped));
    } else if (state == QLatin1String("cancelled")) {
        m_status->setText(tr("Cancelled; the settings are unchanged."));
    } else {
        m_status->setText(tr("The test failed: %1").arg(message));
    }
    showResult();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    updateButtons();
    Q_EMIT ended(state);
}

void LrFinderPanel::showResult()
{
    const std::optional<workspace::LrFindSuggestion> none;
    const auto &valley = m_result ? m_result->valley : none;
    const auto &steepest = m_result ? m_result->steepest : none;
    placeMarker(m_valleyLine, m_valleyText, valley, valley ? tr("valley %1").arg(formatLr(valley->lr)) : QString(), 0.02);
    placeMarker(m_steepestLine, m_steepestText, steepest,
                steepest ? tr("steepest %1").arg(formatLr(steepest->lr)) : QString(), 0.12);
    m_useValley->setVisible(valley.has_value());
    m_useSteepest->setVisible(steepest.has_value());
    if (valley)
        m_useValley->setText(tr("Use %1").arg(formatLr(valley->lr)));
    if (steepest)
        m_useSteepest->setText(tr("Use %1 (steepest)").arg(formatLr(steepest->lr)));
    if (!m_result)
        m_suggestion->setText(m_job ? QString() : tr("No suggestion yet."));
    else if (!valley && !steepest)
        m_suggestion->setText(tr("No suggestion: too few steps before the loss diverged. Raise the steps."));
    else {
        QStringList parts;
        if (valley)
            parts << tr("valley %1").arg(formatLr(valley->lr));
        if (steepest)
            parts << tr("steepest descent %1").arg(formatLr(steepest->lr));
        m_suggestion->setText(tr("Suggested learning rate: %1.").arg(parts.join(QStringLiteral(", "))));
    }
}

void LrFinderPanel::clearPlot()
{
    m_raw->data()->clear();
    m_smoothed->data()->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LrFinderPanel::rescale()
{
    if (m_points.isEmpty())
        return;
    const double first = m_points.first().lr;
    const double last = std::max(m_points.last().lr, first * 10);
    const double pad = std::pow(last / first, kPlotPadding);
    m_plot->xAxis->setRange(first / pad, last * pad);
    // Up to a little above the starting plateau (the highest smoothed loss before its lowest):
    // the blow-up after the minimum leaves the top of the plot instead of flattening the descent
    // (fastai leaves the last points out for the same reason).
    int lowest = 0;
    for (int i = 1; i < m_points.size(); ++i)
        if (m_points[i].smoothed < m_points[lowest].smoothed)
            lowest = i;
    double plateau = 0;
    for (int i = 0; i <= lowest; ++i)
        plateau = std::max(plateau, m_points[i].smoothed);
    const double cap = plateau * 1.5;
    double low = std::numeric_limits<double>::max();
    double high = std::numeric_limits<double>::lowest();
    for (const workspace::LrFindPoint &p : m_points) {
        low = std::min({low, p.smoothed, p.loss});
        high = std::max(high, std::min(std::max(p.smoothed, p.loss), cap));
    }
    m_plot->yAxis->setRange(paddedRange(QCPRange(low, high)));
}

void LrFinderPanel::updateButtons()
{
    const bool running = m_job != nullptr;
    m_find->setEnabled(!running && m_blocked.isEmpty());
    m_find->setToolTip(m_blocked.isEmpty() ? tr("Train a few steps with a growing learning rate and suggest one "
                                                "(nothing is saved).")
                                           : m_blocked);
    m_cancel->setEnabled(running);
    m_steps->setEnabled(!running);
    m_useValley->setEnabled(!running);
    m_useSteepest->setEnabled(!running);
}

} // namespace lathe::ui
