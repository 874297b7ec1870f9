#include "evaluate/multi_label_panel.h"

#include "evaluate/label_pr_plot.h"
#include "evaluate/multi_label_metrics_model.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace lathe::ui {
namespace {

// A threshold in [0, 1] to four decimals; the model recomputes when the editor commits.
class ThresholdDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &, const QModelIndex &) const override
    {
        auto *spin = new QDoubleSpinBox(parent);
        spin->setObjectName(QStringLiteral("thresholdSpin"));
        spin->setRange(0.0, 1.0);
        spin->setDecimals(4);
        spin->setSingleStep(0.01);
        spin->setFrame(false);
        spin->setAlignment(Qt::AlignRight);
        return spin;
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        static_cast<QDoubleSpinBox *>(editor)->setValue(index.data(Qt::EditRole).toDouble());
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        auto *spin = static_cast<QDoubleSpinBox *>(editor);
        spin->interpretText();
        model->setData(index, spin->value(), Qt::EditRole);
    }
};

} // namespace

MultiLabelPanel::MultiLabelPanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new MultiLabelMetricsModel(this))
    , m_table(new QTableView(this))
    , m_reset(new QPushButton(tr("Reset to Tuned"), this))
    , m_hint(new QLabel(this))
    , m_plot(new LabelPrPlot(this))
{
    setObjectName(QStringLiteral("multiLabelPanel"));
    m_table->setObjectName(QStringLiteral("labelMetricsTable"));
    m_table->setModel(m_model);
    m_table->setItemDelegateForColumn(MultiLabelMetricsModel::Threshold, new ThresholdDelegate(m_table));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::AnyKeyPressed);
    m_reset->setObjectName(QStringLiteral("resetThresholds"));
    m_reset->setToolTip(tr("Put back every label's threshold that the checkpoint was tuned with (the one that "
                           "maximised its F1 on the validation split)."));
    m_hint->setWordWrap(true);

    connect(m_reset, &QPushButton::clicked, m_model, &MultiLabelMetricsModel::resetThresholds);
    connect(m_model, &MultiLabelMetricsModel::thresholdsChanged, this, [this] {
        showCurve();
        updateState();
        Q_EMIT thresholdsChanged();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && current.row() < m_model->labelCount() && current.row() != m_label) {
                    m_label = current.row();
                    showCurve();
                }
            });

    auto *row = new QHBoxLayout;
    row->addWidget(m_hint, 1);
    row->addWidget(m_reset);
    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(row);
    topLayout->addWidget(m_table, 1);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter, 1);
    updateState();
}

void MultiLabelPanel::setEvaluation(const QStringList &labels, const nlohmann::json &metrics,
                                    std::vector<std::vector<int>> labelSets, std::vector<std::vector<float>> scores)
{
    m_model->setEvaluation(labels, metrics, std::move(labelSets), std::move(scores));
    m_curves = metrics.is_object() ? metrics.value("pr_curves", nlohmann::json::array()) : nlohmann::json::array();
    m_label = -1;
    selectLabel(labels.isEmpty() ? -1 : 0);
    updateState();
}

void MultiLabelPanel::clear()
{
    setEvaluation({}, nlohmann::json(), {}, {});
}

void MultiLabelPanel::selectLabel(int label)
{
    if (label < 0 || label >= m_model->labelCount()) {
        m_label = -1;
        m_plot->clear();
        return;
    }
    m_label = label;
    m_table->setCurrentIndex(m_model->index(label, MultiLabelMetricsModel::LabelColumn));
    showCurve();
}

void MultiLabelPanel::showCurve()
{
    if (m_label < 0) {
        m_plot->clear();
        return;
    }
    nlohmann::json curve;
    for (const nlohmann::json &c : m_curves)
        if (c.is_object() && c.value("index", -1) == m_label)
            curve = c;
    if (curve.is_null())
        curve = {{"class", m_model->labelName(m_label).toStdString()}, {"average_precision", nullptr}};
    m_plot->setCurve(curve);
    const double threshold = m_model->value(m_label, MultiLabelMetricsModel::Threshold);
    const double precision = m_model->value(m_label, MultiLabelMetricsModel::Precision);
    const double recall = m_model->value(m_label, MultiLabelMetricsModel::Recall);
    if (!curve.value("points", nlohmann::json::array()).empty() && !std::isnan(precision) && !std::isnan(recall))
        m_plot->setOperatingPoint(threshold, precision, recall);
}

void MultiLabelPanel::updateState()
{
    const bool editable = m_model->canEditThresholds();
    m_reset->setEnabled(editable && !m_model->thresholdsAreTuned());
    if (m_model->labelCount() == 0)
        m_hint->clear();
    else if (editable)
        m_hint->setText(tr("Precision, recall and F1 at each label's threshold (a label is predicted when its score "
                           "reaches it). Double-click a threshold to change it: the table, the averages and the "
                           "false positives follow at once."));
    else
        m_hint->setText(tr("This evaluation was stored without its scores: evaluate again to edit the thresholds."));
}

} // namespace lathe::ui
