#include "workspace/serve_job.h"

#include "engine/serve/serve.h" // torch-free: the engine's prediction server (core/engine)
#include "workspace/workspace_error.h"

#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QLocale>
#include <QMutexLocker>
#include <QTcpServer>

#include <algorithm>

namespace lathe::workspace {
namespace {

// An IP address QTcpServer can listen on; "localhost" is the loopback one. Null otherwise.
QHostAddress hostAddress(const QString &address)
{
    if (address.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return QHostAddress(QHostAddress::LocalHost);
    return QHostAddress(address);
}

} // namespace

ServeJob::ServeJob(Params params, QObject *parent)
    : Job(tr("Serve %1").arg(params.modelName), parent)
    , m_params(std::move(params))
{
}

int ServeJob::boundPort() const
{
    QMutexLocker lock(&m_mutex);
    return m_boundPort;
}

ServeCounts ServeJob::counts() const
{
    QMutexLocker lock(&m_mutex);
    return m_counts;
}

QString ServeJob::modelUrl() const
{
    const int bound = boundPort();
    return modelUrl(m_params.address, bound ? bound : m_params.port, m_params.modelName);
}

QString ServeJob::modelUrl(const QString &address, int port, const QString &name)
{
    const QString host = address.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(address) : address;
    return QStringLiteral("http://%1:%2/v1/models/%3").arg(host).arg(port).arg(name);
}

bool ServeJob::isValidModelName(const QString &name)
{
    if (name.isEmpty() || name.size() > 128 || name == QLatin1String(".") || name == QLatin1String(".."))
        return false;
    return std::all_of(name.begin(), name.end(), [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
               (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_') || c == QLatin1Char('-') ||
               c == QLatin1Char('.');
    });
}

QString ServeJob::modelNameFrom(const QString &text)
{
    QString name;
    for (const QChar c : text) {
        const bool ok = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
                        (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_') ||
                        c == QLatin1Char('-') || c == QLatin1Char('.');
        name += ok ? c : QLatin1Char('_');
    }
    name = name.left(128);
    return isValidModelName(name) ? name : QStringLiteral("model");
}

bool ServeJob::isPortFree(const QString &address, int port)
{
    const QHostAddress host = hostAddress(address);
    if (host.isNull() || port < 1 || port > 65535)
        return false;
    QTcpServer probe;
    const bool free = probe.listen(host, quint16(port));
    probe.close();
    return free;
}

int ServeJob::nextFreePort(const QString &address, int from)
{
    for (int port = std::max(1, from); port <= 65535 && port < from + 100; ++port)
        if (isPortFree(address, port))
            return port;
    return 0;
}

QString ServeJob::statusLine(const ServeCounts &counts) const
{
    const QLocale locale;
    return tr("Serving %1 at %2 (requests: %3, errors: %4, last latency: %5 ms)")
        .arg(m_params.modelName, modelUrl(), locale.toString(counts.requests), locale.toString(counts.errors),
             locale.toString(counts.lastLatencyMs, 'f', 1));
}

QVariant ServeJob::execute()
{
    if (!isValidModelName(m_params.modelName))
        throw WorkspaceError(tr("\"%1\" cannot be a model name: use letters, digits, '_', '-' and '.' (at most 128)")
                                 .arg(m_params.modelName));
    if (m_params.address.trimmed().isEmpty())
        throw WorkspaceError(tr("No address was given to listen on"));
    const QString dir = QDir::cleanPath(QDir(m_params.exportDir).absolutePath());
    if (!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("report.json"))))
        throw WorkspaceError(tr("%1 is not an export folder (it has no report.json)").arg(QDir::toNativeSeparators(dir)));
    if (m_params.port < 0 || m_params.port > 65535)
        throw WorkspaceError(tr("%1 is not a TCP port (1 to 65535)").arg(m_params.port));
    // cpp-httplib's own failure only says the bind failed; this names the port and a free one.
    if (m_params.port != 0 && !hostAddress(m_params.address).isNull() && !isPortFree(m_params.address, m_params.port)) {
        const int free = nextFreePort(m_params.address, m_params.port + 1);
        throw WorkspaceError(
            free ? tr("Cannot listen on %1 port %2: the port is in use (port %3 is free), or the address is not one of "
                      "this computer's.")
                       .arg(m_params.address)
                       .arg(m_params.port)
                       .arg(free)
                 : tr("Cannot listen on %1 port %2: the port is in use, or the address is not one of this computer's.")
                       .arg(m_params.address)
                       .arg(m_params.port));
    }

    reportProgress(0.0, tr("Loading %1").arg(m_params.modelName));
    engine::serve::ServeOptions options;
    options.models = {{m_params.modelName.toStdString(), dir.toStdString()}};
    options.bind = m_params.address.toStdString();
    options.port = m_params.port;
    options.threads = 8;
    options.accessLog = false;
    options.registry.device = m_params.device.toStdString();
    options.handleSignals = false; // the program's own SIGTERM/SIGINT handling stays
    options.stop = taskControl().cancel;
    options.onListening = [this](int port) {
        {
            QMutexLocker lock(&m_mutex);
            m_boundPort = port;
        }
        reportProgress(0.0, statusLine({}));
        Q_EMIT listening(port);
    };
    options.onStats = [this](const engine::serve::ServeStats &stats) {
        ServeCounts counts;
        counts.requests = qint64(stats.requests);
        counts.errors = qint64(stats.errors);
        counts.lastLatencyMs = stats.lastLatencyMs;
        counts.inFlight = stats.inFlight;
        {
            QMutexLocker lock(&m_mutex);
            m_counts = counts;
        }
        reportProgress(0.0, statusLine(counts));
    };
    try {
        engine::serve::runServer(options);
    } catch (const std::exception &e) {
        throw WorkspaceError(tr("Cannot serve %1: %2").arg(m_params.modelName, QString::fromUtf8(e.what())));
    }
    checkCancel(); // the server only stops when asked: this job ends cancelled
    return {};
}

} // namespace lathe::workspace
