#include "data/label_issues_model.h"

#include "common/thumbnail_loader.h"

#include <QDir>
#include <QIcon>
#include <QLocale>
#include <QPalette>

namespace lathe::ui {

using workspace::CatalogImage;
using workspace::LabelIssueRow;

LabelIssuesModel::LabelIssuesModel(ThumbnailLoader *thumbnails, QObject *parent)
    : QAbstractTableModel(parent)
    , m_thumbnails(thumbnails)
{
    connect(thumbnails, &ThumbnailLoader::thumbnailReady, this, &LabelIssuesModel::thumbnailDone);
    connect(thumbnails, &ThumbnailLoader::thumbnailFailed, this, &LabelIssuesModel::thumbnailDone);
}

void LabelIssuesModel::setIssues(const QVector<LabelIssueRow> &issues, const QString &sourceDir, bool multiLabel)
{
    beginResetModel();
    m_issues = issues;
    m_sourceDir = sourceDir;
    m_multiLabel = multiLabel;
    m_waiting.clear();
    endResetModel();
}

int LabelIssuesModel::rowOfId(qint64 imageId) const
{
    for (int row = 0; row < m_issues.size(); ++row) {
        if (m_issues.at(row).image.id == imageId)
            return row;
    }
    return -1;
}

bool LabelIssuesModel::updateImage(const CatalogImage &image)
{
    const int row = rowOfId(image.id);
    if (row < 0)
        return false;
    m_issues[row].image = image;
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    return true;
}

QString LabelIssuesModel::labelsText(const QStringList &labels)
{
    return labels.isEmpty() ? tr("(none)") : labels.join(QStringLiteral(", "));
}

QString LabelIssuesModel::changeText(const LabelIssueRow &issue)
{
    QStringList parts;
    for (const QString &label : issue.addedLabels())
        parts << QStringLiteral("+") + label;
    for (const QString &label : issue.removedLabels())
        parts << QString(QChar(0x2212)) + label; // a minus sign, as wide as the plus
    return parts.isEmpty() ? tr("no change") : parts.join(QLatin1Char(' '));
}

bool LabelIssuesModel::suggestionApplied(const LabelIssueRow &issue)
{
    if (!issue.multiLabel)
        return issue.image.className == issue.suggestedClass;
    QStringList labels = issue.image.labels;
    labels.sort();
    return labels == issue.suggestedLabels;
}

bool LabelIssuesModel::canApplySuggestion(const LabelIssueRow &issue)
{
    return !suggestionApplied(issue) && (!issue.multiLabel || !issue.suggestedLabels.isEmpty());
}

QString LabelIssuesModel::nowText(const LabelIssueRow &issue)
{
    QStringList done;
    if (issue.multiLabel) {
        QStringList labels = issue.image.labels;
        labels.sort();
        if (labels == issue.suggestedLabels && labels != issue.givenLabels)
            done << tr("Suggested labels applied");
        else if (labels != issue.givenLabels)
            done << tr("Labels now %1").arg(labelsText(labels));
    } else if (issue.image.className != issue.givenClass) {
        done << tr("Relabelled to %1").arg(issue.image.className);
    }
    if (issue.image.excluded)
        done << tr("Excluded");
    return done.join(QStringLiteral(" · "));
}

int LabelIssuesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_issues.size());
}

int LabelIssuesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LabelIssuesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_issues.size())
        return {};
    const LabelIssueRow &issue = m_issues.at(index.row());
    switch (role) {
    case ImageIdRole:
        return issue.image.id;
    case SuggestedClassRole:
        return issue.suggestedClass;
    case GivenLabelsRole:
        return issue.givenLabels;
    case SuggestedLabelsRole:
        return issue.suggestedLabels;
    case ExcludedRole:
        return issue.image.excluded;
    case ThumbnailStateRole:
        if (issue.image.sha256.isEmpty() || !m_thumbnails)
            return int(ThumbnailLoader::State::Failed);
        return int(m_thumbnails->state(issue.image.sha256));
    case Qt::DecorationRole:
        return index.column() == ImageColumn ? decoration(index.row()) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == ScoreColumn || index.column() == FoldColumn
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    case Qt::ForegroundRole:
        // An excluded image is dealt with: greyed, like the grid greys it.
        return issue.image.excluded ? QVariant(QPalette().brush(QPalette::Disabled, QPalette::Text)) : QVariant();
    case Qt::ToolTipRole:
        switch (index.column()) {
        case ScoreColumn:
            return tr("Label quality: the lower, the more likely the given label is wrong");
        case FileColumn:
        case ImageColumn:
            return tr("%1\nHeld out by fold %2; double-click to open it in the viewer")
                .arg(issue.image.relPath)
                .arg(issue.fold);
        case FoldColumn:
            return tr("The fold whose model predicted this image without training on it");
        case SuggestedColumn:
            if (issue.multiLabel) {
                QString tip = tr("Suggested label set: %1").arg(labelsText(issue.suggestedLabels));
                if (issue.suggestedLabels.isEmpty())
                    tip += QLatin1Char('\n') + tr("No label would be left: exclude the image instead");
                return tip;
            }
            break;
        default:
            break;
        }
        [[fallthrough]];
    case Qt::DisplayRole:
        switch (index.column()) {
        case FileColumn:
            return issue.image.relPath;
        case GivenColumn:
            return issue.multiLabel ? labelsText(issue.givenLabels) : issue.givenClass;
        case SuggestedColumn:
            return issue.multiLabel ? changeText(issue) : issue.suggestedClass;
        case ScoreColumn:
            // Three significant digits: the most suspicious scores are far below 0.001.
            return QLocale().toString(issue.score, 'g', 3);
        case FoldColumn:
            return QLocale().toString(issue.fold);
        case NowColumn:
            return nowText(issue);
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant LabelIssuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ImageColumn:
        return tr("Image");
    case FileColumn:
        return tr("File");
    case GivenColumn:
        return m_multiLabel ? tr("Given labels") : tr("Given label");
    case SuggestedColumn:
        return m_multiLabel ? tr("Suggested labels") : tr("Suggested label");
    case ScoreColumn:
        return tr("Score");
    case FoldColumn:
        return tr("Fold");
    case NowColumn:
        return tr("Decision");
    default:
        return {};
    }
}

QVariant LabelIssuesModel::decoration(int row) const
{
    if (!m_thumbnails)
        return {};
    const CatalogImage &image = m_issues.at(row).image;
    if (image.sha256.isEmpty())
        return QIcon(m_thumbnails->brokenIcon());
    // An icon, not a pixmap: the view draws it at its iconSize, a 128-pixel thumbnail at row height.
    const QPixmap pixmap = m_thumbnails->thumbnail(image.sha256, QDir(m_sourceDir).filePath(image.relPath));
    if (!pixmap.isNull())
        return QIcon(pixmap);
    if (m_thumbnails->state(image.sha256) == ThumbnailLoader::State::Failed)
        return QIcon(m_thumbnails->brokenIcon());
    QVector<int> &rows = m_waiting[image.sha256];
    if (!rows.contains(row))
        rows.append(row);
    return QIcon(m_thumbnails->loadingIcon());
}

void LabelIssuesModel::thumbnailDone(const QString &key)
{
    const QVector<int> rows = m_waiting.take(key);
    for (int row : rows) {
        if (row < m_issues.size()) {
            const QModelIndex changed = index(row, ImageColumn);
            Q_EMIT dataChanged(changed, changed, {Qt::DecorationRole, ThumbnailStateRole});
        }
    }
}

} // namespace lathe::ui
