#include "evaluate/class_metrics_model.h"

#include <QFont>
#include <QLocale>

#include <cmath>
#include <limits>

namespace lathe::ui {
namespace {

double number(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return 0;
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

} // namespace

ClassMetricsModel::ClassMetricsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void ClassMetricsModel::setMetrics(const nlohmann::json &metrics)
{
    beginResetModel();
    m_rows.clear();
    m_averageRows = 0;
    if (metrics.is_object() && metrics.contains("per_class") && metrics["per_class"].is_array()) {
        const double total = number(metrics, "count");
        // One-vs-rest accuracy (TP + TN) / N from the confusion matrix: recall already says
        // how often a class's own images are right.
        const nlohmann::json counts = metrics.contains("confusion_matrix") && metrics["confusion_matrix"].is_object()
                                          ? metrics["confusion_matrix"].value("counts", nlohmann::json::array())
                                          : nlohmann::json::array();
        for (const nlohmann::json &entry : metrics["per_class"]) {
            Row row;
            row.name = QString::fromStdString(entry.value("class", std::string()));
            row.precision = number(entry, "precision");
            row.recall = number(entry, "recall");
            row.f1 = number(entry, "f1");
            row.support = number(entry, "support");
            const int index = entry.value("index", int(m_rows.size()));
            const double predicted = number(entry, "predicted");
            double tp = 0;
            if (counts.is_array() && index >= 0 && index < int(counts.size()) && counts[index].is_array() &&
                index < int(counts[index].size()) && counts[index][index].is_number())
                tp = counts[index][index].get<double>();
            const double wrong = (row.support - tp) + (predicted - tp);
            row.accuracy = total > 0 ? (total - wrong) / total : 0.0;
            if (row.support == 0) {
                constexpr double undefined = std::numeric_limits<double>::quiet_NaN();
                row.recall = undefined;
                row.f1 = undefined;
                if (predicted == 0)
                    row.precision = undefined;
            }
            m_rows.append(row);
        }
        const QList<QPair<const char *, QString>> averages = {{"macro", tr("macro avg")}, {"weighted", tr("weighted avg")}};
        for (const auto &[key, name] : averages) {
            if (!metrics.contains(key) || !metrics[key].is_object())
                continue;
            Row row;
            row.name = name;
            row.average = true;
            row.precision = number(metrics[key], "precision");
            row.recall = number(metrics[key], "recall");
            row.f1 = number(metrics[key], "f1");
            row.support = total;
            m_rows.append(row);
            ++m_averageRows;
        }
    }
    endResetModel();
}

double ClassMetricsModel::value(int row, Column column) const
{
    if (row < 0 || row >= m_rows.size())
        return 0;
    const Row &r = m_rows.at(row);
    switch (column) {
    case Precision:
        return r.precision;
    case Recall:
        return r.recall;
    case F1:
        return r.f1;
    case Support:
        return r.support;
    case Accuracy:
        return r.accuracy;
    default:
        return 0;
    }
}

QString ClassMetricsModel::className(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).name : QString();
}

int ClassMetricsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ClassMetricsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClassMetricsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const auto column = Column(index.column());
    if (role == Qt::FontRole && row.average) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole && column != ClassColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const bool undefined = std::isnan(value(index.row(), column));
    if (role == Qt::UserRole)
        return column == ClassColumn ? QVariant(row.name) : undefined ? QVariant() : QVariant(value(index.row(), column));
    if (role == Qt::ToolTipRole && undefined)
        return tr("The evaluated split has no image of this class, so this metric is undefined.");
    if (role != Qt::DisplayRole)
        return {};
    if (undefined)
        return tr("no images");
    switch (column) {
    case ClassColumn:
        return row.name;
    case Support:
        return QLocale().toString(qint64(row.support));
    case Accuracy:
        if (row.average)
            return QString();
        [[fallthrough]];
    default:
        return QLocale().toString(value(index.row(), column), 'f', 3);
    }
}

QVariant ClassMetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Precision:
            return tr("Of the images predicted as this class, the share that truly are.");
        case Recall:
            return tr("Of this class's images, the share predicted as this class.");
        case F1:
            return tr("The harmonic mean of precision and recall.");
        case Support:
            return tr("Images of this class in the evaluated split.");
        case Accuracy:
            return tr("One-vs-rest accuracy: the share of all images correctly called this class or not this class.");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ClassColumn:
        return tr("Class");
    case Precision:
        return tr("Precision");
    case Recall:
        return tr("Recall");
    case F1:
        return tr("F1");
    case Support:
        return tr("Support");
    case Accuracy:
        return tr("Accuracy");
    default:
        return {};
    }
}

} // namespace lathe::ui
