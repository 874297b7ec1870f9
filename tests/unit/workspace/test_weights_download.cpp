#include "engine/models/model_zoo.h"
#include "workspace/job.h"
#include "workspace/job_manager.h"
#include "workspace/weights_download_job.h"
#include "workspace/workspace_error.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using namespace lathe::workspace;

namespace {

constexpr int kTimeoutMs = 20000;

// A small HTTP/1.1 file server on 127.0.0.1, serving one body at any path, with the faults a
// download meets in the wild. One request per connection ("Connection: close").
class WeightsServer : public QObject
{
public:
    enum class Mode {
        Normal,      // 200, or 206 for "Range: bytes=N-", 416 past the end
        IgnoreRange, // always 200 with the whole body
        DropHalfway, // promises the whole body, sends half, closes
        WrongBytes,  // the whole body with one byte changed
        NotFound,    // 404
        Stall,       // promises the whole body, sends half, then nothing (connection stays open)
    };

    explicit WeightsServer(QByteArray body)
        : m_body(std::move(body))
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                serve(socket);
        });
    }

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    std::string url(const QString &file) const
    {
        return QStringLiteral("http://127.0.0.1:%1/models/%2").arg(m_server.serverPort()).arg(file).toStdString();
    }

    Mode mode = Mode::Normal;
    int requests = 0;
    QList<QByteArray> ranges; // each request's Range header, empty when it had none
    QList<QByteArray> paths;

private:
    void serve(QTcpSocket *socket)
    {
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, buffer] {
            buffer->append(socket->readAll());
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end >= 0 && !buffer->isNull()) {
                respond(socket, buffer->left(end));
                *buffer = QByteArray(); // null: this connection has had its request
            }
        });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

    void respond(QTcpSocket *socket, const QByteArray &head)
    {
        ++requests;
        const QList<QByteArray> lines = head.split('\n');
        QByteArray range;
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == "range")
                range = line.mid(colon + 1).trimmed();
        }
        ranges << range;
        paths << lines.value(0).split(' ').value(1);

        if (mode == Mode::NotFound) {
            socket->write("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
            socket->disconnectFromHost();
            return;
        }
        QByteArray body = m_body;
        if (mode == Mode::WrongBytes)
            body[body.size() / 2] = char(body[body.size() / 2] ^ 0x55);
        qint64 first = 0;
        if (mode != Mode::IgnoreRange && range.startsWith("bytes=") && range.endsWith("-"))
            first = range.mid(6, range.size() - 7).toLongLong();

        QByteArray header;
        QByteArray payload;
        if (first > 0 && first >= body.size()) {
            header = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" + QByteArray::number(body.size())
                     + "\r\nContent-Length: 0\r\n";
        } else if (first > 0) {
            payload = body.mid(first);
            header = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + QByteArray::number(first) + "-"
                     + QByteArray::number(body.size() - 1) + "/" + QByteArray::number(body.size())
                     + "\r\nContent-Length: " + QByteArray::number(payload.size()) + "\r\n";
        } else {
            payload = body;
            header = "HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(payload.size()) + "\r\n";
        }
        socket->write(header + "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n");
        if (mode == Mode::DropHalfway || mode == Mode::Stall) {
            socket->write(payload.left(payload.size() / 2));
            if (mode == Mode::DropHalfway)
                socket->disconnectFromHost(); // after the half is written
            return;
        }
        socket->write(payload);
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QByteArray m_body;
};

QByteArray patternBytes(int n, quint32 seed)
{
    QByteArray out(n, Qt::Uninitialized);
    quint32 x = seed * 2654435761u + 1;
    for (char &b : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = char(x);
    }
    return out;
}

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), qint64(bytes.size()));
}

// A catalog entry for the body, the way torchvision names its files.
engine::ZooWeights entryFor(const QByteArray &body, const WeightsServer &server)
{
    engine::ZooWeights w;
    w.arch = "resnet18";
    w.id = "TEST_V1";
    w.sha256Prefix = sha256Of(body).left(8).toStdString();
    w.fileName = "resnet18-" + w.sha256Prefix + ".pth";
    w.url = server.url(QString::fromStdString(w.fileName));
    w.isDefault = true;
    return w;
}

