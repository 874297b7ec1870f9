#include "workspace/weights_download_job.h"

#include "engine/base/sha256.h"
#include "workspace/atomic_file.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QMutexLocker>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QTimer>
#include <QUrl>

#include <memory>

namespace lathe::workspace {
namespace {

constexpr qint64 kChunk = 1 << 20;
// The cancel flag is a plain atomic; the worker's event loop looks at it this often.
constexpr int kCancelPollMs = 50;

QString mib(qint64 bytes)
{
    return QString::number(double(bytes) / double(1 << 20), 'f', 1);
}

bool startsWith(const std::string &s, const std::string &prefix)
{
    return !prefix.empty() && s.compare(0, prefix.size(), prefix) == 0;
}

// The cache writes <cacheDir>/<fileName>: a catalog entry must not name anything else.
void checkEntry(const engine::ZooWeights &w)
{
    const QString name = QString::fromStdString(w.fileName);
    if (name.isEmpty() || name.startsWith(QLatin1Char('.')) || name.contains(QLatin1Char('/'))
        || name.contains(QLatin1Char('\\')))
        throw WorkspaceError(WeightsDownloadJob::tr("%1 %2: \"%3\" is not a plain file name")
                                 .arg(QString::fromStdString(w.arch), QString::fromStdString(w.id), name));
    if (w.sha256Prefix.empty()
        || w.sha256Prefix.find_first_not_of("0123456789abcdef") != std::string::npos)
        throw WorkspaceError(WeightsDownloadJob::tr("%1: the catalog's SHA-256 prefix \"%2\" is not lower-case hex")
                                 .arg(name, QString::fromStdString(w.sha256Prefix)));
}

// Hashes the first `bytes` bytes of an open file (a .part to continue); leaves it positioned there.
void hashPrefix(QFile &file, qint64 bytes, engine::Sha256 &hash, const engine::TaskControl &control)
{
    file.seek(0);
    qint64 done = 0;
    QByteArray buffer;
    while (done < bytes) {
        control.checkCancel();
        buffer = file.read(qMin(kChunk, bytes - done));
        if (buffer.isEmpty())
            throw WorkspaceError(WeightsDownloadJob::tr("%1: read error (%2)").arg(file.fileName(), file.errorString()));
        hash.update(buffer.constData(), std::size_t(buffer.size()));
        done += buffer.size();
        control.report(double(done) / double(bytes), {});
    }
}

// Makes what was written to file (a temporary beside to) to's content, atomically: flushed, then
// commitTemporaryFile fsyncs it, renames it over to (replacing an older file) and fsyncs the
// folder. file is removed on failure; the error names the file and the reason.
void commitInto(QFile &file, const QString &to)
{
    if (!file.flush())
        throw WorkspaceError(WeightsDownloadJob::tr("%1: cannot write (%2)").arg(file.fileName(), file.errorString()));
    commitTemporaryFile(file.fileName(), to);
}

// "bytes 100-999/1000": first byte and whole size (-1 for "*").
bool parseContentRange(const QByteArray &value, qint64 &first, qint64 &total)
{
    const QByteArray v = value.trimmed();
    if (!v.startsWith("bytes "))
        return false;
    const int dash = v.indexOf('-');
    const int slash = v.indexOf('/');
    if (dash < 0 || slash < dash)
        return false;
    bool ok = false;
    first = v.mid(6, dash - 6).trimmed().toLongLong(&ok);
    if (!ok)
        return false;
    const QByteArray whole = v.mid(slash + 1).trimmed();
    if (whole == "*") {
        total = -1;
        return true;
    }
    total = whole.toLongLong(&ok);
    return ok;
}

// Two jobs writing one .part would interleave their bytes: one download per file at a time.
class ActiveDownload
{
public:
    explicit ActiveDownload(const QString &target)
        : m_target(target)
    {
        QMutexLocker lock(&mutex());
        if (active().contains(m_target))
            throw WorkspaceError(WeightsDownloadJob::tr("%1 is already being downloaded").arg(m_target));
        active().insert(m_target);
    }
    ~ActiveDownload()
    {
        QMutexLocker lock(&mutex());
        active().remove(m_target);
    }
    ActiveDownload(const ActiveDownload &) = delete;
    ActiveDownload &operator=(const ActiveDownload &) = delete;

private:
    static QMutex &mutex()
    {
        static QMutex m;
        return m;
    }
    static QSet<QString> &active()
    {
        static QSet<QString> s;
        return s;
    }

