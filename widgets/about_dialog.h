#pragma once

#include <QDialog>

namespace lathe::ui {

// Versions of Lathe and the libraries it runs on, and the compute devices found.
class AboutDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AboutDialog(QWidget *parent = nullptr);
    QString details() const { return m_details; }

private:
    QString m_details;
};

} // namespace lathe::ui
