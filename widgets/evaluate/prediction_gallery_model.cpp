#include "evaluate/prediction_gallery_model.h"

#include "common/background_task.h"
#include "engine/base/engine_error.h"

#include <QBuffer>
#include <QImageReader>
#include <QLocale>
#include <QPainter>

#include <algorithm>

namespace lathe::ui {
namespace {

struct ThumbnailBatch
{
    quint64 generation = 0;
    QList<QPair<quint64, QImage>> images; // a null image: the record could not be decoded
};

// Newest requests first, at most this many per worker task: the rows in view arrive quickly.
constexpr int kBatch = 24;
constexpr int kMaxPending = 512;

} // namespace
} // namespace lathe::ui

Q_DECLARE_METATYPE(lathe::ui::ThumbnailBatch)

namespace lathe::ui {

ShardRecordSource::ShardRecordSource(const QString &dataDir, const QString &split)
    : m_dataDir(dataDir)
    , m_split(split)
{
}

ShardRecordSource::~ShardRecordSource() = default;

QByteArray ShardRecordSource::read(quint64 record)
{
    QMutexLocker lock(&m_mutex);
    if (!m_dataset) {
        auto dataset = std::make_unique<engine::ShardDataset>(m_dataDir.toStdString());
        m_refs = dataset->epochOrder(m_split.toStdString(), 0, 0, 0, 1, false);
        m_dataset = std::move(dataset);
    }
    if (record >= m_refs.size())
        throw engine::EngineError(m_dataDir.toStdString() + ": split \"" + m_split.toStdString() + "\" has " +
                                  std::to_string(m_refs.size()) + " records, not record " + std::to_string(record));
    const engine::ImageExample example = m_dataset->read(m_refs[record]);
    return QByteArray(example.encoded.data(), qsizetype(example.encoded.size()));
}

PredictionGalleryModel::PredictionGalleryModel(QObject *parent)
    : QAbstractListModel(parent)
    , m_predictions(std::make_shared<std::vector<engine::Prediction>>())
{
    m_pool.setMaxThreadCount(1);
    m_placeholder = QPixmap(kThumbnailSize, kThumbnailSize);
    m_placeholder.fill(QColor(128, 128, 128, 40));
}

PredictionGalleryModel::~PredictionGalleryModel()
{
    m_pool.clear();
    m_pool.waitForDone();
}

void PredictionGalleryModel::setEvaluation(const QStringList &classes, std::vector<engine::Prediction> predictions,
                                           const QString &dataDir, const QString &split, bool multiLabel)
{
    beginResetModel();
    ++m_generation;
    m_classes = classes;
    m_multiLabel = multiLabel;
    m_predictions = std::make_shared<std::vector<engine::Prediction>>(std::move(predictions));
    m_source = dataDir.isEmpty() ? nullptr : std::make_shared<ShardRecordSource>(dataDir, split);
    m_rows.clear();
    m_rowOfRecord.clear();
    m_mode = Mode::Empty;
    m_cellTrue = m_cellPredicted = -1;
    m_thumbnails.clear();
    m_pending.clear();
    m_requested.clear();
    m_failed.clear();
    m_loading = false;
    endResetModel();
}

void PredictionGalleryModel::clear()
{
    setEvaluation({}, {}, {}, {});
}

int PredictionGalleryModel::predictedClass(int row) const
{
    const engine::Prediction &p = prediction(row);
    return p.topClasses.empty() ? -1 : p.topClasses.front();
}

const engine::Prediction &PredictionGalleryModel::prediction(int row) const
{
    return m_predictions->at(std::size_t(m_rows.at(std::size_t(row))));
}

void PredictionGalleryModel::setRows(std::vector<int> rows, Mode mode)
{
    const auto &all = *m_predictions;
    // Highest loss first; equal losses by record, so the order never depends on the sort.
    std::sort(rows.begin(), rows.end(), [&all](int a, int b) {
        if (all[a].loss != all[b].loss)
            return all[a].loss > all[b].loss;
        return all[a].record < all[b].record;
    });
    beginResetModel();
    m_rows = std::move(rows);
    m_mode = mode;
    m_rowOfRecord.clear();
    for (int r = 0; r < int(m_rows.size()); ++r)
        m_rowOfRecord.insert(all[m_rows[r]].record, r);
    m_pending.clear(); // rows that are gone need no thumbnail; those shown ask again
    m_requested.clear();
    endResetModel();
}

void PredictionGalleryModel::showCell(int trueClass, int predictedClass)
{
    std::vector<int> rows;
    const auto &all = *m_predictions;
    for (int i = 0; i < int(all.size()); ++i) {
        const int predicted = all[i].topClasses.empty() ? -1 : all[i].topClasses.front();
        if (all[i].label == trueClass && predicted == predictedClass)
            rows.push_back(i);
    }
    m_cellTrue = trueClass;
    m_cellPredicted = predictedClass;
    setRows(std::move(rows), Mode::Cell);
}

void PredictionGalleryModel::showFalsePositives(int trueLabel, int predictedLabel, std::vector<int> rows)
{
    const int n = int(m_predictions->size());
    rows.erase(std::remove_if(rows.begin(), rows.end(), [n](int r) { return r < 0 || r >= n; }), rows.end());
    m_cellTrue = trueLabel;
    m_cellPredicted = predictedLabel;
    setRows(std::move(rows), Mode::FalsePositives);
}

void PredictionGalleryModel::showHighestLoss()
{
    std::vector<int> rows(m_predictions->size());
    for (int i = 0; i < int(rows.size()); ++i)
        rows[i] = i;
    m_cellTrue = m_cellPredicted = -1;
    setRows(std::move(rows), Mode::HighestLoss);
}

QString PredictionGalleryModel::description() const
{
    switch (m_mode) {
    case Mode::Cell:
        return tr("True %1, predicted %2: %n image(s), highest loss first.", nullptr, rowCount())
            .arg(m_classes.value(m_cellTrue), m_classes.value(m_cellPredicted));
    case Mode::FalsePositives:
        return tr("Carrying %1, falsely predicted %2: %n image(s), highest loss first.", nullptr, rowCount())
            .arg(m_classes.value(m_cellTrue), m_classes.value(m_cellPredicted));
    case Mode::HighestLoss:
        return tr("All %n image(s), highest loss first.", nullptr, rowCount());
    default:
        return tr("Click a cell of the confusion matrix, or show the highest-loss images.");
    }
}

bool PredictionGalleryModel::hasThumbnail(int row) const
{
    return row >= 0 && row < rowCount() && m_thumbnails.contains(prediction(row).record);
}

int PredictionGalleryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant PredictionGalleryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const engine::Prediction &p = prediction(index.row());
    const int predicted = p.topClasses.empty() ? -1 : p.topClasses.front();
    const float probability = p.topProbs.empty() ? 0.0f : p.topProbs.front();
    if (m_multiLabel && (role == Qt::DisplayRole || role == Qt::ToolTipRole)) {
        QStringList labels, top;
        for (int c : p.labels)
            labels << m_classes.value(c);
        for (std::size_t i = 0; i < p.topClasses.size() && i < p.topProbs.size() && i < 3; ++i)
            top << tr("%1 %2").arg(m_classes.value(p.topClasses[i]), QLocale().toString(p.topProbs[i], 'f', 2));
        const QString set = labels.isEmpty() ? tr("(no label)") : labels.join(QStringLiteral(", "));
        if (role == Qt::DisplayRole)
            return set;
        return tr("%1\nLabels: %2\nHighest scores: %3\nLoss: %4")
            .arg(QString::fromStdString(p.filename), set, top.join(QStringLiteral(", ")), QLocale().toString(p.loss, 'f', 3));
    }
    switch (role) {
    case Qt::DisplayRole:
        return predicted == p.label ? tr("%1 (%2)").arg(m_classes.value(predicted), QLocale().toString(probability, 'f', 2))
                                    : tr("%1 → %2 (%3)").arg(m_classes.value(p.label), m_classes.value(predicted),
                                                            QLocale().toString(probability, 'f', 2));
    case Qt::ToolTipRole:
        return tr("%1\nTrue: %2\nPredicted: %3 (%4)\nLoss: %5")
            .arg(QString::fromStdString(p.filename), m_classes.value(p.label), m_classes.value(predicted),
                 QLocale().toString(probability, 'f', 3), QLocale().toString(p.loss, 'f', 3));
    case Qt::DecorationRole: {
        const auto it = m_thumbnails.constFind(p.record);
        if (it != m_thumbnails.constEnd())
            return *it;
        if (!m_failed.contains(p.record))
            requestThumbnail(p.record);
        return m_placeholder;
    }
    case FilenameRole:
        return QString::fromStdString(p.filename);
    case RecordRole:
        return qulonglong(p.record);
    case LabelRole:
        return p.label;
    case PredictedRole:
        return predicted;
    case ProbabilityRole:
        return double(probability);
    case LossRole:
        return double(p.loss);
    default:
        return {};
    }
}

