#include "workspace/catalog.h"

#include "engine/dataset/label_file.h"
#include "workspace/atomic_file.h"
#include "workspace/project_database.h"
#include "workspace/workspace_error.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <optional>

namespace lathe::workspace {
namespace {

QString fromStd(const std::string &text)
{
    return QString::fromStdString(text);
}

// SQLite integers are signed 64-bit: unsigned values (seeds) keep their bit pattern.
qint64 toStoredBits(quint64 value)
{
    return static_cast<qint64>(value);
}

quint64 fromStoredBits(const QVariant &value)
{
    return static_cast<quint64>(value.toLongLong());
}

// The perceptual hash as 64 hex digits, its words in order, each big-endian.
QString hashToHex(const engine::PerceptualHash &hash)
{
    QString hex;
    for (std::uint64_t word : hash)
        hex += QStringLiteral("%1").arg(word, 16, 16, QLatin1Char('0'));
    return hex;
}

// Empty (or malformed) text: no hash.
std::optional<engine::PerceptualHash> hashFromHex(const QString &hex)
{
    engine::PerceptualHash hash{};
    if (hex.size() != int(hash.size()) * 16)
        return std::nullopt;
    for (std::size_t i = 0; i < hash.size(); ++i) {
        bool ok = false;
        hash[i] = hex.mid(qsizetype(i) * 16, 16).toULongLong(&ok, 16);
        if (!ok)
            return std::nullopt;
    }
    return hash;
}

engine::ImageStatus statusFromName(const QString &name)
{
    for (engine::ImageStatus status : {engine::ImageStatus::Ok, engine::ImageStatus::Rejected, engine::ImageStatus::Duplicate}) {
        if (name == QLatin1String(engine::statusName(status)))
            return status;
    }
    return engine::ImageStatus::Rejected;
}

engine::ImageFormat formatFromName(const QString &name)
{
    for (engine::ImageFormat format : {engine::ImageFormat::Jpeg, engine::ImageFormat::Png, engine::ImageFormat::Bmp,
                                       engine::ImageFormat::Tiff, engine::ImageFormat::Webp}) {
        if (name == QLatin1String(engine::formatName(format)))
            return format;
    }
    return engine::ImageFormat::Unknown;
}

// The columns images() and image() read, in this order.
const QString kImageSelect = QStringLiteral(
    "SELECT i.id, i.rel_path, c.name, o.name, i.split, i.status, i.reason, i.size, i.width, i.height,"
    " i.channels, i.bit_depth, i.format, i.exif_orientation, i.sha256, i.excluded, i.near_dup_group,"
    " i.near_dup_distance, i.labels_edited"
    " FROM images i"
    " LEFT JOIN classes c ON c.id = i.class_id"
    " LEFT JOIN classes o ON o.id = i.label_override_id ");

CatalogImage readImage(const QSqlQuery &query)
{
    CatalogImage image;
    image.id = query.value(0).toLongLong();
    image.relPath = query.value(1).toString();
    image.folderClass = query.value(2).toString();
    image.className = query.value(3).isNull() ? image.folderClass : query.value(3).toString();
    image.split = query.value(4).toString();
    image.status = query.value(5).toString();
    image.reason = query.value(6).toString();
    image.size = query.value(7).toLongLong();
    image.width = query.value(8).toInt();
    image.height = query.value(9).toInt();
    image.channels = query.value(10).toInt();
    image.bitDepth = query.value(11).toInt();
    image.format = query.value(12).toString();
    image.exifOrientation = query.value(13).toInt();
    image.sha256 = query.value(14).toString();
    image.excluded = query.value(15).toInt() != 0;
    image.nearDuplicateGroup = query.value(16).isNull() ? -1 : query.value(16).toInt();
    image.nearDuplicateDistance = query.value(17).isNull() ? -1 : query.value(17).toInt();
    image.labelsEdited = query.value(18).toInt() != 0;
    return image;
}

// Label sets by image id, each sorted, from a query whose rows are (image id, label name)
// ordered by label name.
QHash<qint64, QStringList> readLabelSets(QSqlQuery &query)
{
    QHash<qint64, QStringList> sets;
    while (query.next())
        sets[query.value(0).toLongLong()].append(query.value(1).toString());
    return sets;
}

const QString kLabelSetSelect = QStringLiteral(
    "SELECT l.image_id, c.name FROM image_labels l JOIN classes c ON c.id = l.class_id ");

const QString kDatasetSelect = QStringLiteral(
    "SELECT id, name, source_dir, folder_splits, seed, val_fraction, test_fraction, imported_at,"
    " near_dup_threshold, near_dup_bits, shards_dir, task, labels_file FROM datasets ");

DatasetInfo readDataset(const QSqlQuery &query)
{
    DatasetInfo info;
    info.id = query.value(0).toInt();
    info.name = query.value(1).toString();
    info.sourceDir = query.value(2).toString();
    info.folderSplits = query.value(3).toInt() != 0;
    info.seed = fromStoredBits(query.value(4));
    info.valFraction = query.value(5).toDouble();
    info.testFraction = query.value(6).toDouble();
    info.importedAt = query.value(7).toString();
    info.nearDuplicateThreshold = query.value(8).toInt();
    info.nearDuplicateBits = query.value(9).toInt();
    info.shardsDir = query.value(10).toString();
    info.task = query.value(11).toString();
    info.labelsFile = query.value(12).toString();
    return info;
}

// Rolls back unless committed, so an exception half-way through leaves the catalog as it was.
// IMMEDIATE takes the write lock up front, waiting out the busy timeout if another connection
// (the GUI's) is writing: a deferred transaction that reads first could not wait when it
// later needs to write.
class Transaction
{
public:
    explicit Transaction(const QSqlDatabase &db)
        : m_query(db)
    {
    }
    ~Transaction()
    {
        if (m_open)
            m_query.exec(QStringLiteral("ROLLBACK"));
    }
    bool begin() { return m_open = m_query.exec(QStringLiteral("BEGIN IMMEDIATE")); }
    bool commit()
    {
        if (!m_query.exec(QStringLiteral("COMMIT")))
            return false;
        m_open = false;
        return true;
    }
    QSqlError lastError() const { return m_query.lastError(); }

private:
    QSqlQuery m_query;
    bool m_open = false;
};


} // namespace

QString csvField(const QString &field)
{
    static const QString special = QStringLiteral(",\"\r\n");
    bool quote = field.startsWith(QLatin1Char(' ')) || field.endsWith(QLatin1Char(' '));
    for (QChar c : field)
        quote = quote || special.contains(c);
    if (!quote)
        return field;
    QString escaped = field;
    escaped.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

Catalog::Catalog(const QSqlDatabase &db)
    : m_db(db)
{
}

QSqlQuery Catalog::prepare(const QString &sql) const
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        fail(query.lastError());
    return query;
}

void Catalog::exec(QSqlQuery &query) const
{
    if (!query.exec())
        fail(query.lastError());
}

void Catalog::fail(const QSqlError &error) const
{
    const QString path = m_db.databaseName();
    throw WorkspaceError(ProjectDatabase::writeErrorMessage(
        path, error, tr("%1: cannot read or update the dataset catalog (%2)").arg(path, error.text())));
}

QVector<DatasetInfo> Catalog::datasets() const
{
    QSqlQuery query = prepare(kDatasetSelect + QStringLiteral("ORDER BY name"));
    exec(query);
    QVector<DatasetInfo> result;
    while (query.next())
        result.append(readDataset(query));
    return result;
}

int Catalog::datasetId(const QString &name) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT id FROM datasets WHERE name = ?"));
    query.addBindValue(name);
    exec(query);
    return query.next() ? query.value(0).toInt() : 0;
}

