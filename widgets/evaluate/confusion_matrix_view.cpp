#include "evaluate/confusion_matrix_view.h"

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
constexpr int kAxisTitle = 18; // room for "Predicted" / "True" titles
constexpr int kMaxLabel = 140; // class names longer than this are elided

} // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("confusionMatrix"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setToolTip(QString()); // tool tips come per cell from event()
}

void ConfusionMatrixView::setMatrix(const QStringList &classes, const QVector<QVector<qint64>> &counts,
                                    const QVector<qint64> &rowTotals)
{
    m_classes = classes;
    const int n = int(classes.size());
    m_counts = QVector<QVector<qint64>>(n, QVector<qint64>(n, 0));
    m_rowTotals = QVector<qint64>(n, 0);
    m_total = 0;
    for (int t = 0; t < n && t < counts.size(); ++t)
        for (int p = 0; p < n && p < counts[t].size(); ++p) {
            m_counts[t][p] = counts[t][p];
            m_rowTotals[t] += counts[t][p];
            m_total += counts[t][p];
        }
    if (!rowTotals.isEmpty())
        for (int t = 0; t < n; ++t)
            m_rowTotals[t] = rowTotals.value(t);
    m_hover = m_selected = QPoint(-1, -1);
    updateLayout();
    update();
}

void ConfusionMatrixView::setNormalized(bool normalized)
{
    if (m_normalized == normalized)
        return;
    m_normalized = normalized;
    update();
}

qint64 ConfusionMatrixView::count(int trueClass, int predictedClass) const
{
    const int n = int(m_classes.size());
    if (trueClass < 0 || predictedClass < 0 || trueClass >= n || predictedClass >= n)
        return 0;
    return m_counts[trueClass][predictedClass];
}

double ConfusionMatrixView::share(int trueClass, int predictedClass) const
{
    const qint64 c = count(trueClass, predictedClass);
    return c == 0 || m_rowTotals[trueClass] <= 0 ? 0.0 : double(c) / double(m_rowTotals[trueClass]);
}

qint64 ConfusionMatrixView::total() const
{
    return m_total;
}

void ConfusionMatrixView::updateLayout()
{
    const int n = int(m_classes.size());
    if (n == 0) {
        m_grid = QRect();
        m_cell = 0;
        return;
    }
    const QFontMetrics fm(font());
    int widest = 0;
    for (const QString &name : std::as_const(m_classes))
        widest = std::max(widest, fm.horizontalAdvance(name));
    m_leftLabels = std::min(widest, kMaxLabel) + 6;
    m_topLabels = m_leftLabels; // predicted names are drawn rotated
    const int availW = width() - 2 * kMargin - kAxisTitle - m_leftLabels;
    const int availH = height() - 2 * kMargin - kAxisTitle - m_topLabels;
    m_cell = std::max(4.0, std::min(double(availW), double(availH)) / n);
    const int side = int(std::floor(m_cell * n));
    m_grid = QRect(kMargin + kAxisTitle + m_leftLabels, kMargin + kAxisTitle + m_topLabels, side, side);
}

QRect ConfusionMatrixView::cellRect(int trueClass, int predictedClass) const
{
    const int n = int(m_classes.size());
    if (trueClass < 0 || predictedClass < 0 || trueClass >= n || predictedClass >= n || m_cell <= 0)
        return {};
    const int x0 = m_grid.left() + int(std::round(predictedClass * m_cell));
    const int x1 = m_grid.left() + int(std::round((predictedClass + 1) * m_cell));
    const int y0 = m_grid.top() + int(std::round(trueClass * m_cell));
    const int y1 = m_grid.top() + int(std::round((trueClass + 1) * m_cell));
    return QRect(QPoint(x0, y0), QPoint(x1 - 1, y1 - 1));
}

QPoint ConfusionMatrixView::cellAt(const QPoint &pos) const
{
    if (m_cell <= 0 || !m_grid.contains(pos))
        return {-1, -1};
    const int n = int(m_classes.size());
    const int p = std::clamp(int((pos.x() - m_grid.left()) / m_cell), 0, n - 1);
    const int t = std::clamp(int((pos.y() - m_grid.top()) / m_cell), 0, n - 1);
    return {t, p};
}

QString ConfusionMatrixView::cellText(int trueClass, int predictedClass) const
{
    if (m_normalized)
        return QLocale().toString(100.0 * share(trueClass, predictedClass), 'f', 1) + QLatin1Char('%');
    return QLocale().toString(count(trueClass, predictedClass));
}

