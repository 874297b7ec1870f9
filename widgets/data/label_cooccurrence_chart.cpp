#include "data/label_cooccurrence_chart.h"

#include <QLocale>
#include <QPainter>

namespace lathe::ui {
namespace {

constexpr int kTitle = 22; // room for the title above the grid

} // namespace

LabelCooccurrenceChart::LabelCooccurrenceChart(QWidget *parent)
    : HeatMapGrid({0, kTitle, 72, true}, parent)
{
    setObjectName(QStringLiteral("labelCooccurrenceChart"));
}

void LabelCooccurrenceChart::setCooccurrence(const workspace::LabelCooccurrence &cooccurrence)
{
    m_data = cooccurrence;
    const int n = int(m_data.labels.size());
    m_data.counts.resize(n * n, 0);
    setNames(m_data.labels);
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

void LabelCooccurrenceChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    if (paintEmpty(painter, tr("No labels to show.")))
        return;
    const QLocale locale;
    paintCells(
        painter, [this](int r, int c) { return share(r, c); },
        [this, &locale](int r, int c) { return locale.toString(count(r, c)); }, true);
    paintFrameAndNames(painter);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, kTitle), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Label co-occurrence: usable images carrying both labels (colour: share of the row "
                        "label's images)"));
}

} // namespace lathe::ui
