#pragma once

#include "engine/dataset/folder_scan.h"

#include <QCoreApplication>
#include <QMetaType>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QVector>

class QSqlError;
class QSqlQuery;

namespace lathe::workspace {

struct DatasetInfo
{
    int id = 0;
    QString name;
    QString sourceDir;
    bool folderSplits = false;
    quint64 seed = 0;
    double valFraction = 0.1;
    double testFraction = 0.1;
    QString importedAt; // ISO 8601, UTC
    // How the last import grouped near duplicates: members lie within nearDuplicateThreshold of
    // nearDuplicateBits hash bits of their group's representative (0: not grouped so yet).
    int nearDuplicateThreshold = 0;
    int nearDuplicateBits = 0;
    QString shardsDir; // the folder of the latest conversion to shards; empty when none was recorded
    // "single_label" (class folders: one class per image) or "multi_label" (imported with a labels
    // file: a label set per image, CatalogImage::labels).
    QString task = QStringLiteral("single_label");
    QString labelsFile; // the labels file of a multi-label import (absolute); empty for class folders

    bool multiLabel() const { return task == QLatin1String("multi_label"); }
};

// One image row of the catalog.
struct CatalogImage
{
    qint64 id = 0;
    QString relPath;     // relative to the dataset's source folder
    QString folderClass; // the class folder the file is in
    QString className;   // the label in effect: a relabel, else folderClass (empty in a multi-label dataset)
    // A multi-label dataset's label set in effect, sorted: the labels file's, or the user's edit
    // (labelsEdited). Empty in a single-label dataset.
    QStringList labels;
    bool labelsEdited = false;
    QString split;       // train, val or test
    QString status;      // ok, rejected, duplicate
    QString reason;
    qint64 size = 0;
    int width = 0;
    int height = 0;
    int channels = 0;
    int bitDepth = 0;
    QString format;
    int exifOrientation = 1;
    QString sha256;
    bool excluded = false;    // the user took it out; the file is untouched
    int nearDuplicateGroup = -1;
    int nearDuplicateDistance = -1; // hash bits from its group's representative (0: the representative)

    // Ok, not excluded: what training will see.
    bool usable() const { return status == QLatin1String("ok") && !excluded; }
};

struct ClassCount
{
    QString className;
    QString split;
    int count = 0;
};

// How often the labels of a multi-label dataset go together: count(a, b) usable images carry
// both label a and label b; count(a, a) is how many carry a.
struct LabelCooccurrence
{
    QStringList labels; // sorted: the dataset's classes
    QVector<int> counts; // labels.size() x labels.size(), row-major, symmetric

    int count(int row, int column) const { return counts.value(row * int(labels.size()) + column); }
};

// What an import changed: Catalog::applyScan's, and an ImportJob's result
// (Job::result().value<ImportSummary>()).
struct ImportSummary
{
    int datasetId = 0;
    int added = 0;     // files not in the catalog before
    int removed = 0;   // catalog rows whose file is gone
    int changed = 0;   // same path, different size or time: read again
    int unchanged = 0; // taken over without reading the file
    int ok = 0;
    int rejected = 0;
    int duplicates = 0;
    int nearDuplicateGroups = 0;
};

// The dataset catalog in a project database: datasets, classes and images, with the user's
// exclusions and relabels. Source folders are never modified. Use from one thread (the one
// that owns the connection). Throws WorkspaceError on database failures.
class Catalog
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::Catalog)

