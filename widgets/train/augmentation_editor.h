#pragma once

#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace lathe::ui {

class AugmentationStepForm;

// Edits the augmentation list of a run config ("data.augment"): steps in order, each read as a
// sentence ("Horizontal flip: probability 50%"), the chosen one's chance and parameters in a
// small form under the list. Every edit is checked by the engine's parser; the reason for a
// refused value is shown and the last valid list stays in force.
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

    // For tests: the step list, the type picker (the type name as item data), the form of the
    // chosen step and its probability (percent).
    QListWidget *stepList() const { return m_list; }
    QComboBox *typePicker() const { return m_typePicker; }
    AugmentationStepForm *stepForm() const { return m_stepForm; }
    QDoubleSpinBox *probabilityEdit() const;
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }

Q_SIGNALS:
    // The accepted list changed.
    void stepsChanged(const nlohmann::json &steps);

private:
    void addStep();
    void removeStep();
    void moveStep(int delta);
    void stepEdited(const nlohmann::json &step);
    void showCurrent();
    // editing: the change came from the step form, which keeps its editors (and their focus).
    bool accept(const nlohmann::json &candidate, int selectRow, bool editing = false);
    void refreshList(int selectRow, bool editing);
    void showError(const QString &message);

    nlohmann::json m_steps = nlohmann::json::array();
    QListWidget *m_list;
    QComboBox *m_typePicker;
    QPushButton *m_add;
    QPushButton *m_remove;
    QPushButton *m_up;
    QPushButton *m_down;
    QPushButton *m_standard;
    AugmentationStepForm *m_stepForm;
    QLabel *m_error;
    bool m_updating = false;
};

} // namespace lathe::ui