QString ConfusionMatrixView::toolTipFor(int t, int p) const
{
    return tr("True: %1\nPredicted: %2\n%n image(s), %3 of the true class", nullptr, int(count(t, p)))
        .arg(m_classes.value(t), m_classes.value(p),
             QLocale().toString(100.0 * share(t, p), 'f', 1) + QLatin1Char('%'));
}

QSize ConfusionMatrixView::sizeHint() const
{
    return {520, 520};
}

QSize ConfusionMatrixView::minimumSizeHint() const
{
    return {200, 200};
}

void ConfusionMatrixView::resizeEvent(QResizeEvent *event)
{
    updateLayout();
    QWidget::resizeEvent(event);
}

void ConfusionMatrixView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QPalette pal = palette();
    painter.fillRect(rect(), pal.brush(QPalette::Base));
    const int n = int(m_classes.size());
    if (n == 0) {
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No evaluation to show."));
        return;
    }
    const QFontMetrics fm(font());
    const QColor text = pal.color(QPalette::Text);
    const QColor high(31, 96, 181);
    const QColor low = pal.color(QPalette::Base);

    for (int t = 0; t < n; ++t) {
        for (int p = 0; p < n; ++p) {
            const QRect r = cellRect(t, p);
            const double s = share(t, p);
            const QColor fill = QColor::fromRgbF(low.redF() + (high.redF() - low.redF()) * s,
                                                 low.greenF() + (high.greenF() - low.greenF()) * s,
                                                 low.blueF() + (high.blueF() - low.blueF()) * s);
            painter.fillRect(r, fill);
            if (m_cell >= fm.height() + 2) {
                const QString label = cellText(t, p);
                if (fm.horizontalAdvance(label) + 4 <= r.width()) {
                    painter.setPen(s > 0.5 ? QColor(Qt::white) : text);
                    painter.drawText(r, Qt::AlignCenter, label);
                }
            }
        }
    }
    painter.setPen(QPen(pal.color(QPalette::Mid), 0));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(m_grid.adjusted(0, 0, -1, -1));
    for (const QPoint &cell : {m_hover, m_selected}) {
        if (cell.x() < 0)
            continue;
        painter.setPen(QPen(cell == m_selected ? pal.color(QPalette::Highlight) : text, 2));
        painter.drawRect(cellRect(cell.x(), cell.y()).adjusted(1, 1, -1, -1));
    }

    // Class names: true ones on the left, predicted ones rotated along the top.
    painter.setPen(text);
    const bool labels = m_cell >= fm.height() * 0.8;
    for (int i = 0; i < n && labels; ++i) {
        const QString name = fm.elidedText(m_classes.at(i), Qt::ElideRight, kMaxLabel);
        const QRect row = cellRect(i, 0);
        painter.drawText(QRect(m_grid.left() - m_leftLabels, row.top(), m_leftLabels - 6, row.height()),
                         Qt::AlignRight | Qt::AlignVCenter, name);
        const QRect col = cellRect(0, i);
        painter.save();
        painter.translate(col.center().x(), m_grid.top() - 6);
        painter.rotate(-90);
        painter.drawText(QRect(0, -col.width() / 2, m_topLabels - 6, col.width()), Qt::AlignLeft | Qt::AlignVCenter, name);
        painter.restore();
    }
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(QRect(m_grid.left(), kMargin, m_grid.width(), kAxisTitle), Qt::AlignCenter, tr("Predicted"));
    painter.save();
    painter.translate(kMargin, m_grid.center().y());
    painter.rotate(-90);
    painter.drawText(QRect(-m_grid.height() / 2, 0, m_grid.height(), kAxisTitle), Qt::AlignCenter, tr("True"));
    painter.restore();
}

void ConfusionMatrixView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (cell != m_hover) {
        m_hover = cell;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent *event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && cell.x() >= 0) {
        m_selected = cell;
        update();
        Q_EMIT cellClicked(cell.x(), cell.y());
        return;
    }
    QWidget::mousePressEvent(event);
}

void ConfusionMatrixView::leaveEvent(QEvent *event)
{
    m_hover = QPoint(-1, -1);
    update();
    QWidget::leaveEvent(event);
}

bool ConfusionMatrixView::event(QEvent *event)
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
