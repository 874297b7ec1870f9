#include "common/heat_map_grid.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace lathe::ui {
namespace {

constexpr int kMaxName = 140; // names wider than this are elided

} // namespace

HeatMapGrid::HeatMapGrid(Room room, QWidget *parent)
    : QWidget(parent)
    , m_room(room)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setToolTip(QString()); // tool tips come per cell from event()
}

QSize HeatMapGrid::minimumSizeHint() const
{
    return {200, 200};
}

void HeatMapGrid::setNames(const QStringList &names)
{
    m_names = names;
    m_hover = QPoint(-1, -1);
    layOut();
    update();
}

void HeatMapGrid::layOut()
{
    const int n = int(m_names.size());
    if (n == 0) {
        m_grid = QRect();
        m_cell = 0;
        return;
    }
    const QFontMetrics fm(font());
    int widest = 0;
    for (const QString &name : std::as_const(m_names))
        widest = std::max(widest, fm.horizontalAdvance(name));
    m_nameWidth = std::min(widest, kMaxName) + 6;
    // The column names are drawn rotated: they take as much height as the row names take width.
    const int availW = width() - 2 * kMargin - m_room.titleLeft - m_nameWidth;
    const int availH = height() - 2 * kMargin - m_room.titleTop - m_nameWidth;
    m_cell = std::clamp(std::min(double(availW), double(availH)) / n, 4.0, std::max(4.0, m_room.maxCell));
    const int side = int(std::floor(m_cell * n));
    const int centring = m_room.centre ? std::max(0, (availW - side) / 2) : 0;
    m_grid = QRect(kMargin + m_room.titleLeft + m_nameWidth + centring, kMargin + m_room.titleTop + m_nameWidth, side, side);
}

QRect HeatMapGrid::cellRect(int row, int column) const
{
    const int n = int(m_names.size());
    if (row < 0 || column < 0 || row >= n || column >= n || m_cell <= 0)
        return {};
    const int x0 = m_grid.left() + int(std::round(column * m_cell));
    const int x1 = m_grid.left() + int(std::round((column + 1) * m_cell));
    const int y0 = m_grid.top() + int(std::round(row * m_cell));
    const int y1 = m_grid.top() + int(std::round((row + 1) * m_cell));
    return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

QPoint HeatMapGrid::cellAt(const QPoint &pos) const
{
    if (m_cell <= 0 || !m_grid.contains(pos))
        return {-1, -1};
    const int n = int(m_names.size());
    const int column = std::clamp(int((pos.x() - m_grid.left()) / m_cell), 0, n - 1);
    const int row = std::clamp(int((pos.y() - m_grid.top()) / m_cell), 0, n - 1);
    return {row, column};
}

bool HeatMapGrid::paintEmpty(QPainter &painter, const QString &message) const
{
    const QPalette pal = palette();
    painter.fillRect(rect(), pal.brush(QPalette::Base));
    if (!m_names.isEmpty())
        return false;
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter, message);
    return true;
}

void HeatMapGrid::paintCells(QPainter &painter, const std::function<double(int, int)> &share,
                             const std::function<QString(int, int)> &text, bool boldDiagonal) const
{
    const QColor high(31, 96, 181);
    const QColor low = palette().color(QPalette::Base);
    const QColor dark = palette().color(QPalette::Text);
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics plainMetrics(font());
    const QFontMetrics boldMetrics(bold);
    const bool texts = m_cell >= plainMetrics.height() + 2;
    const int n = int(m_names.size());
    for (int row = 0; row < n; ++row) {
        for (int column = 0; column < n; ++column) {
            const QRect cell = cellRect(row, column);
            const double s = share(row, column);
            painter.fillRect(cell, QColor::fromRgbF(low.redF() + (high.redF() - low.redF()) * s,
                                                    low.greenF() + (high.greenF() - low.greenF()) * s,
                                                    low.blueF() + (high.blueF() - low.blueF()) * s));
            if (!texts)
                continue;
            const bool isBold = boldDiagonal && row == column;
            const QString label = text(row, column);
            if ((isBold ? boldMetrics : plainMetrics).horizontalAdvance(label) + 4 > cell.width())
                continue;
            painter.setFont(isBold ? bold : font());
            painter.setPen(s > 0.5 ? QColor(Qt::white) : dark);
            painter.drawText(cell, Qt::AlignCenter, label);
        }
    }
    painter.setFont(font());
}

void HeatMapGrid::paintFrameAndNames(QPainter &painter, QPoint selected) const
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    painter.setFont(font());
    painter.setPen(QPen(pal.color(QPalette::Mid), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(m_grid.adjusted(0, 0, -1, -1));
    for (const QPoint &cell : {m_hover, selected}) {
        if (cell.x() < 0)
            continue;
        painter.setPen(QPen(cell == selected ? pal.color(QPalette::Highlight) : text, 2));
        painter.drawRect(cellRect(cell.x(), cell.y()).adjusted(1, 1, -1, -1));
    }

    // Rows' names on the left, columns' rotated along the top.
    const QFontMetrics fm(font());
    if (m_cell < fm.height() * 0.8)
        return;
    painter.setPen(text);
    for (int i = 0; i < m_names.size(); ++i) {
        const QString name = fm.elidedText(m_names.at(i), Qt::ElideRight, kMaxName);
        const QRect row = cellRect(i, 0);
        painter.drawText(QRect(m_grid.left() - m_nameWidth, row.top(), m_nameWidth - 6, row.height()),
                         Qt::AlignRight | Qt::AlignVCenter, name);
        const QRect column = cellRect(0, i);
        painter.save();
        painter.translate(column.center().x(), m_grid.top() - 6);
        painter.rotate(-90);
        painter.drawText(QRect(0, -column.width() / 2, m_nameWidth - 6, column.width()), Qt::AlignLeft | Qt::AlignVCenter,
                         name);
        painter.restore();
    }
}

void HeatMapGrid::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell != m_hover) {
        m_hover = cell;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void HeatMapGrid::leaveEvent(QEvent *event)
{
    m_hover = QPoint(-1, -1);
    update();
    QWidget::leaveEvent(event);
}

void HeatMapGrid::resizeEvent(QResizeEvent *event)
{
    layOut();
    QWidget::resizeEvent(event);
}

bool HeatMapGrid::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QPoint cell = cellAt(help->pos());
        if (cell.x() >= 0)
            QToolTip::showText(help->globalPos(), toolTipFor(cell.x(), cell.y()), this, cellRect(cell.x(), cell.y()));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace lathe::ui
