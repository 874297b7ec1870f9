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
    void updateButtons();

    workspace::JobManager *m_jobs;
    std::vector<engine::FilePrediction> m_results;
    bool m_ready = false;
    workspace::PredictFilesJob *m_job = nullptr; // the classification under way

    QStandardItemModel *m_model;
    QTableView *m_view;
    QPushButton *m_predictButton;
    QPushButton *m_saveButton;
    QLabel *m_message;
};

} // namespace lathe::ui
