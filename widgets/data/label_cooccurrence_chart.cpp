#include "data/label_cooccurrence_chart.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace lathe::ui {
namespace {

constexpr int kMargin = 8;
constexpr int kTitle = 22;     // room for the title above the grid
constexpr int kMaxLabel = 140; // label names longer than this are elided
constexpr double kMaxCell = 72;

} // namespace

LabelCooccurrenceChart::LabelCooccurrenceChart(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("labelCooccurrenceChart"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void LabelCooccurrenceChart::setCooccurrence(const workspace::LabelCooccurrence &cooccurrence)
{
    m_data = cooccurrence;
    const int n = int(m_data.labels.size());
    m_data.counts.resize(n * n, 0);
    m_hover = QPoint(-1, -1);
    updateLayout();
    update();
}

int LabelCooccurrenceChart::count(int row, int column) const
{
    const int n = int(m_data.labels.size());
    if (row < 0 || column < 0 || row >= n || column >= n)
        return 0;
    return m_data.count(row, column);
}

double LabelCooccurrenceChart::share(int row, int column) const
{
    const int total = count(row, row);
    return total <= 0 ? 0.0 : double(count(row, column)) / double(total);
}

void LabelCooccurrenceChart::updateLayout()
{
    const int n = int(m_data.labels.size());
    if (n == 0) {
        m_grid = QRect();
        m_cell = 0;
        return;
    }
    const QFontMetrics fm(font());
    int widest = 0;
    for (const QString &name : std::as_const(m_data.labels))
        widest = std::max(widest, fm.horizontalAdvance(name));
    m_labelWidth = std::min(widest, kMaxLabel) + 6;
    const int availW = width() - 2 * kMargin - m_labelWidth;
    const int availH = height() - 2 * kMargin - kTitle - m_labelWidth; // column names drawn rotated
    m_cell = std::clamp(std::min(double(availW), double(availH)) / n, 4.0, kMaxCell);
    const int side = int(std::floor(m_cell * n));
    const int left = kMargin + m_labelWidth + std::max(0, (availW - side) / 2); // centred in the room left
    m_grid = QRect(left, kMargin + kTitle + m_labelWidth, side, side);
}

QRect LabelCooccurrenceChart::cellRect(int row, int column) const
{
    const int n = int(m_data.labels.size());
    if (row < 0 || column < 0 || row >= n || column >= n || m_cell <= 0)
        return {};
    const int x0 = m_grid.left() + int(std::round(column * m_cell));
    const int x1 = m_grid.left() + int(std::round((column + 1) * m_cell));
    const int y0 = m_grid.top() + int(std::round(row * m_cell));
    const int y1 = m_grid.top() + int(std::round((row + 1) * m_cell));
    return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

QPoint LabelCooccurrenceChart::cellAt(const QPoint &pos) const
{
    if (m_cell <= 0 || !m_grid.contains(pos))
        return {-1, -1};
    const int n = int(m_data.labels.size());
    const int column = std::clamp(int((pos.x() - m_grid.left()) / m_cell), 0, n - 1);
    const int row = std::clamp(int((pos.y() - m_grid.top()) / m_cell), 0, n - 1);
    return {row, column};
}

QString LabelCooccurrenceChart::toolTipFor(int row, int column) const
{
    const QString a = m_data.labels.value(row);
    const QString b = m_data.labels.value(column);
    const QString percent = QLocale().toString(100.0 * share(row, column), 'f', 1) + QLatin1Char('%');
    if (row == column)
        return tr("%1: %n usable image(s) carry it", nullptr, count(row, row)).arg(a);
    return tr("%1 and %2: %n image(s) carry both, %3 of the %1 images", nullptr, count(row, column))
        .arg(a, b, percent);
}

QSize LabelCooccurrenceChart::sizeHint() const
{
    return {480, 480};
}

QSize LabelCooccurrenceChart::minimumSizeHint() const
{
    return {200, 200};
}

void LabelCooccurrenceChart::resizeEvent(QResizeEvent *event)
{
    updateLayout();
    QWidget::resizeEvent(event);
}

void LabelCooccurrenceChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QPalette pal = palette();
    painter.fillRect(rect(), pal.brush(QPalette::Base));
    const int n = int(m_data.labels.size());
    if (n == 0) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No labels to show."));
        return;
    }
    const QFontMetrics fm(font());
    const QColor text = pal.color(QPalette::Text);
    const QColor high(31, 96, 181);
    const QColor low = pal.color(QPalette::Base);
    const QLocale locale;
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            const QRect cell = cellRect(r, c);
            const double s = share(r, c);
            painter.fillRect(cell, QColor::fromRgbF(low.redF() + (high.redF() - low.redF()) * s,
                                                    low.greenF() + (high.greenF() - low.greenF()) * s,
                                                    low.blueF() + (high.blueF() - low.blueF()) * s));
            const QString label = locale.toString(count(r, c));
            if (m_cell >= fm.height() + 2 && fm.horizontalAdvance(label) + 4 <= cell.width()) {
                QFont cellFont = font();
                cellFont.setBold(r == c);
                painter.setFont(cellFont);
                painter.setPen(s > 0.5 ? QColor(Qt::white) : text);
                painter.drawText(cell, Qt::AlignCenter, label);
            }
        }
    }
    painter.setFont(font());
    painter.setPen(QPen(pal.color(QPalette::Mid), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(m_grid.adjusted(0, 0, -1, -1));
    if (m_hover.x() >= 0) {
        painter.setPen(QPen(text, 2));
        painter.drawRect(cellRect(m_hover.x(), m_hover.y()).adjusted(1, 1, -1, -1));
    }

    // Label names: rows on the left, columns rotated along the top.
    painter.setPen(text);
    if (m_cell >= fm.height() * 0.8) {
        for (int i = 0; i < n; ++i) {
            const QString name = fm.elidedText(m_data.labels.at(i), Qt::ElideRight, kMaxLabel);
            const QRect row = cellRect(i, 0);
            painter.drawText(QRect(m_grid.left() - m_labelWidth, row.top(), m_labelWidth - 6, row.height()),
                             Qt::AlignRight | Qt::AlignVCenter, name);
            const QRect column = cellRect(0, i);
            painter.save();
            painter.translate(column.center().x(), m_grid.top() - 6);
            painter.rotate(-90);
            painter.drawText(QRect(0, -column.width() / 2, m_labelWidth - 6, column.width()),
                             Qt::AlignLeft | Qt::AlignVCenter, name);
            painter.restore();
        }
    }
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Label co-occurrence: usable images carrying both labels (colour: share of the row "
                        "label's images)"));
}

void LabelCooccurrenceChart::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell != m_hover) {
        m_hover = cell;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void LabelCooccurrenceChart::leaveEvent(QEvent *event)
{
    m_hover = QPoint(-1, -1);
    update();
    QWidget::leaveEvent(event);
}

bool LabelCooccurrenceChart::event(QEvent *event)
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
