#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

#include <nlohmann/json.hpp>

namespace lathe::ui {

// The per-class table of an evaluation (engine::computeMetrics' object): precision, recall,
// F1, support and one-vs-rest accuracy per class, then the macro and weighted averages.
// Qt::UserRole holds the raw number of a cell (for sorting and tests). A class without
// support (no image of it in the split) has no recall or F1, nor a precision when it was
// never predicted: those cells say "no images", value() is NaN and Qt::UserRole is null,
// whatever the metrics hold (older evaluations stored 0 there).
class ClassMetricsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { ClassColumn, Precision, Recall, F1, Support, Accuracy, ColumnCount };

    explicit ClassMetricsModel(QObject *parent = nullptr);

    // Reads metrics "per_class", "macro", "weighted", "count" and "confusion_matrix". A metrics
    // object without them gives an empty table.
    void setMetrics(const nlohmann::json &metrics);
    void clear() { setMetrics(nlohmann::json()); }

    // The class rows come first (one per class), then "macro avg" and "weighted avg".
    int classCount() const { return int(m_rows.size()) - m_averageRows; }
    // NaN for an undefined metric (see above).
    double value(int row, Column column) const;
    QString className(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString name;
        bool average = false;
        double precision = 0;
        double recall = 0;
        double f1 = 0;
        double support = 0;
        double accuracy = -1; // -1: not shown (averages)
    };
    QVector<Row> m_rows;
    int m_averageRows = 0;
};

} // namespace lathe::ui
