#pragma once

#include "workspace/evaluation_store.h"
#include "engine/inference/prediction.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QListView;
class QPushButton;
class QStackedWidget;
class QStandardItemModel;
class QTabWidget;

namespace lathe::workspace {
class JobManager;
class Project;
} // namespace lathe::workspace

namespace lathe::ui {

class CalibrationPlot;
class ClassMetricsModel;
class ConfusionMatrixView;
class FilePredictionPanel;
class GradCamPanel;
class GradCamView;
class MultiLabelPanel;
class PredictionGalleryModel;
class PredictionGalleryPanel;
class RunCheckpointPicker;

// The Evaluate page: pick a run of the project, one of its checkpoints, a split and
// whether to use test-time augmentation, and evaluate it as a job (progress in the Jobs
// panel). The predictions are stored in the project database, so an evaluation opens at once
// afterwards. It shows the confusion matrix (a click lists exactly that cell's images), the
// highest-loss images, the per-class table, the reliability diagram and precision-recall
// curves, and one image at a time with its Grad-CAM heat map. From the gallery an image can be
// relabelled or excluded in the catalog (the change applies at the next conversion). Image
// files dropped on the page (or chosen with Predict Files…) are classified with the selected
// run; results and metrics can be saved as CSV or JSON.
//
// A multi-label evaluation (metrics "task" "multi_label") shows instead: the false-positive label
// confusion in the matrix (a click lists the images that carry the row's label and had the
// column's predicted without carrying it), the per-label table with editable thresholds and a
// label's precision-recall curve (MultiLabelPanel), and mAP in the summary; there is no
// calibration tab. Edited thresholds change the table, the matrix, the summary and the saved
// metrics, not the stored evaluation.
//
// The page holds the choice of run, checkpoint and split, the stored evaluation and its
// summary, and wires its panels to each other and to the jobs: the confusion matrix and the
// per-class table are views of the evaluation; PredictionGalleryPanel (gallery, catalog
// corrections), GradCamPanel (image and heat map) and FilePredictionPanel (the Predict tab)
// do their own work.
class EvaluatePage : public QWidget
{
    Q_OBJECT

public:
    enum Tab { ConfusionTab, ClassesTab, CalibrationTab, PredictTab };
    enum class MetricsFormat { Csv, Json, ConfusionCsv };

    explicit EvaluatePage(workspace::JobManager *jobs, QWidget *parent = nullptr);
    ~EvaluatePage() override;

    void setProject(workspace::Project *project);
    // Lists the project's runs again (on a worker thread); runsLoaded() follows.
    void refreshRuns();
    QStringList runs() const;
    bool selectRun(const QString &runDir);
    // Selects a run and one of its checkpoints ("best", "last" or a checkpoint file, e.g. from
    // the Runs page), listing the runs again first when the run is new to the page.
    void selectCheckpoint(const QString &runDir, const QString &checkpoint);
    QString currentRun() const;
    QString currentCheckpoint() const; // "best", "last", "step-<n>" or a file
    QString currentSplit() const;

    // Starts an EvaluateJob for the current selection; evaluationLoaded() follows when it is
    // stored and shown, evaluationFailed() when it cannot run.
    void evaluate();
    bool isEvaluating() const { return m_evaluating; }
    // Shows a stored evaluation (read on a worker thread).
    void loadEvaluation(qint64 evaluationId);
    const workspace::StoredEvaluation &evaluation() const { return m_evaluation; }

    // The gallery: one cell of the confusion matrix (multi-label: of the false-positive
    // confusion, at the current thresholds), or every image by decreasing loss.
    void showCell(int trueClass, int predictedClass);
    bool isMultiLabel() const { return m_isMultiLabel; }
    MultiLabelPanel *multiLabelPanel() const { return m_multiLabel; }
    void showHighestLoss();
    // Shows a gallery row in the image view and computes its Grad-CAM (classIndex -1: the
    // predicted class); imageShown() then gradCamFinished() follow.
    void selectGalleryRow(int row, int classIndex = -1);
    // Catalog corrections for the image of a gallery row (matched by the record's file name in
    // the catalog dataset the shards were converted from); catalogChanged() or
    // catalogChangeFailed() follows.
    void relabelGalleryRow(int row, const QString &className);
    void excludeGalleryRow(int row, bool excluded = true);

