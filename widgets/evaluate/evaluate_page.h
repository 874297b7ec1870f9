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
class QStandardItemModel;
class QTabWidget;
class QTableView;

namespace lathe::workspace {
class JobManager;
class Project;
} // namespace lathe::workspace

namespace lathe::ui {

class CalibrationPlot;
class ClassMetricsModel;
class ConfusionMatrixView;
class GradCamView;
class PredictionGalleryModel;
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

    // The gallery: one cell of the confusion matrix, or every image by decreasing loss.
    void showCell(int trueClass, int predictedClass);
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
    const std::vector<engine::FilePrediction> &filePredictions() const { return m_filePredictions; }

    // Writes the shown evaluation's metrics or the prediction results; fileSaved() follows.
    void saveMetrics(const QString &path, MetricsFormat format);
    void savePredictionsCsv(const QString &path);

    QComboBox *runCombo() const;
    QComboBox *checkpointCombo() const;
    QComboBox *splitCombo() const { return m_splitCombo; }
    QCheckBox *ttaCheck() const { return m_tta; }
    QPushButton *evaluateButton() const { return m_evaluateButton; }
    QTabWidget *tabs() const { return m_tabs; }
    ConfusionMatrixView *confusionMatrix() const { return m_matrix; }
    PredictionGalleryModel *galleryModel() const { return m_gallery; }
    QListView *galleryView() const { return m_galleryView; }
    ClassMetricsModel *classMetricsModel() const { return m_classMetrics; }
    CalibrationPlot *calibrationPlot() const { return m_calibration; }
    GradCamView *gradCamView() const { return m_gradCam; }
    QStandardItemModel *predictModel() const { return m_predictModel; }
    QString statusText() const;

Q_SIGNALS:
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
    QWidget *buildConfusionTab();
    QWidget *buildPredictTab();
    QWidget *buildGallery();
    bool hasCheckpoint() const; // a project, a run and one of its checkpoints are chosen
    void selectionChanged();
    void lookUpStored();
    void showEvaluation(const workspace::StoredEvaluation &evaluation);
    void clearEvaluation(const QString &message);
    void updateButtons();
    void galleryCurrentChanged();
    void requestGradCam(int classIndex);
    void askRelabel();
    void askPredictFiles();
    void askSaveMetrics(MetricsFormat format);
    void askSavePredictions();
    void changeCatalog(int row, const QString &className, bool exclude, bool excluded);
    void showStatus(const QString &message);
    void showError(const QString &title, const QString &message);

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    QString m_databasePath;
    workspace::StoredEvaluation m_evaluation;
    QString m_dataDir; // where the shown evaluation's images are
    bool m_gradCamAvailable = true;
    QString m_gradCamReason;
    bool m_evaluating = false;
    bool m_predicting = false;
    quint64 m_lookupGeneration = 0;
    quint64 m_imageGeneration = 0;
    int m_shownRow = -1;
    std::vector<engine::FilePrediction> m_filePredictions;

    RunCheckpointPicker *m_picker;
    QComboBox *m_splitCombo;
    QCheckBox *m_tta;
    QPushButton *m_evaluateButton;
    QPushButton *m_saveCsvButton;
    QPushButton *m_saveJsonButton;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    ConfusionMatrixView *m_matrix;
    QCheckBox *m_normalized;
    ClassMetricsModel *m_classMetrics;
    QTableView *m_classTable;
    CalibrationPlot *m_calibration;
    PredictionGalleryModel *m_gallery;
    QListView *m_galleryView;
    QLabel *m_galleryTitle;
    QPushButton *m_highestLossButton;
    QPushButton *m_relabelButton;
    QPushButton *m_excludeButton;
    GradCamView *m_gradCam;
    QStandardItemModel *m_predictModel;
    QTableView *m_predictView;
    QPushButton *m_predictButton;
    QPushButton *m_savePredictionsButton;
    QLabel *m_predictStatus;
    QLabel *m_status;
};

} // namespace lathe::ui
