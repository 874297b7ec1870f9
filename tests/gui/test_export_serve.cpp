// The Export page's Serve… on real data, as test_export_page.cpp sets it up: Fashion-MNIST demo
// images converted to shards in a project, a short real training run (resnet18, 32x32, one
// epoch) and an export through the page (ONNX + safetensors, verified). Then the Serve dialog
// starts a ServeJob through the page's JobManager on a free port, and real HTTP requests
// (QNetworkAccessManager) reach the engine's server: the model's status says AVAILABLE, a
// :predict with one b64 JPEG (a demo image) answers one prediction of the model's class count,
// a malformed body is an error; the job's reported counts reach what was sent; Stop ends the job
// cancelled and the port is closed after. A taken port: the dialog offers a free one, and a job
// asked for it fails naming the port. Waits are bounded; nothing asserts on timings.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "export/export_page.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "workspace/serve_job.h"
#include "small_run.h"

#include <QBuffer>
#include <QCheckBox>
#include <QDialog>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lathe;
using lathe::ui::ExportPage;

namespace {

// A port nothing listens on now (the system's choice for port 0).
int freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const int port = probe.serverPort();
    probe.close();
    return port;
}

struct HttpAnswer
{
    bool done = false;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    int status = 0;
    QByteArray body;
};

} // namespace

class TestExportServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void serveNeedsAPassedExport();
    void servesRealRequestsAndStops();
    void takenPortIsOfferedAnotherAndRefused();

private:
    // Sends one request and waits (bounded) for its answer.
    HttpAnswer get(const QString &url);
    HttpAnswer post(const QString &url, const QByteArray &body);
    HttpAnswer wait(QNetworkReply *reply);
    QDialog *openDialog();

    QTemporaryDir m_tmp;
    QString m_images;
    QString m_run;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    std::unique_ptr<ExportPage> m_page;
    QNetworkAccessManager *m_net = nullptr;
    int m_numClasses = 0;
};

void TestExportServe::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    DemoProject demo = makeDemoProject(m_tmp.path(), QStringLiteral("Serve"), demoCounts(6, 2, 0));
    m_project = std::move(demo.project);
    m_images = demo.images;
    QCOMPARE(trainSmallRun(*m_project, demo.converted.outDir, "val", &m_run), std::string("finished"));

    // Two slots: the server holds one while it runs.
    m_jobs = new workspace::JobManager(2, this);
    m_net = new QNetworkAccessManager(this);
    m_net->setProxy(QNetworkProxy::NoProxy); // 127.0.0.1 directly, whatever http_proxy says

    m_page = std::make_unique<ExportPage>(m_jobs);
    m_page->resize(1400, 900);
    m_page->show();
    QSignalSpy runs(m_page.get(), &ExportPage::runsLoaded);
    QSignalSpy history(m_page.get(), &ExportPage::historyLoaded);
    m_page->setProject(m_project.get());
    QTRY_VERIFY_WITH_TIMEOUT(!runs.isEmpty() && !history.isEmpty(), 20000);
    QCOMPARE(m_page->runs(), QStringList{m_run});
}

void TestExportServe::cleanupTestCase()
{
    m_page.reset();
}

HttpAnswer TestExportServe::wait(QNetworkReply *reply)
{
    HttpAnswer answer;
    answer.done = QTest::qWaitFor([reply] { return reply->isFinished(); }, 60000);
    answer.error = reply->error();
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.body = reply->readAll();
    reply->deleteLater();
    return answer;
}

HttpAnswer TestExportServe::get(const QString &url)
{
    return wait(m_net->get(QNetworkRequest(QUrl(url))));
}

