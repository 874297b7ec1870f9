#pragma once

#include <QDialog>

class QLabel;

namespace lathe::ui {

// Versions of Lathe and the libraries it runs on, the compute devices found, and diagnostics:
// the GUI event loop's latency (EventLoopMonitor::application(), updated live while open) and
// LibTorch's threading back ends.
class AboutDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AboutDialog(QWidget *parent = nullptr);
    // Plain text of everything shown, for a bug report.
    QString details() const;

private:
    void updateLatency();

    QString m_details;
    QLabel *m_latency;
};

} // namespace lathe::ui
