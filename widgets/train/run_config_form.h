#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;
class QGridLayout;
class QGroupBox;
class QLabel;
class QToolButton;

namespace lathe::ui {

class DevicePicker;

// Forms for the run-config fields of the given sections (or single fields, named in full),
// generated from the engine's schema
// (lathe-cli config schema): a spin box, check box, list or text field per field with its
// range, its default and its description as tooltip. Each edit is checked by the engine's own
// parser; a refused value shows the reason under the form and the last valid value stays.
//
// What a newcomer changes comes first (epochs, batch size, learning rate, optimiser, schedule
// with its own fields, precision, devices); every other group sits under "Advanced settings",
// collapsed until opened. A field that the chosen options do not use (momentum with AdamW,
// step size with a cosine schedule, patience with early stopping off) is hidden with its label;
// it keeps its value, which values() still holds.
class RunConfigForm : public QWidget
{
    Q_OBJECT

public:
    explicit RunConfigForm(const QStringList &sections, QWidget *parent = nullptr);

    // The fields of this form as a partial config ({"optimizer": {"lr": ...}, ...}).
    nlohmann::json values() const;
    // Sets the fields this form has from a (partial or full) config.
    void setValues(const nlohmann::json &config);
    QString errorText() const;
    // The editor of a dotted field ("optimizer.lr"), for tests.
    QWidget *editor(const QString &field) const { return m_editors.value(field); }
    // The "devices" editor (null when this form has no "run" section).
    DevicePicker *devicePicker() const { return m_devices; }
    // Whether the form has the field and the chosen options use it, so it is shown (once the
    // Advanced section is open, for an advanced field).
    bool isFieldShown(const QString &field) const;
    bool isAdvancedField(const QString &field) const { return m_advancedFields.contains(field); }
    bool isAdvancedExpanded() const;
    QToolButton *advancedToggle() const { return m_advancedToggle; }

    // Label of a schema field in the UI's language.
    static QString fieldLabel(const QString &field);
    static QString sectionTitle(const QString &section);
    // The name a choice is shown by ("AdamW" for adamw); the engine's own name when it has none.
    static QString optionLabel(const QString &option);

    // As narrow as one column of groups: the width decides the columns, not the other way.
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

Q_SIGNALS:
    void valuesChanged();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct Group
    {
        QString key;
        QGroupBox *box = nullptr;
        QFormLayout *form = nullptr;
        QStringList fields;
        bool advanced = false;
        bool shown = true; // some of its fields are
    };

    // The shown groups in as many columns as the width holds (at least one); force: lay out
    // again at the same count (a group appeared or went).
    void reflow(bool force = false);
    int widestGroup() const;
    Group &group(const QString &key);
    // Whether the chosen options use a field (the rules below fieldRules() in the .cpp).
    bool applies(const QString &field) const;
    QWidget *makeEditor(const nlohmann::json &field);
    nlohmann::json editorValue(const QString &field) const;
    void setEditorValue(const QString &field, const nlohmann::json &value);
    void edited();
    // Shows the fields the chosen options use, hides the others (and groups left empty).
    void updateShownFields();

    QHash<QString, QWidget *> m_editors;
    QList<Group> m_groups;
    QHash<QString, nlohmann::json> m_schema;
    QHash<QString, bool> m_shown;
    QStringList m_fields;
    QStringList m_advancedFields;
    QLabel *m_error;
    QGridLayout *m_basicGrid;
    QGridLayout *m_advancedGrid;
    QWidget *m_advanced;
    QToolButton *m_advancedToggle;
    int m_columns = 0;
    DevicePicker *m_devices = nullptr;
    nlohmann::json m_accepted;
    bool m_updating = false;
};

} // namespace lathe::ui