DatasetInfo Catalog::dataset(int datasetId) const
{
    QSqlQuery query = prepare(kDatasetSelect + QStringLiteral("WHERE id = ?"));
    query.addBindValue(datasetId);
    exec(query);
    return query.next() ? readDataset(query) : DatasetInfo{};
}

QStringList Catalog::classes(int datasetId) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT name FROM classes WHERE dataset_id = ? ORDER BY name"));
    query.addBindValue(datasetId);
    exec(query);
    QStringList result;
    while (query.next())
        result << query.value(0).toString();
    return result;
}

QVector<CatalogImage> Catalog::images(int datasetId) const
{
    QSqlQuery query = prepare(kImageSelect + QStringLiteral("WHERE i.dataset_id = ? ORDER BY i.rel_path"));
    query.addBindValue(datasetId);
    exec(query);
    QVector<CatalogImage> result;
    while (query.next())
        result.append(readImage(query));
    query.finish();

    QSqlQuery labels = prepare(kLabelSetSelect + QStringLiteral("JOIN images i ON i.id = l.image_id"
                                                                " WHERE i.dataset_id = ? ORDER BY c.name"));
    labels.addBindValue(datasetId);
    exec(labels);
    const QHash<qint64, QStringList> sets = readLabelSets(labels);
    if (!sets.isEmpty()) {
        for (CatalogImage &image : result)
            image.labels = sets.value(image.id);
    }
    return result;
}

