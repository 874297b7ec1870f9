#include "train/preset_panel.h"

#include "engine/base/engine_error.h"
#include "engine/run/run_config.h"
#include "workspace/run_presets.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace lathe::ui {

PresetPanel::PresetPanel(QWidget *parent)
    : QGroupBox(tr("Preset"), parent)
    , m_picker(new QComboBox(this))
    , m_saveButton(new QPushButton(tr("Save as Preset…"), this))
    , m_deleteButton(new QPushButton(tr("Delete Preset"), this))
    , m_resetButton(new QPushButton(tr("Reset to Defaults"), this))
    , m_info(new QLabel(this))
{
    m_picker->setObjectName(QStringLiteral("presetPicker"));
    m_picker->setToolTip(tr("Put a preset's settings into the forms: the built-in recipes, or settings you saved."));
    m_info->setWordWrap(true);
    m_info->setObjectName(QStringLiteral("presetInfo"));
    m_saveButton->setToolTip(tr("Save the current settings (everything but the dataset, the model and the devices) "
                                "under a name, in %1.").arg(QDir::toNativeSeparators(workspace::RunPresets::folder())));
    m_deleteButton->setToolTip(tr("Delete the chosen saved preset."));
    m_resetButton->setObjectName(QStringLiteral("resetDefaults"));
    m_resetButton->setToolTip(tr("Put every setting back to Lathe's defaults (the dataset and the model stay)."));
    m_resetButton->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    row->addWidget(m_picker, 1);
    row->addWidget(m_saveButton);
    row->addWidget(m_deleteButton);
    row->addWidget(m_resetButton);
    layout->addLayout(row);
    layout->addWidget(m_info);

    connect(m_picker, &QComboBox::activated, this, [this] {
        const QString name = m_picker->currentData().toString();
        if (!name.isEmpty())
            Q_EMIT presetChosen(name);
    });
    connect(m_saveButton, &QPushButton::clicked, this, &PresetPanel::askSave);
    connect(m_deleteButton, &QPushButton::clicked, this, &PresetPanel::askDelete);
    connect(m_resetButton, &QPushButton::clicked, this, &PresetPanel::resetRequested);
}

void PresetPanel::list(const QString &current)
{
    QStringList problems;
    const QList<workspace::RunPresets::Preset> presets = workspace::RunPresets::all(&problems);
    m_picker->clear();
    m_picker->addItem(tr("Choose a preset…"));
    for (const workspace::RunPresets::Preset &p : presets) {
        m_picker->addItem(p.builtIn ? tr("%1 (built-in)").arg(p.name) : p.name, p.name);
        m_picker->setItemData(m_picker->count() - 1, p.builtIn ? p.description : QDir::toNativeSeparators(p.file),
                              Qt::ToolTipRole);
        m_picker->setItemData(m_picker->count() - 1, p.builtIn, Qt::UserRole + 1);
    }
    m_picker->setCurrentIndex(std::max(0, m_picker->findData(current)));
    m_deleteButton->setEnabled(!current.isEmpty() && !m_picker->currentData(Qt::UserRole + 1).toBool());
    if (!problems.isEmpty())
        m_info->setText(tr("Some saved presets cannot be read: %1").arg(problems.join(QLatin1Char('\n'))));
}

QString PresetPanel::save(const QString &name, const nlohmann::json &config)
{
    const QString problem = workspace::RunPresets::save(name, config);
    if (problem.isEmpty()) {
        list(name.trimmed());
        m_info->setText(tr("Saved in %1.").arg(QDir::toNativeSeparators(workspace::RunPresets::folder())));
    }
    return problem;
}

QString PresetPanel::remove(const QString &name)
{
    const QString problem = workspace::RunPresets::remove(name);
    if (problem.isEmpty()) {
        list();
        m_info->clear();
    }
    return problem;
}

void PresetPanel::setInfo(const QString &text)
{
    m_info->setText(text);
}

void PresetPanel::setSettings(const nlohmann::json &config)
{
    m_resetButton->setEnabled(!isDefault(config));
}

bool PresetPanel::isDefault(const nlohmann::json &config)
{
    // Both through the parser, so a value written another way (1 or 1.0, a default left out)
    // compares as the same setting.
    const auto settings = [](const engine::RunConfig &parsed) {
        nlohmann::json json = engine::runConfigToJson(parsed);
        json.erase("model");
        json["data"].erase("shards");
        return json;
    };
    try {
        return settings(engine::parseRunConfig(config)) == settings(engine::RunConfig());
    } catch (const engine::EngineError &) {
        return false; // not even valid: not the defaults
    }
}

void PresetPanel::askSave()
{
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Save as Preset"));
    dialog->setLabelText(tr("Name of the preset:"));
    connect(dialog, &QInputDialog::textValueSelected, this, &PresetPanel::saveRequested);
    dialog->open();
}

void PresetPanel::askDelete()
{
    const QString name = m_picker->currentData().toString();
    if (name.isEmpty())
        return;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Delete Preset"), tr("Delete the preset \"%1\"?").arg(name),
                                QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::accepted, this, [this, name] { Q_EMIT deleteRequested(name); });
    box->open();
}

} // namespace lathe::ui
