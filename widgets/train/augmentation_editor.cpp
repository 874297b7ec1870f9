#include "train/augmentation_editor.h"

#include "train/augmentation_step_form.h"
#include "train/augmentation_text.h"

#include "engine/base/engine_error.h"
#include "engine/pipeline/augmentation.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {

AugmentationEditor::AugmentationEditor(QWidget *parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
    , m_typePicker(new QComboBox(this))
    , m_add(new QPushButton(tr("Add"), this))
    , m_remove(new QPushButton(tr("Remove"), this))
    , m_up(new QPushButton(tr("Up"), this))
    , m_down(new QPushButton(tr("Down"), this))
    , m_standard(new QPushButton(tr("Standard Recipe"), this))
    , m_stepForm(new AugmentationStepForm(this))
    , m_error(new QLabel(this))
{
    m_list->setObjectName(QStringLiteral("augmentationSteps"));
    m_list->setToolTip(tr("Applied to every training image in this order. Evaluation always uses resize and "
                          "center crop only."));
    for (const std::string &type : engine::augmentationTypes()) {
        const QString name = QString::fromStdString(type);
        m_typePicker->addItem(AugmentationText::typeName(name), name);
    }
    m_typePicker->setToolTip(tr("Steps follow torchvision's transforms, with the same parameters and meaning."));
    m_add->setToolTip(tr("Append a step of the chosen type with its default parameters."));
    m_standard->setToolTip(tr("torchvision's ImageNet training recipe: random resized crop and horizontal flip."));
    m_stepForm->setToolTip(tr("The chosen step's chance and parameters."));
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

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addLayout(adding);
    layout->addLayout(editing);
    layout->addWidget(m_stepForm);
    layout->addWidget(m_error);

    connect(m_add, &QPushButton::clicked, this, &AugmentationEditor::addStep);
    connect(m_remove, &QPushButton::clicked, this, &AugmentationEditor::removeStep);
    connect(m_up, &QPushButton::clicked, this, [this] { moveStep(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveStep(1); });
    connect(m_standard, &QPushButton::clicked, this,
            [this] { accept(engine::augmentationsToJson(engine::standardAugmentations()), 0); });
    connect(m_list, &QListWidget::currentRowChanged, this, &AugmentationEditor::showCurrent);
    connect(m_stepForm, &AugmentationStepForm::stepEdited, this, &AugmentationEditor::stepEdited);

    accept(engine::augmentationsToJson(engine::standardAugmentations()), 0);
}

QDoubleSpinBox *AugmentationEditor::probabilityEdit() const
{
    return m_stepForm->probabilityEdit();
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
    candidate.push_back({{"type", m_typePicker->currentData().toString().toStdString()}});
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

void AugmentationEditor::stepEdited(const nlohmann::json &step)
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= int(m_steps.size()))
        return;
    nlohmann::json candidate = m_steps;
    candidate[std::size_t(row)] = step;
    accept(candidate, row, true);
}

bool AugmentationEditor::accept(const nlohmann::json &candidate, int selectRow, bool editing)
{
    try {
        // The parser checks every field and fills in the defaults of the ones left out.
        m_steps = engine::augmentationsToJson(engine::parseAugmentations(candidate));
    } catch (const engine::EngineError &e) {
        showError(QString::fromStdString(e.what()));
        return false;
    }
    m_error->setVisible(false);
    refreshList(selectRow, editing);
    Q_EMIT stepsChanged(m_steps);
    return true;
}

void AugmentationEditor::refreshList(int selectRow, bool editing)
{
    m_updating = true;
    if (m_list->count() != int(m_steps.size())) {
        m_list->clear();
        for (std::size_t i = 0; i < m_steps.size(); ++i)
            m_list->addItem(QString());
    }
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        QListWidgetItem *item = m_list->item(int(i));
        item->setText(AugmentationText::sentence(m_steps[i]));
        item->setToolTip(tr("torchvision: %1").arg(QString::fromStdString(m_steps[i].value("type", std::string()))));
    }
    m_list->setCurrentRow(selectRow);
    m_updating = false;
    if (!editing)
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
    m_stepForm->setStep(valid ? m_steps[std::size_t(row)] : nlohmann::json());
}

void AugmentationEditor::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setVisible(true);
}

} // namespace lathe::ui
