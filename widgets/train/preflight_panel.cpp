#include "train/preflight_panel.h"

#include "common/background_task.h"
#include "engine/base/engine_error.h"
#include "engine/run/run_config.h"
#include "train/device_picker.h"

#include <QLabel>
#include <QLocale>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

Q_DECLARE_METATYPE(lathe::engine::MemoryEstimate)

namespace lathe::ui {
namespace {

QString bytesText(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

} // namespace

PreflightPanel::PreflightPanel(QWidget *parent)
    : QGroupBox(tr("Pre-flight check"), parent)
    , m_check(new QLabel(this))
    , m_memory(new QLabel(this))
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
    m_estimates->setMaxThreadCount(1);
    m_timer->setSingleShot(true);
    m_timer->setInterval(300);
    connect(m_timer, &QTimer::timeout, this, &PreflightPanel::check);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_check);
    layout->addWidget(m_memory);
    layout->addStretch(1);
}

void PreflightPanel::setSources(std::function<QString()> problem, std::function<nlohmann::json()> config,
                                const DevicePicker *devices)
{
    m_problem = std::move(problem);
    m_config = std::move(config);
    m_devices = devices;
}

void PreflightPanel::schedule()
{
    m_timer->start();
}

void PreflightPanel::check()
{
    if (!m_problem || !m_config || !m_devices)
        return;
    const QString problem = m_problem();
    m_check->setText(problem.isEmpty() ? tr("Ready to start on %1.").arg(m_devices->chosenDescription())
                                       : tr("Not ready: %1").arg(problem));
    engine::RunConfig config;
    try {
        config = engine::parseRunConfig(m_config());
    } catch (const engine::EngineError &) {
        m_memory->setText(tr("Memory: correct the settings first."));
        m_memoryTotal = -1;
        m_memoryWarning = false;
        Q_EMIT updated();
        return;
    }
    if (m_classes <= 0) {
        m_memory->setText(tr("Memory: choose a converted dataset to estimate it."));
        m_memoryTotal = -1;
        m_memoryWarning = false;
        Q_EMIT updated();
        return;
    }
    // Only the model, the input and the precision need a new measurement (batch and optimiser
    // are scaled from the measured parts).
    const nlohmann::json full = engine::runConfigToJson(config);
    const std::string key = nlohmann::json{{"model", full["model"]}, {"image_size", config.data.imageSize},
                                           {"precision", config.precision == "fp32" ? "fp32" : "16-bit"}, {"classes", m_classes}}
                                .dump();
    if (key == m_measuredFor && m_measured) {
        showMemory();
        return;
    }
    m_measuredFor = key;
    m_measured.reset();
    m_memoryTotal = -1;
    m_memoryWarning = false;
    m_memory->setStyleSheet(QString());
    m_memory->setText(tr("Estimating the memory…"));
    const int generation = ++m_generation;
    const int classes = m_classes;
    BackgroundTask::start(
        m_estimates, this,
        [config, classes]() -> QVariant { return QVariant::fromValue(engine::estimateTrainingMemory(config, classes)); },
        [this, generation](const QVariant &result) {
            if (generation != m_generation)
                return;
            m_measured = result.value<engine::MemoryEstimate>();
            showMemory();
        },
        [this, generation](const QString &message) {
            if (generation != m_generation)
                return;
            m_memory->setText(tr("Cannot estimate the memory: %1").arg(message));
            Q_EMIT updated();
        });
}

void PreflightPanel::showMemory()
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
    Q_EMIT updated();
}

} // namespace lathe::ui
