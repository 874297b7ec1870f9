#include "about_dialog.h"

#include "runtime_info.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace lathe::ui {

AboutDialog::AboutDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("About Lathe"));
    const engine::RuntimeInfo info = engine::runtimeInfo();
    const QLocale locale;
    const QString cuda = info.cudaDevices == 0 ? tr("none found") : locale.toString(info.cudaDevices);

    const QList<QPair<QString, QString>> rows = {
        {QStringLiteral("Lathe"), QString::fromStdString(info.lathe)},
        {QStringLiteral("Qt"), QString::fromLatin1(qVersion())},
        {QStringLiteral("LibTorch"), QString::fromStdString(info.libtorch)},
        {QStringLiteral("OpenCV"), QString::fromStdString(info.opencv)},
        {QStringLiteral("libjpeg-turbo"), QString::fromStdString(info.libjpegTurbo)},
        {tr("Compute threads"), locale.toString(info.torchThreads)},
        {tr("CUDA devices"), cuda},
    };
    QString table = QStringLiteral("<table cellspacing='4'>");
    for (const auto &row : rows) {
        table += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(row.first.toHtmlEscaped(),
                                                                               row.second.toHtmlEscaped());
        m_details += row.first + QStringLiteral(": ") + row.second + QLatin1Char('\n');
    }
    table += QStringLiteral("</table>");

    auto *title = new QLabel(tr("<h2>Lathe %1</h2><p>A workbench for training image classifiers.</p>")
                                 .arg(QString::fromStdString(info.lathe)),
                             this);
    auto *versions = new QLabel(table, this);
    versions->setObjectName(QStringLiteral("versions"));
    versions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *licence = new QLabel(tr("Free software under the GNU General Public License, version 3 or later."), this);
    licence->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(versions);
    layout->addWidget(licence);
    layout->addWidget(buttons);
}

} // namespace lathe::ui
