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
// a line about the chosen preset. Putting a preset's settings into the forms is the page's job
// (presetChosen()); so is saving, since the page knows the settings (saveRequested()).
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

    QComboBox *picker() const { return m_picker; }

Q_SIGNALS:
    // The user chose a preset in the combo.
    void presetChosen(const QString &name);
    // The user named a preset to save the current settings as, or confirmed deleting one.
    void saveRequested(const QString &name);
    void deleteRequested(const QString &name);

private:
    void askSave();
    void askDelete();

    QComboBox *m_picker;
    QPushButton *m_saveButton;
    QPushButton *m_deleteButton;
    QLabel *m_info;
};

} // namespace lathe::ui