    const QString m_target;
};

} // namespace

QString defaultWeightsCacheDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/weights");
}

CachedWeights importWeightsFile(const QString &path, const std::vector<engine::ZooWeights> &zoo,
                                const QString &cacheDir, const engine::TaskControl &control)
{
    QFile source(path);
    if (QFileInfo(path).isDir() || !source.open(QIODevice::ReadOnly))
        throw WorkspaceError(WeightsImportJob::tr("%1: cannot read (%2)")
                                 .arg(path, QFileInfo(path).isDir() ? WeightsImportJob::tr("it is a folder")
                                                                    : source.errorString()));
    if (!QDir().mkpath(cacheDir))
        throw WorkspaceError(WeightsImportJob::tr("%1: cannot create the weights cache folder").arg(cacheDir));

    // Copy and hash in one pass, so the bytes kept are the bytes checked.
    QTemporaryFile copy(cacheDir + QStringLiteral("/.import-XXXXXX.part"));
    if (!copy.open())
        throw WorkspaceError(WeightsImportJob::tr("%1: cannot write (%2)").arg(cacheDir, copy.errorString()));
    const qint64 total = source.size();
    const QString status = WeightsImportJob::tr("Checking %1").arg(QFileInfo(path).fileName());
    engine::Sha256 hash;
    qint64 done = 0;
    control.report(0.0, status.toStdString());
    for (;;) {
        control.checkCancel();
        const QByteArray data = source.read(kChunk);
        if (data.isEmpty()) {
            if (!source.atEnd())
                throw WorkspaceError(WeightsImportJob::tr("%1: read error (%2)").arg(path, source.errorString()));
            break;
        }
        if (copy.write(data) != data.size())
            throw WorkspaceError(WeightsImportJob::tr("%1: cannot write (%2)").arg(copy.fileName(), copy.errorString()));
        hash.update(data.constData(), std::size_t(data.size()));
        done += data.size();
        control.report(total > 0 ? qMin(1.0, double(done) / double(total)) : 1.0, status.toStdString());
    }
    const std::string sha256 = hash.hexDigest();
    const engine::ZooWeights *entry = engine::matchSha256(zoo, sha256);
    if (!entry)
        throw WorkspaceError(WeightsImportJob::tr("%1: matches no catalog entry (its SHA-256 is %2), so it was not "
                                                  "imported; only the weight files the model zoo lists can be imported")
                                 .arg(path, QString::fromStdString(sha256)));
    checkEntry(*entry);

    CachedWeights out;
    out.weights = *entry;
    out.path = QDir(cacheDir).filePath(QString::fromStdString(entry->fileName));
    out.sha256 = QString::fromStdString(sha256);
    out.bytes = done;
    commitInto(copy, out.path);
    copy.setAutoRemove(false); // it has become out.path
    control.report(1.0, status.toStdString());
    return out;
}

WeightsDownloadJob::WeightsDownloadJob(Params params, QObject *parent)
    : Job(tr("Download %1 weights").arg(QString::fromStdString(params.weights.arch)), parent)
    , m_params(std::move(params))
    , m_cacheDir(m_params.cacheDir.isEmpty() ? defaultWeightsCacheDir() : m_params.cacheDir)
{
}

QString WeightsDownloadJob::targetPath() const
{
    return QDir(m_cacheDir).filePath(QString::fromStdString(engine::cacheFileName(m_params.weights)));
}

QString WeightsDownloadJob::partPath() const
{
    return targetPath() + QStringLiteral(".part");
}

