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
// quality score, and what the user has done about it since (the catalog's row, kept current).
class LabelIssuesModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { ImageColumn, FileColumn, GivenColumn, SuggestedColumn, ScoreColumn, NowColumn, ColumnCount };
    enum Role {
        ImageIdRole = Qt::UserRole + 1,
        SuggestedClassRole,
        ExcludedRole,
        ThumbnailStateRole, // ThumbnailLoader::State as int
    };

    explicit LabelIssuesModel(ThumbnailLoader *thumbnails, QObject *parent = nullptr);

    // sourceDir: the dataset's folder, that the images' relative paths are relative to.
    void setIssues(const QVector<workspace::LabelIssueRow> &issues, const QString &sourceDir);
    void clear() { setIssues({}, {}); }
    // Takes a newer copy of an image's catalog row (after a relabel or exclusion); false when
    // no row shows that image.
    bool updateImage(const workspace::CatalogImage &image);

    const QVector<workspace::LabelIssueRow> &issues() const { return m_issues; }
    const workspace::LabelIssueRow &issue(int row) const { return m_issues.at(row); }
    int rowOfId(qint64 imageId) const;

    // What happened to an image since the run: "" (nothing), "Relabelled to X", "Excluded", or
    // both.
    static QString nowText(const workspace::LabelIssueRow &issue);

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
    // Rows that asked for a thumbnail still on its way, by thumbnail key.
    mutable QHash<QString, QVector<int>> m_waiting;
};

} // namespace lathe::ui
