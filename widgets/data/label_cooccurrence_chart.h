#pragma once

#include "workspace/catalog.h"

#include <QWidget>

namespace lathe::ui {

// How often the labels of a multi-label dataset go together, as a heat map painted with
// QPainter: label x label, a cell holds the usable images that carry both labels, the diagonal
// those that carry the label at all. A cell's colour is its share of the row label's images, so
// a row reads "of the images labelled A, this many are also B". Hovering a cell tells both.
class LabelCooccurrenceChart : public QWidget
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
    QRect cellRect(int row, int column) const; // widget coordinates; empty when out of range
    QPoint cellAt(const QPoint &pos) const;    // {row, column}, or {-1, -1}
    QString toolTipFor(int row, int column) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;

private:
    void updateLayout();

    workspace::LabelCooccurrence m_data;
    QPoint m_hover{-1, -1};
    QRect m_grid;
    double m_cell = 0;
    int m_labelWidth = 0;
};

} // namespace lathe::ui