CatalogImage Catalog::image(qint64 imageId) const
{
    QSqlQuery query = prepare(kImageSelect + QStringLiteral("WHERE i.id = ?"));
    query.addBindValue(imageId);
    exec(query);
    if (!query.next())
        return {};
    CatalogImage image = readImage(query);
    query.finish();
    QSqlQuery labels = prepare(kLabelSetSelect + QStringLiteral("WHERE l.image_id = ? ORDER BY c.name"));
    labels.addBindValue(imageId);
    exec(labels);
    image.labels = readLabelSets(labels).value(imageId);
    return image;
}

QVector<ClassCount> Catalog::classCounts(int datasetId) const
{
    // A single-label image counts for its class in effect; a multi-label one (no class folder)
    // for each label of its set.
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT label, split, COUNT(*) FROM ("
        " SELECT COALESCE(o.name, c.name) AS label, i.split AS split FROM images i"
        " LEFT JOIN classes c ON c.id = i.class_id"
        " LEFT JOIN classes o ON o.id = i.label_override_id"
        " WHERE i.dataset_id = ? AND i.status = 'ok' AND i.excluded = 0"
        " AND COALESCE(o.name, c.name) IS NOT NULL"
        " UNION ALL"
        " SELECT c.name, i.split FROM image_labels l"
        " JOIN images i ON i.id = l.image_id JOIN classes c ON c.id = l.class_id"
        " WHERE i.dataset_id = ? AND i.status = 'ok' AND i.excluded = 0)"
        " GROUP BY label, split"
        " ORDER BY label, CASE split WHEN 'train' THEN 0 WHEN 'val' THEN 1 WHEN 'test' THEN 2 ELSE 3 END"));
    query.addBindValue(datasetId);
    query.addBindValue(datasetId);
    exec(query);
    QVector<ClassCount> result;
    while (query.next())
        result.append({query.value(0).toString(), query.value(1).toString(), query.value(2).toInt()});
    return result;
}

LabelCooccurrence Catalog::labelCooccurrence(int datasetId) const
{
    LabelCooccurrence result;
    result.labels = classes(datasetId);
    const int n = int(result.labels.size());
    result.counts.fill(0, n * n);
    QHash<QString, int> index;
    for (int i = 0; i < n; ++i)
        index.insert(result.labels.at(i), i);
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT a.name, b.name, COUNT(*) FROM image_labels la"
        " JOIN image_labels lb ON lb.image_id = la.image_id"
        " JOIN images i ON i.id = la.image_id"
        " JOIN classes a ON a.id = la.class_id JOIN classes b ON b.id = lb.class_id"
        " WHERE i.dataset_id = ? AND i.status = 'ok' AND i.excluded = 0"
        " GROUP BY la.class_id, lb.class_id"));
    query.addBindValue(datasetId);
    exec(query);
    while (query.next()) {
        const int row = index.value(query.value(0).toString(), -1);
        const int column = index.value(query.value(1).toString(), -1);
        if (row >= 0 && column >= 0)
            result.counts[row * n + column] = query.value(2).toInt();
    }
    return result;
}

std::vector<engine::ScannedImage> Catalog::previousScan(int datasetId) const
{
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT i.rel_path, c.name, i.split, i.size, i.mtime_ns, i.width, i.height, i.channels, i.bit_depth, i.cmyk,"
        " i.format, i.exif_orientation, i.sha256, i.near_hash, i.status, i.reason"
        " FROM images i LEFT JOIN classes c ON c.id = i.class_id"
        " WHERE i.dataset_id = ? ORDER BY i.rel_path"));
    query.addBindValue(datasetId);
    exec(query);
    std::vector<engine::ScannedImage> result;
    while (query.next()) {
        engine::ScannedImage image;
        image.relPath = query.value(0).toString().toStdString();
        image.className = query.value(1).toString().toStdString();
        image.split = query.value(2).toString().toStdString();
        image.size = query.value(3).toLongLong();
        image.mtimeNs = query.value(4).toLongLong();
        image.header.width = query.value(5).toInt();
        image.header.height = query.value(6).toInt();
        image.header.channels = query.value(7).toInt();
        image.header.bitDepth = query.value(8).toInt();
        image.header.cmyk = query.value(9).toInt() != 0;
        image.header.format = formatFromName(query.value(10).toString());
        image.header.exifOrientation = query.value(11).toInt();
        image.sha256 = query.value(12).toString().toStdString();
        image.status = statusFromName(query.value(14).toString());
        image.reason = query.value(15).toString().toStdString();
        const std::optional<engine::PerceptualHash> hash = hashFromHex(query.value(13).toString());
        // A decoded image without the current hash (imported before it existed) is read again.
        if (image.status != engine::ImageStatus::Rejected && !hash)
            continue;
        image.hash = hash.value_or(engine::PerceptualHash{});
        result.push_back(std::move(image));
    }
    return result;
}

