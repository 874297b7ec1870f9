#include "model/backbone_table_model.h"

#include <QLocale>

namespace lathe::ui {

BackboneTableModel::BackboneTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void BackboneTableModel::setRows(std::vector<Row> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void BackboneTableModel::setWeightsState(const QString &arch, WeightsState state)
{
    const int r = indexOf(arch);
    if (r < 0)
        return;
    m_rows[std::size_t(r)].weights = state;
    Q_EMIT dataChanged(index(r, Weights), index(r, Weights));
}

int BackboneTableModel::indexOf(const QString &arch) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == arch)
            return int(i);
    return -1;
}

int BackboneTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int BackboneTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString BackboneTableModel::weightsStateText(WeightsState state)
{
    switch (state) {
    case Cached:
        return tr("cached");
    case Downloadable:
        return tr("downloadable");
    case NoCatalogEntry:
        break;
    }
    return tr("none in catalog");
}

QVariant BackboneTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[std::size_t(index.row())];
    const QLocale locale;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return r.name;
        case Family:
            return r.family;
        case Parameters:
            return tr("%1 M").arg(locale.toString(double(r.parameters) / 1e6, 'f', 1));
        case Gflops:
            return locale.toString(r.gflops, 'f', 2);
        case Input:
            return QStringLiteral("%1 × %1").arg(r.inputSize);
        case Top1:
            return r.top1 > 0 ? tr("%1 %").arg(locale.toString(r.top1, 'f', 1)) : QString();
        case Weights:
            return weightsStateText(r.weights);
        default:
            return {};
        }
    }
    if (role == Qt::UserRole) // sort keys
        switch (index.column()) {
        case Parameters:
            return r.parameters;
        case Gflops:
            return r.gflops;
        case Input:
            return r.inputSize;
        case Top1:
            return r.top1;
        default:
            return data(index, Qt::DisplayRole);
        }
    if (role == Qt::TextAlignmentRole && index.column() >= Parameters && index.column() <= Top1)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant BackboneTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole)
        switch (section) {
        case Gflops:
            return tr("Multiply-adds per image at the default input size, in billions.");
        case Top1:
            return tr("ImageNet-1K top-1 accuracy of torchvision's default weights.");
        case Weights:
            return tr("Whether torchvision's default weights are in the local cache, can be downloaded, or are "
                      "missing from the catalog.");
        default:
            return {};
        }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Backbone");
    case Family:
        return tr("Family");
    case Parameters:
        return tr("Parameters");
    case Gflops:
        return tr("GFLOPs");
    case Input:
        return tr("Input");
    case Top1:
        return tr("ImageNet top-1");
    case Weights:
        return tr("Weights");
    default:
        return {};
    }
}

} // namespace lathe::ui
