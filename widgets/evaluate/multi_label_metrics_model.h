#pragma once

#include "engine/training/multilabel_metrics.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

#include <vector>

namespace lathe::ui {

// The per-label table of a multi-label evaluation (engine::computeMultiLabelMetrics' object):
// average precision, precision, recall, F1, support, predictions and threshold per label, then
// the micro and macro averages. With every image's scores and label set the thresholds are
// editable (the Threshold column, or setThreshold()): each edit recomputes precision, recall and
// F1 per label, the averages and the false-positive confusion with the engine's functions
// (engine/training/multilabel_metrics.h), so the numbers are exactly what `lathe-cli eval` would
// print at those thresholds. Average precision does not depend on the thresholds. Without scores
// (an evaluation stored before they were kept) the table shows the stored metrics, read-only.
// Qt::UserRole holds a cell's raw number.
class MultiLabelMetricsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { LabelColumn, AveragePrecision, Precision, Recall, F1, Support, Predicted, Threshold, ColumnCount };

    explicit MultiLabelMetricsModel(QObject *parent = nullptr);

    // scores[n][k] and labelSets[n] per image (both empty: no editing). The tuned thresholds are
    // metrics "thresholds" (the checkpoint's).
    void setEvaluation(const QStringList &labels, const nlohmann::json &metrics, std::vector<std::vector<int>> labelSets,
                       std::vector<std::vector<float>> scores);
    void clear();

    bool canEditThresholds() const { return !m_scores.empty(); }
    int labelCount() const { return int(m_labels.size()); }
    QString labelName(int label) const { return m_labels.value(label); }
    // Rows 0..labelCount()-1 are the labels, then "micro avg" and "macro avg" (NaN where a
    // column has no value there).
    double value(int row, Column column) const;
    const std::vector<double> &thresholds() const { return m_thresholds; }
    const std::vector<double> &tunedThresholds() const { return m_tuned; }
    bool thresholdsAreTuned() const { return m_thresholds == m_tuned; }
    // Clamped to [0, 1]; ignored without scores. thresholdsChanged() follows a change.
    void setThreshold(int label, double threshold);
    void resetThresholds();

    // [true label][falsely predicted label] at the current thresholds, and the images that carry
    // each label (the shares of a row are taken of them).
    const std::vector<std::vector<std::int64_t>> &falsePositives() const { return m_falsePositives; }
    std::int64_t support(int label) const;
    // The images (indices into the evaluation's predictions) that carry trueLabel and had
    // predictedLabel predicted at the current thresholds without carrying it.
    std::vector<int> falsePositiveImages(int trueLabel, int predictedLabel) const;
    // The metrics object at the current thresholds (per_class, micro, macro, thresholds and
    // false_positive_confusion updated), for saving.
    nlohmann::json currentMetrics() const;
    double mapMacro() const { return m_mapMacro; }
    double mapMicro() const { return m_mapMicro; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void thresholdsChanged();

private:
    void recompute();

    QStringList m_labels;
    nlohmann::json m_metrics;
    engine::MultiLabelScores m_scores;
    engine::MultiLabelTargets m_targets;
    std::vector<double> m_tuned;
    std::vector<double> m_thresholds;
    std::vector<double> m_averagePrecision; // NaN without positives
    double m_mapMacro = 0;
    double m_mapMicro = 0;
    engine::MultiLabelPrf m_prf;
    std::vector<std::vector<std::int64_t>> m_falsePositives;
    std::vector<std::int64_t> m_withoutTrueLabels;
};

} // namespace lathe::ui
