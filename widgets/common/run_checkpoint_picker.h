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
// (workspace::listRuns). The combos' item data are the run folders (absolute, clean) and the
// checkpoint names.
//
// Which run is selected, at every listing and when followRun() names one:
//  1. the run the user picked in the Run combo, while it is listed;
//  2. else the run the page follows: followRun()'s (the run selected on the Runs page) once it
//     is trained (workspace::isTrained), or the one select()/selectRun() chose (a hand-off);
//     while a newer followRun() run is not trained yet, the run followed before stays;
//  3. else workspace::defaultRunIndex: the newest finished run, never one that completed no
//     epoch. When no run qualifies, nothing is selected and noRunReason() says why.
// Another runs folder (another project) forgets the pick and the followed run. A run keeps its
// checkpoint over listings; another run takes the same checkpoint name when it has one.
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
    QString currentRun() const;        // empty: none selected
    QString currentCheckpoint() const; // "best", "last", "step-<n>" or a file; empty: none
    QString currentCheckpointText() const;
    // Why no run is selected although runs are listed (none of them is trained); else empty.
    QString noRunReason() const;
    // Whether the user picked the run in the Run combo (rule 1 above).
    bool userPickedRun() const { return m_chosenBy == ChosenBy::User; }

    // Selects a listed run (any spelling of its path) and follows it; false when it is not listed.
    bool selectRun(const QString &runDir);
    // Selects runDir and checkpoint, a listed name or a checkpoint file (offered under its base
    // name when it is not listed), and follows runDir, listing the runs again first when runDir
    // is new (a run that ended after the last listing). problem() says so when it is not a run
    // of the folder.
    void select(const QString &runDir, const QString &checkpoint);
    // Follows runDir (rule 2 above): selects it now when the user picked no run and it is a
    // trained listed run; lists the runs again when it is not listed yet.
    void followRun(const QString &runDir);

    QComboBox *runCombo() const { return m_runCombo; }
    QComboBox *checkpointCombo() const { return m_checkpointCombo; }

Q_SIGNALS:
    // A listing is shown (also an empty one).
    void runsLoaded();
    // The current run or checkpoint changed: by the user, a listing, select() or followRun().
    void selectionChanged();
    void problem(const QString &message);

private:
    // The current run's checkpoints, keep selected when it is one of them (else the first).
    void listCheckpoints(const QString &keep);
    // Selects run and checkpoint without the combos' signals; false when run is not listed.
    bool choose(const QString &run, const QString &checkpoint);
    // How the current run was chosen: rule 1, 2 or 3 above.
    enum class ChosenBy { Default, Followed, User };

    // The run combo's index a listing selects (rules 1-3), and m_chosenBy for it; previousRun:
    // the one selected before.
    int indexToSelect(const QString &previousRun, int defaultIndex);
    bool isTrainedAt(int index) const;

    QString m_runsDir;
    quint64 m_generation = 0;
    QString m_pendingRun; // select() before the run was listed
    QString m_pendingCheckpoint;
    QString m_followedRun; // the last run followRun(), select() or selectRun() named
    ChosenBy m_chosenBy = ChosenBy::Default;

    QComboBox *m_runCombo;
    QComboBox *m_checkpointCombo;
    QPushButton *m_refreshButton;
};

} // namespace lathe::ui