HttpAnswer TestExportServe::post(const QString &url, const QByteArray &body)
{
    QNetworkRequest request{QUrl(url)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    return wait(m_net->post(request, body));
}

QDialog *TestExportServe::openDialog()
{
    if (!m_page->serveButton()->isEnabled())
        return nullptr;
    QTest::mouseClick(m_page->serveButton(), Qt::LeftButton);
    return m_page->serveDialog();
}

void TestExportServe::serveNeedsAPassedExport()
{
    // Nothing shown yet: nothing to serve.
    QVERIFY(!m_page->serveButton()->isEnabled());
    QVERIFY(!m_page->canServe());

    // A failed export (a checkpoint that does not exist) shown from the history: not servable.
    const QString missing = QDir(m_run).filePath(QStringLiteral("checkpoints/no-such.safetensors"));
    m_page->selectCheckpoint(m_run, missing);
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    QSignalSpy history(m_page.get(), &ExportPage::historyLoaded);
    m_page->startExport();
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    QTRY_VERIFY(!history.isEmpty());
    m_page->historyView()->selectRow(0);
    QVERIFY(m_page->shownExportId() > 0);
    QVERIFY(!m_page->serveButton()->isEnabled());

    // A verified export (ONNX FP32 and safetensors) made through the page: servable.
    m_page->selectCheckpoint(m_run, QStringLiteral("best"));
    m_page->formatCheck(QStringLiteral("onnx"))->setChecked(true);
    m_page->formatCheck(QStringLiteral("safetensors"))->setChecked(true);
    QSignalSpy finished(m_page.get(), &ExportPage::exportFinished);
    m_page->startExport();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || failed.size() > 1, 300000);
    QVERIFY2(failed.size() == 1, qPrintable(failed.last().at(0).toString()));
    QFile reportFile(QDir(m_page->shownFolder()).filePath(QStringLiteral("report.json")));
    QVERIFY(reportFile.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll()).object();
    QCOMPARE(report.value(QStringLiteral("status")).toString(), QStringLiteral("passed"));
    m_numClasses = report.value(QStringLiteral("source")).toObject().value(QStringLiteral("num_classes")).toInt();
    QCOMPARE(m_numClasses, 10); // Fashion-MNIST
    QVERIFY(m_page->serveButton()->isEnabled());
    QVERIFY(!m_page->isServing());
}

