#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QPushButton;

namespace lathe::ui {

// A run of a runs folder and one of its checkpoints, the choice the Evaluate and Export pages
// start from: "Run: [runs] Checkpoint: [checkpoints] [Refresh Runs]". The runs and their
// checkpoints ("best", "last", then the kept steps, newest first) are listed on a worker thread
// (workspace::listRuns); a listing keeps the current run and checkpoint when they are still
// there. The combos' item data are the run folders (absolute, clean) and the checkpoint names.
class RunCheckpointPicker : public QWidget
{
    Q_OBJECT

public:
    // The combos are called <objectNamePrefix>Run and <objectNamePrefix>Checkpoint.
    explicit RunCheckpointPicker(const QString &objectNamePrefix, QWidget *parent = nullptr);

    // The runs folder to list (empty: none, the combos are emptied at once); lists it.
    void setRunsDir(const QString &runsDir);
    QString runsDir() const { return m_runsDir; }
    // Lists the runs again; runsLoaded() follows, or problem() when the listing fails.
    void refresh();

    QStringList runs() const;
    QString currentRun() const;
    QString currentCheckpoint() const; // "best", "last", "step-<n>" or a file; empty: none
    QString currentCheckpointText() const;

    // Selects a listed run (any spelling of its path); false when it is not listed.
    bool selectRun(const QString &runDir);
    // Selects runDir and checkpoint, a listed name or a checkpoint file (offered under its base
    // name when it is not listed), listing the runs again first when runDir is new (a run that
    // ended after the last listing). problem() says so when it is not a run of the folder.
    void select(const QString &runDir, const QString &checkpoint);

    QComboBox *runCombo() const { return m_runCombo; }
    QComboBox *checkpointCombo() const { return m_checkpointCombo; }

Q_SIGNALS:
    // A listing is shown (also an empty one).
    void runsLoaded();
    // The current run or checkpoint changed: by the user, a listing or select().
    void selectionChanged();
    void problem(const QString &message);

private:
    // The current run's checkpoints, keep selected when it is one of them (else the first).
    void listCheckpoints(const QString &keep);
    // Selects run and checkpoint without the combos' signals; false when run is not listed.
    bool choose(const QString &run, const QString &checkpoint);

    QString m_runsDir;
    quint64 m_generation = 0;
    QString m_pendingRun; // select() before the run was listed
    QString m_pendingCheckpoint;

    QComboBox *m_runCombo;
    QComboBox *m_checkpointCombo;
    QPushButton *m_refreshButton;
};

} // namespace lathe::ui
