#include "tune/trial_table_model.h"

#include "runs/run_table_model.h"
#include "train/run_config_form.h"

#include <QBrush>
#include <QLocale>
#include <QPalette>

namespace lathe::ui {

TrialTableModel::TrialTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void TrialTableModel::setStudy(const engine::StudyState &state, const QHash<int, workspace::TrialProgress> &progress)
{
    QStringList params;
    for (const engine::ParamSpec &p : state.space.params)
        params << QString::fromStdString(p.name);
    const int oldRows = int(m_state.trials.size());
    const int newRows = int(state.trials.size());
    if (params != m_params || newRows < oldRows) {
        beginResetModel();
        m_state = state;
        m_progress = progress;
        m_params = params;
        endResetModel();
        return;
    }
    if (newRows > oldRows)
        beginInsertRows({}, oldRows, newRows - 1);
    m_state = state;
    m_progress = progress;
    if (newRows > oldRows)
        endInsertRows();
    if (oldRows > 0)
        Q_EMIT dataChanged(index(0, 0), index(oldRows - 1, columnCount() - 1));
}

int TrialTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_state.trials.size());
}

int TrialTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstParamColumn + int(m_params.size());
}

QString TrialTableModel::stateLabel(engine::TrialState state)
{
    switch (state) {
    case engine::TrialState::Running: return tr("running");
    case engine::TrialState::Completed: return tr("completed");
    case engine::TrialState::Pruned: return tr("pruned");
    case engine::TrialState::Failed: return tr("failed");
    }
    return {};
}

QString TrialTableModel::paramText(const nlohmann::json &value)
{
    if (value.is_number_float())
        return QLocale().toString(value.get<double>(), 'g', 4);
    if (value.is_number_integer())
        return QLocale().toString(qlonglong(value.get<std::int64_t>()));
    if (value.is_boolean())
        return value.get<bool>() ? tr("yes") : tr("no");
    if (value.is_string())
        return RunConfigForm::optionLabel(QString::fromStdString(value.get<std::string>()));
    return QString::fromStdString(value.dump());
}

QVariant TrialTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const engine::Trial &t = m_state.trials[size_t(index.row())];
    if (role == TrialIdRole)
        return t.id;
    const QString metric = QString::fromStdString(m_state.space.metric);
    const std::optional<double> value = t.value ? t.value : t.lastIntermediate();
    const int column = index.column();
    if (role == Qt::ToolTipRole) {
        if (column == StateColumn && !t.error.empty())
            return QString::fromStdString(t.error);
        if (column == TrialColumn)
            return tr("Run folder: %1").arg(QString::fromStdString(t.runFolder));
        return {};
    }
    if (role == Qt::ForegroundRole && t.state == engine::TrialState::Pruned)
        return QPalette().brush(QPalette::Disabled, QPalette::Text);
    if (role == Qt::TextAlignmentRole && column != StateColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (column) {
    case TrialColumn:
        return sort ? QVariant(t.id) : QVariant(QString::number(t.id));
    case StateColumn: {
        if (sort)
            return int(t.state);
        QString text = stateLabel(t.state);
        if (t.state == engine::TrialState::Running && m_progress.contains(t.id)) {
            const workspace::TrialProgress &p = m_progress[t.id];
            if (p.totalSteps > 0)
                text = tr("running: epoch %1, step %2 of %3").arg(p.epoch).arg(p.step).arg(p.totalSteps);
        }
        return text;
    }
    case ValueColumn:
        if (!value)
            return {};
        return sort ? QVariant(*value) : QVariant(RunTableModel::metricText(metric, *value));
    case EpochsColumn:
        return sort ? QVariant(t.lastEpoch()) : QVariant(QString::number(t.lastEpoch()));
    case RungColumn:
        if (t.rung < 0)
            return sort ? QVariant(-1) : QVariant(QStringLiteral("–"));
        return sort ? QVariant(t.rung) : QVariant(QString::number(t.rung));
    default: {
        const std::string name = m_params.value(column - FirstParamColumn).toStdString();
        const auto it = t.params.find(name);
        if (it == t.params.end())
            return {};
        if (sort)
            return it->is_number() ? QVariant(it->get<double>()) : QVariant(paramText(*it));
        return paramText(*it);
    }
    }
}

QVariant TrialTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TrialColumn: return tr("Trial");
    case StateColumn: return tr("State");
    case ValueColumn: return RunTableModel::metricLabel(QString::fromStdString(m_state.space.metric));
    case EpochsColumn: return tr("Epochs");
    case RungColumn: return tr("Rung");
    default: {
        QString label = RunConfigForm::fieldLabel(m_params.value(section - FirstParamColumn));
        if (label.endsWith(QLatin1Char(':')) || label.endsWith(QChar(0xFF1A)))
            label.chop(1);
        return label;
    }
    }
}

} // namespace lathe::ui
