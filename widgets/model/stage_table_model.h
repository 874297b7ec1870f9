#pragma once

#include "engine/models/model_spec.h"

#include <QAbstractTableModel>

namespace lathe::ui {

// A model's stages under the chosen freezing: parameters, how many train, and the learning-rate
// multiplier, which the user edits in place (discriminative fine-tuning).
class StageTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Stage, Parameters, Trainable, LrMultiplier, ColumnCount };

    explicit StageTableModel(QObject *parent = nullptr);

    void setSummary(const engine::ModelSummary &summary);
    const engine::ModelSummary &summary() const { return m_summary; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // The user set a stage's multiplier.
    void multiplierEdited(const QString &stage, double multiplier);

private:
    engine::ModelSummary m_summary;
};

} // namespace lathe::ui
