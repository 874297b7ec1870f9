// Built without QT_NO_KEYWORDS: qcustomplot.h uses the bare signals/slots keywords.
#include "data/class_balance_chart.h"

#include "common/plot_palette.h"
#include "workspace/split_names.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QMap>
#include <QToolTip>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

QColor splitColour(const QString &split)
{
    if (split == QLatin1String("train"))
        return QColor(61, 139, 217);
    if (split == QLatin1String("val"))
        return QColor(240, 150, 40);
    if (split == QLatin1String("test"))
        return QColor(70, 170, 90);
    return QColor(150, 110, 200);
}

} // namespace

ClassBalanceChart::ClassBalanceChart(QWidget *parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_empty(new QLabel(tr("No usable images to count."), this))
{
    m_plot->setObjectName(QStringLiteral("classBalancePlot"));
    m_plot->xAxis->setLabel(tr("Class"));
    m_plot->yAxis->setLabel(tr("Usable images"));
    m_plot->xAxis->grid()->setVisible(false);
    // Above the bars, side by side: never over the tallest.
    m_plot->legend->setVisible(true);
    placeLegendAbove(m_plot);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) { showBarToolTip(event->pos()); });

    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setVisible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_empty, 1);
}

void ClassBalanceChart::setMultiLabel(bool multiLabel)
{
    m_plot->xAxis->setLabel(multiLabel ? tr("Label") : tr("Class"));
    m_plot->replot();
}

void ClassBalanceChart::setCounts(const QStringList &classes, const QVector<workspace::ClassCount> &counts)
{
    m_plot->clearPlottables();
    m_classes = classes;
    for (const workspace::ClassCount &count : counts) {
        if (!m_classes.contains(count.className))
            m_classes.append(count.className); // a count for a class the list missed still shows
    }

    // split -> class -> count, splits in their natural order.
    QMap<QString, QMap<QString, int>> bySplit;
    int maxCount = 0;
    for (const workspace::ClassCount &count : counts) {
        bySplit[count.split][count.className] += count.count;
        maxCount = qMax(maxCount, bySplit[count.split][count.className]);
    }
    QStringList splitOrder;
    for (const QString &split : {QStringLiteral("train"), QStringLiteral("val"), QStringLiteral("test")}) {
        if (bySplit.contains(split))
            splitOrder << split;
    }
    for (auto it = bySplit.cbegin(); it != bySplit.cend(); ++it) {
        if (!splitOrder.contains(it.key()))
            splitOrder << it.key();
    }

    auto *group = new QCPBarsGroup(m_plot);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    const double width = 0.8 / qMax(1, int(splitOrder.size()));
    for (const QString &split : std::as_const(splitOrder)) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(workspace::SplitNames::displayName(split));
        bars->setProperty("split", split);
        bars->setWidth(width);
        const QColor colour = splitColour(split);
        bars->setPen(QPen(colour.darker(120)));
        bars->setBrush(colour);
        QVector<double> keys;
        QVector<double> values;
        for (int i = 0; i < m_classes.size(); ++i) {
            keys << i + 1;
            values << bySplit.value(split).value(m_classes.at(i));
        }
        bars->setData(keys, values, true);
        bars->setBarsGroup(group);
    }

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < m_classes.size(); ++i)
        ticker->addTick(i + 1, m_classes.at(i));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setTickLabelRotation(m_classes.size() > 6 ? 40 : 0);
    m_plot->xAxis->setRange(0.3, m_classes.size() + 0.7);
    m_plot->yAxis->setRange(0, qMax(1.0, maxCount * (1 + kPlotPadding)));
    m_plot->replot();

    const bool empty = splitOrder.isEmpty();
    m_plot->setVisible(!empty);
    m_empty->setVisible(empty);
}

QStringList ClassBalanceChart::classLabels() const
{
    QStringList labels;
    const auto ticker = m_plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    if (ticker) {
        for (const QString &label : std::as_const(ticker->ticks()))
            labels << label;
    }
    return labels;
}

QStringList ClassBalanceChart::splits() const
{
    QStringList names;
    for (int i = 0; i < m_plot->plottableCount(); ++i)
        names << m_plot->plottable(i)->property("split").toString();
    return names;
}

QVector<double> ClassBalanceChart::values(const QString &split) const
{
    for (int i = 0; i < m_plot->plottableCount(); ++i) {
        auto *bars = qobject_cast<QCPBars *>(m_plot->plottable(i));
        if (!bars || bars->property("split").toString() != split)
            continue;
        QVector<double> result;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            result << it->value;
        return result;
    }
    return {};
}

void ClassBalanceChart::showBarToolTip(const QPoint &pos)
{
    for (int i = 0; i < m_plot->plottableCount(); ++i) {
        auto *bars = qobject_cast<QCPBars *>(m_plot->plottable(i));
        if (!bars)
            continue;
        QVariant details;
        const double distance = bars->selectTest(pos, false, &details);
        if (distance < 0 || distance >= m_plot->selectionTolerance())
            continue;
        const QCPDataSelection selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        const auto point = bars->data()->at(selection.dataRange().begin());
        const int classIndex = int(point->key) - 1;
        if (classIndex < 0 || classIndex >= m_classes.size())
            continue;
        QToolTip::showText(m_plot->mapToGlobal(pos),
                           tr("%1, %2: %n image(s)", nullptr, int(point->value)).arg(m_classes.at(classIndex), bars->name()),
                           m_plot);
        return;
    }
    QToolTip::hideText();
}

} // namespace lathe::ui
