#pragma once

#include <QStringList>
#include <QWidget>

#include <functional>

namespace lathe::ui {

// The square grid of a heat map painted with QPainter (ConfusionMatrixView,
// LabelCooccurrenceChart): n names down the left and, rotated, along the top; n x n cells, each
// coloured by a share in [0, 1] and showing its text where it fits; the grid framed, the cell
// under the mouse outlined, and its tool tip asked of toolTipFor(). Subclasses hold the numbers
// and paint with the helpers below.
class HeatMapGrid : public QWidget
{
    Q_OBJECT

public:
    // Widget coordinates of a cell; empty when out of range.
    QRect cellRect(int row, int column) const;
    // The cell under pos: {row, column}, or {-1, -1}.
    QPoint cellAt(const QPoint &pos) const;
    virtual QString toolTipFor(int row, int column) const = 0;

    QSize minimumSizeHint() const override;

protected:
    // The room the subclass keeps for its titles, left of and above the names; the largest
    // cell side; whether the grid is centred in the width left.
    struct Room
    {
        int titleLeft = 0;
        int titleTop = 0;
        double maxCell = 1e9;
        bool centre = false;
    };

    HeatMapGrid(Room room, QWidget *parent);

    // The rows' and columns' names (the grid is square): forgets the hovered cell, lays out.
    void setNames(const QStringList &names);
    const QStringList &names() const { return m_names; }
    QRect grid() const { return m_grid; }
    static constexpr int kMargin = 8;

    // The background; with no names, the message in its middle, and true.
    bool paintEmpty(QPainter &painter, const QString &message) const;
    // Every cell in its colour (the palette's base at share 0, blue at 1) and, where the cells are
    // tall enough and the text fits, its text (white on the darker half; bold on the diagonal
    // with boldDiagonal). text is asked for only when cells are tall enough to show it.
    void paintCells(QPainter &painter, const std::function<double(int row, int column)> &share,
                    const std::function<QString(int row, int column)> &text, bool boldDiagonal = false) const;
    // The frame, the hovered cell outlined in the text colour and `selected` (when >= 0) in the
    // highlight colour; then the names, when the cells are tall enough for them.
    void paintFrameAndNames(QPainter &painter, QPoint selected = {-1, -1}) const;

    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    bool event(QEvent *event) override;

private:
    void layOut();

    const Room m_room;
    QStringList m_names;
    QPoint m_hover{-1, -1};
    QRect m_grid;
    double m_cell = 0;
    int m_nameWidth = 0;
};

} // namespace lathe::ui
