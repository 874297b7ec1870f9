#pragma once

#include "engine/models/model_spec.h"
#include "train/preflight_panel.h"
#include "workspace/cross_validation_job.h"
#include "workspace/quick_recipe.h"
#include "workspace/train_job.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

class QBoxLayout;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace lathe::workspace {
class JobManager;
class Project;
} // namespace lathe::workspace

namespace lathe::ui {

class AugmentationEditor;
class AugmentationPreviewGrid;
class DevicePicker;
class LrFinderPanel;
class LrSchedulePreview;
class PresetPanel;
class RunConfigForm;
class TrainingCurves;
class TrainingLivePanel;

// Set up a run and watch it: presets, the shards and input size, the augmentation list with a
// live preview, every optimisation, schedule, precision, device, checkpoint and stopping field
// (forms from the run-config schema) with the learning-rate curve they give, a pre-flight check
// with the run's estimated memory against the chosen devices', then Start, Pause, Resume and
// Stop. A run goes on in a Job while the user works elsewhere; its curves, progress, ETA and
// log stream into the Live tab. The model comes from the Model page.
//
// Cross-Validate runs K-fold cross-validation of the same checked settings (a
// CrossValidationJob: K runs in one folder of the project's runs folder, `lathe-cli train
// --folds K` on the page) instead of one run: its progress (fold i of K, the fold's epoch and
// step) is in the status line and the jobs panel, Pause and Stop act on it as on a run, and its
// result (each fold's metric, their mean and std, the folder the Data page's Suspected Label
// Errors tab reads) is shown under the status line. The folds' curves are not drawn live; each
// fold is an ordinary run folder. A stopped cross-validation can be continued from the result
// line (its finished folds kept, the stopped one resumed).
//
// The page holds the settings (what Start would use), saves them with the project, and wires
// its panels to each other and to the TrainJob: PresetPanel (the presets and their files),
// PreflightPanel (the check and the memory estimate) and TrainingLivePanel (the Live tab) do
// their own work; the data and augmentation groups are plain layout.
class TrainPage : public QWidget
{
    Q_OBJECT

public:
    TrainPage(workspace::JobManager *jobs, QWidget *parent = nullptr);

    // Lists the project's converted datasets and restores the saved settings.
    void setProject(workspace::Project *project);
    // Looks for converted datasets again (after a conversion).
    void refreshDatasets();
    // Where the model of a new run comes from (the Model page).
    void setModelSpecProvider(std::function<engine::ModelSpec()> provider);

    // The run config Start would use (data and model included).
    nlohmann::json runConfig() const;
    // Checks a run could start; the reason when not (also shown on the page).
    QString preflight() const;
    // The same with the step that removes the cause (offered as the pre-flight's button).
    PreflightProblem preflightProblem() const;
    // The Model page's choice changed: check again (weights, memory and time follow the model).
    void modelChanged();
    // Starts a new run in the project's runs folder, or continues an existing run folder.
    bool startRun();
    bool resumeRun(const QString &runDir);
    // K-fold cross-validation (K from foldsEdit(), 2 to 20) of the settings Start would use, in a
    // new folder of the runs folder; false (the reason in the status) when it cannot start.
    bool startCrossValidation();
    // Continues a stopped cross-validation in foldsDir (its own settings and fold count).
    bool resumeCrossValidation(const QString &foldsDir);
    void applyConfig(const nlohmann::json &config); // e.g. a run's config cloned from the Runs page

    // Presets (workspace::RunPresets): built-ins first, then the user's saved ones.
    QStringList presetNames() const;
    // Puts a preset's values into the forms; false (with the reason in the status) when unknown.
    bool applyPreset(const QString &name);
    // Saves the current settings as a user preset; empty, or the reason it was not saved.
    QString savePreset(const QString &name);
    QString deletePreset(const QString &name);

    // The memory estimate of the current settings (bytes per rank; -1 until measured) and whether
    // it exceeds the chosen devices' memory. preflightUpdated() follows each new figure.
    qint64 memoryEstimate() const;
    bool memoryWarning() const;

