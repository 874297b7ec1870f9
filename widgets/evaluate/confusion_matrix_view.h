#pragma once

#include "common/heat_map_grid.h"

#include <QStringList>
#include <QVector>

namespace lathe::ui {

// A confusion matrix as a heat map: true classes down the left,
// predicted classes along the top, a cell's colour its share of the true class's images.
// Cells show counts or row-normalised shares (setNormalized); hovering shows both; clicking
// a cell emits cellClicked(trueClass, predictedClass).
class ConfusionMatrixView : public HeatMapGrid
{
    Q_OBJECT

public:
    explicit ConfusionMatrixView(QWidget *parent = nullptr);

    // counts[true][predicted]; rows shorter than classes count as zeros. rowTotals: the images
    // of each true class that shares are taken of (a multi-label false-positive confusion, whose
    // rows do not add up to them); empty: each row's sum.
    void setMatrix(const QStringList &classes, const QVector<QVector<qint64>> &counts,
                   const QVector<qint64> &rowTotals = {});
    void clear() { setMatrix({}, {}); }

    void setNormalized(bool normalized);
    bool isNormalized() const { return m_normalized; }

    const QStringList &classes() const { return names(); }
    qint64 count(int trueClass, int predictedClass) const;
    // count / the true class's images (0 for a class without images).
    double share(int trueClass, int predictedClass) const;
    qint64 total() const; // of the counts
    // cellRect(trueClass, predictedClass), cellAt(pos): {trueClass, predictedClass}.
    // The text a cell shows (tests, accessibility).
    QString cellText(int trueClass, int predictedClass) const;
    int selectedTrue() const { return m_selected.x(); }
    int selectedPredicted() const { return m_selected.y(); }

    QString toolTipFor(int trueClass, int predictedClass) const override;

    QSize sizeHint() const override;

Q_SIGNALS:
    void cellClicked(int trueClass, int predictedClass);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    QVector<QVector<qint64>> m_counts;
    QVector<qint64> m_rowTotals;
    qint64 m_total = 0;
    bool m_normalized = false;
    QPoint m_selected{-1, -1};
};

} // namespace lathe::ui
