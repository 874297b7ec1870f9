#include "evaluate/confusion_matrix_view.h"

#include <QLocale>
#include <QMouseEvent>
#include <QPainter>

namespace lathe::ui {
namespace {

constexpr int kAxisTitle = 18; // room for "Predicted" / "True" titles

} // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget *parent)
    : HeatMapGrid({kAxisTitle, kAxisTitle}, parent)
{
    setObjectName(QStringLiteral("confusionMatrix"));
}

void ConfusionMatrixView::setMatrix(const QStringList &classes, const QVector<QVector<qint64>> &counts,
                                    const QVector<qint64> &rowTotals)
{
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
    m_selected = QPoint(-1, -1);
    setNames(classes);
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
    const int n = int(m_counts.size());
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

QString ConfusionMatrixView::cellText(int trueClass, int predictedClass) const
{
    if (m_normalized)
        return QLocale().toString(100.0 * share(trueClass, predictedClass), 'f', 1) + QLatin1Char('%');
    return QLocale().toString(count(trueClass, predictedClass));
}

QString ConfusionMatrixView::toolTipFor(int t, int p) const
{
    return tr("True: %1\nPredicted: %2\n%n image(s), %3 of the true class", nullptr, int(count(t, p)))
        .arg(classes().value(t), classes().value(p),
             QLocale().toString(100.0 * share(t, p), 'f', 1) + QLatin1Char('%'));
}

QSize ConfusionMatrixView::sizeHint() const
{
    return {520, 520};
}

void ConfusionMatrixView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (paintEmpty(painter, tr("No evaluation to show.")))
        return;
    paintCells(
        painter, [this](int t, int p) { return share(t, p); }, [this](int t, int p) { return cellText(t, p); });
    paintFrameAndNames(painter, m_selected);
    const QRect grid = this->grid();
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(grid.left(), kMargin, grid.width(), kAxisTitle), Qt::AlignCenter, tr("Predicted"));
    painter.save();
    painter.translate(kMargin, grid.center().y());
    painter.rotate(-90);
    painter.drawText(QRect(-grid.height() / 2, 0, grid.height(), kAxisTitle), Qt::AlignCenter, tr("True"));
    painter.restore();
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
    HeatMapGrid::mousePressEvent(event);
}

} // namespace lathe::ui
