#include "train/preflight_panel.h"

#include "common/background_task.h"
#include "engine/base/engine_error.h"
#include "engine/run/run_config.h"
#include "train/device_picker.h"
#include "workspace/dataset_warnings.h"
#include "workspace/quick_recipe.h"

#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <utility>

Q_DECLARE_METATYPE(lathe::engine::MemoryEstimate)

namespace lathe::ui {
namespace {

QString bytesText(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

// "about 3 min", "about 2.5 h": a duration as precise as an estimate is.
QString durationText(double seconds)
{
    if (seconds < 90)
        return PreflightPanel::tr("about %n s", nullptr, std::max(1, int(std::lround(seconds))));
    if (seconds < 90 * 60)
        return PreflightPanel::tr("about %n min", nullptr, int(std::lround(seconds / 60)));
    return PreflightPanel::tr("about %1 h").arg(QLocale().toString(seconds / 3600, 'f', 1));
}

QString nextStepText(PreflightProblem::NextStep step)
{
    switch (step) {
    case PreflightProblem::NextStep::ConvertShards:
        return PreflightPanel::tr("Next: Convert to Shards on the Data Page");
    case PreflightProblem::NextStep::TrainFromScratch:
        return PreflightPanel::tr("Train from Scratch Instead");
    case PreflightProblem::NextStep::None:
        break;
    }
    return {};
}

} // namespace

PreflightPanel::PreflightPanel(QWidget *parent)
    : QGroupBox(tr("Pre-flight check"), parent)
    , m_check(new QLabel(this))
    , m_nextStep(new QPushButton(this))
    , m_warnings(new QLabel(this))
    , m_memory(new QLabel(this))
    , m_time(new QLabel(this))
    , m_recipe(new QPushButton(this))
    , m_timer(new QTimer(this))
    , m_estimates(new QThreadPool(this))
{
    m_check->setObjectName(QStringLiteral("preflight"));
    m_check->setWhatsThis(tr("<p><b>Pre-flight check</b></p><p>Before a run starts, Lathe checks that the shards exist "
                             "and have a training split, that the model's input channels suit them, that the "
                             "chosen weights are on disk, and estimates the memory one rank needs: weights, "
                             "gradients, optimiser state and activations (measured on a few real steps of the "
                             "model, then scaled to the batch). It warns when that exceeds the chosen devices' "
                             "memory. A failed check keeps the run from starting and says why; the memory warning only warns.</p>"));
    m_check->setWordWrap(true);
    m_check->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memory->setObjectName(QStringLiteral("memoryEstimate"));
    m_memory->setWordWrap(true);
    m_memory->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_memory->setToolTip(tr("Measured on the CPU with a forward and backward pass of the model at batch 2 and 4, "
                            "scaled to the batch; parameters, gradients and optimiser state are counted. Not "
                            "included: the CUDA context and cuDNN workspaces."));
    m_nextStep->setObjectName(QStringLiteral("preflightNextStep"));
    m_nextStep->hide();
    connect(m_nextStep, &QPushButton::clicked, this, [this] { Q_EMIT nextStepRequested(m_next); });
    m_warnings->setObjectName(QStringLiteral("datasetWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setStyleSheet(QStringLiteral("color: #b9770e;"));
    m_warnings->hide();
    m_time->setObjectName(QStringLiteral("timeEstimate"));
    m_time->setWordWrap(true);
    m_time->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_time->setToolTip(tr("Measured on this CPU: a few real training steps at batch 4 and 8 (optimizer included), "
                          "scaled to the batch, the epoch's whole batches and the epochs, plus a forward pass over "
                          "the validation split. The input pipeline runs beside the steps and is not counted."));
    m_recipe->setObjectName(QStringLiteral("useQuickRecipe"));
    m_recipe->setText(tr("Use the Quick CPU Recipe"));
    m_recipe->setToolTip(workspace::quickCpuRecipe().description);
    m_recipe->hide();
    connect(m_recipe, &QPushButton::clicked, this, &PreflightPanel::recipeRequested);
    m_estimates->setMaxThreadCount(1);
    m_timer->setSingleShot(true);
    m_timer->setInterval(300);
    connect(m_timer, &QTimer::timeout, this, &PreflightPanel::check);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_check);
    layout->addWidget(m_nextStep, 0, Qt::AlignLeft);
    layout->addWidget(m_warnings);
    layout->addWidget(m_memory);
    layout->addWidget(m_time);
    layout->addWidget(m_recipe, 0, Qt::AlignLeft);
    layout->addStretch(1);
}

void PreflightPanel::setSources(std::function<PreflightProblem()> problem, std::function<nlohmann::json()> config,
                                const DevicePicker *devices)
{
    m_problem = std::move(problem);
    m_config = std::move(config);
    m_devices = devices;
}

void PreflightPanel::setDataset(const workspace::ShardManifest &manifest)
{
    m_dataset = manifest;
}

void PreflightPanel::schedule()
{
    m_timer->start();
}

void PreflightPanel::check()
{
    if (!m_problem || !m_config || !m_devices)
        return;
    const PreflightProblem problem = m_problem();
    m_check->setText(problem.reason.isEmpty() ? tr("Ready to start on %1.").arg(m_devices->chosenDescription())
                                              : tr("Not ready: %1").arg(problem.reason));
    m_next = problem.reason.isEmpty() ? PreflightProblem::NextStep::None : problem.next;
    m_nextStep->setText(nextStepText(m_next));
    m_nextStep->setVisible(m_next != PreflightProblem::NextStep::None);
    const auto notEstimated = [this](const QString &memory, const QString &time) {
        m_memory->setText(memory);
        m_memory->setStyleSheet(QString());
        m_time->setText(time);
        m_recipe->hide();
        m_memoryTotal = -1;
        m_memoryWarning = false;
        m_seconds = -1;
        Q_EMIT updated();
    };
    engine::RunConfig config;
    try {
        config = engine::parseRunConfig(m_config());
    } catch (const engine::EngineError &) {
        m_warnings->hide();
        notEstimated(tr("Memory: correct the settings first."), QString());
        return;
    }
    const QStringList warnings =
        m_dataset.isNull() ? QStringList()
                           : workspace::datasetWarnings(m_dataset, QString::fromStdString(config.data.trainSplit),
                                                        QString::fromStdString(config.data.valSplit),
                                                        config.optimizer.batchSize);
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(!warnings.isEmpty());
    if (m_dataset.isNull() || m_dataset.classes.isEmpty()) {
        notEstimated(tr("Memory: choose a converted dataset to estimate it."),
                     tr("Time: choose a converted dataset to estimate it."));
        return;
    }
    // Only the model, the input and the precision need a new measurement (batch and optimiser
    // are scaled from the measured parts).
    const nlohmann::json full = engine::runConfigToJson(config);
    const int classes = int(m_dataset.classes.size());
    const std::string key = nlohmann::json{{"model", full["model"]}, {"image_size", config.data.imageSize},
                                           {"precision", config.precision == "fp32" ? "fp32" : "16-bit"}, {"classes", classes}}
                                .dump();
    if (key == m_measuredFor && m_measured) {
        showEstimates();
        return;
    }
    m_measuredFor = key;
    m_measured.reset();
    m_memoryTotal = -1;
    m_memoryWarning = false;
    m_seconds = -1;
    m_memory->setStyleSheet(QString());
    m_memory->setText(tr("Estimating the memory…"));
    m_time->setText(tr("Time: measuring a few training steps…"));
    m_recipe->hide();
    const int generation = ++m_generation;
    BackgroundTask::start(
        m_estimates, this,
        [config, classes]() -> QVariant { return QVariant::fromValue(engine::estimateTrainingMemory(config, classes)); },
        [this, generation](const QVariant &result) {
            if (generation != m_generation)
                return;
            m_measured = result.value<engine::MemoryEstimate>();
            showEstimates();
        },
        [this, generation](const QString &message) {
            if (generation != m_generation)
                return;
            m_memory->setText(tr("Cannot estimate the memory: %1").arg(message));
            m_time->clear();
            Q_EMIT updated();
        });
}

void PreflightPanel::showEstimates()
{
    engine::MemoryEstimate e = *m_measured;
    engine::RunConfig config;
    try {
        config = engine::parseRunConfig(m_config());
    } catch (const engine::EngineError &) {
        return; // check() says so on its next turn
    }
    engine::completeMemoryEstimate(e, config);
    const bool cpu = m_devices->value().size() > 0 && m_devices->value()[0] == "cpu";
    const qint64 cache = cpu ? qint64(config.data.cacheMb) << 20 : 0; // the image cache lives in RAM
    m_memoryTotal = e.total + cache;
    const quint64 budget = m_devices->memoryPerRank();
    m_memoryWarning = budget > 0 && quint64(m_memoryTotal) > budget;
    QString text = tr("Memory per rank: about %1 — weights %2, gradients %3, optimiser state %4, activations %5 "
                      "(batch %6 at %7 px)")
                       .arg(bytesText(m_memoryTotal), bytesText(e.parameters + e.ema), bytesText(e.gradients),
                            bytesText(e.optimizerState), bytesText(e.activations))
                       .arg(e.batchSize)
                       .arg(e.imageSize);
    if (cache > 0)
        text += tr(", image cache %1").arg(bytesText(cache));
    text += budget > 0 ? tr("; available: %1 per rank.").arg(bytesText(qint64(budget))) : QStringLiteral(".");
    if (config.precision == "fp16")
        text += QLatin1Char(' ') + tr("fp16 measured as bf16 on the CPU (same width).");
    if (!cpu)
        text += QLatin1Char(' ') + tr("Add the CUDA context and cuDNN workspaces (often 0.5–1 GiB).");
    if (m_memoryWarning)
        text += QLatin1Char('\n') + tr("Warning: this is more than %1 has. Lower the batch size or the image size, train in "
                                        "bf16, or freeze more of the backbone on the Model page.")
                                         .arg(m_devices->chosenDescription());
    m_memory->setText(text);
    m_memory->setStyleSheet(m_memoryWarning ? QStringLiteral("color: #c0392b;") : QString());
    showTime(e, config, cpu && m_devices->value().size() == 1);
    Q_EMIT updated();
}

void PreflightPanel::showTime(const engine::MemoryEstimate &e, const engine::RunConfig &config, bool cpu)
{
    m_seconds = -1;
    m_recipe->hide();
    m_time->setStyleSheet(QString());
    if (!cpu) {
        m_time->setText(tr("Time: not estimated for these devices (the steps are measured on the CPU only)."));
        return;
    }
    const QString train = QString::fromStdString(config.data.trainSplit);
    const QString val = QString::fromStdString(config.data.valSplit);
    const engine::TimeEstimate t = engine::estimateTrainingTime(e, config, m_dataset.splitRecords(train),
                                                                val.isEmpty() ? 0 : m_dataset.splitRecords(val));
    m_seconds = t.seconds;
    QString text = tr("Time on this CPU: %1 — %n epoch(s) of %2 steps at %3 s each", nullptr, config.optimizer.epochs)
                       .arg(durationText(t.seconds), QLocale().toString(qlonglong(t.stepsPerEpoch)),
                            QLocale().toString(t.secondsPerStep, 'g', 2));
    text += tr(" (an epoch uses %1 of the %2 training images).")
                .arg(QLocale().toString(qlonglong(t.imagesPerEpoch)), QLocale().toString(m_dataset.splitRecords(train)));
    if (t.seconds > kHoursWarning) {
        text += QLatin1Char('\n') + tr("Warning: that is hours on this hardware. A smaller image size, a smaller "
                                        "backbone or fewer epochs finish sooner.");
        m_time->setStyleSheet(QStringLiteral("color: #c0392b;"));
    }
    m_time->setText(text);
    // The recipe is offered where it helps: a long run that is not already the recipe.
    m_recipe->setVisible(t.seconds > kOfferRecipeSeconds && !workspace::quickCpuRecipe().isFollowedBy(m_config()));
}

} // namespace lathe::ui