QVariant WeightsDownloadJob::execute()
{
    const engine::ZooWeights &w = m_params.weights;
    checkEntry(w);
    const QUrl url(QString::fromStdString(w.url), QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("https") && url.scheme() != QLatin1String("http")))
        throw WorkspaceError(tr("%1: not an http(s) address").arg(QString::fromStdString(w.url)));
    if (!QDir().mkpath(m_cacheDir))
        throw WorkspaceError(tr("%1: cannot create the weights cache folder").arg(m_cacheDir));

    CachedWeights out;
    out.weights = w;
    out.path = targetPath();
    const ActiveDownload guard(QFileInfo(out.path).absoluteFilePath());
    const QString name = QString::fromStdString(w.fileName);
    if (QFileInfo::exists(out.path)) {
        const engine::ZooMatch match =
            engine::verifyWeightsFile(out.path.toStdString(), {w}, taskControl(tr("Checking %1").arg(name)));
        if (match.matched()) {
            out.sha256 = QString::fromStdString(match.sha256);
            out.bytes = qint64(match.bytes);
            reportProgress(1.0, tr("%1 is already in the cache").arg(name));
            return QVariant::fromValue(out);
        }
        // A damaged copy (or another file under this name): fetch the real one.
        if (!QFile::remove(out.path))
            throw WorkspaceError(tr("%1: does not match the catalog and cannot be replaced").arg(out.path));
    }

    // A second attempt only follows a .part the server could not continue; it starts from 0.
    for (int attempt = 0; transfer(out) == Attempt::StartOver; ++attempt) {
        if (attempt > 0)
            throw WorkspaceError(tr("Could not download %1: the server does not send it from the start")
                                     .arg(QString::fromStdString(w.url)));
    }
    out.downloaded = true;
    return QVariant::fromValue(out);
}

