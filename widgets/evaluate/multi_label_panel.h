#pragma once

#include <QStringList>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

class QLabel;
class QPushButton;
class QTableView;

namespace lathe::ui {

class LabelPrPlot;
class MultiLabelMetricsModel;

// The Per Label tab of a multi-label evaluation: the per-label table with editable thresholds
// (a spin box in the Threshold column), "Reset to Tuned", and the selected label's
// precision-recall curve with its current threshold marked.
class MultiLabelPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MultiLabelPanel(QWidget *parent = nullptr);

    void setEvaluation(const QStringList &labels, const nlohmann::json &metrics, std::vector<std::vector<int>> labelSets,
                       std::vector<std::vector<float>> scores);
    void clear();

    // Shows that label's curve and selects its row.
    void selectLabel(int label);
    int currentLabel() const { return m_label; }

    MultiLabelMetricsModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    LabelPrPlot *prPlot() const { return m_plot; }
    QPushButton *resetButton() const { return m_reset; }

Q_SIGNALS:
    void thresholdsChanged();

private:
    void showCurve();
    void updateState();

    MultiLabelMetricsModel *m_model;
    QTableView *m_table;
    QPushButton *m_reset;
    QLabel *m_hint;
    LabelPrPlot *m_plot;
    nlohmann::json m_curves;
    int m_label = -1;
};

} // namespace lathe::ui
