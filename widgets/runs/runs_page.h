#pragma once

#include <QSet>
#include <QWidget>

#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTableWidget;

namespace lathe::engine {
struct CheckpointEntry;
}

namespace lathe::workspace {
class Project;
}

namespace lathe::ui {

class RunFilterModel;
class RunOverlayPlot;
class RunTableModel;

// Every run of the project, from its run folders: state, backbone, dataset, best metric, duration,
// and the name, tags and notes the user gave it (annotations.json in the run folder, so runs from
// lathe-cli take them too), filtered by text and tag. Select runs to overlay their curves, two
// to see how their configs differ; one to edit its notes, list its checkpoints (mark one best,
// delete one, evaluate or export one), open its folder, resume it (stopped or crashed), clone
// its config into the Train page, or move it to the trash.
class RunsPage : public QWidget
{
    Q_OBJECT

public:
    // The checkpoint table's columns: these, then one per metric the checkpoints carry
    // (RunTableModel::sortMetrics, metricLabel).
    enum CheckpointColumn { CheckpointName, CheckpointKept, CheckpointStep, CheckpointEpoch, CheckpointSize, CheckpointMetrics };

    explicit RunsPage(QWidget *parent = nullptr);

    void setProject(workspace::Project *project);
    void refresh();
    // The workbench paused (or continued) the training of runDir: its state shows Paused while
    // it runs. Nothing in the run folder says so, hence this call.
    void setRunPaused(const QString &runDir, bool paused);
    // Reads the runs' newest stored evaluations again (the table's Evaluation column) without
    // listing the runs; also done whenever the page is shown.
    void refreshEvaluations();

    RunTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    RunOverlayPlot *overlay() const { return m_overlay; }
    QPlainTextEdit *configDiff() const { return m_diff; }
    QTableWidget *checkpoints() const { return m_checkpoints; }
    RunFilterModel *filterModel() const { return m_filter; }
    QLineEdit *filterEdit() const { return m_filterEdit; }
    QComboBox *tagFilter() const { return m_tagFilter; }
    QPlainTextEdit *notesEdit() const { return m_notes; }
    QPushButton *saveNotesButton() const { return m_saveNotes; }
    QPushButton *markBestButton() const { return m_markBest; }
    QPushButton *deleteCheckpointButton() const { return m_deleteCheckpoint; }
    QPushButton *evaluateButton() const { return m_evaluate; }
    QPushButton *exportButton() const { return m_export; }
    QStringList selectedRuns() const;
    void selectRuns(const QStringList &dirs);
    // The checkpoint table's metric columns, by metric name ("val_top1", ...).
    QStringList checkpointMetrics() const { return m_checkpointMetrics; }
    // The checkpoints table's rows: "step-<n>", or "best"/"last" for an alias alone.
    QString checkpointName(int row) const;
    QString checkpointFile(int row) const; // the model weights file
    void selectCheckpoint(const QString &name);

    // "a.b.c: x -> y" lines for the fields where two configs differ.
    static QStringList diffConfigs(const nlohmann::json &a, const nlohmann::json &b);

Q_SIGNALS:
    void refreshed();
    void selectionLoaded();
    // The one run selected changed, by the user or a listing (never empty: none or several
    // selected runs leave the last one). The Evaluate and Export pages follow it.
    void selectedRunChanged(const QString &runDir);
    void resumeRequested(const QString &runDir);
    void cloneRequested(const nlohmann::json &config);
    // checkpoint: the checkpoint's model weights file (a sidecar of the same name lies beside it).
    void evaluateCheckpointRequested(const QString &runDir, const QString &checkpoint);
    void exportCheckpointRequested(const QString &runDir, const QString &checkpoint);
    // annotations.json of runDir was written (or not: message says why).
    void annotationsSaved(const QString &runDir, const QString &message);
    // A checkpoint was marked best or deleted (or not: message says why).
    void checkpointsChanged(const QString &message);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void selectionChanged();
    void updateButtons();
    void updateCheckpointButtons();
    void showCheckpoints(const std::vector<engine::CheckpointEntry> &checkpoints);
    void deleteRun();
    void saveAnnotations(const QString &dir);
    void listTags();
    void markBest();
    void deleteCheckpoint();
    // Runs a checkpoint operation off the GUI thread, then lists the checkpoints again.
    void changeCheckpoints(const std::function<void()> &operation);

    workspace::Project *m_project = nullptr;
    RunTableModel *m_model;
    RunFilterModel *m_filter;
    QTableView *m_view;
    QLineEdit *m_filterEdit;
    QComboBox *m_tagFilter;
    QPlainTextEdit *m_notes;
    QPushButton *m_saveNotes;
    QPushButton *m_markBest;
    QPushButton *m_deleteCheckpoint;
    QPushButton *m_evaluate;
    QPushButton *m_export;
    RunOverlayPlot *m_overlay;
    QPlainTextEdit *m_diff;
    QTableWidget *m_checkpoints;
    QLabel *m_summary;
    QPushButton *m_refresh;
    QPushButton *m_open;
    QPushButton *m_resume;
    QPushButton *m_clone;
    QPushButton *m_delete;
    QString m_notesDir; // the run whose notes the editor shows
    QString m_selectedRun; // the last selectedRunChanged()'s
    QSet<QString> m_pausedRuns;
    QStringList m_checkpointMetrics;
    int m_generation = 0;
    int m_selectionGeneration = 0;
};

} // namespace lathe::ui