ImportSummary Catalog::applyScan(const QString &name, const engine::ScanOptions &options, const engine::ScanResult &scan)
{
    if (name.trimmed().isEmpty())
        throw WorkspaceError(tr("A dataset needs a name"));

    Transaction transaction(m_db);
    if (!transaction.begin())
        fail(transaction.lastError());

    ImportSummary summary;
    const QString sourceDir = QDir::cleanPath(fromStd(scan.root.empty() ? options.root : scan.root));
    summary.datasetId = datasetId(name);
    {
        QSqlQuery query = prepare(summary.datasetId == 0
                                      ? QStringLiteral("INSERT INTO datasets(source_dir, folder_splits, seed, val_fraction,"
                                                       " test_fraction, imported_at, near_dup_threshold, near_dup_bits,"
                                                       " task, labels_file, name) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                                      : QStringLiteral("UPDATE datasets SET source_dir = ?, folder_splits = ?, seed = ?,"
                                                       " val_fraction = ?, test_fraction = ?, imported_at = ?,"
                                                       " near_dup_threshold = ?, near_dup_bits = ?, task = ?,"
                                                       " labels_file = ? WHERE name = ?"));
        query.addBindValue(sourceDir);
        query.addBindValue(scan.folderSplits ? 1 : 0);
        query.addBindValue(toStoredBits(options.seed));
        query.addBindValue(options.valFraction);
        query.addBindValue(options.testFraction);
        query.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
        query.addBindValue(scan.nearDuplicateDistance);
        query.addBindValue(scan.nearDuplicateDistance > 0 ? scan.hashBits : 0);
        query.addBindValue(QLatin1String(scan.multiLabel ? "multi_label" : "single_label"));
        query.addBindValue(scan.multiLabel ? QDir::cleanPath(fromStd(options.labelsFile)) : QStringLiteral(""));
        query.addBindValue(name);
        exec(query);
        if (summary.datasetId == 0)
            summary.datasetId = query.lastInsertId().toInt();
    }

    // Classes: every class folder of the scan, plus any class an image names (a multi-label
    // image: each label of its set).
    QHash<QString, int> classIds;
    {
        QSqlQuery query = prepare(QStringLiteral("SELECT name, id FROM classes WHERE dataset_id = ?"));
        query.addBindValue(summary.datasetId);
        exec(query);
        while (query.next())
            classIds.insert(query.value(0).toString(), query.value(1).toInt());
    }
    QSet<QString> scannedClasses;
    for (const std::string &className : scan.classes)
        scannedClasses.insert(fromStd(className));
    for (const engine::ScannedImage &image : scan.images) {
        if (!image.className.empty())
            scannedClasses.insert(fromStd(image.className));
        for (const std::string &label : image.labels)
            scannedClasses.insert(fromStd(label));
    }
    {
        QSqlQuery insert = prepare(QStringLiteral("INSERT INTO classes(dataset_id, name) VALUES(?, ?)"));
        QStringList names = scannedClasses.values();
        names.sort(); // ids in name order, the same on every run
        for (const QString &className : std::as_const(names)) {
            if (classIds.contains(className))
                continue;
            insert.bindValue(0, summary.datasetId);
            insert.bindValue(1, className);
            exec(insert);
            classIds.insert(className, insert.lastInsertId().toInt());
        }
    }

    struct Existing
    {
        qint64 id = 0;
        qint64 size = 0;
        qint64 mtimeNs = 0;
        bool seen = false;
        QString sha256;
        bool labelsEdited = false;
    };
    QHash<QString, Existing> existing;
    {
        QSqlQuery query = prepare(QStringLiteral(
            "SELECT rel_path, id, size, mtime_ns, sha256, labels_edited FROM images WHERE dataset_id = ?"));
        query.addBindValue(summary.datasetId);
        exec(query);
        while (query.next()) {
            existing.insert(query.value(0).toString(),
                            {query.value(1).toLongLong(), query.value(2).toLongLong(), query.value(3).toLongLong(),
                             false, query.value(4).toString(), query.value(5).toInt() != 0});
        }
    }
    // The label sets in effect, to write only those that change.
    QHash<qint64, QStringList> labelSets;
    {
        QSqlQuery query = prepare(kLabelSetSelect + QStringLiteral("JOIN images i ON i.id = l.image_id"
                                                                   " WHERE i.dataset_id = ? ORDER BY c.name"));
        query.addBindValue(summary.datasetId);
        exec(query);
        labelSets = readLabelSets(query);
    }
    QSqlQuery clearLabels = prepare(QStringLiteral("DELETE FROM image_labels WHERE image_id = ?"));
    QSqlQuery addLabel = prepare(QStringLiteral("INSERT INTO image_labels(image_id, class_id) VALUES(?, ?)"));
    QSqlQuery clearEdited = prepare(QStringLiteral("UPDATE images SET labels_edited = 0 WHERE id = ?"));

    std::vector<int> nearGroup(scan.images.size(), -1);
    std::vector<int> nearDistance(scan.images.size(), -1);
    for (std::size_t group = 0; group < scan.nearDuplicates.size(); ++group) {
        const std::vector<int> &members = scan.nearDuplicates[group];
        for (std::size_t k = 0; k < members.size(); ++k) {
            const int index = members[k];
            if (index < 0 || std::size_t(index) >= nearGroup.size())
                continue;
            nearGroup[std::size_t(index)] = int(group);
            if (group < scan.nearDuplicateDistances.size() && k < scan.nearDuplicateDistances[group].size())
                nearDistance[std::size_t(index)] = scan.nearDuplicateDistances[group][k];
        }
    }
    summary.nearDuplicateGroups = int(scan.nearDuplicates.size());

    // The scan's columns, in the order both statements below bind them.
    QSqlQuery insert = prepare(QStringLiteral(
        "INSERT INTO images(class_id, split, size, mtime_ns, width, height, channels, bit_depth, cmyk, format,"
        " exif_orientation, sha256, near_hash, status, reason, near_dup_group, near_dup_distance, dataset_id, rel_path)"
        " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    // The CASEs see the row's old sha256: the user's exclusion and relabel stay with the same
    // content and are dropped when the file now holds another picture. The scan's columns are
    // bound a second time for the WHERE, which skips rows that would not change: a re-import
    // of an untouched folder then writes nothing and leaves the indexes alone.
    QSqlQuery update = prepare(QStringLiteral(
        "UPDATE images SET class_id = ?, split = ?, size = ?, mtime_ns = ?, width = ?, height = ?, channels = ?,"
        " bit_depth = ?, cmyk = ?, format = ?, exif_orientation = ?, sha256 = ?, near_hash = ?, status = ?, reason = ?,"
        " near_dup_group = ?, near_dup_distance = ?,"
        " label_override_id = CASE WHEN sha256 = ? THEN label_override_id ELSE NULL END,"
        " excluded = CASE WHEN sha256 = ? THEN excluded ELSE 0 END"
        " WHERE id = ? AND NOT (class_id IS ? AND split = ? AND size = ? AND mtime_ns = ? AND width = ? AND height = ?"
        " AND channels = ? AND bit_depth = ? AND cmyk = ? AND format = ? AND exif_orientation = ? AND sha256 = ?"
        " AND near_hash = ? AND status = ? AND reason = ? AND near_dup_group IS ? AND near_dup_distance IS ?)"));
    constexpr int kScanColumns = 17;
    const QVariant nullInt(QMetaType::fromType<int>());
    for (std::size_t index = 0; index < scan.images.size(); ++index) {
        const engine::ScannedImage &image = scan.images[index];
        const QString relPath = fromStd(image.relPath);
        const QString sha256 = fromStd(image.sha256);
        const auto found = existing.find(relPath);
        const bool isNew = found == existing.end() || found->seen; // a repeated path is inserted and fails loudly
        QSqlQuery &query = isNew ? insert : update;
        const QVariant values[kScanColumns] = {
            image.className.empty() ? nullInt : QVariant(classIds.value(fromStd(image.className))),
            fromStd(image.split),
            qint64(image.size),
            qint64(image.mtimeNs),
            image.header.width,
            image.header.height,
            image.header.channels,
            image.header.bitDepth,
            image.header.cmyk ? 1 : 0,
            QString::fromLatin1(engine::formatName(image.header.format)),
            image.header.exifOrientation,
            sha256,
            image.status == engine::ImageStatus::Rejected ? QStringLiteral("") : hashToHex(image.hash), // '' not NULL
            QString::fromLatin1(engine::statusName(image.status)),
            fromStd(image.reason),
            nearGroup[index] < 0 ? nullInt : QVariant(nearGroup[index]),
            nearDistance[index] < 0 ? nullInt : QVariant(nearDistance[index]),
        };
        for (int column = 0; column < kScanColumns; ++column)
            query.bindValue(column, values[column]);
        if (isNew) {
            query.bindValue(kScanColumns, summary.datasetId);
            query.bindValue(kScanColumns + 1, relPath);
            ++summary.added;
        } else {
            query.bindValue(kScanColumns, sha256);
            query.bindValue(kScanColumns + 1, sha256);
            query.bindValue(kScanColumns + 2, found->id);
            for (int column = 0; column < kScanColumns; ++column)
                query.bindValue(kScanColumns + 3 + column, values[column]);
            found->seen = true;
            // Files the engine never reads (a stray file beside the class folders) are not reused
            // either; with the same size and time they are unchanged, not "changed" every time.
            const bool same = image.reused || (found->size == image.size && found->mtimeNs == image.mtimeNs);
            ++(same ? summary.unchanged : summary.changed);
        }
        exec(query);
        const qint64 imageId = isNew ? query.lastInsertId().toLongLong() : found->id;

        // The label set: the scan's (the labels file's), unless the user edited this picture's.
        QStringList labels;
        for (const std::string &label : image.labels)
            labels << fromStd(label);
        const bool keepEdit = !isNew && found->labelsEdited && found->sha256 == sha256 && scan.multiLabel;
        if (!keepEdit && labelSets.value(imageId) != labels) {
            clearLabels.bindValue(0, imageId);
            exec(clearLabels);
            for (const QString &label : std::as_const(labels)) {
                addLabel.bindValue(0, imageId);
                addLabel.bindValue(1, classIds.value(label));
                exec(addLabel);
            }
        }
        if (!keepEdit && !isNew && found->labelsEdited) {
            clearEdited.bindValue(0, imageId);
            exec(clearEdited);
        }
        switch (image.status) {
        case engine::ImageStatus::Ok:
            ++summary.ok;
            break;
        case engine::ImageStatus::Rejected:
            ++summary.rejected;
            break;
        case engine::ImageStatus::Duplicate:
            ++summary.duplicates;
            break;
        }
    }

    {
        QSqlQuery remove = prepare(QStringLiteral("DELETE FROM images WHERE id = ?"));
        for (const Existing &row : std::as_const(existing)) {
            if (row.seen)
                continue;
            remove.bindValue(0, row.id);
            exec(remove);
            ++summary.removed;
        }
    }

    // Every image row now belongs to the scan, so a class the scan does not name has no image;
    // it stays while a relabel or an edited label set points to it.
    {
        QSqlQuery remove = prepare(QStringLiteral(
            "DELETE FROM classes WHERE id = ? AND NOT EXISTS (SELECT 1 FROM images WHERE label_override_id = ?)"
            " AND NOT EXISTS (SELECT 1 FROM image_labels WHERE class_id = ?)"));
        for (auto it = classIds.cbegin(); it != classIds.cend(); ++it) {
            if (scannedClasses.contains(it.key()))
                continue;
            remove.bindValue(0, it.value());
            remove.bindValue(1, it.value());
            remove.bindValue(2, it.value());
            exec(remove);
        }
    }

    if (!transaction.commit())
        fail(transaction.lastError());
    return summary;
}

void Catalog::setShardsDir(int datasetId, const QString &dir)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE datasets SET shards_dir = ? WHERE id = ?"));
    query.addBindValue(dir.isEmpty() ? QStringLiteral("") : QDir::cleanPath(dir)); // '' not NULL: the column is NOT NULL
    query.addBindValue(datasetId);
    exec(query);
}

void Catalog::setExcluded(qint64 imageId, bool excluded)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE images SET excluded = ? WHERE id = ?"));
    query.addBindValue(excluded ? 1 : 0);
    query.addBindValue(imageId);
    exec(query);
    if (query.numRowsAffected() == 0)
        throw WorkspaceError(tr("No image %1 in the catalog; it may have been removed by a re-import").arg(imageId));
}