WeightsDownloadJob::Attempt WeightsDownloadJob::transfer(CachedWeights &out)
{
    const engine::ZooWeights &w = m_params.weights;
    const QString url = QString::fromStdString(w.url);
    const QString name = QString::fromStdString(w.fileName);

    QFile part(partPath());
    auto hash = std::make_unique<engine::Sha256>();
    qint64 have = 0;
    if (part.exists()) {
        // Unbuffered: what arrived is in the file, for a resume after a crash or kill.
        if (!part.open(QIODevice::ReadWrite | QIODevice::Unbuffered))
            throw WorkspaceError(tr("%1: cannot open (%2)").arg(part.fileName(), part.errorString()));
        have = part.size();
        // The hash runs over the whole file, so what is already there is hashed first.
        hashPrefix(part, have, *hash, taskControl(tr("Checking the partial download of %1").arg(name)));
    }

    QNetworkAccessManager network;
    QNetworkRequest request{QUrl(url)};
    request.setRawHeader("User-Agent", "Lathe/" LATHE_VERSION);
    // Byte ranges and the hash are about the file itself, never a compressed rendition of it.
    request.setRawHeader("Accept-Encoding", "identity");
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    request.setTransferTimeout(m_params.stallTimeoutMs);
    if (have > 0)
        request.setRawHeader("Range", "bytes=" + QByteArray::number(have) + "-");

    QNetworkReply *reply = network.get(request);
    reply->setReadBufferSize(4 * kChunk);

    QEventLoop loop;
    bool headerSeen = false;
    bool startOver = false;
    bool cancelled = false;
    QString failure;
    qint64 offset = 0; // where this response's body goes in the file
    qint64 received = 0;
    qint64 total = -1;

    const auto fail = [&](const QString &message) {
        failure = message;
        reply->abort();
    };

    const auto acceptHeader = [&]() -> bool {
        headerSeen = true;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QVariant length = reply->header(QNetworkRequest::ContentLengthHeader);
        if (status == 206 && have > 0) {
            qint64 first = -1;
            qint64 whole = -1;
            if (!parseContentRange(reply->rawHeader("Content-Range"), first, whole) || first != have) {
                startOver = true;
                reply->abort();
                return false;
            }
            offset = have;
            total = whole >= 0 ? whole : (length.isValid() ? have + length.toLongLong() : -1);
            part.seek(have);
            out.resumedFrom = have;
            return true;
        }
        if (status == 200) {
            // The whole file: a fresh download, or a server that ignored the Range header.
            part.close();
            if (!part.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
                fail(tr("%1: cannot write (%2)").arg(part.fileName(), part.errorString()));
                return false;
            }
            hash = std::make_unique<engine::Sha256>();
            offset = 0;
            total = length.isValid() ? length.toLongLong() : -1;
            out.resumedFrom = 0;
            return true;
        }
        if (status == 416 && have > 0) { // the .part is not a beginning of this file
            startOver = true;
            reply->abort();
            return false;
        }
        fail(tr("Could not download %1: HTTP %2 %3")
                 .arg(url)
                 .arg(status)
                 .arg(reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString()));
        return false;
    };

    const auto drain = [&] {
        if (!headerSeen && !acceptHeader())
            return;
        if (!failure.isEmpty() || startOver || cancelled)
            return;
        while (reply->bytesAvailable() > 0) {
            const QByteArray data = reply->read(kChunk);
            if (data.isEmpty())
                break;
            if (part.write(data) != data.size()) {
                fail(tr("%1: cannot write (%2)").arg(part.fileName(), part.errorString()));
                return;
            }
            hash->update(data.constData(), std::size_t(data.size()));
            received += data.size();
        }
        const qint64 done = offset + received;
        if (total > 0)
            reportProgress(qMin(1.0, double(done) / double(total)),
                           tr("Downloading %1: %2 of %3 MiB").arg(name, mib(done), mib(total)));
        else
            reportProgress(0.0, tr("Downloading %1: %2 MiB").arg(name, mib(done)));
    };

    QObject::connect(reply, &QNetworkReply::readyRead, &loop, drain);
    QObject::connect(reply, &QNetworkReply::finished, &loop, [&] {
        // Also after an error: an HTTP status to report, or the bytes that came before a drop.
        if (!cancelled && (headerSeen || reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid()))
            drain();
        loop.quit();
    });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (isCancelRequested() && !cancelled && !reply->isFinished()) {
            cancelled = true;
            reply->abort();
        }
    });
    poll.start(kCancelPollMs);
    if (!reply->isFinished())
        loop.exec();
    poll.stop();

    const qint64 done = offset + received;
    if (part.isOpen())
        part.flush();
    // Cancelled: what arrived stays in the .part for the next download to continue.
    if (cancelled || isCancelRequested())
        throw engine::Cancelled();
    if (startOver) {
        part.close();
        part.remove();
        return Attempt::StartOver;
    }
    if (!failure.isEmpty())
        throw WorkspaceError(failure);
    if (reply->error() != QNetworkReply::NoError || (total >= 0 && done != total)) {
        const QString reason = reply->error() != QNetworkReply::NoError
                                   ? reply->errorString()
                                   : tr("the connection ended after %1 of %2 bytes").arg(done).arg(total);
        throw WorkspaceError(tr("Could not download %1: %2. The %3 bytes received are kept in %4; downloading "
                                "again continues from there.")
                                 .arg(url, reason)
                                 .arg(done)
                                 .arg(part.fileName()));
    }

    const std::string sha256 = hash->hexDigest();
    if (!startsWith(sha256, w.sha256Prefix)) {
        part.close();
        part.remove();
        throw WorkspaceError(tr("%1: checksum mismatch: the SHA-256 of the file from %2 starts with %3, the catalog "
                                "expects %4. The download was deleted.")
                                 .arg(name, url, QString::fromStdString(sha256.substr(0, w.sha256Prefix.size())),
                                      QString::fromStdString(w.sha256Prefix)));
    }
    commitInto(part, out.path);
    part.close();
    out.sha256 = QString::fromStdString(sha256);
    out.bytes = done;
    reportProgress(1.0, tr("Downloaded %1").arg(name));
    return Attempt::Done;
}

WeightsImportJob::WeightsImportJob(Params params, QObject *parent)
    : Job(tr("Import weights"), parent)
    , m_params(std::move(params))
{
}

QVariant WeightsImportJob::execute()
{
    const QString cacheDir = m_params.cacheDir.isEmpty() ? defaultWeightsCacheDir() : m_params.cacheDir;
    return QVariant::fromValue(importWeightsFile(m_params.sourcePath, m_params.zoo, cacheDir, taskControl()));
}

} // namespace lathe::workspace
