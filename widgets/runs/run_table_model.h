#pragma once

#include "workspace/evaluation_store.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace lathe::ui {

// The runs of a project (one row per run folder, as readRunInfo summarises it): name, start,
// backbone, dataset, best metric, the newest stored evaluation's top-1 (single-label runs) or
// mAP (multi-label runs), state, epochs, duration, and what the user wrote about it (display
// name, tags, notes: annotations.json in the run folder). Runs written by lathe-cli into the
// project's runs folder appear like any other: the run folder is the contract. The name and
// the tags are edited in place; annotationsEdited() asks the page to write them.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Started, Backbone, Dataset, Best, Evaluation, State, Epochs, Duration, Tags, Notes, ColumnCount };

    struct Row
    {
        QString dir;
        QString state; // RunInfo::state: an engine::run_state
        bool paused = false; // the workbench paused its training (state running)
        QString message;
        QString arch;
        QString dataset; // workspace::ListedRun::dataset
        QString bestMetric;
        double bestValue = 0;
        bool hasBest = false;
        qint64 lastEpoch = -1;
        qint64 totalEpochs = 0;
        double startTime = 0;
        double lastTime = 0;
        // workspace::ListedRun::name: the folder's name, or "study/trial-NNNN", "cv/fold-N" for
        // a study's trial or a cross-validation's fold; empty: the folder's name.
        QString listedName;
        QString displayName; // empty: listedName
        QString notes;
        QStringList tags;
        QString annotationsProblem; // annotations.json could not be read: why
        // The run's newest stored evaluation (EvaluationStore::newestByRun); id 0: none.
        workspace::EvaluationSummary evaluation;
        QString name() const;        // displayName, else defaultName()
        QString defaultName() const; // listedName, else the folder's name
        // The state the table shows: workspace::kPausedState for a paused running run, else state.
        QString shownState() const;
    };

    explicit RunTableModel(QObject *parent = nullptr);

    void setRows(QList<Row> rows);
    const Row &row(int index) const { return m_rows.at(index); }
    // Changes a run's name, notes and tags in the table (the page writes them to its folder).
    void setAnnotations(int index, const QString &displayName, const QString &notes, const QStringList &tags);
    QStringList allTags() const;
    int indexOf(const QString &dir) const;
    // Marks the run dir paused or not (see Row::paused).
    void setPaused(const QString &dir, bool paused);
    // The newest stored evaluation of each run, by run folder (EvaluationStore::newestByRun); a
    // run missing from it has none.
    void setEvaluations(const QHash<QString, workspace::EvaluationSummary> &newest);
    // What the Evaluation column shows of an evaluation: "top-1 93.10 %" (single-label) or
    // "mAP 0.712" (multi-label, macro); empty when id is 0. Its tool tip says what the number
    // is, of which checkpoint and split.
    static QString evaluationText(const workspace::EvaluationSummary &evaluation);
    static QString evaluationToolTip(const workspace::EvaluationSummary &evaluation);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    // "a, b , a" -> ["a", "b"]
    static QStringList parseTags(const QString &text);

    // A metric of an epoch or a checkpoint (the run config's names: "val_top1", "train_loss", ...)
    // as the Runs page shows it: its column title ("Val top-1"; an unknown name as it is) and its
    // value (accuracies in percent, losses with 4 decimals).
    static QString metricLabel(const QString &name);
    static QString metricText(const QString &name, double value);
    // names in the order of the checkpoint table's columns: validation, then training metrics,
    // the learning rate and the epoch's time, then any others by name.
    static QStringList sortMetrics(QStringList names);

Q_SIGNALS:
    void annotationsEdited(const QString &dir);

private:
    QList<Row> m_rows;
};

} // namespace lathe::ui
