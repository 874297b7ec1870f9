#pragma once

#include "workspace/label_issues_job.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QPointer>
#include <QVector>

namespace lathe::ui {

class ThumbnailLoader;

// The suspected label errors of a folds run, most suspicious first: the image's thumbnail and
// file, the label it was trained with, the class the out-of-fold predictions suggest, the label
// quality score, the fold that held it out, and what the user has done about it since (the
// catalog's row, kept current). For a multi-label run: the given label set, and the suggested
// set as the change it makes ("+outdoor −dog"; the whole set in the tooltip).
class LabelIssuesModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        ImageColumn,
        FileColumn,
        GivenColumn,
        SuggestedColumn,
        ScoreColumn,
        FoldColumn,
        NowColumn,
        ColumnCount
    };
    enum Role {
        ImageIdRole = Qt::UserRole + 1,
        SuggestedClassRole,  // single-label
        ExcludedRole,
        ThumbnailStateRole,  // ThumbnailLoader::State as int
        GivenLabelsRole,     // multi-label: QStringList
        SuggestedLabelsRole, // multi-label: QStringList, the whole suggested set
    };

    explicit LabelIssuesModel(ThumbnailLoader *thumbnails, QObject *parent = nullptr);

    // sourceDir: the dataset's folder, that the images' relative paths are relative to;
    // multiLabel: the issues are of a multi-label run (label sets; the headers say so).
    void setIssues(const QVector<workspace::LabelIssueRow> &issues, const QString &sourceDir,
                   bool multiLabel = false);
    void clear() { setIssues({}, {}); }
    bool multiLabel() const { return m_multiLabel; }
    // Takes a newer copy of an image's catalog row (after a relabel or exclusion); false when
    // no row shows that image.
    bool updateImage(const workspace::CatalogImage &image);

    const QVector<workspace::LabelIssueRow> &issues() const { return m_issues; }
    const workspace::LabelIssueRow &issue(int row) const { return m_issues.at(row); }
    int rowOfId(qint64 imageId) const;

    // What happened to an image since the run: "" (nothing), "Relabelled to X" (multi-label:
    // "Suggested labels applied", or "Labels now X, Y" for another change), "Excluded", or both.
    static QString nowText(const workspace::LabelIssueRow &issue);
    // A label set as shown: "a, b", or "(none)".
    static QString labelsText(const QStringList &labels);
    // A multi-label suggestion as the change it makes to the given set: "+a −b" ("no change"
    // when there is none).
    static QString changeText(const workspace::LabelIssueRow &issue);
    // Whether the image's labels in the catalog are the suggested ones (single-label: its class).
    static bool suggestionApplied(const workspace::LabelIssueRow &issue);
    // Whether the suggestion can be written: not yet applied and, multi-label, a set of at least
    // one label (the catalog refuses an empty set; exclude such an image instead).
    static bool canApplySuggestion(const workspace::LabelIssueRow &issue);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant decoration(int row) const;
    void thumbnailDone(const QString &key);

    QPointer<ThumbnailLoader> m_thumbnails;
    QVector<workspace::LabelIssueRow> m_issues;
    QString m_sourceDir;
    bool m_multiLabel = false;
    // Rows that asked for a thumbnail still on its way, by thumbnail key.
    mutable QHash<QString, QVector<int>> m_waiting;
};

} // namespace lathe::ui
