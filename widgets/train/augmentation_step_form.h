#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCheckBox;
class QDoubleSpinBox;
class QFormLayout;

namespace lathe::ui {

// The chance and parameters of one augmentation step as a small form: a spin box per number
// (two for a range, three for a colour), a check box per switch, a list per choice, built from
// the step's parameters as the engine's parser writes them (defaults filled in). An edit changes
// that parameter only and is reported as the whole step (stepEdited()); whether the engine takes
// it is the caller's to check, so a refused value stays in its editor to be corrected.
class AugmentationStepForm : public QWidget
{
    Q_OBJECT

public:
    explicit AugmentationStepForm(QWidget *parent = nullptr);

    // Builds the editors of a step; null or {} leaves only a disabled probability.
    void setStep(const nlohmann::json &step);
    nlohmann::json step() const { return m_step; }

    // Percent, 0 to 100.
    QDoubleSpinBox *probabilityEdit() const { return m_probability; }
    // The editor of a parameter, or of one number of it (a range's maximum: component 1); null
    // when the step has no such parameter.
    QWidget *parameterEditor(const QString &param, int component = 0) const;

Q_SIGNALS:
    void stepEdited(const nlohmann::json &step);

private:
    void addParameter(const QString &type, const QString &name, const nlohmann::json &value);
    // The parameter's value as its editors show it (absent: the parameter is left out).
    nlohmann::json editedValue(const QString &name) const;
    void edited(const QString &name);

    QFormLayout *m_form;
    QDoubleSpinBox *m_probability;
    nlohmann::json m_step;
    QHash<QString, QList<QWidget *>> m_editors; // per parameter: its spin boxes, check box or list
    QHash<QString, QCheckBox *> m_random;        // random_erasing's "random" value instead of the numbers
    QHash<QString, double> m_scale;              // shown = stored × scale (100 for percentages)
    QHash<QString, bool> m_optional;             // 0 means "left out" (resize's size)
    bool m_updating = false;
};

} // namespace lathe::ui
