#pragma once

#include "engine/inference/prediction.h"

#include <QStringList>
#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace lathe::workspace {
class JobManager;
class PredictFilesJob;
} // namespace lathe::workspace

namespace lathe::ui {

// The Evaluate page's Predict tab: image files (folders: their images) classified with a run's
// checkpoint by a Job (progress and Cancel in the Jobs panel), one row per file with its top classes or the reason it could
// not be read, and the results saved as CSV. The page decides which checkpoint classifies
// (files chosen here, or dropped on the page, go through EvaluatePage::predictFiles()).
// A multi-label checkpoint's rows show each file's label set instead (the engine's verdict:
// the labels whose sigmoid score reaches the label's threshold, "No label reaches its
// threshold" when none does) and every label's score against its threshold, the labels in the
// set marked ✓; the label table below lists them for the selected file.
class FilePredictionPanel : public QWidget
{
    Q_OBJECT

public:
    explicit FilePredictionPanel(workspace::JobManager *jobs, QWidget *parent = nullptr);

    // Whether a run and checkpoint are chosen: Predict Files… is enabled then.
    void setReady(bool ready);
    // Classifies paths with runDir's checkpoint in a PredictFilesJob; finished() follows (also
    // when the job fails or is cancelled).
    void predict(const QStringList &paths, const QString &runDir, const QString &checkpoint);
    // Writes the results as CSV; fileSaved() or saveFailed() follows.
    void savePredictionsCsv(const QString &path);
    // Forgets the results (another project).
    void clear();
    // A line above the results (what to do, what happened).
    void setMessage(const QString &text);

    const std::vector<engine::FilePrediction> &results() const { return m_results; }
    QStandardItemModel *model() const { return m_model; }
    // The results table's columns. A multi-label model's rows: the label set ("Labels: a, b"), the
    // top score and every label's "score ≥ threshold" (in the set, marked ✓) or "score < threshold".
    enum Column { FileColumn, PredictionColumn, ProbabilityColumn, TopColumn, ErrorColumn, ColumnCount };
    // Whether the shown results are a multi-label model's.
    bool isMultiLabel() const { return m_multiLabel; }
    // The selected file's labels (multi-label results only): label, score, threshold, in the set.
    enum LabelColumn { LabelNameColumn, LabelScoreColumn, LabelThresholdColumn, LabelInSetColumn, LabelColumnCount };
    QStandardItemModel *labelModel() const { return m_labelModel; }
    QTableView *view() const { return m_view; }
    // What a multi-label result's Prediction cell says: "Labels: a, b", or that none reaches its
    // threshold.
    static QString labelSetText(const engine::FilePrediction &prediction);

Q_SIGNALS:
    // The user chose files with Predict Files….
    void filesChosen(const QStringList &paths);
    void finished();
    void fileSaved(const QString &path);
    void saveFailed(const QString &message);

private:
    void askPredictFiles();
    void askSavePredictions();
    void showResults(std::vector<engine::FilePrediction> results);
    void showLabels(int row);
    void setHeaders();
    void updateButtons();

    workspace::JobManager *m_jobs;
    std::vector<engine::FilePrediction> m_results;
    bool m_ready = false;
    workspace::PredictFilesJob *m_job = nullptr; // the classification under way

    bool m_multiLabel = false;

    QStandardItemModel *m_model;
    QTableView *m_view;
    QStandardItemModel *m_labelModel;
    QTableView *m_labelView;
    QPushButton *m_predictButton;
    QPushButton *m_saveButton;
    QLabel *m_message;
};

} // namespace lathe::ui
