#pragma once

#include "engine/training/memory_estimate.h"
#include "workspace/shard_manifest.h"

#include <QGroupBox>
#include <QString>

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

class QLabel;
class QPushButton;
class QThreadPool;
class QTimer;

namespace lathe::ui {

class DevicePicker;

// Why a run cannot start, and the step that removes the cause (offered as a button).
struct PreflightProblem
{
    enum class NextStep { None, ConvertShards, TrainFromScratch };
    QString reason; // empty: the run can start
    NextStep next = NextStep::None;
};

// The Train page's pre-flight check: whether a run could start (the page's reason when not, with
// a button for the next step), what the chosen dataset's counts warn about
// (workspace::datasetWarnings), the memory one rank needs against the chosen devices' and, on
// the CPU, how long the run will take, with the quick CPU recipe offered when that is long. The
// model's parts and step time are measured on the CPU (engine::estimateTrainingMemory, on a thread of its own so estimates never queue in front
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
    void setSources(std::function<PreflightProblem()> problem, std::function<nlohmann::json()> config,
                    const DevicePicker *devices);
    // The chosen dataset (null: not known yet; the memory and time are not estimated then).
    void setDataset(const workspace::ShardManifest &manifest);
    // Checks again 300 ms after the last call; updated() follows.
    void schedule();

    // Bytes per rank (-1 until measured) and whether that exceeds the chosen devices' memory.
    qint64 memoryEstimate() const { return m_memoryTotal; }
    bool memoryWarning() const { return m_memoryWarning; }
    // Seconds the run takes on the CPU (-1: not estimated: not measured yet, or not on the CPU).
    double timeEstimate() const { return m_seconds; }
    QLabel *checkLabel() const { return m_check; }
    QLabel *memoryLabel() const { return m_memory; }
    QLabel *timeLabel() const { return m_time; }
    QLabel *datasetWarningsLabel() const { return m_warnings; }
    QPushButton *nextStepButton() const { return m_nextStep; }
    QPushButton *recipeButton() const { return m_recipe; }

    // A run longer than this on the CPU gets the quick recipe offered; one longer than
    // kHoursWarning is warned about.
    static constexpr double kOfferRecipeSeconds = 15 * 60;
    static constexpr double kHoursWarning = 60 * 60;

Q_SIGNALS:
    // The panel shows the current settings' check and estimates.
    void updated();
    void nextStepRequested(PreflightProblem::NextStep step);
    void recipeRequested();

private:
    void check();
    void showEstimates();
    void showTime(const engine::MemoryEstimate &e, const engine::RunConfig &config, bool cpu);

    std::function<PreflightProblem()> m_problem;
    std::function<nlohmann::json()> m_config;
    const DevicePicker *m_devices = nullptr;
    workspace::ShardManifest m_dataset;
    int m_generation = 0;
    std::string m_measuredFor; // the model, input and precision the measured parts are for
    std::optional<engine::MemoryEstimate> m_measured;
    qint64 m_memoryTotal = -1;
    bool m_memoryWarning = false;
    double m_seconds = -1;
    PreflightProblem::NextStep m_next = PreflightProblem::NextStep::None;

    QLabel *m_check;
    QPushButton *m_nextStep;
    QLabel *m_warnings;
    QLabel *m_memory;
    QLabel *m_time;
    QPushButton *m_recipe;
    QTimer *m_timer;
    QThreadPool *m_estimates; // one thread
};

} // namespace lathe::ui