void Catalog::relabel(qint64 imageId, const QString &className)
{
    QSqlQuery find = prepare(QStringLiteral(
        "SELECT i.class_id, d.id, d.name, i.rel_path, d.task FROM images i JOIN datasets d ON d.id = i.dataset_id"
        " WHERE i.id = ?"));
    find.addBindValue(imageId);
    exec(find);
    if (!find.next())
        throw WorkspaceError(tr("No image %1 in the catalog; it may have been removed by a re-import").arg(imageId));
    const QVariant folderClassId = find.value(0);
    const int dataset = find.value(1).toInt();
    const QString datasetName = find.value(2).toString();
    const QString relPath = find.value(3).toString();
    const bool multiLabel = find.value(4).toString() == QLatin1String("multi_label");
    find.finish();
    if (multiLabel)
        throw WorkspaceError(tr("%1: cannot relabel it as \"%2\": dataset \"%3\" is multi-label; edit the image's "
                                "label set instead")
                                 .arg(relPath, className, datasetName));

    QSqlQuery lookup = prepare(QStringLiteral("SELECT id FROM classes WHERE dataset_id = ? AND name = ?"));
    lookup.addBindValue(dataset);
    lookup.addBindValue(className);
    exec(lookup);
    if (!lookup.next())
        throw WorkspaceError(tr("%1: cannot relabel it as \"%2\": dataset \"%3\" has no such class")
                                 .arg(relPath, className, datasetName));
    const int classId = lookup.value(0).toInt();
    lookup.finish();

    QSqlQuery query = prepare(QStringLiteral("UPDATE images SET label_override_id = ? WHERE id = ?"));
    const bool isFolderClass = !folderClassId.isNull() && folderClassId.toInt() == classId;
    query.addBindValue(isFolderClass ? QVariant(QMetaType::fromType<int>()) : QVariant(classId));
    query.addBindValue(imageId);
    exec(query);
}

