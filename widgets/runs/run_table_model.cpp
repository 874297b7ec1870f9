#include "runs/run_table_model.h"

#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "workspace/run_listing.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace lathe::ui {
namespace {

struct MetricName
{
    const char *name;
    const char *label;
};

// The metrics the trainer writes (an epoch event's, a checkpoint's), in the checkpoint table's
// column order.
const MetricName kMetricNames[] = {
    {"val_top1", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val top-1")},
    {"val_top5", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val top-5")},
    // A multi-label run's validation (mean average precision over labels; F1 at the tuned thresholds).
    {"val_map", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val mAP")},
    {"val_map_micro", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val mAP (micro)")},
    {"val_f1", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val F1 (micro)")},
    {"val_loss", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Val loss")},
    {"train_top1", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Train top-1")},
    {"train_loss", QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Train loss")},
    {engine::event_key::kLr, QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Learning rate")},
    {engine::event_key::kSeconds, QT_TRANSLATE_NOOP("lathe::ui::RunTableModel", "Epoch time")},
};

int metricRank(const QString &name)
{
    for (int i = 0; i < int(std::size(kMetricNames)); ++i)
        if (name == QLatin1String(kMetricNames[i].name))
            return i;
    return int(std::size(kMetricNames));
}

} // namespace

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
    return displayName.isEmpty() ? defaultName() : displayName;
}

QString RunTableModel::Row::defaultName() const
{
    return listedName.isEmpty() ? QFileInfo(dir).fileName() : listedName;
}

QString RunTableModel::Row::shownState() const
{
    return paused && state == QLatin1String(engine::run_state::kRunning) ? QString::fromLatin1(workspace::kPausedState) : state;
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
    r.displayName = displayName.trimmed() == r.defaultName() ? QString() : displayName.trimmed();
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

void RunTableModel::setPaused(const QString &dir, bool paused)
{
    const int row = indexOf(dir);
    if (row < 0 || m_rows[row].paused == paused)
        return;
    m_rows[row].paused = paused;
    Q_EMIT dataChanged(index(row, State), index(row, State));
}

int RunTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RunTableModel::metricLabel(const QString &name)
{
    const int rank = metricRank(name);
    return rank < int(std::size(kMetricNames)) ? tr(kMetricNames[rank].label) : name;
}

QString RunTableModel::metricText(const QString &name, double value)
{
    const QLocale locale;
    if (engine::metricLowerIsBetter(name.toStdString())) // a loss
        return locale.toString(value, 'f', 4);
    if (name.contains(QLatin1String("top")) || name.contains(QLatin1String("acc"))) // fractions
        return tr("%1 %").arg(locale.toString(100 * value, 'f', 2));
    if (name == QLatin1String(engine::event_key::kSeconds))
        return tr("%1 s").arg(locale.toString(value, 'f', 1));
    if (name.contains(QLatin1String("map")) || name.endsWith(QLatin1String("f1"))) // in [0, 1], as the Evaluate page shows them
        return locale.toString(value, 'f', 3);
    return locale.toString(value, 'g', 4);
}

void RunTableModel::setEvaluations(const QHash<QString, workspace::EvaluationSummary> &newest)
{
    for (int i = 0; i < m_rows.size(); ++i) {
        const workspace::EvaluationSummary evaluation = newest.value(m_rows[i].dir);
        if (evaluation.id == m_rows[i].evaluation.id)
            continue;
        m_rows[i].evaluation = evaluation;
        Q_EMIT dataChanged(index(i, Evaluation), index(i, Evaluation));
    }
}

QString RunTableModel::evaluationText(const workspace::EvaluationSummary &e)
{
    if (e.id == 0)
        return {};
    if (e.multiLabel())
        return std::isnan(e.map) ? tr("mAP n/a") : tr("mAP %1").arg(QLocale().toString(e.map, 'f', 3));
    return tr("top-1 %1 %").arg(QLocale().toString(100 * e.top1, 'f', 2));
}

QString RunTableModel::evaluationToolTip(const workspace::EvaluationSummary &e)
{
    if (e.id == 0)
        return tr("Not evaluated yet: evaluate a checkpoint on the Evaluate page.");
    const QString what =
        e.multiLabel()
            ? (std::isnan(e.map) ? tr("mAP (mean average precision over labels, macro): none of the labels has a positive image")
                                 : tr("mAP (mean average precision over labels, macro) %1").arg(QLocale().toString(e.map, 'f', 4)))
            : tr("Top-1 accuracy %1 %").arg(QLocale().toString(100 * e.top1, 'f', 2));
    const QDateTime created = QDateTime::fromString(e.created, Qt::ISODateWithMs);
    return tr("%1\nCheckpoint %2 on the %3 split (%n image(s)%4), evaluated %5.", nullptr, int(e.count))
        .arg(what, e.checkpoint, e.split, e.tta ? tr(", test-time augmentation") : QString(),
             created.isValid() ? QLocale().toString(created.toLocalTime(), QLocale::ShortFormat) : e.created);
}

QStringList RunTableModel::sortMetrics(QStringList names)
{
    std::sort(names.begin(), names.end(), [](const QString &a, const QString &b) {
        const int ra = metricRank(a);
        const int rb = metricRank(b);
        return ra != rb ? ra < rb : a < b;
    });
    return names;
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
        case Dataset:
            return r.dataset;
        case Best:
            if (!r.hasBest)
                return QString();
            return QStringLiteral("%1 %2").arg(metricLabel(r.bestMetric), metricText(r.bestMetric, r.bestValue));
        case Evaluation:
            return evaluationText(r.evaluation);
        case State:
            return workspace::runStateText(r.shownState());
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
    if (role == Qt::ToolTipRole && index.column() == Evaluation)
        return evaluationToolTip(r.evaluation);
    if (role == Qt::UserRole) // sort keys
        switch (index.column()) {
        case Started:
            return r.startTime;
        case Best:
            return r.bestValue;
        case Evaluation: // none (or a mAP without positives) below every value
            return r.evaluation.id == 0 || std::isnan(r.evaluation.value()) ? -1.0 : r.evaluation.value();
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
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Evaluation)
        return tr("The run's newest stored evaluation (Evaluate page): top-1 accuracy for a single-label run, mAP "
                  "(mean average precision over labels, macro) for a multi-label run. Its tool tip names the "
                  "checkpoint and split.");
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Best)
        return tr("The best value of the metric that picks the run's best checkpoint (checkpoints.best_metric).");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Run");
    case Started:
        return tr("Started");
    case Backbone:
        return tr("Backbone");
    case Dataset:
        return tr("Dataset");
    case Best:
        return tr("Best");
    case Evaluation:
        return tr("Eval top-1 / mAP");
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
