#include "workspace/label_issues_job.h"

#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>

#include <algorithm>
#include <optional>

namespace lathe::workspace {

namespace {

// The file that makes a folder a folds run (docs/formats.md).
const QString kFoldsFile = QStringLiteral("folds.json");

} // namespace

QStringList LabelIssueRow::addedLabels() const
{
    QStringList added;
    for (const QString &label : suggestedLabels) {
        if (!givenLabels.contains(label))
            added << label;
    }
    return added;
}

QStringList LabelIssueRow::removedLabels() const
{
    QStringList removed;
    for (const QString &label : givenLabels) {
        if (!suggestedLabels.contains(label))
            removed << label;
    }
    return removed;
}

QVector<FoldsRunEntry> listFoldsRuns(const QString &runsDir)
{
    QVector<FoldsRunEntry> runs;
    const QDir dir(runsDir);
    if (runsDir.isEmpty() || !dir.exists())
        return runs;
    for (const QFileInfo &sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QFileInfo folds(QDir(sub.absoluteFilePath()).filePath(kFoldsFile));
        if (!folds.isFile())
            continue;
        FoldsRunEntry entry;
        entry.dir = QDir::cleanPath(sub.absoluteFilePath());
        entry.name = sub.fileName();
        entry.modified = folds.lastModified();
        runs.append(entry);
    }
    // Newest first: the run just made is the one to look at; the name breaks ties for a stable list.
    std::stable_sort(runs.begin(), runs.end(), [](const FoldsRunEntry &a, const FoldsRunEntry &b) {
        return a.modified != b.modified ? a.modified > b.modified : a.name < b.name;
    });
    return runs;
}

LabelIssuesJob::LabelIssuesJob(Params params, QObject *parent)
    : Job(tr("Find label errors in %1").arg(QDir(params.foldsDir).dirName()), parent)
    , m_params(std::move(params))
{
    qRegisterMetaType<LabelIssuesResult>();
}

QVariant LabelIssuesJob::execute()
{
    if (m_params.foldsDir.isEmpty())
        throw WorkspaceError(tr("No folds run was given"));
    const QString name = QDir(m_params.foldsDir).dirName();
    reportProgress(0.0, tr("Reading the out-of-fold predictions"));
    const engine::FoldsRun run = engine::readFoldsRun(QDir(m_params.foldsDir).absolutePath().toStdString());
    checkCancel();
    const bool multiLabel = run.task == "multi_label";
    if (!multiLabel && run.task != "single_label")
        throw WorkspaceError(tr("The folds run %1 is %2: only single-label and multi-label runs are checked for "
                                "label errors here.")
                                 .arg(name, QString::fromStdString(run.task)));

    // Single-label: the rows as findLabelIssues takes them. A multi-label run is read in place
    // (findMultiLabelIssuesInRun).
    std::vector<std::vector<float>> probs;
    std::vector<int> labels;
    if (!multiLabel) {
        probs.reserve(run.rows.size());
        labels.reserve(run.rows.size());
        for (std::size_t i = 0; i < run.rows.size(); ++i) {
            const engine::OutOfFoldRow &row = run.rows[i];
            if (row.labels.size() != 1)
                throw WorkspaceError(tr("The folds run %1 gives %2 labels to %3; a single-label run gives one.")
                                         .arg(name)
                                         .arg(row.labels.size())
                                         .arg(QString::fromStdString(row.filename)));
            probs.push_back(row.probs);
            labels.push_back(row.labels.front());
        }
    }

    reportProgress(0.3, tr("Reading the catalog"));
    ProjectConnection connection(m_params.databasePath);
    const DatasetInfo dataset = connection.catalog().dataset(m_params.datasetId);
    // A run of the other task was trained on another dataset: its labels cannot be this one's.
    if (dataset.id != 0 && dataset.multiLabel() != multiLabel)
        throw WorkspaceError(
            multiLabel ? tr("The folds run %1 is multi-label (a label set per image), but dataset \"%2\" has one "
                            "class per image: pick a folds run trained on this dataset.")
                             .arg(name, dataset.name)
                       : tr("The folds run %1 is single-label (one class per image), but dataset \"%2\" gives each "
                            "image a label set: pick a folds run trained on this dataset.")
                             .arg(name, dataset.name));
    const QVector<CatalogImage> images = connection.catalog().images(m_params.datasetId);
    checkCancel();
    QHash<QString, int> byPath;
    QHash<QString, int> bySha256;
    byPath.reserve(images.size());
    bySha256.reserve(images.size());
    for (int i = 0; i < images.size(); ++i) {
        byPath.insert(images.at(i).relPath, i);
        // Byte-identical copies share a hash: the usable one is the image that was trained on.
        if (!images.at(i).sha256.isEmpty() && (!bySha256.contains(images.at(i).sha256) || images.at(i).usable()))
            bySha256.insert(images.at(i).sha256, i);
    }
    // The catalog image a row of the run was made from; -1 when it is gone or its file changed.
    auto imageOf = [&](const engine::OutOfFoldRow &row) {
        const QString sha256 = QString::fromStdString(row.sha256);
        const auto path = byPath.constFind(QString::fromStdString(row.filename));
        if (path != byPath.constEnd() && (sha256.isEmpty() || images.at(*path).sha256 == sha256))
            return *path;
        return sha256.isEmpty() ? -1 : bySha256.value(sha256, -1);
    };

    LabelIssuesResult result;
    result.foldsDir = QDir::cleanPath(QDir(m_params.foldsDir).absolutePath());
    result.multiLabel = multiLabel;
    for (const std::string &className : run.classes)
        result.classes << QString::fromStdString(className);
    result.examples = int(run.rows.size());
    for (const engine::OutOfFoldRow &row : run.rows)
        result.matched += imageOf(row) >= 0 ? 1 : 0;
    if (result.matched == 0)
        throw WorkspaceError(tr("None of the %1 images of the folds run %2 is in this dataset: it was trained on "
                                "another dataset, or on files that have changed since.")
                                 .arg(result.examples)
                                 .arg(name));

    reportProgress(0.5, tr("Finding label errors"));
    auto className = [&](int label) {
        return label >= 0 && label < result.classes.size() ? result.classes.at(label) : QString::number(label);
    };
    // A label set by name, sorted as the catalog sorts an image's labels.
    auto labelNames = [&](const std::vector<int> &set) {
        QStringList names;
        for (int label : set)
            names << className(label);
        names.sort();
        names.removeDuplicates();
        return names;
    };
    // The issue at run.rows[index] as a row of its catalog image; none (counted) when the image is
    // not in the dataset.
    auto issueRow = [&](std::size_t index, double score) -> std::optional<LabelIssueRow> {
        const engine::OutOfFoldRow &row = run.rows.at(index);
        const int image = imageOf(row);
        if (image < 0) {
            ++result.unmatchedIssues;
            return std::nullopt;
        }
        LabelIssueRow out;
        out.image = images.at(image);
        out.score = score;
        out.fold = row.fold;
        return out;
    };
    if (multiLabel) {
        const engine::MultiLabelIssueReport report = engine::findMultiLabelIssuesInRun(run, m_params.rankBy);
        checkCancel();
        for (const engine::MultiLabelIssue &issue : report.issues) {
            if (std::optional<LabelIssueRow> out = issueRow(issue.index, issue.score)) {
                out->multiLabel = true;
                out->givenLabels = labelNames(issue.givenLabels);
                out->suggestedLabels = labelNames(issue.suggestedLabels);
                result.issues.append(*out);
            }
        }
    } else {
        const engine::LabelIssueReport report = engine::findLabelIssues(probs, labels, m_params.rankBy);
        checkCancel();
        for (const engine::LabelIssue &issue : report.issues) {
            if (std::optional<LabelIssueRow> out = issueRow(issue.index, issue.score)) {
                out->givenClass = className(issue.givenLabel);
                out->suggestedClass = className(issue.suggestedLabel);
                result.issues.append(*out);
            }
        }
    }
    reportProgress(1.0, tr("%n suspected label error(s)", nullptr, int(result.issues.size())));
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
