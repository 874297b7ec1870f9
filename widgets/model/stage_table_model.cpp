#include "model/stage_table_model.h"

#include <QLocale>

namespace lathe::ui {

StageTableModel::StageTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void StageTableModel::setSummary(const engine::ModelSummary &summary)
{
    beginResetModel();
    m_summary = summary;
    endResetModel();
}

int StageTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_summary.stages.size());
}

int StageTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StageTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const engine::StageSummary &s = m_summary.stages[std::size_t(index.row())];
    const QLocale locale;
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case Stage:
            return QString::fromStdString(s.name);
        case Parameters:
            return role == Qt::EditRole ? QVariant(qlonglong(s.parameters)) : QVariant(locale.toString(qlonglong(s.parameters)));
        case Trainable:
            if (s.trainable == 0)
                return tr("frozen");
            return s.trainable == s.parameters ? tr("trains") : locale.toString(qlonglong(s.trainable));
        case LrMultiplier:
            return role == Qt::EditRole ? QVariant(s.lrMultiplier) : QVariant(QStringLiteral("× %1").arg(locale.toString(s.lrMultiplier)));
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != Stage)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == LrMultiplier)
        return tr("Double-click to set this stage's learning rate as a multiple of the run's.");
    return {};
}

bool StageTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || index.column() != LrMultiplier || index.row() >= rowCount())
        return false;
    bool ok = false;
    const double multiplier = value.toDouble(&ok);
    if (!ok || multiplier < 0 || multiplier > 100)
        return false;
    engine::StageSummary &s = m_summary.stages[std::size_t(index.row())];
    s.lrMultiplier = multiplier;
    Q_EMIT dataChanged(index, index);
    Q_EMIT multiplierEdited(QString::fromStdString(s.name), multiplier);
    return true;
}

Qt::ItemFlags StageTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == LrMultiplier)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant StageTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Stage:
        return tr("Stage");
    case Parameters:
        return tr("Parameters");
    case Trainable:
        return tr("Trains");
    case LrMultiplier:
        return tr("LR multiplier");
    default:
        return {};
    }
}

} // namespace lathe::ui
