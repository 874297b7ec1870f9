#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QString>

#include <vector>

namespace lathe::ui {

// The backbone registry as a table: name, family, size, cost, input size, ImageNet top-1 of
// torchvision's default weights, and whether those weights are in the cache.
class BackboneTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Family, Parameters, Gflops, Input, Top1, Weights, ColumnCount };
    enum WeightsState { NoCatalogEntry, Downloadable, Cached };

    struct Row
    {
        QString name;
        QString family;
        qint64 parameters = 0;
        double gflops = 0;
        int inputSize = 0;
        double top1 = 0; // 0: no catalog entry
        WeightsState weights = NoCatalogEntry;
    };

    explicit BackboneTableModel(QObject *parent = nullptr);

    void setRows(std::vector<Row> rows);
    void setWeightsState(const QString &arch, WeightsState state);
    const Row &row(int index) const { return m_rows.at(std::size_t(index)); }
    int indexOf(const QString &arch) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString weightsStateText(WeightsState state);

private:
    std::vector<Row> m_rows;
};

} // namespace lathe::ui
