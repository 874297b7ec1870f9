#pragma once

#include "workspace/job.h"

#include <QMetaType>
#include <QMutex>
#include <QString>

namespace lathe::workspace {

// What a ServeJob has answered so far (ServeJob::counts()).
struct ServeCounts
{
    qint64 requests = 0;      // requests answered, every endpoint
    qint64 errors = 0;        // of those, answered with an HTTP status of 400 or more
    double lastLatencyMs = 0; // the last answered request's
    qint64 inFlight = 0;
};

// The engine's prediction server (engine::serve::runServer, TensorFlow Serving's REST API, as
// `lathe-cli serve` runs it) for one export folder, on this job's worker thread, until the job is
// cancelled: then it stops accepting, lets the requests in flight finish and ends with
// cancelled(). It binds params.address:params.port (port 0: any free port); listening() names
// the port once the model is loaded and the address bound. The status text (the Job's progress)
// says where it serves and its live counts: requests answered, errors, the last latency. It
// fails with a message naming the port when the port is taken (and a free one near it), and with
// the engine's reason when the export cannot be served (it must have passed its checks). The
// server leaves the process's SIGTERM and SIGINT alone. Result: none (a server ends cancelled).
class ServeJob : public Job
{
    Q_OBJECT

public:
    static constexpr int kDefaultPort = 8501; // TF Serving's REST port

    struct Params
    {
        QString exportDir;  // an export folder with report.json
        QString modelName;  // the NAME of /v1/models/NAME (see isValidModelName)
        QString address = QStringLiteral("127.0.0.1");
        int port = kDefaultPort;
        QString device;     // "cpu", "cuda:N"; empty: the first GPU when there is one
    };

    explicit ServeJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }
    // Thread-safe: the bound port (0 until listening) and the counts so far.
    int boundPort() const;
    ServeCounts counts() const;
    // http://ADDR:PORT/v1/models/NAME with the bound port (the asked one until listening).
    QString modelUrl() const;

    // Letters, digits, '_', '-' and '.', at most 128, not "." or ".." (what `lathe-cli serve`
    // accepts: a URL path segment as TF Serving takes it).
    static bool isValidModelName(const QString &name);
    // A valid model name made from any text (a run folder's name); "model" when nothing is left.
    static QString modelNameFrom(const QString &text);
    // Whether a TCP server could listen on address:port now (an address that is not an IP
    // address of this machine gives false).
    static bool isPortFree(const QString &address, int port);
    // The first port from `from` up (at most 100 tried) that isPortFree; 0 when none.
    static int nextFreePort(const QString &address, int from);
    static QString modelUrl(const QString &address, int port, const QString &name);

Q_SIGNALS:
    // From the worker thread, once the model is loaded and the address bound.
    void listening(int port);

protected:
    QVariant execute() override;

private:
    QString statusLine(const ServeCounts &counts) const;

    const Params m_params;
    mutable QMutex m_mutex; // guards the two below
    int m_boundPort = 0;
    ServeCounts m_counts;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ServeCounts)
