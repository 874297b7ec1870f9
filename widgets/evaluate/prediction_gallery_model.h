#pragma once

#include "engine/inference/evaluation.h"
#include "engine/dataset/shard_dataset.h"

#include <QAbstractListModel>
#include <QHash>
#include <QImage>
#include <QMutex>
#include <QPixmap>
#include <QSet>
#include <QStringList>
#include <QThreadPool>

#include <memory>
#include <vector>

namespace lathe::ui {

// The encoded bytes of a split's records by position (engine::Prediction::record: shard by
// shard, record by record), read from the shards. Opened on first use; thread-safe (one
// ShardDataset behind a mutex).
class ShardRecordSource
{
public:
    ShardRecordSource(const QString &dataDir, const QString &split);
    ~ShardRecordSource();

    // Throws EngineError naming the shard, or the record position when the split is shorter.
    QByteArray read(quint64 record);
    QString dataDir() const { return m_dataDir; }
    QString split() const { return m_split; }

private:
    QString m_dataDir;
    QString m_split;
    QMutex m_mutex;
    std::unique_ptr<engine::ShardDataset> m_dataset;
    std::vector<engine::RecordRef> m_refs;
};

// The images of an evaluation in a gallery: either one cell of the confusion matrix (the
// images of a true class predicted as another, highest loss first), one cell of a multi-label
// evaluation's false-positive confusion (images that carry a label and had another predicted
// that they do not carry; the page picks them at its thresholds) or every image by decreasing
// loss ("highest loss"). A multi-label evaluation's rows name the images' label sets. Thumbnails are decoded lazily from the shards on a worker
// thread; a row shows a placeholder until its thumbnail arrives.
class PredictionGalleryModel : public QAbstractListModel
{
    Q_OBJECT

public:
    enum Role {
        FilenameRole = Qt::UserRole + 1,
        RecordRole,
        LabelRole,
        PredictedRole,
        ProbabilityRole,
        LossRole,
    };
    enum class Mode { Empty, Cell, FalsePositives, HighestLoss };
    static constexpr int kThumbnailSize = 96;

    explicit PredictionGalleryModel(QObject *parent = nullptr);
    ~PredictionGalleryModel() override;

    // The evaluation to show, and where its images are (dataDir empty: no thumbnails).
    void setEvaluation(const QStringList &classes, std::vector<engine::Prediction> predictions, const QString &dataDir,
                       const QString &split, bool multiLabel = false);
    void clear();
    bool isMultiLabel() const { return m_multiLabel; }

    void showCell(int trueClass, int predictedClass);
    // A false-positive cell: rows are indices into predictions(), which the caller chose.
    void showFalsePositives(int trueLabel, int predictedLabel, std::vector<int> rows);
    void showHighestLoss();
    Mode mode() const { return m_mode; }
    int cellTrue() const { return m_cellTrue; }
    int cellPredicted() const { return m_cellPredicted; }
    QString description() const;

    const engine::Prediction &prediction(int row) const;
    int predictedClass(int row) const;
    const QStringList &classes() const { return m_classes; }
    const std::vector<engine::Prediction> &predictions() const { return *m_predictions; }
    std::shared_ptr<ShardRecordSource> source() const { return m_source; }
    bool hasThumbnail(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // A batch of thumbnails arrived (rows were updated).
    void thumbnailsLoaded();

private:
    void setRows(std::vector<int> rows, Mode mode);
    void requestThumbnail(quint64 record) const;
    void loadNext();

    QStringList m_classes;
    std::shared_ptr<std::vector<engine::Prediction>> m_predictions;
    std::shared_ptr<ShardRecordSource> m_source;
    std::vector<int> m_rows; // indices into m_predictions
    QHash<quint64, int> m_rowOfRecord;
    Mode m_mode = Mode::Empty;
    int m_cellTrue = -1;
    int m_cellPredicted = -1;
    bool m_multiLabel = false;

    QThreadPool m_pool;
    quint64 m_generation = 0;
    QHash<quint64, QPixmap> m_thumbnails;
    mutable QList<quint64> m_pending; // newest last
    mutable QSet<quint64> m_requested;
    QSet<quint64> m_failed;
    bool m_loading = false;
    mutable bool m_scheduled = false;
    QPixmap m_placeholder;
};

} // namespace lathe::ui
