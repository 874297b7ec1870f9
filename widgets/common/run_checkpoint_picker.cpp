#include "common/run_checkpoint_picker.h"

#include "common/background_task.h"
#include "engine/run/run_layout.h"
#include "workspace/run_listing.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QThreadPool>

#include <utility>

namespace lathe::ui {
namespace {

// The run combo's items: the run folder as Qt::UserRole, its checkpoints and whether it is
// trained (workspace::isTrained) as these roles.
constexpr int kCheckpointsRole = Qt::UserRole + 1;
constexpr int kTrainedRole = Qt::UserRole + 2;

QString runLabel(const workspace::ListedRun &run)
{
    if (!run.problem.isEmpty())
        return RunCheckpointPicker::tr("%1 (unreadable)").arg(run.name);
    if (run.info.arch.empty())
        return run.name;
    return RunCheckpointPicker::tr("%1 (%2, %3)")
        .arg(run.name, QString::fromStdString(run.info.arch),
             workspace::runStateText(QString::fromStdString(run.info.state)));
}

QString checkpointLabel(const QString &name)
{
    if (name == QLatin1String(engine::run_layout::kBestAlias))
        return RunCheckpointPicker::tr("Best");
    if (name == QLatin1String(engine::run_layout::kLastAlias))
        return RunCheckpointPicker::tr("Last");
    const qint64 step = engine::run_layout::stepOfStem(name.toStdString());
    if (step >= 0)
        return RunCheckpointPicker::tr("Step %1").arg(step);
    return name;
}

QString cleanRunDir(const QString &runDir)
{
    return QDir::cleanPath(QDir(runDir).absolutePath());
}

} // namespace

RunCheckpointPicker::RunCheckpointPicker(const QString &objectNamePrefix, QWidget *parent)
    : QWidget(parent)
    , m_runCombo(new QComboBox(this))
    , m_checkpointCombo(new QComboBox(this))
    , m_refreshButton(new QPushButton(tr("Refresh Runs"), this))
{
    m_runCombo->setObjectName(objectNamePrefix + QStringLiteral("Run"));
    m_runCombo->setMinimumContentsLength(16);
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_runCombo->setPlaceholderText(tr("No run chosen"));
    m_runCombo->setToolTip(tr("The run selected on the Runs page, else the newest finished run. Once you pick a run "
                              "here, it stays until you pick another."));
    m_checkpointCombo->setObjectName(objectNamePrefix + QStringLiteral("Checkpoint"));
    m_checkpointCombo->setToolTip(tr("Best: the checkpoint with the best validation metric. Last: the newest "
                                     "checkpoint. Steps: the step checkpoints the run kept."));
    m_refreshButton->setEnabled(false);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Run:"), this));
    layout->addWidget(m_runCombo, 1);
    layout->addWidget(new QLabel(tr("Checkpoint:"), this));
    layout->addWidget(m_checkpointCombo);
    layout->addWidget(m_refreshButton);

    connect(m_refreshButton, &QPushButton::clicked, this, &RunCheckpointPicker::refresh);
    connect(m_runCombo, &QComboBox::currentIndexChanged, this, [this] {
        listCheckpoints(currentCheckpoint()); // the same checkpoint of the other run, when it has one
        Q_EMIT selectionChanged();
    });
    // Only the user's own pick (activated() is not emitted for setCurrentIndex).
    connect(m_runCombo, &QComboBox::activated, this, [this] { m_chosenBy = ChosenBy::User; });
    connect(m_checkpointCombo, &QComboBox::currentIndexChanged, this, &RunCheckpointPicker::selectionChanged);
}

void RunCheckpointPicker::setRunsDir(const QString &runsDir)
{
    m_runsDir = runsDir;
    m_pendingRun.clear();
    m_pendingCheckpoint.clear();
    m_followedRun.clear();
    m_chosenBy = ChosenBy::Default;
    refresh();
}

void RunCheckpointPicker::refresh()
{
    const quint64 generation = ++m_generation;
    m_refreshButton->setEnabled(!m_runsDir.isEmpty());
    if (m_runsDir.isEmpty()) {
        m_pendingRun.clear();
        m_pendingCheckpoint.clear();
        {
            const QSignalBlocker blockRuns(m_runCombo);
            const QSignalBlocker blockCheckpoints(m_checkpointCombo);
            m_runCombo->clear();
            m_checkpointCombo->clear();
        }
        Q_EMIT selectionChanged();
        Q_EMIT runsLoaded();
        return;
    }
    const QString runsDir = m_runsDir;
    BackgroundTask::start(
        QThreadPool::globalInstance(), this,
        [runsDir]() -> QVariant {
            return QVariant::fromValue(workspace::listRuns(runsDir, workspace::RunDetail::Checkpoints));
        },
        [this, generation](const QVariant &value) {
            if (generation != m_generation)
                return;
            const QVector<workspace::ListedRun> listed = value.value<QVector<workspace::ListedRun>>();
            const QString previousRun = currentRun();
            const QString previousCheckpoint = currentCheckpoint();
            {
                const QSignalBlocker block(m_runCombo);
                m_runCombo->clear();
                for (const workspace::ListedRun &run : listed) {
                    m_runCombo->addItem(runLabel(run), run.dir);
                    const int at = m_runCombo->count() - 1;
                    m_runCombo->setItemData(at, run.checkpoints, kCheckpointsRole);
                    m_runCombo->setItemData(at, workspace::isTrained(run), kTrainedRole);
                    if (!run.problem.isEmpty())
                        m_runCombo->setItemData(at, run.problem, Qt::ToolTipRole);
                }
                m_runCombo->setCurrentIndex(indexToSelect(previousRun, workspace::defaultRunIndex(listed)));
            }
            listCheckpoints(previousCheckpoint);
            QString refused;
            if (!m_pendingRun.isEmpty()) {
                const QString run = std::exchange(m_pendingRun, QString());
                if (choose(run, std::exchange(m_pendingCheckpoint, QString()))) {
                    m_followedRun = run;
                    m_chosenBy = ChosenBy::Followed;
                } else {
                    refused = tr("%1 is not a run of this project.").arg(QDir::toNativeSeparators(run));
                }
            }
            Q_EMIT selectionChanged();
            if (!refused.isEmpty())
                Q_EMIT problem(refused);
            Q_EMIT runsLoaded();
        },
        [this, generation](const QString &message) {
            if (generation == m_generation)
                Q_EMIT problem(tr("Cannot list the runs: %1").arg(message));
        });
}

int RunCheckpointPicker::indexToSelect(const QString &previousRun, int defaultIndex)
{
    const int previous = previousRun.isEmpty() ? -1 : m_runCombo->findData(previousRun);
    if (m_chosenBy == ChosenBy::User && previous >= 0)
        return previous;
    // A followed run that is not trained is taken only when it is shown already: a hand-off.
    const int followed = m_followedRun.isEmpty() ? -1 : m_runCombo->findData(m_followedRun);
    if (followed >= 0 && (isTrainedAt(followed) || followed == previous)) {
        m_chosenBy = ChosenBy::Followed;
        return followed;
    }
    if (m_chosenBy == ChosenBy::Followed && previous >= 0)
        return previous;
    m_chosenBy = ChosenBy::Default;
    return defaultIndex;
}

bool RunCheckpointPicker::isTrainedAt(int index) const
{
    return m_runCombo->itemData(index, kTrainedRole).toBool();
}

QStringList RunCheckpointPicker::runs() const
{
    QStringList dirs;
    for (int i = 0; i < m_runCombo->count(); ++i)
        dirs << m_runCombo->itemData(i).toString();
    return dirs;
}

QString RunCheckpointPicker::currentRun() const
{
    return m_runCombo->currentData().toString();
}

QString RunCheckpointPicker::currentCheckpoint() const
{
    return m_checkpointCombo->currentData().toString();
}

QString RunCheckpointPicker::currentCheckpointText() const
{
    return m_checkpointCombo->currentText();
}

QString RunCheckpointPicker::noRunReason() const
{
    if (m_runCombo->count() == 0 || m_runCombo->currentIndex() >= 0)
        return {};
    return tr("No run is chosen: no run of this project has completed an epoch with a checkpoint yet (a run stopped "
              "before the end of its first epoch has nothing worth evaluating or exporting). Train one on the Train "
              "page, or pick a run above.");
}

bool RunCheckpointPicker::selectRun(const QString &runDir)
{
    const QString run = cleanRunDir(runDir);
    const int index = m_runCombo->findData(run);
    if (index < 0)
        return false;
    m_followedRun = run;
    m_chosenBy = ChosenBy::Followed;
    m_runCombo->setCurrentIndex(index);
    return true;
}

void RunCheckpointPicker::select(const QString &runDir, const QString &checkpoint)
{
    const QString run = cleanRunDir(runDir);
    if (choose(run, checkpoint)) {
        m_followedRun = run;
        m_chosenBy = ChosenBy::Followed;
        Q_EMIT selectionChanged();
        return;
    }
    m_pendingRun = run; // a run that ended after the last listing
    m_pendingCheckpoint = checkpoint;
    refresh();
}

void RunCheckpointPicker::followRun(const QString &runDir)
{
    if (runDir.isEmpty() || m_runsDir.isEmpty())
        return;
    m_followedRun = cleanRunDir(runDir);
    if (m_chosenBy == ChosenBy::User)
        return;
    const int index = m_runCombo->findData(m_followedRun);
    if (index < 0) {
        refresh(); // a run that appeared since the last listing: the listing takes it when it is trained
    } else if (isTrainedAt(index)) {
        m_chosenBy = ChosenBy::Followed;
        m_runCombo->setCurrentIndex(index);
    }
}

void RunCheckpointPicker::listCheckpoints(const QString &keep)
{
    const QSignalBlocker block(m_checkpointCombo);
    m_checkpointCombo->clear();
    for (const QString &name : m_runCombo->currentData(kCheckpointsRole).toStringList())
        m_checkpointCombo->addItem(checkpointLabel(name), name);
    const int at = m_checkpointCombo->findData(keep);
    m_checkpointCombo->setCurrentIndex(at >= 0 ? at : (m_checkpointCombo->count() > 0 ? 0 : -1));
}

bool RunCheckpointPicker::choose(const QString &run, const QString &checkpoint)
{
    const int index = m_runCombo->findData(run);
    if (index < 0)
        return false;
    {
        const QSignalBlocker block(m_runCombo);
        m_runCombo->setCurrentIndex(index);
    }
    listCheckpoints(checkpoint.isEmpty() ? currentCheckpoint() : checkpoint);
    if (!checkpoint.isEmpty() && currentCheckpoint() != checkpoint) { // a checkpoint file: offered as given
        const QSignalBlocker block(m_checkpointCombo);
        m_checkpointCombo->addItem(QFileInfo(checkpoint).completeBaseName(), checkpoint);
        m_checkpointCombo->setCurrentIndex(m_checkpointCombo->count() - 1);
    }
    return true;
}

} // namespace lathe::ui
