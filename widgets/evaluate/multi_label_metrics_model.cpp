#include "evaluate/multi_label_metrics_model.h"

#include <QFont>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double number(const nlohmann::json &object, const char *key, double fallback = kNaN)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

} // namespace

MultiLabelMetricsModel::MultiLabelMetricsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void MultiLabelMetricsModel::clear()
{
    setEvaluation({}, nlohmann::json(), {}, {});
}

void MultiLabelMetricsModel::setEvaluation(const QStringList &labels, const nlohmann::json &metrics,
                                           std::vector<std::vector<int>> labelSets,
                                           std::vector<std::vector<float>> scores)
{
    beginResetModel();
    m_labels = labels;
    m_metrics = metrics.is_object() ? metrics : nlohmann::json::object();
    m_scores.clear();
    m_targets.clear();
    m_prf = engine::MultiLabelPrf();
    m_falsePositives.clear();
    m_withoutTrueLabels.clear();
    const std::size_t k = std::size_t(labels.size());
    m_mapMacro = number(m_metrics, "map");
    m_mapMicro = number(m_metrics, "map_micro");

    // Each label's stored row: AP, and what the table shows when it cannot recompute.
    const nlohmann::json perClass = m_metrics.value("per_class", nlohmann::json::array());
    m_averagePrecision.assign(k, kNaN);
    m_tuned.assign(k, engine::kDefaultMultiLabelThreshold);
    const nlohmann::json thresholds = m_metrics.value("thresholds", nlohmann::json::array());
    for (std::size_t j = 0; j < k; ++j) {
        if (thresholds.is_array() && j < thresholds.size() && thresholds[j].is_number())
            m_tuned[j] = thresholds[j].get<double>();
        if (perClass.is_array() && j < perClass.size()) {
            const nlohmann::json &row = perClass[j];
            m_averagePrecision[j] = number(row, "average_precision");
            m_prf.precision.push_back(number(row, "precision"));
            m_prf.recall.push_back(number(row, "recall"));
            m_prf.f1.push_back(number(row, "f1"));
            m_prf.support.push_back(std::int64_t(number(row, "support", 0)));
            m_prf.predicted.push_back(std::int64_t(number(row, "predicted", 0)));
        } else {
            m_prf.precision.push_back(kNaN);
            m_prf.recall.push_back(kNaN);
            m_prf.f1.push_back(kNaN);
            m_prf.support.push_back(0);
            m_prf.predicted.push_back(0);
        }
    }
    for (engine::PrfAverage *average : {&m_prf.micro, &m_prf.macro}) {
        const nlohmann::json a = m_metrics.value(average == &m_prf.micro ? "micro" : "macro", nlohmann::json());
        average->precision = number(a, "precision");
        average->recall = number(a, "recall");
        average->f1 = number(a, "f1");
    }
    const nlohmann::json confusion = m_metrics.value("false_positive_confusion", nlohmann::json());
    try {
        if (confusion.is_object()) {
            m_falsePositives = confusion.at("counts").get<std::vector<std::vector<std::int64_t>>>();
            m_withoutTrueLabels = confusion.value("without_true_labels", std::vector<std::int64_t>());
        }
    } catch (const std::exception &) {
        m_falsePositives.clear(); // shown empty
    }
    m_thresholds = m_tuned;

    if (k > 0 && !scores.empty() && scores.size() == labelSets.size()) {
        try {
            m_targets = engine::targetsFromLabelSets(labelSets, int(k));
            m_scores = std::move(scores);
            recompute(); // checks the shapes; the stored numbers are what it gives at the tuned thresholds
        } catch (const std::exception &) {
            m_scores.clear(); // malformed: the stored metrics, read-only
            m_targets.clear();
        }
    }
    endResetModel();
}

void MultiLabelMetricsModel::recompute()
{
    m_prf = engine::precisionRecallF1(m_scores, m_targets, m_thresholds);
    const engine::FalsePositiveConfusion confusion = engine::falsePositiveConfusion(m_scores, m_targets, m_thresholds);
    m_falsePositives = confusion.counts;
    m_withoutTrueLabels = confusion.withoutTrueLabels;
}

