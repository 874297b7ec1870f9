#pragma once

#include "workspace/catalog.h"
#include "workspace/label_issues_job.h"

#include <QPointer>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace lathe::workspace {
class JobManager;
} // namespace lathe::workspace

namespace lathe::ui {

class LabelIssuesModel;
class ThumbnailLoader;

// The Data page's "Suspected Label Errors" tab: confident learning on a folds run's out-of-fold
// predictions (`lathe-cli train --folds K`). The user picks one of the folds runs of the
// project's runs folder and a ranking (self-confidence or normalized margin); Find runs a
// LabelIssuesJob and lists the images whose given label is probably wrong, most suspicious
// first, each with the class the predictions suggest. A multi-label folds run (of a multi-label
// dataset) lists the images whose label set is probably wrong, each with the set the predictions
// suggest. "Relabel to Suggested" ("Apply Suggested Labels" for label sets) and "Exclude"
// write the selected rows' decisions to the catalog (never to the source folder) and emit
// imageChanged() for each, as the image viewer does, so the rest of the page follows. Without a
// folds run the tab says how to make one. The runs folder is listed, and the catalog written, on
// worker threads.
class LabelIssuesPanel : public QWidget
{
    Q_OBJECT

public:
    LabelIssuesPanel(workspace::JobManager *jobs, ThumbnailLoader *thumbnails, QWidget *parent = nullptr);

    // The open project (empty paths: none). Forgets the results and lists the runs folder again.
    void setProject(const QString &databasePath, const QString &runsDir);
    // The dataset the page shows; the results are forgotten when it is another one.
    void setDataset(const workspace::DatasetInfo &dataset);
    // Lists the folds runs of the runs folder again (also whenever the tab is shown), keeping
    // the chosen one when it is still there.
    void refreshRuns();

    // Starts a LabelIssuesJob for the chosen run; false, saying why in the status line, when it
    // cannot.
    bool find();
    void cancel();
    bool isRunning() const { return m_job != nullptr; }
    // The selected rows' images: relabelled to their suggested class (multi-label: given their
    // suggested label set, Catalog::setLabels; a row whose suggestion leaves no label is skipped,
    // the status line says to exclude it), or excluded (included again when every selected one
    // is excluded already).
    void relabelSelected();
    void applySuggestedSelected() { relabelSelected(); }
    void excludeSelected();
    // A newer copy of an image's catalog row (the viewer changed it).
    void updateImage(const workspace::CatalogImage &image);

    // The last finished search (empty foldsDir: none yet).
    const workspace::LabelIssuesResult &result() const { return m_result; }
    const QVector<workspace::FoldsRunEntry> &foldsRuns() const { return m_runs; }
    LabelIssuesModel *model() const { return m_model; }
    QComboBox *runPicker() const { return m_runCombo; }
    QComboBox *rankByPicker() const { return m_rankCombo; }
    QPushButton *findButton() const { return m_findButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QPushButton *relabelButton() const { return m_relabelButton; }
    QPushButton *excludeButton() const { return m_excludeButton; }
    QTableView *view() const { return m_view; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *noRunsLabel() const { return m_noRunsLabel; }

Q_SIGNALS:
    // The runs folder was listed (count folds runs).
    void runsListed(int count);
    // A search ended: "finished", "failed" or "cancelled".
    void findEnded(const QString &state);
    // The catalog row after a relabel or exclusion was written.
    void imageChanged(const lathe::workspace::CatalogImage &image);
    // A row was double-clicked (or Enter pressed on it).
    void openImageRequested(qint64 imageId);
    void errorOccurred(const QString &message);

protected:
    void showEvent(QShowEvent *event) override;

private:
    QVector<int> selectedRows() const;
    // Applies change to each selected row's image on a worker thread, then takes the rows back.
    void writeSelected(std::function<void(workspace::Catalog &, const workspace::LabelIssueRow &)> change);
    void jobEnded(const QString &state, const QString &message, const QVariant &result);
    void updateNoRunsMessage();
    void updateButtons();
    void updateRelabelButton();

    workspace::JobManager *m_jobs;
    QString m_databasePath;
    QString m_runsDir;
    workspace::DatasetInfo m_dataset;
    QVector<workspace::FoldsRunEntry> m_runs;
    quint64 m_listGeneration = 0;
    bool m_listed = false;
    QPointer<workspace::LabelIssuesJob> m_job;
    workspace::LabelIssuesResult m_result;
    bool m_writing = false;

    LabelIssuesModel *m_model;
    QComboBox *m_runCombo;
    QComboBox *m_rankCombo;
    QPushButton *m_findButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_description;
    QLabel *m_status;
    QStackedWidget *m_stack;
    QLabel *m_noRunsLabel;
    QTableView *m_view;
    QPushButton *m_relabelButton;
    QPushButton *m_excludeButton;
};

} // namespace lathe::ui
