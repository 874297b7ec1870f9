#pragma once

#include <QGroupBox>
#include <QString>

#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QPushButton;

namespace lathe::ui {

// The Train page's Preset group: the presets of workspace::RunPresets (built-ins first, then
// the user's saved ones) in a combo, Save as Preset… and Delete Preset with their dialogs, and
// a line about the chosen preset, and Reset to Defaults (enabled while the settings differ from
// the engine's defaults). Putting a preset's or the default settings into the forms is the page's
// job (presetChosen(), resetRequested()); so is saving, since the page knows the settings
// (saveRequested()).
class PresetPanel : public QGroupBox
{
    Q_OBJECT

public:
    explicit PresetPanel(QWidget *parent = nullptr);

    // Lists the presets again with current (a name; empty: none) chosen; a saved preset that
    // cannot be read is named in the info line.
    void list(const QString &current = {});
    // Saves config as the user preset name; empty, or the reason it was not saved.
    QString save(const QString &name, const nlohmann::json &config);
    // Deletes the user preset name; empty, or the reason it was not deleted.
    QString remove(const QString &name);
    // The line under the combo (what the chosen preset expects, where it was saved).
    void setInfo(const QString &text);
    // The page's current settings (a full run config), which enable Reset to Defaults unless
    // they are the defaults.
    void setSettings(const nlohmann::json &config);
    // Whether a run config holds the engine's defaults (engine::RunConfig()) in every setting
    // this page edits: all but the dataset's folder and the model (the Model page's).
    static bool isDefault(const nlohmann::json &config);

    QComboBox *picker() const { return m_picker; }
    QPushButton *resetButton() const { return m_resetButton; }

Q_SIGNALS:
    // The user chose a preset in the combo.
    void presetChosen(const QString &name);
    // The user named a preset to save the current settings as, or confirmed deleting one.
    void saveRequested(const QString &name);
    void deleteRequested(const QString &name);
    void resetRequested();

private:
    void askSave();
    void askDelete();

    QComboBox *m_picker;
    QPushButton *m_saveButton;
    QPushButton *m_deleteButton;
    QPushButton *m_resetButton;
    QLabel *m_info;
};

} // namespace lathe::ui