void MultiLabelMetricsModel::setThreshold(int label, double threshold)
{
    if (!canEditThresholds() || label < 0 || label >= labelCount() || std::isnan(threshold))
        return;
    threshold = std::clamp(threshold, 0.0, 1.0);
    if (m_thresholds[std::size_t(label)] == threshold)
        return;
    m_thresholds[std::size_t(label)] = threshold;
    recompute();
    // The label's row and the two averages change.
    Q_EMIT dataChanged(index(label, 0), index(label, ColumnCount - 1));
    Q_EMIT dataChanged(index(labelCount(), 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT thresholdsChanged();
}

void MultiLabelMetricsModel::resetThresholds()
{
    if (!canEditThresholds() || thresholdsAreTuned())
        return;
    m_thresholds = m_tuned;
    recompute();
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    Q_EMIT thresholdsChanged();
}

std::int64_t MultiLabelMetricsModel::support(int label) const
{
    return label >= 0 && std::size_t(label) < m_prf.support.size() ? m_prf.support[std::size_t(label)] : 0;
}

std::vector<int> MultiLabelMetricsModel::falsePositiveImages(int trueLabel, int predictedLabel) const
{
    std::vector<int> rows;
    if (!canEditThresholds() || trueLabel < 0 || predictedLabel < 0 || trueLabel >= labelCount() ||
        predictedLabel >= labelCount())
        return rows;
    const std::size_t t = std::size_t(trueLabel), p = std::size_t(predictedLabel);
    for (std::size_t n = 0; n < m_scores.size(); ++n)
        if (m_targets[n][t] == 1 && m_targets[n][p] == 0 && double(m_scores[n][p]) >= m_thresholds[p])
            rows.push_back(int(n));
    return rows;
}

nlohmann::json MultiLabelMetricsModel::currentMetrics() const
{
    nlohmann::json m = m_metrics;
    if (!canEditThresholds())
        return m;
    m["thresholds"] = m_thresholds;
    nlohmann::json &perClass = m["per_class"];
    for (std::size_t j = 0; j < m_thresholds.size() && perClass.is_array() && j < perClass.size(); ++j) {
        perClass[j]["precision"] = m_prf.precision[j];
        perClass[j]["recall"] = m_prf.recall[j];
        perClass[j]["f1"] = m_prf.f1[j];
        perClass[j]["predicted"] = m_prf.predicted[j];
        perClass[j]["threshold"] = m_thresholds[j];
    }
    const auto average = [](const engine::PrfAverage &a) {
        return nlohmann::json{{"precision", a.precision}, {"recall", a.recall}, {"f1", a.f1}};
    };
    m["micro"] = average(m_prf.micro);
    m["macro"] = average(m_prf.macro);
    m["false_positive_confusion"] = {{"counts", m_falsePositives}, {"without_true_labels", m_withoutTrueLabels}};
    return m;
}

double MultiLabelMetricsModel::value(int row, Column column) const
{
    const int k = labelCount();
    if (row < 0 || row >= rowCount())
        return kNaN;
    if (row >= k) {
        const engine::PrfAverage &a = row == k ? m_prf.micro : m_prf.macro;
        switch (column) {
        case AveragePrecision:
            return row == k ? m_mapMicro : m_mapMacro;
        case Precision:
            return a.precision;
        case Recall:
            return a.recall;
        case F1:
            return a.f1;
        default:
            return kNaN;
        }
    }
    const std::size_t j = std::size_t(row);
    switch (column) {
    case AveragePrecision:
        return m_averagePrecision[j];
    case Precision:
        return m_prf.precision[j];
    case Recall:
        return m_prf.recall[j];
    case F1:
        return m_prf.f1[j];
    case Support:
        return double(m_prf.support[j]);
    case Predicted:
        return double(m_prf.predicted[j]);
    case Threshold:
        return m_thresholds[j];
    default:
        return kNaN;
    }
}

int MultiLabelMetricsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_labels.isEmpty() ? 0 : int(m_labels.size()) + 2;
}

int MultiLabelMetricsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags MultiLabelMetricsModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Threshold && index.row() < labelCount() && canEditThresholds())
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant MultiLabelMetricsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const int row = index.row();
    const auto column = Column(index.column());
    const bool average = row >= labelCount();
    if (column == LabelColumn) {
        if (role == Qt::DisplayRole)
            return average ? (row == labelCount() ? tr("micro avg") : tr("macro avg")) : m_labels.value(row);
        if (role == Qt::FontRole && average) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    }
    const double v = value(row, column);
    switch (role) {
    case Qt::DisplayRole:
        if (std::isnan(v))
            return column == AveragePrecision && !average ? tr("no positives") : QString();
        if (column == Support || column == Predicted)
            return QLocale().toString(qint64(v));
        return QLocale().toString(v, 'f', column == Threshold ? 4 : 3);
    case Qt::EditRole:
        return std::isnan(v) ? QVariant() : QVariant(v);
    case Qt::UserRole:
        return std::isnan(v) ? QVariant() : QVariant(v);
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == Threshold && !average)
            return canEditThresholds()
                       ? (m_thresholds[std::size_t(row)] == m_tuned[std::size_t(row)]
                              ? tr("The checkpoint's F1-tuned threshold. Double-click to change it.")
                              : tr("Edited; the checkpoint's tuned threshold is %1.")
                                    .arg(QLocale().toString(m_tuned[std::size_t(row)], 'f', 4)))
                       : tr("Evaluate again to edit the thresholds: this evaluation was stored without its scores.");
        return {};
    default:
        return {};
    }
}

bool MultiLabelMetricsModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    bool ok = false;
    const double threshold = value.toDouble(&ok);
    if (!ok)
        return false;
    setThreshold(index.row(), threshold);
    return true;
}

QVariant MultiLabelMetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case LabelColumn:
        return tr("Label");
    case AveragePrecision:
        return tr("AP");
    case Precision:
        return tr("Precision");
    case Recall:
        return tr("Recall");
    case F1:
        return tr("F1");
    case Support:
        return tr("Support");
    case Predicted:
        return tr("Predicted");
    case Threshold:
        return tr("Threshold");
    default:
        return {};
    }
}

} // namespace lathe::ui
