#pragma once

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace lathe::ui {

// Asks for a project name and the folder to put it in; the project folder is LOCATION/NAME.
class NewProjectDialog : public QDialog
{
    Q_OBJECT

public:
    explicit NewProjectDialog(const QString &location, QWidget *parent = nullptr);

    QString projectName() const;
    QString location() const;
    QString projectFolder() const;

private:
    void validate();

    QLineEdit *m_name;
    QLineEdit *m_location;
    QLabel *m_result;
    QDialogButtonBox *m_buttons;
};

} // namespace lathe::ui