    AugmentationEditor *augmentationEditor() const { return m_editor; }
    AugmentationPreviewGrid *preview() const { return m_preview; }
    QComboBox *datasetPicker() const { return m_dataset; }
    QSpinBox *imageSizeEdit() const { return m_imageSize; }
    RunConfigForm *form() const { return m_form; }
    LrSchedulePreview *lrPreview() const { return m_lrPreview; }
    // The learning-rate finder beside the schedule's curve: its Use buttons set optimizer.lr.
    LrFinderPanel *lrFinderPanel() const { return m_lrFinder; }
    TrainingCurves *curves() const;
    QPushButton *startButton() const { return m_start; }
    QPushButton *pauseButton() const { return m_pause; }
    QPushButton *stopButton() const { return m_stop; }
    QLabel *statusLabel() const { return m_status; }
    QComboBox *presetPicker() const;
    DevicePicker *devicePicker() const;
    QLabel *preflightLabel() const;
    QLabel *memoryLabel() const;
    workspace::TrainJob *currentJob() const { return m_job; }
    QString currentRunDir() const { return m_runDir; }
    QSpinBox *foldsEdit() const { return m_folds; }
    QPushButton *crossValidateButton() const { return m_crossValidate; }
    // The last cross-validation's outcome (result, stopped with a Continue link, or failed).
    QLabel *crossValidationLabel() const { return m_cvLabel; }
    workspace::CrossValidationJob *currentCrossValidation() const { return m_cvJob; }
    QString currentCrossValidationDir() const { return m_cvDir; }
    // The last cross-validation that finished on this page.
    std::optional<workspace::CrossValidationResult> lastCrossValidation() const { return m_cvResult; }

Q_SIGNALS:
    void datasetsListed();
    // The shards to train on changed (saved with the project first).
    void datasetChanged(const QString &shardFolder);
    void runStarted(const QString &runDir);
    // finished, failed, cancelled: the run folder holds the outcome.
    void runEnded(const QString &runDir, const QString &state);
    void crossValidationStarted(const QString &foldsDir);
    // finished (folds.json written), failed or cancelled (resumable).
    void crossValidationEnded(const QString &foldsDir, const QString &state);
    // The pre-flight panel shows the current settings' check and memory estimate.
    void preflightUpdated();
    void devicesListed();
    // The pre-flight's next steps: the user asked for the Data page's conversion, for random
    // initial weights on the Model page, or for a whole recipe (Model and Train pages).
    void convertRequested();
    void fromScratchRequested();
    void recipeRequested(const lathe::workspace::Recipe &recipe);

protected:
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    QWidget *buildSetupTab();
    QWidget *buildDataGroup();
    QWidget *buildAugmentationGroup();
    void datasetChosen();
    void save();
    void updatePreview();
    void startJob(const QString &runDir, bool resume, const nlohmann::json &config);
    void takeEvents();
    // The cross-validation's queued events into the Live tab, each fold's curves from its start.
    void takeCrossValidationEvents();
    void jobEnded(const QString &state, const QString &message);
    void startCrossValidationJob(const QString &foldsDir, bool resume, const nlohmann::json &config, int folds);
    void crossValidationEndedWith(const QString &state, const QVariant &result, const QString &message);
    bool isBusy() const; // a run or a cross-validation is going on
    void updateButtons();
    void schedulePreflight();
    void findDevices();
    // The augmentation editor beside its preview when the width holds both, else above it.
    void arrangeAugmentation();

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    std::function<engine::ModelSpec()> m_modelSpec;
    QPointer<workspace::TrainJob> m_job;
    QString m_runDir;
    QPointer<workspace::CrossValidationJob> m_cvJob;
    QString m_cvDir;
    std::optional<workspace::CrossValidationResult> m_cvResult;
    qint64 m_trainImages = 0;
    int m_listGeneration = 0;
    bool m_restoring = false;

    QPushButton *m_start = nullptr;
    QPushButton *m_pause = nullptr;
    QPushButton *m_stop = nullptr;
    QSpinBox *m_folds = nullptr;
    QPushButton *m_crossValidate = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_cvLabel = nullptr;
    QTabWidget *m_tabs = nullptr;
    // Setup tab.
    PresetPanel *m_presets = nullptr;
    QComboBox *m_dataset = nullptr;
    QSpinBox *m_imageSize = nullptr;
    PreflightPanel *m_preflight = nullptr;
    QBoxLayout *m_augmentLayout = nullptr;
    AugmentationEditor *m_editor = nullptr;
    AugmentationPreviewGrid *m_preview = nullptr;
    RunConfigForm *m_form = nullptr;
    LrSchedulePreview *m_lrPreview = nullptr;
    LrFinderPanel *m_lrFinder = nullptr;
    // Live tab.
    TrainingLivePanel *m_live = nullptr;
};

} // namespace lathe::ui