    // Classifies files (folders: their images) with the selected run and checkpoint;
    // predictionsFinished() follows.
    void predictFiles(const QStringList &paths);
    const std::vector<engine::FilePrediction> &filePredictions() const;

    // Writes the shown evaluation's metrics or the prediction results; fileSaved() follows.
    void saveMetrics(const QString &path, MetricsFormat format);
    void savePredictionsCsv(const QString &path);

    QComboBox *runCombo() const;
    QComboBox *checkpointCombo() const;
    QComboBox *splitCombo() const { return m_splitCombo; }
    QCheckBox *ttaCheck() const { return m_tta; }
    QPushButton *evaluateButton() const { return m_evaluateButton; }
    QPushButton *trainNextButton() const { return m_trainNext; }
    // The run and checkpoint picker (MainWindow points it at the Runs page's selection).
    RunCheckpointPicker *runPicker() const { return m_picker; }
    QTabWidget *tabs() const { return m_tabs; }
    ConfusionMatrixView *confusionMatrix() const { return m_matrix; }
    PredictionGalleryModel *galleryModel() const;
    QListView *galleryView() const;
    ClassMetricsModel *classMetricsModel() const { return m_classMetrics; }
    CalibrationPlot *calibrationPlot() const { return m_calibration; }
    GradCamView *gradCamView() const;
    QStandardItemModel *predictModel() const;
    QString statusText() const;

Q_SIGNALS:
    // "Next: Train a Model", shown while no run is trained.
    void trainRequested();
    void runsLoaded();
    // A stored evaluation is shown (0: none is stored for the selection).
    void evaluationLoaded(qint64 evaluationId);
    void evaluationFailed(const QString &message);
    void imageShown();
    void gradCamFinished();
    void catalogChanged(const QString &relPath);
    void catalogChangeFailed(const QString &message);
    void predictionsFinished();
    void fileSaved(const QString &path);
    void errorOccurred(const QString &message);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QWidget *buildSelection();
    QWidget *buildConfusionTab();
    QWidget *buildClassTable();
    void showMultiLabelMatrix();
    void updateSummary();
    void setMultiLabelTabs(bool multiLabel);
    bool hasCheckpoint() const; // a project, a run and one of its checkpoints are chosen
    void selectionChanged();
    void lookUpStored();
    void showEvaluation(const workspace::StoredEvaluation &evaluation);
    void clearEvaluation(const QString &message);
    void updateButtons();
    void askSaveMetrics(MetricsFormat format);
    void showStatus(const QString &message);
    void showError(const QString &title, const QString &message);

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    QString m_databasePath;
    workspace::StoredEvaluation m_evaluation;
    bool m_evaluating = false;
    quint64 m_lookupGeneration = 0;

    // Selection and summary.
    RunCheckpointPicker *m_picker = nullptr;
    QComboBox *m_splitCombo = nullptr;
    QCheckBox *m_tta = nullptr;
    QPushButton *m_trainNext = nullptr;
    QPushButton *m_evaluateButton = nullptr;
    QPushButton *m_saveCsvButton = nullptr;
    QPushButton *m_saveJsonButton = nullptr;
    QLabel *m_summary = nullptr;
    // The evaluation's views.
    QTabWidget *m_tabs = nullptr;
    ConfusionMatrixView *m_matrix = nullptr;
    QCheckBox *m_normalized = nullptr;
    QLabel *m_matrixHint = nullptr;
    ClassMetricsModel *m_classMetrics = nullptr;
    QStackedWidget *m_classStack = nullptr;
    MultiLabelPanel *m_multiLabel = nullptr;
    bool m_isMultiLabel = false;
    CalibrationPlot *m_calibration = nullptr;
    FilePredictionPanel *m_predictions = nullptr;
    PredictionGalleryPanel *m_gallery = nullptr;
    GradCamPanel *m_gradCam = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace lathe::ui