public:
    explicit Catalog(const QSqlDatabase &db);

    QVector<DatasetInfo> datasets() const;
    // 0 when there is none of that name.
    int datasetId(const QString &name) const;
    DatasetInfo dataset(int datasetId) const;

    QStringList classes(int datasetId) const; // sorted
    QVector<CatalogImage> images(int datasetId) const; // ordered by relPath
    CatalogImage image(qint64 imageId) const;
    // Usable images per class and split; for a multi-label dataset, per label (an image counts
    // once for each label of its set).
    QVector<ClassCount> classCounts(int datasetId) const;
    // Label pairs over a multi-label dataset's usable images (every split); empty counts for a
    // single-label dataset.
    LabelCooccurrence labelCooccurrence(int datasetId) const;

    // The previous scan of a dataset, for ScanOptions::previous (incremental re-import).
    std::vector<engine::ScannedImage> previousScan(int datasetId) const;

    // Creates or updates the dataset called name from a scan, in one transaction: rows of
    // files that are gone are deleted, new and changed files are inserted or updated, and
    // exclusions and relabels of files that did not change are kept. A scan from a labels file
    // (ScanResult::multiLabel) makes a multi-label dataset: each image's label set is the file's,
    // except where the user edited it and the file's content did not change.
    ImportSummary applyScan(const QString &name, const engine::ScanOptions &options, const engine::ScanResult &scan);

    // Records dir as the dataset's latest conversion to shards (DatasetInfo::shardsDir).
    void setShardsDir(int datasetId, const QString &dir);

    void setExcluded(qint64 imageId, bool excluded);
    // className must be one of the dataset's classes; relabel to the folder class clears it.
    // Refused for an image of a multi-label dataset (setLabels).
    void relabel(qint64 imageId, const QString &className);
    // Replaces the label set of an image of a multi-label dataset (in one transaction): at least
    // one label, each one of the dataset's classes. Refused for a single-label dataset (relabel).
    void setLabels(qint64 imageId, const QStringList &labels);
    // Gives an image of a multi-label dataset the label set labels plus label, as setLabels does,
    // where label (surrounding spaces trimmed) may be new: it then becomes one of the dataset's
    // labels, in the same transaction. A label the dataset has (the same text) is simply added; a
    // new one must be a good name (labelNameProblem). Returns the label as stored.
    QString addLabel(qint64 imageId, const QString &label, const QStringList &labels);
    // Undoes the user's edits of a multi-label image's label set: the set becomes the labels file's
    // row for the image again and labelsEdited false, so a re-import follows the file again. The
    // catalog keeps no copy of the file's sets, so the file is read again (before the write): refused,
    // naming the file, when it is gone or unreadable, when it was modified after the dataset was
    // imported (re-import first: the file's rows may no longer be the import's), or when it has no
    // usable row for the image. An image whose set was not edited is left as it is.
    void resetLabels(qint64 imageId);

    // Why name cannot be a new label (a translated clause: "a label cannot hold ','"), or an empty
    // string when it can. Trimmed, it must not be empty or longer than kMaxLabelLength characters,
    // and must hold no ';' or '|' (a labels file's separators), no ',' and no line break or other
    // control character.
    static QString labelNameProblem(const QString &name);
    static constexpr int kMaxLabelLength = 100;

    // Rejected and duplicate files with their reasons: relative path, status, reason.
    void writeRejectedCsv(int datasetId, const QString &path) const;

private:
    // An image whose label set is about to be written, with its dataset; throws when there is none.
    struct LabelTarget
    {
        DatasetInfo dataset;
        QString relPath;
        bool labelsEdited = false;
    };
    LabelTarget labelTarget(qint64 imageId) const;
    // Throws unless target's dataset is multi-label (setLabels's message).
    void requireMultiLabel(const LabelTarget &target) const;
    // The id of the dataset's class name, 0 when it has none.
    int classId(int datasetId, const QString &name) const;
    // The class ids of labels (sorted, without duplicates), each a label of target's dataset;
    // throws naming the first that is not.
    QVector<int> labelIds(const LabelTarget &target, QStringList labels) const;
    int insertClass(int datasetId, const QString &name);
    void replaceLabelSet(qint64 imageId, const QVector<int> &classIds, bool edited);

    QSqlQuery prepare(const QString &sql) const;
    void exec(QSqlQuery &query) const;
    [[noreturn]] void fail(const QSqlError &error) const;

    QSqlDatabase m_db;
};

// A CSV field as written (RFC 4180): quoted, inner quotes doubled, when it holds a comma, a quote,
// a line break or leading/trailing spaces. Every CSV Lathe's UI saves goes through it.
QString csvField(const QString &field);

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ImportSummary)
Q_DECLARE_METATYPE(lathe::workspace::LabelCooccurrence)
