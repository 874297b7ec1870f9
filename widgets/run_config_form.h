#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;
class QLabel;

namespace lathe::ui {

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

    // Label of a schema field in the UI's language.
    static QString fieldLabel(const QString &field);
    static QString sectionTitle(const QString &section);

Q_SIGNALS:
    void valuesChanged();

private:
    QWidget *makeEditor(const nlohmann::json &field);
    nlohmann::json editorValue(const QString &field) const;
    void setEditorValue(const QString &field, const nlohmann::json &value);
    void edited();

    QHash<QString, QWidget *> m_editors;
    QHash<QString, nlohmann::json> m_schema;
    QStringList m_fields;
    QLabel *m_error;
    nlohmann::json m_accepted;
    bool m_updating = false;
};

} // namespace lathe::ui
