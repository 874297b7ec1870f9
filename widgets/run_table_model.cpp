#include "run_table_model.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>

namespace lathe::ui {

RunTableModel::RunTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RunTableModel::setRows(QList<Row> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int RunTableModel::indexOf(const QString &dir) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].dir == dir)
            return i;
    return -1;
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RunTableModel::stateText(const QString &state)
{
    if (state == QLatin1String("running"))
        return tr("running");
    if (state == QLatin1String("finished"))
        return tr("finished");
    if (state == QLatin1String("failed"))
        return tr("failed");
    if (state == QLatin1String("cancelled"))
        return tr("stopped");
    if (state == QLatin1String("interrupted"))
        return tr("interrupted");
    return state;
}

QVariant RunTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[index.row()];
    const QLocale locale;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return QFileInfo(r.dir).fileName();
        case Started:
            return r.startTime > 0 ? locale.toString(QDateTime::fromSecsSinceEpoch(qint64(r.startTime)), QLocale::ShortFormat)
                                   : QString();
        case Backbone:
            return r.arch;
        case Best:
            if (!r.hasBest)
                return QString();
            return r.bestMetric.endsWith(QLatin1String("loss"))
                       ? QStringLiteral("%1 %2").arg(r.bestMetric, locale.toString(r.bestValue, 'f', 4))
                       : QStringLiteral("%1 %2 %").arg(r.bestMetric, locale.toString(100 * r.bestValue, 'f', 2));
        case State:
            return stateText(r.state);
        case Epochs:
            return tr("%1 of %2").arg(r.lastEpoch + 1).arg(r.totalEpochs);
        case Duration: {
            const qint64 s = qint64(std::max(0.0, r.lastTime - r.startTime));
            return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
        }
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == State && !r.message.isEmpty())
        return r.message;
    if (role == Qt::UserRole) // sort keys
        switch (index.column()) {
        case Started:
            return r.startTime;
        case Best:
            return r.bestValue;
        case Epochs:
            return r.lastEpoch;
        case Duration:
            return r.lastTime - r.startTime;
        default:
            return data(index, Qt::DisplayRole);
        }
    return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Run");
    case Started:
        return tr("Started");
    case Backbone:
        return tr("Backbone");
    case Best:
        return tr("Best");
    case State:
        return tr("State");
    case Epochs:
        return tr("Epochs");
    case Duration:
        return tr("Duration");
    default:
        return {};
    }
}

} // namespace lathe::ui
