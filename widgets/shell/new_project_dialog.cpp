#include "shell/new_project_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace lathe::ui {

NewProjectDialog::NewProjectDialog(const QString &location, QWidget *parent)
    : QDialog(parent)
    , m_name(new QLineEdit(this))
    , m_location(new QLineEdit(location, this))
    , m_result(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("New Project"));
    m_name->setPlaceholderText(tr("for example: flowers"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        auto *dialog = new QFileDialog(this, tr("Choose where to create the project"), m_location->text());
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setOption(QFileDialog::ShowDirsOnly);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, m_location, &QLineEdit::setText);
        dialog->open();
    });
    auto *locationRow = new QHBoxLayout;
    locationRow->addWidget(m_location, 1);
    locationRow->addWidget(browse);

    m_result->setWordWrap(true);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Location:"), locationRow);
    form->addRow(m_result);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &NewProjectDialog::validate);
    connect(m_location, &QLineEdit::textChanged, this, &NewProjectDialog::validate);
    resize(560, sizeHint().height());
    validate();
}

QString NewProjectDialog::projectName() const
{
    return m_name->text().trimmed();
}

QString NewProjectDialog::location() const
{
    return m_location->text().trimmed();
}

QString NewProjectDialog::projectFolder() const
{
    return QDir::cleanPath(QDir(location()).filePath(projectName()));
}

void NewProjectDialog::validate()
{
    QString problem;
    const QString name = projectName();
    if (name.isEmpty())
        problem = tr("Enter a name.");
    else if (name.contains(QLatin1Char('/')) || name.contains(QLatin1Char('\\')) || name == QStringLiteral(".")
             || name == QStringLiteral(".."))
        problem = tr("The name cannot contain '/' or '\\' or be '.' or '..'.");
    else if (location().isEmpty() || !QFileInfo(location()).isDir())
        problem = tr("The location must be an existing folder.");
    else if (QFileInfo(projectFolder()).exists() && !QDir(projectFolder()).isEmpty())
        problem = tr("%1 already exists and is not empty.").arg(projectFolder());
    m_result->setText(problem.isEmpty() ? tr("The project will be created in %1").arg(projectFolder()) : problem);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
}

} // namespace lathe::ui
