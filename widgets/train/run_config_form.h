#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;
class QGridLayout;
class QGroupBox;
class QLabel;

namespace lathe::ui {

class DevicePicker;

// Forms for the run-config fields of the given sections, generated from the engine's schema
// (lathe-cli config schema): a spin box, check box, list or text field per field with its
// range, its default and its description as tooltip. Each edit is checked by the engine's own
// parser; a refused value shows the reason under the form and the last valid value stays.
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

    // Label of a schema field in the UI's language.
    static QString fieldLabel(const QString &field);
    static QString sectionTitle(const QString &section);

    // As narrow as one column of groups: the width decides the columns, not the other way.
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

Q_SIGNALS:
    void valuesChanged();

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    // The section groups in as many columns as the width holds (at least one).
    void reflow();
    int widestGroup() const;
    QWidget *makeEditor(const nlohmann::json &field);
    nlohmann::json editorValue(const QString &field) const;
    void setEditorValue(const QString &field, const nlohmann::json &value);
    void edited();

    QHash<QString, QWidget *> m_editors;
    QList<QGroupBox *> m_groups;
    QHash<QString, nlohmann::json> m_schema;
    QStringList m_fields;
    QLabel *m_error;
    QGridLayout *m_grid;
    int m_columns = 0;
    DevicePicker *m_devices = nullptr;
    nlohmann::json m_accepted;
    bool m_updating = false;
};

} // namespace lathe::ui
