#pragma once

#include "workspace/catalog.h"

#include <QStringList>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QLabel;

namespace lathe::ui {

// Usable images per class and split as grouped bars (QCustomPlot), class names under the
// x axis, one colour per split, the legend above the bars. Hovering a bar tells its exact count.
// The theme's colours come from followThemeInEveryPlot().
class ClassBalanceChart : public QWidget
{
    Q_OBJECT

public:
    explicit ClassBalanceChart(QWidget *parent = nullptr);

    // classes: every class of the dataset (a class with no usable image shows empty bars).
    void setCounts(const QStringList &classes, const QVector<workspace::ClassCount> &counts);
    // A multi-label dataset's labels (an image counts once for each label it carries): the x
    // axis says "Label".
    void setMultiLabel(bool multiLabel);

    // What the plot holds, read back from it.
    QStringList classLabels() const;        // the x axis labels, left to right
    QStringList splits() const;             // one bar series per split, in legend order
    QVector<double> values(const QString &split) const; // per class, in classLabels() order
    QCustomPlot *plot() const { return m_plot; }

private:
    void showBarToolTip(const QPoint &pos);

    QCustomPlot *m_plot;
    QLabel *m_empty;
    QStringList m_classes;
};

} // namespace lathe::ui
