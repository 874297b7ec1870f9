#pragma once

#include "engine/training/memory_estimate.h"

#include <QGroupBox>
#include <QString>

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

class QLabel;
class QThreadPool;
class QTimer;

namespace lathe::ui {

class DevicePicker;

// The Train page's pre-flight check: whether a run could start (the page's reason when not) and
// the memory one rank needs against the chosen devices'. The model's parts are measured on the
// CPU (engine::estimateTrainingMemory, on a thread of its own so estimates never queue in front
// of other work) once per model, input size, precision and class count; batch size and
// optimiser are scaled from that measurement at once. Settings change in bursts while the user
// types, so schedule() checks 300 ms after the last change.
class PreflightPanel : public QGroupBox
{
    Q_OBJECT

public:
    explicit PreflightPanel(QWidget *parent = nullptr);

    // Where the check's facts come from: the page's reason a run cannot start (empty: it can),
    // the run config Start would use, and the devices chosen to train on.
    void setSources(std::function<QString()> problem, std::function<nlohmann::json()> config,
                    const DevicePicker *devices);
    // The chosen dataset's classes (0: not known yet; the memory is not estimated then).
    void setClasses(int classes) { m_classes = classes; }
    // Checks again 300 ms after the last call; updated() follows.
    void schedule();

    // Bytes per rank (-1 until measured) and whether that exceeds the chosen devices' memory.
    qint64 memoryEstimate() const { return m_memoryTotal; }
    bool memoryWarning() const { return m_memoryWarning; }
    QLabel *checkLabel() const { return m_check; }
    QLabel *memoryLabel() const { return m_memory; }

Q_SIGNALS:
    // The panel shows the current settings' check and memory estimate.
    void updated();

private:
    void check();
    void showMemory();

    std::function<QString()> m_problem;
    std::function<nlohmann::json()> m_config;
    const DevicePicker *m_devices = nullptr;
    int m_classes = 0;
    int m_generation = 0;
    std::string m_measuredFor; // the model, input and precision the measured parts are for
    std::optional<engine::MemoryEstimate> m_measured;
    qint64 m_memoryTotal = -1;
    bool m_memoryWarning = false;

    QLabel *m_check;
    QLabel *m_memory;
    QTimer *m_timer;
    QThreadPool *m_estimates; // one thread
};

} // namespace lathe::ui