void TestExportServe::servesRealRequestsAndStops()
{
    QVERIFY(m_numClasses > 0);
    QDialog *dialog = openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("serveModelName"));
    auto *address = dialog->findChild<QLineEdit *>(QStringLiteral("serveAddress"));
    auto *port = dialog->findChild<QSpinBox *>(QStringLiteral("servePort"));
    auto *serve = dialog->findChild<QPushButton *>(QStringLiteral("serveStart"));
    QVERIFY(name && address && port && serve);
    // The defaults: the run's name, this computer only, the first free port from TF Serving's.
    QCOMPARE(name->text(), QStringLiteral("run-1"));
    QCOMPARE(address->text(), QStringLiteral("127.0.0.1"));
    QVERIFY(port->value() >= workspace::ServeJob::kDefaultPort);

    // A name the URL cannot carry is refused in the dialog.
    name->setText(QStringLiteral("no spaces/here"));
    QTest::mouseClick(serve, Qt::LeftButton);
    QVERIFY(dialog->isVisible());
    QVERIFY(!m_page->isServing());

    const int p = freePort();
    QVERIFY(p > 0);
    name->setText(QStringLiteral("fashion"));
    port->setValue(p);
    QSignalSpy started(m_page.get(), &ExportPage::servingStarted);
    QSignalSpy ended(m_page.get(), &ExportPage::servingEnded);
    QTest::mouseClick(serve, Qt::LeftButton);
    QTRY_VERIFY(!m_page->serveDialog());
    QVERIFY(m_page->isServing());
    workspace::ServeJob *job = m_page->serveJob();
    QVERIFY(job);
    QVERIFY(m_jobs->jobs().contains(job)); // in the Jobs panel's list
    QCOMPARE(job->title(), QStringLiteral("Serve fashion"));
    // The Job's own progress, as the Jobs panel receives it (queued to this thread).
    QString lastStatus;
    const QMetaObject::Connection progress = connect(
        job, &workspace::Job::progressChanged, this, [&lastStatus](double, const QString &text) { lastStatus = text; });
    QVERIFY(!m_page->serveButton()->isEnabled()); // one server at a time from the page

    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty() || !ended.isEmpty(), 120000);
    QVERIFY2(ended.isEmpty(), ended.isEmpty() ? "" : qPrintable(ended.first().at(0).toString()));
    const QString url = QStringLiteral("http://127.0.0.1:%1/v1/models/fashion").arg(p);
    QCOMPARE(started.first().at(0).toString(), url);
    QCOMPARE(m_page->servingText(), QStringLiteral("Serving fashion at %1").arg(url));
    QCOMPARE(job->boundPort(), p);
    QVERIFY(m_page->stopServeButton()->isVisible());
    QVERIFY(m_page->stopServeButton()->isEnabled());

    // GET the model's status: version 1, AVAILABLE.
    const HttpAnswer status = get(url);
    QVERIFY(status.done);
    QCOMPARE(status.status, 200);
    const QJsonArray versions =
        QJsonDocument::fromJson(status.body).object().value(QStringLiteral("model_version_status")).toArray();
    QCOMPARE(versions.size(), 1);
    QCOMPARE(versions.first().toObject().value(QStringLiteral("state")).toString(), QStringLiteral("AVAILABLE"));

    // POST :predict with one demo image as a b64 JPEG: one prediction with every class.
    QString png;
    QDirIterator it(QDir(m_images).filePath(QStringLiteral("val")), {QStringLiteral("*.png")}, QDir::Files,
                    QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
    png = it.next();
    QImage image(png);
    QVERIFY(!image.isNull());
    QByteArray jpeg;
    QBuffer buffer(&jpeg);
    QVERIFY(buffer.open(QIODevice::WriteOnly));
    QVERIFY(image.save(&buffer, "JPG", 95));
    QVERIFY(jpeg.startsWith("\xff\xd8"));
    const QJsonObject instance{{QStringLiteral("b64"), QString::fromLatin1(jpeg.toBase64())}};
    const QByteArray body =
        QJsonDocument(QJsonObject{{QStringLiteral("instances"), QJsonArray{instance}}}).toJson(QJsonDocument::Compact);
    const HttpAnswer predicted = post(url + QStringLiteral(":predict"), body);
    QVERIFY(predicted.done);
    QVERIFY2(predicted.status == 200, predicted.body.constData());
    const QJsonArray predictions =
        QJsonDocument::fromJson(predicted.body).object().value(QStringLiteral("predictions")).toArray();
    QCOMPARE(predictions.size(), 1);
    const QJsonObject prediction = predictions.first().toObject();
    const QJsonArray logits = prediction.value(QStringLiteral("logits")).toArray();
    const QJsonArray probabilities = prediction.value(QStringLiteral("probabilities")).toArray();
    QCOMPARE(logits.size(), m_numClasses);
    QCOMPARE(probabilities.size(), m_numClasses);
    double sum = 0;
    for (const QJsonValue &v : probabilities) {
        QVERIFY(v.isDouble());
        QVERIFY(v.toDouble() >= 0 && v.toDouble() <= 1);
        sum += v.toDouble();
    }
    QVERIFY2(qAbs(sum - 1.0) < 1e-3, qPrintable(QString::number(sum)));

    // A malformed body: an error, counted as one.
    const HttpAnswer bad = post(url + QStringLiteral(":predict"), QByteArrayLiteral("{\"instances\": ["));
    QVERIFY(bad.done);
    QCOMPARE(bad.status, 400);
    QVERIFY(QJsonDocument::fromJson(bad.body).object().contains(QStringLiteral("error")));

    // Three requests sent, one an error: the job's counts, its progress text and the page say so.
    QTRY_VERIFY_WITH_TIMEOUT(job->counts().requests >= 3, 30000);
    QCOMPARE(job->counts().requests, 3);
    QCOMPARE(job->counts().errors, 1);
    QTRY_VERIFY_WITH_TIMEOUT(lastStatus.contains(QStringLiteral("requests: 3, errors: 1")), 30000);
    QVERIFY2(lastStatus.startsWith(QStringLiteral("Serving fashion at %1").arg(url)), qPrintable(lastStatus));
    disconnect(progress);
    QVERIFY(job->statusText().startsWith(QStringLiteral("Serving fashion at %1").arg(url)));
    auto *counts = m_page->findChild<QLabel *>(QStringLiteral("exportServeCounts"));
    QVERIFY(counts);
    QTRY_VERIFY(counts->text().startsWith(QStringLiteral("Requests: 3, errors: 1")));

    // Stop: the job ends cancelled, the page says so, and nothing listens on the port any more.
    QSignalSpy jobCancelled(job, &workspace::Job::cancelled);
    QTest::mouseClick(m_page->stopServeButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!ended.isEmpty(), 60000);
    QCOMPARE(ended.first().at(0).toString(), QString());
    QCOMPARE(jobCancelled.size(), 1);
    QCOMPARE(job->state(), workspace::Job::State::Cancelled);
    QVERIFY(!m_page->isServing());
    QVERIFY(m_page->servingText().isEmpty());
    QVERIFY(!m_page->stopServeButton()->isVisible());
    QVERIFY(m_page->statusText().contains(QStringLiteral("Stopped serving fashion")));
    QVERIFY(m_page->serveButton()->isEnabled());
    // A fresh manager: no connection kept alive from before.
    m_net->deleteLater();
    m_net = new QNetworkAccessManager(this);
    m_net->setProxy(QNetworkProxy::NoProxy);
    const HttpAnswer after = get(url);
    QVERIFY(after.done);
    QCOMPARE(after.error, QNetworkReply::ConnectionRefusedError);
    QVERIFY(workspace::ServeJob::isPortFree(QStringLiteral("127.0.0.1"), p));
}

