#pragma once

#include "workspace/export_store.h"

#include <QMap>
#include <QPointer>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDialog;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTableView;

namespace lathe::workspace {
class Job;
class JobManager;
class Project;
class ServeJob;
} // namespace lathe::workspace

namespace lathe::ui {

class RunCheckpointPicker;

// The Export page: pick a run of the project and one of its checkpoints (best, last or a step),
// the formats (ONNX and TFLite FP32, FP16 and INT8, TorchScript, safetensors), in-graph preprocessing and
// softmax, the INT8 calibration, and an output folder; Export runs an ExportRunJob (progress and
// cancel here and in the Jobs panel). Every artifact is verified by the engine; the report table
// shows per artifact its file, size, differences against the original model, accuracy, CPU
// latency ("not measured" where the engine did not time it, why in its tool tip) and, for a
// failed check, the reason; the folder shown is the one the job wrote. Exports are recorded in the project: the list of
// previous exports shows a report again on selection. Serve… (for a shown export that passed its
// checks) asks for a model name, address and port and runs a ServeJob, the engine's TF-Serving
// compatible HTTP server, in the Jobs panel; the page says where it serves, with its counts, and
// Stop ends it (the requests in flight are answered first).
class ExportPage : public QWidget
{
    Q_OBJECT

public:
    // Report table columns.
    enum Column {
        FormatColumn,
        FileColumn,
        SizeColumn,
        MaxDiffColumn,
        AgreementColumn,
        AccuracyColumn,
        Latency1Column,
        Latency32Column,
        StatusColumn,
        ReasonColumn,
        ColumnCount
    };

    explicit ExportPage(workspace::JobManager *jobs, QWidget *parent = nullptr);
    ~ExportPage() override;

    void setProject(workspace::Project *project);
    // Lists the project's runs and previous exports again (worker threads); runsLoaded() and
    // historyLoaded() follow.
    void refreshRuns();
    void refreshHistory();
    QStringList runs() const;
    QString currentRun() const;
    QString currentCheckpoint() const; // "best", "last", "step-<n>" or a file
    QStringList checkedFormats() const;
    QString outputFolder() const; // as typed
    // Where an export now would write, which the page shows once it has (see startExport).
    QString resolvedOutputFolder() const;

    // Starts an ExportRunJob for the current choices; exportFinished() or exportFailed() follows.
    void startExport();
    void cancelExport();
    bool isExporting() const { return !m_job.isNull(); }
    // The export shown in the report table (0: a fresh one not recorded, or none).
    qint64 shownExportId() const { return m_shownId; }
    QString shownFolder() const { return m_shownFolder; }

    QComboBox *runCombo() const;
    // The run and checkpoint picker (MainWindow points it at the Runs page's selection).
    RunCheckpointPicker *runPicker() const { return m_picker; }
    QComboBox *checkpointCombo() const;
    QCheckBox *formatCheck(const QString &format) const { return m_formatChecks.value(format); }
    QCheckBox *preprocessingCheck() const { return m_preprocessing; }
    QCheckBox *softmaxCheck() const { return m_softmax; }
    QComboBox *calibMethodCombo() const { return m_calibMethod; }
    QSpinBox *calibImagesSpin() const { return m_calibImages; }
    QComboBox *int8IoCombo() const { return m_int8Io; }
    QLineEdit *outputEdit() const { return m_outDir; }
    QPushButton *exportButton() const { return m_exportButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QPushButton *openFolderButton() const { return m_openFolderButton; }
    QPushButton *copyPathButton() const { return m_copyPathButton; }
    QStandardItemModel *reportModel() const { return m_report; }
    QStandardItemModel *historyModel() const { return m_historyModel; }
    QTableView *historyView() const { return m_historyView; }
    QString summaryText() const;
    QString statusText() const;

    // Serving the shown export (it must have passed its checks).
    bool canServe() const;
    // Opens the Serve dialog (model name, address, port; the port offered is the first free one
    // from 8501); its Serve button calls startServing().
    void openServeDialog();
    QDialog *serveDialog() const;
    // Starts a ServeJob for the shown export; servingStarted() follows once it listens, then
    // servingEnded() when it stops or fails.
    void startServing(const QString &modelName, const QString &address, int port);
    void stopServing();
    bool isServing() const { return !m_serveJob.isNull(); }
    workspace::ServeJob *serveJob() const;
    QPushButton *serveButton() const { return m_serveButton; }
    QPushButton *stopServeButton() const { return m_stopServeButton; }
    QString servingText() const;

public Q_SLOTS:
    // Hand-off from other pages: selects that run (listing the runs again when needed) and
    // checkpoint ("best", "last", "step-<n>" or a file).
    void selectCheckpoint(const QString &runDir, const QString &checkpoint);

Q_SIGNALS:
    void runsLoaded();
    void historyLoaded();
    // A finished export is recorded (id 0: no project database) and its report shown.
    void exportFinished(qint64 exportId);
    void exportFailed(const QString &message);
    void reportShown();
    void servingStarted(const QString &modelUrl);
    // message: empty when stopped as asked, the reason when the server failed.
    void servingEnded(const QString &message);

private:
    QWidget *buildOptions();
    QWidget *buildResults();
    void selectionChanged();
    void updateDefaultFolder();
    void updateButtons();
    void browseFolder();
    void historySelectionChanged();
    void showReport(const QString &reportJson, const QString &outDir, qint64 exportId);
    void clearReport(const QString &message);
    void jobEnded();
    void showStatus(const QString &message);
    void serveEnded(const QString &status, const QString &message);

    workspace::JobManager *m_jobs;
    workspace::Project *m_project = nullptr;
    QString m_databasePath;
    QVector<workspace::StoredExport> m_history;
    QPointer<workspace::Job> m_job;
    qint64 m_selectAfterHistory = 0;
    bool m_outDirEdited = false;
    quint64 m_historyGeneration = 0;
    qint64 m_shownId = 0;
    QString m_shownFolder;
    bool m_shownPassed = false; // the shown export passed its checks
    QString m_shownRun;         // the shown export's run folder (its report's source)
    QPointer<workspace::ServeJob> m_serveJob;
    QPointer<QDialog> m_serveDialog;

    RunCheckpointPicker *m_picker;
    QMap<QString, QCheckBox *> m_formatChecks;
    QCheckBox *m_preprocessing;
    QCheckBox *m_softmax;
    QComboBox *m_calibMethod;
    QSpinBox *m_calibImages;
    QComboBox *m_int8Io;
    QLineEdit *m_outDir;
    QPushButton *m_browseButton;
    QPushButton *m_exportButton;
    QProgressBar *m_progress;
    QPushButton *m_cancelButton;
    QLabel *m_summary;
    QStandardItemModel *m_report;
    QTableView *m_reportView;
    QPushButton *m_openFolderButton;
    QPushButton *m_copyPathButton;
    QPushButton *m_serveButton;
    QWidget *m_servingRow;
    QLabel *m_serving;
    QLabel *m_serveCounts;
    QPushButton *m_stopServeButton;
    QStandardItemModel *m_historyModel;
    QTableView *m_historyView;
    QLabel *m_status;
};

} // namespace lathe::ui