struct Spies
{
    explicit Spies(Job *job)
        : finished(job, &Job::finished)
        , failed(job, &Job::failed)
        , cancelled(job, &Job::cancelled)
        , ended(job, &Job::ended)
    {
    }
    QString failure() const { return failed.isEmpty() ? QString() : failed.first().first().toString(); }
    CachedWeights result() const
    {
        return finished.isEmpty() ? CachedWeights() : finished.first().first().value<CachedWeights>();
    }
    QSignalSpy finished, failed, cancelled, ended;
};

} // namespace

class TestWeightsDownload : public QObject
{
    Q_OBJECT

private:
    const QByteArray m_body = patternBytes(2 * 1024 * 1024 + 777, 11);

    struct Fixture
    {
        QTemporaryDir cache;
        WeightsServer server;
        engine::ZooWeights weights;
        QString target;
        QString part;

        explicit Fixture(const QByteArray &body)
            : server(body)
        {
        }
    };

    std::unique_ptr<Fixture> makeFixture()
    {
        auto f = std::make_unique<Fixture>(m_body);
        if (!f->cache.isValid() || !f->server.listen())
            return nullptr;
        f->weights = entryFor(m_body, f->server);
        f->target = f->cache.filePath(QString::fromStdString(f->weights.fileName));
        f->part = f->target + QStringLiteral(".part");
        return f;
    }

    // Starts one download; the caller waits for its end while the server answers on this thread.
    static std::unique_ptr<Spies> startDownload(JobManager &manager, Fixture &f, int stallTimeoutMs = 10000)
    {
        auto *job = new WeightsDownloadJob({f.weights, f.cache.path(), stallTimeoutMs});
        auto spies = std::make_unique<Spies>(job);
        manager.start(job);
        return spies;
    }

private Q_SLOTS:
    void freshDownloadVerifiesAndLandsInTheCache()
    {
        auto f = makeFixture();
        QVERIFY(f);
        JobManager manager;
        auto *job = new WeightsDownloadJob({f->weights, f->cache.path(), 10000});
        QCOMPARE(job->targetPath(), f->target);
        Spies spies(job);
        QSignalSpy progress(job, &Job::progressChanged);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies.failure(), QString());
        QCOMPARE(spies.finished.count(), 1);

