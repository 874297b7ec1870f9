#include "shell/about_dialog.h"

#include "common/event_loop_monitor.h"
#include "engine/base/runtime_info.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace lathe::ui {
namespace {

constexpr int kLatencyRefreshMs = 500;

QString latencyLine(const QString &label, const EventLoopMonitor::Stats &stats)
{
    const QLocale locale;
    if (stats.samples == 0)
        return AboutDialog::tr("%1: no samples yet").arg(label);
    return AboutDialog::tr("%1: p50 %2 ms, p99 %3 ms, max %4 ms (%5 samples)")
        .arg(label, locale.toString(stats.p50Ms, 'f', 1), locale.toString(stats.p99Ms, 'f', 1),
             locale.toString(stats.maxMs, 'f', 1), locale.toString(stats.samples));
}

} // namespace

AboutDialog::AboutDialog(QWidget *parent)
    : QDialog(parent)
    , m_latency(new QLabel(this))
{
    setWindowTitle(tr("About Lathe"));
    const engine::RuntimeInfo info = engine::runtimeInfo();
    const QLocale locale;
    const QString cuda = info.cudaDevices == 0 ? tr("none found") : locale.toString(info.cudaDevices);

    const QList<QPair<QString, QString>> rows = {
        {QStringLiteral("Lathe"), QString::fromStdString(info.lathe)},
        {QStringLiteral("Qt"), QString::fromLatin1(qVersion())},
        {QStringLiteral("LibTorch"), info.libtorchCuda.empty()
                                         ? tr("%1, CPU only").arg(QString::fromStdString(info.libtorch))
                                         : tr("%1 with CUDA %2").arg(QString::fromStdString(info.libtorch),
                                                                     QString::fromStdString(info.libtorchCuda))},
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
    const QString parallel = QString::fromStdString(info.parallel).trimmed();
    m_details += tr("LibTorch parallel back ends:") + QLatin1Char('\n') + parallel + QLatin1Char('\n');

    auto *title = new QLabel(tr("<h2>Lathe %1</h2><p>A workbench for training image classifiers.</p>")
                                 .arg(QString::fromStdString(info.lathe)),
                             this);
    auto *versions = new QLabel(table, this);
    versions->setObjectName(QStringLiteral("versions"));
    versions->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *diagnostics = new QGroupBox(tr("Diagnostics"), this);
    auto *latencyTitle = new QLabel(tr("<b>Event-loop latency</b> (how late a periodic timer fires on the "
                                       "window's thread; under 16 ms at p99 keeps the window smooth):"),
                                    diagnostics);
    latencyTitle->setWordWrap(true);
    m_latency->setObjectName(QStringLiteral("eventLoopLatency"));
    m_latency->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *parallelInfo = new QPlainTextEdit(parallel, diagnostics);
    parallelInfo->setObjectName(QStringLiteral("parallelInfo"));
    parallelInfo->setReadOnly(true);
    parallelInfo->setMaximumHeight(110);
    auto *diagnosticsLayout = new QVBoxLayout(diagnostics);
    diagnosticsLayout->addWidget(latencyTitle);
    diagnosticsLayout->addWidget(m_latency);
    diagnosticsLayout->addWidget(new QLabel(tr("LibTorch parallel back ends:"), diagnostics));
    diagnosticsLayout->addWidget(parallelInfo);

    auto *licence = new QLabel(tr("Free software under the GNU General Public License, version 3 or later."), this);
    licence->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *copy = buttons->addButton(tr("Copy details"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy the versions and diagnostics to the clipboard, for a bug report."));
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(details()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(versions);
    layout->addWidget(diagnostics);
    layout->addWidget(licence);
    layout->addWidget(buttons);

    updateLatency();
    auto *refresh = new QTimer(this);
    connect(refresh, &QTimer::timeout, this, &AboutDialog::updateLatency);
    refresh->start(kLatencyRefreshMs);
}

QString AboutDialog::details() const
{
    return m_details + tr("Event-loop latency:") + QLatin1Char('\n') + m_latency->text() + QLatin1Char('\n');
}

void AboutDialog::updateLatency()
{
    const EventLoopMonitor *monitor = EventLoopMonitor::application();
    if (!monitor) {
        m_latency->setText(tr("Not measured (no application event loop)."));
        return;
    }
    m_latency->setText(latencyLine(tr("Last minute"), monitor->lastMinute()) + QLatin1Char('\n')
                       + latencyLine(tr("Since start"), monitor->sinceStart()));
}

} // namespace lathe::ui