void PredictionGalleryModel::requestThumbnail(quint64 record) const
{
    if (!m_source || m_requested.contains(record))
        return;
    m_requested.insert(record);
    m_pending.append(record);
    while (m_pending.size() > kMaxPending)
        m_requested.remove(m_pending.takeFirst());
    if (!m_scheduled) {
        // data() is const and may be called while painting: start the work from the event loop.
        m_scheduled = true;
        QMetaObject::invokeMethod(const_cast<PredictionGalleryModel *>(this), &PredictionGalleryModel::loadNext,
                                  Qt::QueuedConnection);
    }
}

void PredictionGalleryModel::loadNext()
{
    m_scheduled = false;
    if (m_loading || m_pending.isEmpty() || !m_source)
        return;
    QList<quint64> batch;
    while (!m_pending.isEmpty() && batch.size() < kBatch)
        batch.append(m_pending.takeLast());
    m_loading = true;
    const quint64 generation = m_generation;
    const std::shared_ptr<ShardRecordSource> source = m_source;
    BackgroundTask::start(
        &m_pool, this,
        [source, batch, generation]() -> QVariant {
            ThumbnailBatch out;
            out.generation = generation;
            for (quint64 record : batch) {
                QImage image;
                try {
                    QByteArray bytes = source->read(record);
                    QBuffer buffer(&bytes);
                    QImageReader reader(&buffer);
                    reader.setAutoTransform(true); // EXIF orientation, as training sees it
                    image = reader.read();
                    if (!image.isNull())
                        image = image.scaled(kThumbnailSize, kThumbnailSize, Qt::KeepAspectRatio,
                                             image.width() < kThumbnailSize ? Qt::FastTransformation
                                                                            : Qt::SmoothTransformation);
                } catch (const std::exception &) {
                    image = QImage(); // shown as a broken thumbnail
                }
                out.images.append({record, image});
            }
            return QVariant::fromValue(out);
        },
        [this](const QVariant &value) {
            const ThumbnailBatch batch = value.value<ThumbnailBatch>();
            if (batch.generation != m_generation)
                return; // a newer evaluation; its loads were started afresh
            m_loading = false;
            for (const auto &[record, image] : batch.images) {
                if (image.isNull()) {
                    m_failed.insert(record);
                    QPixmap broken(kThumbnailSize, kThumbnailSize);
                    broken.fill(QColor(200, 60, 60, 60));
                    m_thumbnails.insert(record, broken);
                } else {
                    m_thumbnails.insert(record, QPixmap::fromImage(image));
                }
                const auto row = m_rowOfRecord.constFind(record);
                if (row != m_rowOfRecord.constEnd())
                    Q_EMIT dataChanged(index(*row), index(*row), {Qt::DecorationRole});
            }
            Q_EMIT thumbnailsLoaded();
            loadNext();
        },
        [this, generation](const QString &) {
            if (generation == m_generation)
                m_loading = false;
        });
}

} // namespace lathe::ui