void TestExportServe::takenPortIsOfferedAnotherAndRefused()
{
    QTcpServer holder;
    QVERIFY(holder.listen(QHostAddress::LocalHost, 0));
    const int taken = holder.serverPort();
    QVERIFY(!workspace::ServeJob::isPortFree(QStringLiteral("127.0.0.1"), taken));

    // The dialog offers a free port instead of the taken one, and stays open.
    QDialog *dialog = openDialog();
    QVERIFY(dialog);
    auto *port = dialog->findChild<QSpinBox *>(QStringLiteral("servePort"));
    auto *note = dialog->findChild<QLabel *>(QStringLiteral("serveNote"));
    QVERIFY(port && note);
    port->setValue(taken);
    QTest::mouseClick(dialog->findChild<QPushButton *>(QStringLiteral("serveStart")), Qt::LeftButton);
    QVERIFY(dialog->isVisible());
    QVERIFY(!m_page->isServing());
    QVERIFY2(note->text().contains(QString::number(taken)), qPrintable(note->text()));
    QVERIFY(port->value() != taken);
    QVERIFY(workspace::ServeJob::isPortFree(QStringLiteral("127.0.0.1"), port->value()));
    dialog->reject();
    QTRY_VERIFY(!m_page->serveDialog());

    // A job asked for the taken port fails with a message naming it.
    workspace::ServeJob::Params params;
    params.exportDir = m_page->shownFolder();
    params.modelName = QStringLiteral("fashion");
    params.port = taken;
    auto *job = new workspace::ServeJob(params);
    QSignalSpy failed(job, &workspace::Job::failed);
    m_jobs->start(job);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    const QString message = failed.first().at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("port %1").arg(taken)), qPrintable(message));
    QCOMPARE(job->boundPort(), 0);
}

QTEST_MAIN(TestExportServe)
#include "test_export_serve.moc"
