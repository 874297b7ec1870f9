#include "train/augmentation_editor.h"

#include "engine/pipeline/augmentation.h"
#include "engine/base/engine_error.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

QString stepText(const nlohmann::json &step)
{
    nlohmann::json params = step;
    params.erase("type");
    params.erase("p");
    const double p = step.value("p", 1.0);
    QString text = QString::fromStdString(step.value("type", std::string()));
    if (p != 1.0)
        text += QStringLiteral("  p=%1").arg(p);
    if (!params.empty())
        text += QStringLiteral("  ") + QString::fromStdString(params.dump());
    return text;
}

} // namespace

AugmentationEditor::AugmentationEditor(QWidget *parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
    , m_typePicker(new QComboBox(this))
    , m_add(new QPushButton(tr("Add"), this))
    , m_remove(new QPushButton(tr("Remove"), this))
    , m_up(new QPushButton(tr("Up"), this))
    , m_down(new QPushButton(tr("Down"), this))
    , m_standard(new QPushButton(tr("Standard Recipe"), this))
    , m_probability(new QDoubleSpinBox(this))
    , m_params(new QLineEdit(this))
    , m_error(new QLabel(this))
{
    m_list->setObjectName(QStringLiteral("augmentationSteps"));
    m_list->setToolTip(tr("Applied to every training image in this order. Evaluation always uses resize and "
                          "center crop only."));
    for (const std::string &type : engine::augmentationTypes())
        m_typePicker->addItem(QString::fromStdString(type));
    m_typePicker->setToolTip(tr("Steps are named as torchvision's transforms, with the same parameters and "
                                "meaning."));
    m_add->setToolTip(tr("Append a step of the chosen type with its default parameters."));
    m_standard->setToolTip(tr("torchvision's ImageNet training recipe: random resized crop and horizontal flip."));
    m_probability->setRange(0, 1);
    m_probability->setSingleStep(0.05);
    m_probability->setDecimals(2);
    m_probability->setToolTip(tr("Chance that the step is applied to an image (p)."));
    m_params->setObjectName(QStringLiteral("augmentationParams"));
    m_params->setPlaceholderText(tr("Parameters as JSON, e.g. {\"scale\": [0.08, 1]}"));
    m_params->setToolTip(tr("The step's parameters as a JSON object; leave empty for the defaults."));
    m_error->setObjectName(QStringLiteral("fieldError"));
    m_error->setWordWrap(true);
    m_error->setVisible(false);

    // Two rows, so the editor fits beside the preview on a laptop's width.
    auto *adding = new QHBoxLayout;
    adding->addWidget(m_typePicker, 1);
    adding->addWidget(m_add);
    auto *editing = new QHBoxLayout;
    editing->addWidget(m_remove);
    editing->addWidget(m_up);
    editing->addWidget(m_down);
    editing->addStretch(1);
    editing->addWidget(m_standard);

    auto *form = new QFormLayout;
    form->addRow(tr("Probability:"), m_probability);
    form->addRow(tr("Parameters:"), m_params);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addLayout(adding);
    layout->addLayout(editing);
    layout->addLayout(form);
    layout->addWidget(m_error);

    connect(m_add, &QPushButton::clicked, this, &AugmentationEditor::addStep);
    connect(m_remove, &QPushButton::clicked, this, &AugmentationEditor::removeStep);
    connect(m_up, &QPushButton::clicked, this, [this] { moveStep(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveStep(1); });
    connect(m_standard, &QPushButton::clicked, this,
            [this] { accept(engine::augmentationsToJson(engine::standardAugmentations()), 0); });
    connect(m_list, &QListWidget::currentRowChanged, this, &AugmentationEditor::showCurrent);
    connect(m_probability, &QDoubleSpinBox::valueChanged, this, &AugmentationEditor::editCurrent);
    connect(m_params, &QLineEdit::textEdited, this, &AugmentationEditor::editCurrent);

    accept(engine::augmentationsToJson(engine::standardAugmentations()), 0);
}

bool AugmentationEditor::setSteps(const nlohmann::json &steps)
{
    return accept(steps, 0);
}

QString AugmentationEditor::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void AugmentationEditor::addStep()
{
    nlohmann::json candidate = m_steps;
    candidate.push_back({{"type", m_typePicker->currentText().toStdString()}});
    accept(candidate, int(candidate.size()) - 1);
}

void AugmentationEditor::removeStep()
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= int(m_steps.size()))
        return;
    nlohmann::json candidate = m_steps;
    candidate.erase(candidate.begin() + row);
    accept(candidate, std::min(row, int(candidate.size()) - 1));
}

void AugmentationEditor::moveStep(int delta)
{
    const int row = m_list->currentRow();
    const int target = row + delta;
    if (row < 0 || target < 0 || target >= int(m_steps.size()))
        return;
    nlohmann::json candidate = m_steps;
    std::swap(candidate[std::size_t(row)], candidate[std::size_t(target)]);
    accept(candidate, target);
}

void AugmentationEditor::editCurrent()
{
    const int row = m_list->currentRow();
    if (m_updating || row < 0 || row >= int(m_steps.size()))
        return;
    nlohmann::json step = {{"type", m_steps[std::size_t(row)].value("type", std::string())},
                           {"p", m_probability->value()}};
    const QString text = m_params->text().trimmed();
    if (!text.isEmpty()) {
        const nlohmann::json params = nlohmann::json::parse(text.toStdString(), nullptr, false);
        if (!params.is_object()) {
            showError(tr("Step %1: the parameters are not a JSON object.").arg(row + 1));
            return;
        }
        step.update(params);
    }
    nlohmann::json candidate = m_steps;
    candidate[std::size_t(row)] = step;
    accept(candidate, row);
}

bool AugmentationEditor::accept(const nlohmann::json &candidate, int selectRow)
{
    try {
        // The parser checks every field and fills in the defaults of the ones left out.
        m_steps = engine::augmentationsToJson(engine::parseAugmentations(candidate));
    } catch (const engine::EngineError &e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    m_error->setVisible(false);
    refreshList(selectRow);
    Q_EMIT stepsChanged(m_steps);
    return true;
}

void AugmentationEditor::refreshList(int selectRow)
{
    m_updating = true;
    m_list->clear();
    for (const nlohmann::json &step : m_steps)
        m_list->addItem(stepText(step));
    m_list->setCurrentRow(selectRow);
    m_updating = false;
    showCurrent();
}

void AugmentationEditor::showCurrent()
{
    if (m_updating)
        return;
    const int row = m_list->currentRow();
    const bool valid = row >= 0 && row < int(m_steps.size());
    m_remove->setEnabled(valid);
    m_up->setEnabled(valid && row > 0);
    m_down->setEnabled(valid && row + 1 < int(m_steps.size()));
    m_probability->setEnabled(valid);
    m_params->setEnabled(valid);
    m_updating = true;
    if (valid) {
        nlohmann::json params = m_steps[std::size_t(row)];
        m_probability->setValue(params.value("p", 1.0));
        params.erase("type");
        params.erase("p");
        m_params->setText(params.empty() ? QString() : QString::fromStdString(params.dump()));
    } else {
        m_probability->setValue(1);
        m_params->clear();
    }
    m_updating = false;
}

void AugmentationEditor::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setVisible(true);
}

} // namespace lathe::ui
