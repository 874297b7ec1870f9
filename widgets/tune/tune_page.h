#pragma once

#include "engine/tune/study_state.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace lathe::workspace {
class JobManager;
class Project;
class TuneJob;
} // namespace lathe::workspace

namespace lathe::ui {

class SearchSpaceEditor;
class StudyCharts;
class TrialTableModel;

// Hyperparameter studies (Keras Tuner, Experiment Manager): many runs of the Train page's
// settings with some fields varied. The left side sets up a new study (which fields vary and
// how, the sampler and pruner, the budget, the metric); the right side shows the study picked
// above it, live while it runs: the trial table, the best-so-far curve, every trial's learning
// curve, parallel coordinates and the parameters' importance. Each trial is an ordinary run
// folder inside the study's folder in the project's runs folder, so the Runs, Evaluate and
// Export pages work on it. A study stopped (or killed) is continued with Continue Study; Train
// This Config Fully puts the best trial's settings on the Train page.
class TunePage : public QWidget
{
    Q_OBJECT

public:
    TunePage(workspace::JobManager *jobs, QWidget *parent = nullptr);
    ~TunePage() override;

    void setProject(workspace::Project *project);
    // The run config a new study starts from (the Train page's, data and model included).
    void setBaseConfigProvider(std::function<nlohmann::json()> provider);

    // Lists the project's studies again (keeps the choice when it is still there).
    void refreshStudies();
    // Shows the study in folder (one of the listed ones); false when it is not listed.
    bool selectStudy(const QString &folder);
    // The search space the setup describes, or the reason it is not a valid one.
    nlohmann::json spaceDocument() const;
    QString setupProblem() const;

    // Starts the new study, or continues the one shown; false (reason in the status) when not.
    bool startStudy();
    void pauseStudy();
    void stopStudy();
    // The best completed trial's run config (the study's base with its parameters) for the
    // Train page; nullopt (reason in the status) when no trial has completed.
    std::optional<nlohmann::json> bestTrialConfig();

    QString shownStudy() const { return m_studyDir; }
    workspace::TuneJob *currentJob() const;

    SearchSpaceEditor *spaceEditor() const { return m_space; }
    StudyCharts *charts() const { return m_charts; }
    TrialTableModel *trialModel() const { return m_model; }
    QTableView *trialTable() const { return m_table; }
    QComboBox *studyPicker() const { return m_studyPicker; }
    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *samplerPicker() const { return m_sampler; }
    QComboBox *prunerPicker() const { return m_pruner; }
    QComboBox *metricPicker() const { return m_metric; }
    QSpinBox *trialsEdit() const { return m_trials; }
    QSpinBox *epochsEdit() const { return m_epochs; }
    QSpinBox *startupEdit() const { return m_startup; }
    QSpinBox *seedEdit() const { return m_seed; }
    QSpinBox *parallelEdit() const { return m_parallel; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *pauseButton() const { return m_pause; }
    QPushButton *stopButton() const { return m_stop; }
    QPushButton *trainBestButton() const { return m_trainBest; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *setupErrorLabel() const { return m_setupError; }

protected:
    // A new study follows the Train page's settings as they are when the page is shown.
    void showEvent(QShowEvent *event) override;

Q_SIGNALS:
    void studyStarted(const QString &studyDir);
    void studyEnded(const QString &studyDir);
    // Train This Config Fully: the Train page takes this config.
    void trainRequested(const nlohmann::json &config);

private:
    QWidget *buildSetup();
    QWidget *buildResults();
    void studyChosen();
    void showState(const engine::StudyState &state);
    void takeJobState();
    void jobEnded(const QString &message);
    void updateButtons();
    void updateSetup();
    void setStatus(const QString &text);
    QString strategyName() const;

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    std::function<nlohmann::json()> m_baseConfig;
    QPointer<workspace::TuneJob> m_job;
    QString m_studyDir;        // the study shown; empty: a new one is being set up
    QString m_jobStudyDir;     // the study the job runs
    engine::StudyState m_shown;

    QComboBox *m_studyPicker;
    QLineEdit *m_name;
    QGroupBox *m_setup = nullptr;
    SearchSpaceEditor *m_space;
    QComboBox *m_sampler;
    QComboBox *m_pruner;
    QComboBox *m_metric;
    QSpinBox *m_trials;
    QSpinBox *m_epochs;
    QSpinBox *m_minutes;
    QSpinBox *m_startup;
    QSpinBox *m_seed;
    QSpinBox *m_parallel;
    QLabel *m_setupError;
    QPushButton *m_start;
    QPushButton *m_pause;
    QPushButton *m_stop;
    QPushButton *m_trainBest;
    QLabel *m_status;
    TrialTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    StudyCharts *m_charts;
};

} // namespace lathe::ui