Catalog::LabelTarget Catalog::labelTarget(qint64 imageId) const
{
    QSqlQuery find = prepare(QStringLiteral("SELECT dataset_id, rel_path, labels_edited FROM images WHERE id = ?"));
    find.addBindValue(imageId);
    exec(find);
    if (!find.next())
        throw WorkspaceError(tr("No image %1 in the catalog; it may have been removed by a re-import").arg(imageId));
    LabelTarget target;
    const int datasetId = find.value(0).toInt();
    target.relPath = find.value(1).toString();
    target.labelsEdited = find.value(2).toInt() != 0;
    find.finish();
    target.dataset = dataset(datasetId);
    return target;
}

void Catalog::requireMultiLabel(const LabelTarget &target) const
{
    if (!target.dataset.multiLabel())
        throw WorkspaceError(tr("%1: dataset \"%2\" has one class per image (its class folders); relabel the image "
                                "instead of giving it a label set")
                                 .arg(target.relPath, target.dataset.name));
}

int Catalog::classId(int datasetId, const QString &name) const
{
    QSqlQuery lookup = prepare(QStringLiteral("SELECT id FROM classes WHERE dataset_id = ? AND name = ?"));
    lookup.addBindValue(datasetId);
    lookup.addBindValue(name);
    exec(lookup);
    return lookup.next() ? lookup.value(0).toInt() : 0;
}