        const CachedWeights result = spies.result();
        QCOMPARE(result.path, f->target);
        QCOMPARE(QString::fromStdString(result.weights.fileName), QString::fromStdString(f->weights.fileName));
        QCOMPARE(result.sha256, sha256Of(m_body));
        QCOMPARE(result.bytes, qint64(m_body.size()));
        QCOMPARE(result.downloaded, true);
        QCOMPARE(result.resumedFrom, qint64(0));
        QCOMPARE(readAll(f->target), m_body);
        QVERIFY(!QFileInfo::exists(f->part));
        QCOMPARE(f->server.requests, 1);
        QCOMPARE(f->server.ranges.value(0), QByteArray());
        QCOMPARE(f->server.paths.value(0), QByteArray("/models/") + QByteArray::fromStdString(f->weights.fileName));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().first().toDouble(), 1.0);
        QCOMPARE(QDir(f->cache.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QString::fromStdString(f->weights.fileName)});
    }

    void interruptedDownloadResumesWithRange()
    {
        auto f = makeFixture();
        QVERIFY(f);
        JobManager manager;
        f->server.mode = WeightsServer::Mode::DropHalfway;
        auto first = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(first->ended.count(), 1, kTimeoutMs);
        QCOMPARE(first->failed.count(), 1);
        QVERIFY2(first->failure().contains(QString::fromStdString(f->weights.url)), qPrintable(first->failure()));
        QVERIFY(!QFileInfo::exists(f->target));
        const qint64 half = m_body.size() / 2;
        QCOMPARE(QFileInfo(f->part).size(), half);
        QCOMPARE(readAll(f->part), m_body.left(half));

        f->server.mode = WeightsServer::Mode::Normal;
        auto second = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(second->ended.count(), 1, kTimeoutMs);
        QCOMPARE(second->failure(), QString());
        QCOMPARE(f->server.requests, 2);
        QCOMPARE(f->server.ranges.value(1), QByteArray("bytes=") + QByteArray::number(half) + "-");
        QCOMPARE(second->result().resumedFrom, half);
        QCOMPARE(second->result().sha256, sha256Of(m_body));
        QCOMPARE(sha256Of(readAll(f->target)), sha256Of(m_body));
        QVERIFY(!QFileInfo::exists(f->part));
    }

    void serverIgnoringRangeStartsOver()
    {
        auto f = makeFixture();
        QVERIFY(f);
        // A .part whose bytes are not even the file's: only a full 200 answer can fix it.
        writeFile(f->part, patternBytes(5000, 99));
        f->server.mode = WeightsServer::Mode::IgnoreRange;
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failure(), QString());
        QCOMPARE(f->server.requests, 1);
        QCOMPARE(f->server.ranges.value(0), QByteArray("bytes=5000-"));
        QCOMPARE(spies->result().resumedFrom, qint64(0));
        QCOMPARE(readAll(f->target), m_body);
        QVERIFY(!QFileInfo::exists(f->part));
    }

    void partLongerThanTheFileStartsOver()
    {
        auto f = makeFixture();
        QVERIFY(f);
        writeFile(f->part, m_body + QByteArray("extra"));
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failure(), QString());
        // 416 for the range, then the whole file without one.
        QCOMPARE(f->server.ranges, (QList<QByteArray>{"bytes=" + QByteArray::number(m_body.size() + 5) + "-", {}}));
        QCOMPARE(readAll(f->target), m_body);
    }

    void wrongBytesFailWithChecksumMessage()
    {
        auto f = makeFixture();
        QVERIFY(f);
        f->server.mode = WeightsServer::Mode::WrongBytes;
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failed.count(), 1);
        const QString message = spies->failure();
        QByteArray wrong = m_body;
        wrong[wrong.size() / 2] = char(wrong[wrong.size() / 2] ^ 0x55);
        QVERIFY2(message.contains(QStringLiteral("checksum")), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(f->weights.fileName)), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(f->weights.sha256Prefix)), qPrintable(message));
        QVERIFY2(message.contains(sha256Of(wrong).left(8)), qPrintable(message));
        QVERIFY(!QFileInfo::exists(f->target));
        QVERIFY(!QFileInfo::exists(f->part));
        QCOMPARE(QDir(f->cache.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void notFoundFailsNamingUrlAndStatus()
    {
        auto f = makeFixture();
        QVERIFY(f);
        f->server.mode = WeightsServer::Mode::NotFound;
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failed.count(), 1);
        const QString message = spies->failure();
        QVERIFY2(message.contains(QString::fromStdString(f->weights.url)), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("404")), qPrintable(message));
        QCOMPARE(QDir(f->cache.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void cancelKeepsThePartForResume()
    {
        auto f = makeFixture();
        QVERIFY(f);
        f->server.mode = WeightsServer::Mode::Stall;
        JobManager manager;
        auto *job = new WeightsDownloadJob({f->weights, f->cache.path(), 60000});
        Spies spies(job);
        manager.start(job);
        const qint64 half = m_body.size() / 2;
        QTRY_COMPARE_WITH_TIMEOUT(QFileInfo(f->part).size(), half, kTimeoutMs);
        QCOMPARE(spies.ended.count(), 0); // still waiting for the rest

        // Meanwhile a second job for the same file must not write into the same .part.
        auto twin = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(twin->ended.count(), 1, kTimeoutMs);
        QVERIFY2(twin->failure().contains(QStringLiteral("already being downloaded")), qPrintable(twin->failure()));
        QCOMPARE(f->server.requests, 1);

        manager.cancel(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies.cancelled.count(), 1);
        QCOMPARE(spies.failed.count(), 0);
        QCOMPARE(QFileInfo(f->part).size(), half);
        QVERIFY(!QFileInfo::exists(f->target));

        // The next download continues from the kept bytes.
        f->server.mode = WeightsServer::Mode::Normal;
        auto again = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(again->ended.count(), 1, kTimeoutMs);
        QCOMPARE(again->failure(), QString());
        QCOMPARE(f->server.ranges.value(1), QByteArray("bytes=") + QByteArray::number(half) + "-");
        QCOMPARE(readAll(f->target), m_body);
    }

    void cachedFileFinishesWithoutRequest()
    {
        auto f = makeFixture();
        QVERIFY(f);
        writeFile(f->target, m_body);
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failure(), QString());
        QCOMPARE(spies->result().downloaded, false);
        QCOMPARE(spies->result().sha256, sha256Of(m_body));
        QCOMPARE(f->server.requests, 0);
    }

    void damagedCachedFileIsDownloadedAgain()
    {
        auto f = makeFixture();
        QVERIFY(f);
        writeFile(f->target, m_body.left(1000));
        JobManager manager;
        auto spies = startDownload(manager, *f);
        QTRY_COMPARE_WITH_TIMEOUT(spies->ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies->failure(), QString());
        QCOMPARE(spies->result().downloaded, true);
        QCOMPARE(f->server.requests, 1);
        QCOMPARE(readAll(f->target), m_body);
    }

    void importCopiesAMatchingFile()
    {
        QTemporaryDir source;
        QTemporaryDir cache;
        QVERIFY(source.isValid() && cache.isValid());
        const QString path = source.filePath(QStringLiteral("my download.pth"));
        writeFile(path, m_body);
        WeightsServer unused(m_body);
        engine::ZooWeights decoy = entryFor(patternBytes(10, 1), unused);
        decoy.id = "DECOY";
        const engine::ZooWeights match = entryFor(m_body, unused);

        const CachedWeights cached = importWeightsFile(path, {decoy, match}, cache.path());
        const QString expected = cache.filePath(QString::fromStdString(match.fileName));
        QCOMPARE(cached.path, expected);
        QCOMPARE(cached.weights.id, std::string("TEST_V1"));
        QCOMPARE(cached.sha256, sha256Of(m_body));
        QCOMPARE(cached.bytes, qint64(m_body.size()));
        QCOMPARE(readAll(expected), m_body);
        QCOMPARE(QDir(cache.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QString::fromStdString(match.fileName)});
        QVERIFY(QFileInfo::exists(path)); // a copy: the user's file stays

        // The same through the job, for the GUI.
        QTemporaryDir cache2;
        JobManager manager;
        auto *job = new WeightsImportJob({path, {match}, cache2.path()});
        Spies spies(job);
        manager.start(job);
        QTRY_COMPARE_WITH_TIMEOUT(spies.ended.count(), 1, kTimeoutMs);
        QCOMPARE(spies.failure(), QString());
        QCOMPARE(spies.result().path,
                 cache2.filePath(QString::fromStdString(match.fileName)));
        QCOMPARE(readAll(cache2.filePath(QString::fromStdString(match.fileName))), m_body);
    }

    void importRefusesAFileOutsideTheCatalog()
    {
        QTemporaryDir source;
        QTemporaryDir cache;
        QVERIFY(source.isValid() && cache.isValid());
        const QString path = source.filePath(QStringLiteral("other.pth"));
        writeFile(path, m_body.left(4096));
        WeightsServer unused(m_body);
        const engine::ZooWeights entry = entryFor(m_body, unused);
        QString message;
        try {
            importWeightsFile(path, {entry}, cache.path());
        } catch (const WorkspaceError &e) {
            message = e.message();
        }
        QVERIFY2(message.contains(QStringLiteral("matches no catalog entry")), qPrintable(message));
        QVERIFY2(message.contains(path), qPrintable(message));
        QCOMPARE(QDir(cache.path()).entryList(QDir::Files | QDir::Hidden), QStringList());

        QString missing;
        try {
            importWeightsFile(source.filePath(QStringLiteral("absent.pth")), {entry}, cache.path());
        } catch (const WorkspaceError &e) {
            missing = e.message();
        }
        QVERIFY2(missing.contains(QStringLiteral("absent.pth")), qPrintable(missing));
    }
};

QTEST_GUILESS_MAIN(TestWeightsDownload)
#include "test_weights_download.moc"
