#pragma once

#include <QHash>
#include <QStringList>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QTableWidget;

namespace lathe::ui {

// The "params" of a study's search space, picked from the Train page's fields: one row per
// field a study can vary (learning rate, optimiser, momentum, weight decay, batch size, label
// smoothing, schedule, warm-up, head dropout, frozen stages, EMA decay), each with a Vary toggle,
// how it is searched (log-uniform, uniform, integer, integer in log space, a choice) and its
// range or its values. A field that is not varied keeps the base config's value. New rows get a
// range around the base config's value (the learning rate from a tenth to ten times it).
// Momentum, when the optimiser is varied too, is searched only for the optimisers that use it.
class SearchSpaceEditor : public QWidget
{
    Q_OBJECT

public:
    explicit SearchSpaceEditor(QWidget *parent = nullptr);

    // The fields offered, in the order shown.
    static QStringList fields();

    // The Train page's current config: ranges of rows not varied yet follow its values.
    void setBaseConfig(const nlohmann::json &config);
    // The space's "params" object (parseSearchSpace's format), the varied rows only.
    nlohmann::json params() const;
    // Shows a space's params (an opened study): its fields varied as it says, the others not.
    void setParams(const nlohmann::json &params);

    bool isVaried(const QString &field) const;
    void setVaried(const QString &field, bool varied);
    QCheckBox *varyToggle(const QString &field) const;
    QComboBox *typePicker(const QString &field) const;
    // A numeric row's range editors; a choice row's values are in lowEdit (comma-separated).
    QLineEdit *lowEdit(const QString &field) const;
    QLineEdit *highEdit(const QString &field) const;

Q_SIGNALS:
    void changed();

private:
    struct Row
    {
        QString field;
        QString kind; // "number", "integer" or "choice"
        QCheckBox *vary = nullptr;
        QComboBox *type = nullptr;
        QLineEdit *low = nullptr;
        QLineEdit *high = nullptr;
    };

    void addRow(const QString &field, const QString &kind);
    void setDefaults(Row &row);
    void updateRow(Row &row);
    const Row *row(const QString &field) const;
    nlohmann::json baseValue(const QString &field) const;

    QTableWidget *m_table;
    QList<Row> m_rows;
    nlohmann::json m_base = nlohmann::json::object();
    QHash<QString, QStringList> m_choices; // choice fields: every value the run config allows
};

} // namespace lathe::ui