int Catalog::insertClass(int datasetId, const QString &name)
{
    QSqlQuery insert = prepare(QStringLiteral("INSERT INTO classes(dataset_id, name) VALUES(?, ?)"));
    insert.addBindValue(datasetId);
    insert.addBindValue(name);
    exec(insert);
    return insert.lastInsertId().toInt();
}

void Catalog::replaceLabelSet(qint64 imageId, const QVector<int> &classIds, bool edited)
{
    QSqlQuery clear = prepare(QStringLiteral("DELETE FROM image_labels WHERE image_id = ?"));
    clear.addBindValue(imageId);
    exec(clear);
    QSqlQuery add = prepare(QStringLiteral("INSERT INTO image_labels(image_id, class_id) VALUES(?, ?)"));
    for (int classId : classIds) {
        add.bindValue(0, imageId);
        add.bindValue(1, classId);
        exec(add);
    }
    QSqlQuery flag = prepare(QStringLiteral("UPDATE images SET labels_edited = ? WHERE id = ?"));
    flag.addBindValue(edited ? 1 : 0);
    flag.addBindValue(imageId);
    exec(flag);
}

QVector<int> Catalog::labelIds(const LabelTarget &target, QStringList labels) const
{
    labels.sort();
    labels.removeDuplicates();
    QVector<int> ids;
    for (const QString &label : std::as_const(labels)) {
        const int id = classId(target.dataset.id, label);
        if (id == 0)
            throw WorkspaceError(tr("%1: cannot give it the label \"%2\": dataset \"%3\" has no such label")
                                     .arg(target.relPath, label, target.dataset.name));
        ids.append(id);
    }
    return ids;
}

void Catalog::setLabels(qint64 imageId, const QStringList &labels)
{
    Transaction transaction(m_db);
    if (!transaction.begin())
        fail(transaction.lastError());
    const LabelTarget target = labelTarget(imageId);
    requireMultiLabel(target);
    const QVector<int> classIds = labelIds(target, labels);
    if (classIds.isEmpty())
        throw WorkspaceError(tr("%1: an image needs at least one label; exclude it instead").arg(target.relPath));
    replaceLabelSet(imageId, classIds, true);
    if (!transaction.commit())
        fail(transaction.lastError());
}

QString Catalog::addLabel(qint64 imageId, const QString &label, const QStringList &labels)
{
    const QString name = label.trimmed();
    Transaction transaction(m_db);
    if (!transaction.begin())
        fail(transaction.lastError());
    const LabelTarget target = labelTarget(imageId);
    requireMultiLabel(target);
    int newId = classId(target.dataset.id, name);
    if (newId == 0) {
        const QString problem = labelNameProblem(name);
        if (!problem.isEmpty())
            throw WorkspaceError(tr("%1: cannot add the label \"%2\": %3").arg(target.relPath, name, problem));
        newId = insertClass(target.dataset.id, name);
    }
    QStringList others = labels;
    others.removeAll(name);
    QVector<int> classIds = labelIds(target, others);
    classIds.append(newId);
    replaceLabelSet(imageId, classIds, true);
    if (!transaction.commit())
        fail(transaction.lastError());
    return name;
}

