#pragma once

#include "engine/tune/study_state.h"
#include "workspace/tune_job.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>

namespace lathe::ui {

// The trials of a study, one row each in the order they started: trial, state (with the
// running trial's epoch and step), the study's metric (a completed trial's value, else its last
// epoch's), epochs trained, the successive-halving rung, then one column per parameter of the
// space (blank where a conditional parameter was not active). SortRole gives numbers for the
// numeric columns, so a proxy sorts them as numbers.
class TrialTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { TrialColumn, StateColumn, ValueColumn, EpochsColumn, RungColumn, FirstParamColumn };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int TrialIdRole = Qt::UserRole + 2;

    explicit TrialTableModel(QObject *parent = nullptr);

    // Rows that exist already stay (rows are appended as trials start), so a view keeps its
    // selection while a study runs.
    void setStudy(const engine::StudyState &state, const QHash<int, workspace::TrialProgress> &progress = {});
    const engine::StudyState &study() const { return m_state; }
    // The parameter shown in column FirstParamColumn + i.
    QStringList paramNames() const { return m_params; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "completed", "pruned" ... in the UI's language.
    static QString stateLabel(engine::TrialState state);
    // A parameter's value as the table shows it: 4 significant digits, choices by their label.
    static QString paramText(const nlohmann::json &value);

private:
    engine::StudyState m_state;
    QHash<int, workspace::TrialProgress> m_progress;
    QStringList m_params;
};

} // namespace lathe::ui
