#pragma once

#include "common/heat_map_grid.h"
#include "workspace/catalog.h"

namespace lathe::ui {

// How often the labels of a multi-label dataset go together, as a heat map: label x label, a
// cell holds the usable images that carry both labels, the diagonal those that carry the label
// at all. A cell's colour is its share of the row label's images, so a row reads "of the images
// labelled A, this many are also B". Hovering a cell tells both.
class LabelCooccurrenceChart : public HeatMapGrid
{
    Q_OBJECT

public:
    explicit LabelCooccurrenceChart(QWidget *parent = nullptr);

    void setCooccurrence(const workspace::LabelCooccurrence &cooccurrence);
    void clear() { setCooccurrence({}); }

    QStringList labels() const { return m_data.labels; }
    int count(int row, int column) const; // 0 out of range
    // count / the row label's images (0 for a label without images).
    double share(int row, int column) const;
    QString toolTipFor(int row, int column) const override;

    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    workspace::LabelCooccurrence m_data;
};

} // namespace lathe::ui