void Catalog::resetLabels(qint64 imageId)
{
    // Everything slow (the labels file) happens before the write transaction takes the lock.
    const LabelTarget target = labelTarget(imageId);
    if (!target.dataset.multiLabel())
        throw WorkspaceError(tr("%1: dataset \"%2\" has one class per image (its class folders); it has no labels "
                                "file to reset the image's labels to")
                                 .arg(target.relPath, target.dataset.name));
    if (!target.labelsEdited)
        return;
    const QString file = target.dataset.labelsFile;
    const QString shown = QDir::toNativeSeparators(file);
    if (file.isEmpty())
        throw WorkspaceError(tr("%1: cannot reset its labels: dataset \"%2\" records no labels file")
                                 .arg(target.relPath, target.dataset.name));
    const QFileInfo info(file);
    if (!info.exists())
        throw WorkspaceError(tr("%1: cannot reset its labels to the labels file's: %2 is gone (re-import the dataset "
                                "with its labels file, or tick the labels by hand)")
                                 .arg(target.relPath, shown));
    // The catalog holds only the sets in effect; the file's rows are the import's only while the file
    // is as it was then. imported_at has whole seconds, written after the scan read the file.
    const QDateTime imported = QDateTime::fromString(target.dataset.importedAt, Qt::ISODate);
    const QDateTime modified = info.lastModified();
    if (imported.isValid() && modified.toSecsSinceEpoch() > imported.toSecsSinceEpoch())
        throw WorkspaceError(tr("%1: cannot reset its labels: %2 was modified (%3) after the dataset was imported "
                                "(%4), so its rows may no longer be the ones imported; re-import the dataset (your "
                                "edits are kept), then reset the image")
                                 .arg(target.relPath, shown, modified.toUTC().toString(Qt::ISODate),
                                      imported.toUTC().toString(Qt::ISODate)));
    engine::LabelsFile parsed;
    try {
        parsed = engine::readLabelsFile(file.toStdString());
    } catch (const std::exception &e) {
        throw WorkspaceError(tr("%1: cannot reset its labels: %2").arg(target.relPath, QString::fromStdString(e.what())));
    }
    const std::string relPath = target.relPath.toStdString();
    const auto row = std::find_if(parsed.rows.begin(), parsed.rows.end(),
                                  [&relPath](const engine::LabelsRow &r) { return r.path == relPath; });
    if (row == parsed.rows.end())
        throw WorkspaceError(tr("%1: cannot reset its labels: %2 has no usable row for it").arg(target.relPath, shown));

    Transaction transaction(m_db);
    if (!transaction.begin())
        fail(transaction.lastError());
    if (!labelTarget(imageId).labelsEdited) // a re-import in between took the file's set already
        return;
    QVector<int> classIds;
    for (const std::string &label : row->labels) {
        // Each of the file's labels became a class at the import; one a re-import dropped since comes back.
        const QString name = fromStd(label);
        const int id = classId(target.dataset.id, name);
        classIds.append(id != 0 ? id : insertClass(target.dataset.id, name));
    }
    replaceLabelSet(imageId, classIds, false);
    if (!transaction.commit())
        fail(transaction.lastError());
}

QString Catalog::labelNameProblem(const QString &name)
{
    const QString label = name.trimmed();
    if (label.isEmpty())
        return tr("a label needs a name (spaces alone are none)");
    const qsizetype length = label.toUcs4().size();
    if (length > kMaxLabelLength)
        return tr("a label has at most %1 characters; this one has %2").arg(kMaxLabelLength).arg(length);
    if (label.contains(QLatin1Char(';')) || label.contains(QLatin1Char('|')))
        return tr("a label cannot hold ';' or '|' (they separate the labels in a labels file)");
    if (label.contains(QLatin1Char(',')))
        return tr("a label cannot hold ',' (it separates the columns of a CSV labels file)");
    for (QChar c : label) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator || c == QChar::ParagraphSeparator)
            return tr("a label cannot hold a line break, a tab or another control character");
    }
    return {};
}

void Catalog::writeRejectedCsv(int datasetId, const QString &path) const
{
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT rel_path, status, reason FROM images WHERE dataset_id = ? AND status <> 'ok' ORDER BY rel_path"));
    query.addBindValue(datasetId);
    exec(query);
    QString text = QStringLiteral("path,status,reason\n");
    while (query.next()) {
        text += csvField(query.value(0).toString()) + QLatin1Char(',') + csvField(query.value(1).toString())
            + QLatin1Char(',') + csvField(query.value(2).toString()) + QLatin1Char('\n');
    }

    writeFileAtomically(path, text.toUtf8()); // WorkspaceError naming the file and the reason
}

} // namespace lathe::workspace
