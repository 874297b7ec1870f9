#include "runs/run_table_model.h"

#include "engine/run/run_events.h"

#include <QDateTime>
#include <QDir>
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

QString RunTableModel::Row::name() const
{
    return displayName.isEmpty() ? QFileInfo(dir).fileName() : displayName;
}

QStringList RunTableModel::parseTags(const QString &text)
{
    QStringList tags;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString tag = part.trimmed();
        if (!tag.isEmpty() && !tags.contains(tag))
            tags << tag;
    }
    return tags;
}

void RunTableModel::setAnnotations(int index, const QString &displayName, const QString &notes, const QStringList &tags)
{
    if (index < 0 || index >= m_rows.size())
        return;
    Row &r = m_rows[index];
    r.displayName = displayName.trimmed() == QFileInfo(r.dir).fileName() ? QString() : displayName.trimmed();
    r.notes = notes;
    r.tags = tags;
    Q_EMIT dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
    Q_EMIT annotationsEdited(r.dir);
}

QStringList RunTableModel::allTags() const
{
    QStringList tags;
    for (const Row &r : m_rows)
        for (const QString &tag : r.tags)
            if (!tags.contains(tag, Qt::CaseInsensitive))
                tags << tag;
    tags.sort(Qt::CaseInsensitive);
    return tags;
}

Qt::ItemFlags RunTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == Name || index.column() == Tags))
        f |= Qt::ItemIsEditable;
    return f;
}

bool RunTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || index.row() >= rowCount())
        return false;
    const Row &r = m_rows[index.row()];
    if (index.column() == Name)
        setAnnotations(index.row(), value.toString(), r.notes, r.tags);
    else if (index.column() == Tags)
        setAnnotations(index.row(), r.displayName, r.notes, parseTags(value.toString()));
    else
        return false;
    return true;
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
    // A run that is not running has the state of its last end event.
    if (state == QLatin1String(engine::event_type::kFinished))
        return tr("finished");
    if (state == QLatin1String(engine::event_type::kFailed))
        return tr("failed");
    if (state == QLatin1String(engine::event_type::kCancelled))
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
            return r.name();
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
        case Tags:
            return r.tags.join(QStringLiteral(", "));
        case Notes:
            return r.notes.section(QLatin1Char('\n'), 0, 0);
        default:
            return {};
        }
    }
    if (role == Qt::EditRole && index.column() == Name)
        return r.name();
    if (role == Qt::EditRole && index.column() == Tags)
        return r.tags.join(QStringLiteral(", "));
    if (role == Qt::ToolTipRole && index.column() == State && !r.message.isEmpty())
        return r.message;
    if (role == Qt::ToolTipRole && index.column() == Name)
        return r.annotationsProblem.isEmpty() ? QDir::toNativeSeparators(r.dir)
                                              : tr("%1\nannotations.json: %2").arg(QDir::toNativeSeparators(r.dir), r.annotationsProblem);
    if (role == Qt::ToolTipRole && index.column() == Notes && !r.notes.isEmpty())
        return r.notes;
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
    case Tags:
        return tr("Tags");
    case Notes:
        return tr("Notes");
    default:
        return {};
    }
}

} // namespace lathe::ui
