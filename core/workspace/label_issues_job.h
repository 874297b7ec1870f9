#pragma once

#include "engine/inference/label_issues.h"
#include "workspace/catalog.h"
#include "workspace/job.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// A folds run of a project's runs folder: what `lathe-cli train --folds K` writes (a folder with
// folds.json and oof_predictions.jsonl, docs/formats.md).
struct FoldsRunEntry
{
    QString dir;  // absolute and clean
    QString name; // the folder's name
    QDateTime modified; // of its folds.json
};

// The folds runs among runsDir's sub-folders (those holding a folds.json), newest first; none
// when runsDir does not exist. Reads the disk (a stat per folder): call it off the GUI thread.
QVector<FoldsRunEntry> listFoldsRuns(const QString &runsDir);

// One suspected label error, tied to the catalog's image.
struct LabelIssueRow
{
    CatalogImage image;     // the catalog's row as it was read (its label or label set in effect, exclusion)
    QString givenClass;     // single-label: the label the folds run trained with
    QString suggestedClass; // single-label: the most probable other class
    // Multi-label (multiLabel): the label set the folds run trained with, and the engine's
    // suggestion (engine::MultiLabelIssue, as `lathe-cli label-issues` prints it): the given set
    // with each flagged class toggled. Both sorted as the catalog sorts labels; either may be
    // empty. Empty in a single-label row.
    QStringList givenLabels;
    QStringList suggestedLabels;
    bool multiLabel = false;
    double score = 0;       // label quality in [0, 1]: lower is more suspicious
    int fold = 0;           // the fold that held the image out

    // Multi-label: the suggestion as a change of the given set (the flagged classes): the labels
    // to add, and those to remove.
    QStringList addedLabels() const;
    QStringList removedLabels() const;
};

// What a LabelIssuesJob returns (Job::result().value<LabelIssuesResult>()).
struct LabelIssuesResult
{
    QString foldsDir;
    bool multiLabel = false;      // the folds run's task is multi_label (issues are label sets)
    QStringList classes;          // the folds run's
    int examples = 0;             // rows of oof_predictions.jsonl
    int matched = 0;              // of them, rows found in the catalog's dataset
    int unmatchedIssues = 0;      // issues whose image is not (or no longer) in the dataset
    QVector<LabelIssueRow> issues; // most suspicious first
};

// Confident learning on a folds run's out-of-fold predictions (engine::readFoldsRun, then
// engine::findLabelIssues for a single-label run or engine::findMultiLabelIssuesInRun for a
// multi-label one), each issue tied to the image of the catalog's dataset it was made
// from: by its relative path when the file's SHA-256 is still the one predicted, else by the
// SHA-256 alone (a file moved or renamed since). An issue whose image cannot be found is counted,
// not listed: its file changed or left the dataset. Fails when no row of the run is in the
// dataset (a run of another dataset), and for a multi-label run of a single-label dataset or a
// single-label run of a multi-label one. Result: LabelIssuesResult.
class LabelIssuesJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString databasePath; // the project's project.sqlite
        int datasetId = 0;
        QString foldsDir;
        engine::LabelQualityScore rankBy = engine::LabelQualityScore::SelfConfidence;
    };

    explicit LabelIssuesJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::FoldsRunEntry)
Q_DECLARE_METATYPE(lathe::workspace::LabelIssueRow)
Q_DECLARE_METATYPE(lathe::workspace::LabelIssuesResult)
