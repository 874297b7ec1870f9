#pragma once

#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace lathe::ui {

// Edits the augmentation list of a run config ("data.augment"): steps in order, each a
// torchvision-named type with a probability and its parameters (a JSON object). The list is
// validated by the engine's parser as it is typed; the reason for a rejected value is shown
// next to it and the last valid list stays in force.
class AugmentationEditor : public QWidget
{
    Q_OBJECT

public:
    explicit AugmentationEditor(QWidget *parent = nullptr);

    // The last list the engine accepted.
    nlohmann::json steps() const { return m_steps; }
    // Replaces the list; an invalid list is refused (false) and the message shown.
    bool setSteps(const nlohmann::json &steps);
    QString errorText() const;

    // For tests: the step list, the parameter field and the type picker.
    QListWidget *stepList() const { return m_list; }
    QLineEdit *paramsEdit() const { return m_params; }
    QComboBox *typePicker() const { return m_typePicker; }
    QDoubleSpinBox *probabilityEdit() const { return m_probability; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }

Q_SIGNALS:
    // The accepted list changed.
    void stepsChanged(const nlohmann::json &steps);

private:
    void addStep();
    void removeStep();
    void moveStep(int delta);
    void editCurrent();
    void showCurrent();
    bool accept(const nlohmann::json &candidate, int selectRow);
    void refreshList(int selectRow);
    void showError(const QString &message);

    nlohmann::json m_steps = nlohmann::json::array();
    QListWidget *m_list;
    QComboBox *m_typePicker;
    QPushButton *m_add;
    QPushButton *m_remove;
    QPushButton *m_up;
    QPushButton *m_down;
    QPushButton *m_standard;
    QDoubleSpinBox *m_probability;
    QLineEdit *m_params;
    QLabel *m_error;
    bool m_updating = false;
};

} // namespace lathe::ui
