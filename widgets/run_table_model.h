#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>

namespace lathe::ui {

// The runs of a project (one row per run folder, as readRunInfo summarises it): name, start,
// backbone, best metric, state, epochs and duration. Runs written by lathe-cli into the
// project's runs folder appear like any other: the run folder is the contract.
class RunTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Started, Backbone, Best, State, Epochs, Duration, ColumnCount };

    struct Row
    {
        QString dir;
        QString state; // running, finished, failed, cancelled, interrupted
        QString message;
        QString arch;
        QString bestMetric;
        double bestValue = 0;
        bool hasBest = false;
        qint64 lastEpoch = -1;
        qint64 totalEpochs = 0;
        double startTime = 0;
        double lastTime = 0;
    };

    explicit RunTableModel(QObject *parent = nullptr);

    void setRows(QList<Row> rows);
    const Row &row(int index) const { return m_rows.at(index); }
    int indexOf(const QString &dir) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString stateText(const QString &state);

private:
    QList<Row> m_rows;
};

} // namespace lathe::ui
