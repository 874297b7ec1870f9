// The Export page on a real multi-label run: Fashion-MNIST demo images with a labels file (each
// image: its garment, "feet" for footwear, "dark" for every third image) converted to
// multi-label shards, a short real training run (small_run.h: resnet18, one channel, 32x32, one
// epoch, which tunes a threshold per label on the validation split), then an export through the
// page (ONNX FP32 and FP16, TFLite FP32, safetensors). Every artifact passes its checks, which
// compare outputs (max |diff|, agreement) and skip top-1 accuracy (it says nothing of label
// sets); the files carry the task and the checkpoint's thresholds (the ONNX file's
// metadata_props, read here from the protobuf wire format; the TFLite file's "lathe" metadata;
// model.json), and the exported files' label sets, through the engine, are the checkpoint's.
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/export/export_job.h"
#include "engine/inference/prediction.h"
#include "export/export_page.h"
#include "workspace/job_manager.h"
#include "workspace/project.h"
#include "small_run.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

using namespace lathe;
using lathe::ui::ExportPage;
namespace fs = std::filesystem;

namespace {

std::string readBytes(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// A protobuf varint at pos (advanced past it); false at the end of the data or on a malformed one.
bool readVarint(const std::string &data, std::size_t &pos, std::uint64_t &value)
{
    value = 0;
    for (int shift = 0; shift < 64 && pos < data.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(data[pos++]);
        value |= std::uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return true;
    }
    return false;
}

// The length-delimited fields `field` of one protobuf message (the wire format: a varint key,
// field number << 3 | wire type, then the value).
std::vector<std::string> lengthDelimited(const std::string &message, std::uint64_t field)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    std::uint64_t key = 0;
    while (pos < message.size() && readVarint(message, pos, key)) {
        std::uint64_t length = 0;
        switch (key & 7) {
        case 0:
            readVarint(message, pos, length);
            break;
        case 1:
            pos += 8;
            break;
        case 5:
            pos += 4;
            break;
        case 2:
            if (!readVarint(message, pos, length) || pos + length > message.size())
                return out;
            if ((key >> 3) == field)
                out.push_back(message.substr(pos, std::size_t(length)));
            pos += std::size_t(length);
            break;
        default:
            return out; // groups: not in ONNX files
        }
    }
    return out;
}

// An ONNX file's metadata_props (onnx.proto: ModelProto field 14, StringStringEntryProto key 1,
// value 2).
std::map<std::string, std::string> onnxMetadata(const fs::path &path)
{
    std::map<std::string, std::string> props;
    for (const std::string &entry : lengthDelimited(readBytes(path), 14)) {
        const std::vector<std::string> key = lengthDelimited(entry, 1);
        const std::vector<std::string> value = lengthDelimited(entry, 2);
        props[key.empty() ? std::string() : key.front()] = value.empty() ? std::string() : value.front();
    }
    return props;
}

// A .tflite file's "lathe" metadata: a JSON object (keys sorted, so it starts with "arch") in a
// FlatBuffers byte vector, its uint32 length just before it. Null when there is none.
nlohmann::json tfliteLatheMetadata(const fs::path &path)
{
    const std::string bytes = readBytes(path);
    for (std::size_t pos = bytes.find("{\"arch\":"); pos != std::string::npos; pos = bytes.find("{\"arch\":", pos + 1)) {
        if (pos < 4)
            continue;
        std::uint32_t length = 0;
        for (int i = 3; i >= 0; --i)
            length = (length << 8) | static_cast<unsigned char>(bytes[pos - 4 + std::size_t(i)]);
        if (pos + length > bytes.size())
            continue;
        const nlohmann::json doc = nlohmann::json::parse(bytes.substr(pos, length), nullptr, false);
        if (doc.is_object() && doc.value("producer", std::string()) == "Lathe")
            return doc;
    }
    return nullptr;
}

} // namespace

class TestExportMultiLabel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void exportsAndVerifies();
    void filesCarryTaskAndThresholds();
    void exportedLabelSetsAreTheCheckpoints();

private:
    QTemporaryDir m_tmp;
    QString m_run;
    std::unique_ptr<workspace::Project> m_project;
    workspace::JobManager *m_jobs = nullptr;
    std::unique_ptr<ExportPage> m_page;
    QString m_outDir;
    std::vector<std::string> m_classes;
    std::vector<double> m_thresholds; // the best checkpoint's, from its sidecar
    std::vector<std::string> m_images; // the training images
};

void TestExportMultiLabel::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    DemoProject made = makeMultiLabelDemoProject(m_tmp.path(), QStringLiteral("Multi"), demoCounts(6, 2, 0));
    m_project = std::move(made.project);
    const engine::ConvertResult &converted = made.converted;
    for (const auto &entry : fs::recursive_directory_iterator(fs::path(made.images.toStdString()) / "train"))
        if (entry.is_regular_file())
            m_images.push_back(entry.path().string());
    std::sort(m_images.begin(), m_images.end());
    QCOMPARE(m_images.size(), std::size_t(60));
    QCOMPARE(converted.manifest.task, std::string("multi_label"));
    m_classes = converted.manifest.classes;
    QCOMPARE(m_classes.size(), std::size_t(12));
    QCOMPARE(trainSmallRun(*m_project, converted.outDir, "val", &m_run), std::string("finished"));

    std::ifstream in(fs::path(m_run.toStdString()) / "checkpoints" / "best.json");
    const nlohmann::json sidecar = nlohmann::json::parse(in);
    QCOMPARE(sidecar.value("task", std::string()), std::string("multi_label"));
    m_thresholds = sidecar.at("metrics").at("thresholds").get<std::vector<double>>();
    QCOMPARE(m_thresholds.size(), std::size_t(12));

    m_jobs = new workspace::JobManager(1, this);
    m_page = std::make_unique<ExportPage>(m_jobs);
    m_page->resize(1400, 900);
    m_page->show();
    QSignalSpy runs(m_page.get(), &ExportPage::runsLoaded);
    m_page->setProject(m_project.get());
    QVERIFY(!runs.isEmpty() || runs.wait(20000));
    QCOMPARE(m_page->runs(), QStringList{m_run});
}

void TestExportMultiLabel::cleanupTestCase()
{
    m_page.reset();
}

void TestExportMultiLabel::exportsAndVerifies()
{
    QTRY_COMPARE(m_page->currentRun(), m_run);
    QCOMPARE(m_page->currentCheckpoint(), QStringLiteral("best"));
    const QStringList formats = {QStringLiteral("onnx"), QStringLiteral("onnx-fp16"), QStringLiteral("tflite"),
                                 QStringLiteral("safetensors")};
    for (const QString &format : {QStringLiteral("onnx"), QStringLiteral("onnx-fp16"), QStringLiteral("onnx-int8"),
                                  QStringLiteral("tflite"), QStringLiteral("tflite-fp16"), QStringLiteral("tflite-int8"),
                                  QStringLiteral("torchscript"), QStringLiteral("safetensors")})
        if (QCheckBox *check = m_page->formatCheck(format))
            check->setChecked(formats.contains(format));
    QCOMPARE(m_page->checkedFormats(), formats);

    QSignalSpy finished(m_page.get(), &ExportPage::exportFinished);
    QSignalSpy failed(m_page.get(), &ExportPage::exportFailed);
    QVERIFY(m_page->exportButton()->isEnabled());
    QTest::mouseClick(m_page->exportButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 300000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    m_outDir = m_page->shownFolder();

    QFile reportFile(QDir(m_outDir).filePath(QStringLiteral("report.json")));
    QVERIFY(reportFile.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(reportFile.readAll()).object();
    QCOMPARE(report.value(QStringLiteral("status")).toString(), QStringLiteral("passed"));
    QCOMPARE(report.value(QStringLiteral("source")).toObject().value(QStringLiteral("task")).toString(), QStringLiteral("multi_label"));
    // No top-1 accuracy for a multi-label model, of the original or of any variant.
    QVERIFY(!report.value(QStringLiteral("original")).toObject().value(QStringLiteral("accuracy")).isDouble());
    QVERIFY2(!m_page->summaryText().contains(QStringLiteral("top-1")), qPrintable(m_page->summaryText()));
    QVERIFY2(m_page->summaryText().contains(QStringLiteral("Every artifact passed its checks.")), qPrintable(m_page->summaryText()));

    const QJsonArray artifacts = report.value(QStringLiteral("artifacts")).toArray();
    QStandardItemModel *table = m_page->reportModel();
    QCOMPARE(artifacts.size(), 4);
    QCOMPARE(table->rowCount(), 4);
    for (int row = 0; row < 4; ++row) {
        const QJsonObject a = artifacts.at(row).toObject();
        const auto cell = [table, row](int column) { return table->index(row, column).data().toString(); };
        QCOMPARE(cell(ExportPage::FormatColumn), formats.at(row));
        QVERIFY2(cell(ExportPage::StatusColumn) == QStringLiteral("passed"), qPrintable(cell(ExportPage::ReasonColumn)));
        QVERIFY(cell(ExportPage::ReasonColumn).isEmpty());
        QVERIFY(cell(ExportPage::AccuracyColumn).isEmpty()); // top-1 checks skipped
        QVERIFY(!a.value(QStringLiteral("accuracy")).toObject().value(QStringLiteral("top1")).isDouble());
        // The outputs are compared with the checkpoint's on the verification images.
        const QJsonObject verification = a.value(QStringLiteral("verification")).toObject();
        QVERIFY2(verification.value(QStringLiteral("max_abs_diff")).isDouble(), qPrintable(formats.at(row)));
        QVERIFY(!cell(ExportPage::MaxDiffColumn).isEmpty());
        QVERIFY(!cell(ExportPage::AgreementColumn).isEmpty());
        if (formats.at(row) != QLatin1String("onnx-fp16")) // float32 all through: the same top label
            QCOMPARE(verification.value(QStringLiteral("top1_agreement")).toDouble(), 1.0);
    }
    QCOMPARE(table->index(0, ExportPage::FileColumn).data().toString(), QStringLiteral("model.onnx"));
}

void TestExportMultiLabel::filesCarryTaskAndThresholds()
{
    QVERIFY(!m_outDir.isEmpty());
    const fs::path out = m_outDir.toStdString();

    // model.onnx: metadata_props.
    const std::map<std::string, std::string> props = onnxMetadata(out / "model.onnx");
    QVERIFY2(props.count("lathe.task"), "model.onnx has no lathe.task");
    QCOMPARE(props.at("lathe.task"), std::string("multi_label"));
    QCOMPARE(nlohmann::json::parse(props.at("lathe.thresholds")).get<std::vector<double>>(), m_thresholds);
    QCOMPARE(nlohmann::json::parse(props.at("lathe.labels")).get<std::vector<std::string>>(), m_classes);
    // The FP16 file says the same.
    const std::map<std::string, std::string> fp16 = onnxMetadata(out / "model.fp16.onnx");
    QCOMPARE(fp16.count("lathe.task") ? fp16.at("lathe.task") : std::string(), std::string("multi_label"));
    QCOMPARE(nlohmann::json::parse(fp16.at("lathe.thresholds")).get<std::vector<double>>(), m_thresholds);

    // model.tflite: its "lathe" metadata.
    const nlohmann::json tflite = tfliteLatheMetadata(out / "model.tflite");
    QVERIFY2(tflite.is_object(), "model.tflite has no Lathe metadata");
    QCOMPARE(tflite.value("task", std::string()), std::string("multi_label"));
    QCOMPARE(tflite.at("thresholds").get<std::vector<double>>(), m_thresholds);

    // model.json beside the safetensors weights.
    std::ifstream in(out / "model.json");
    const nlohmann::json model = nlohmann::json::parse(in, nullptr, false);
    QVERIFY(model.is_object());
    QCOMPARE(model.value("task", std::string()), std::string("multi_label"));
    QCOMPARE(model.at("thresholds").get<std::vector<double>>(), m_thresholds);
}

// Every training image's label set from the exported ONNX and TFLite files (the engine's
// predictWithOnnx, thresholds from the files' metadata) is the checkpoint's (the engine's
// predictFiles, thresholds from its sidecar). A label may differ only where the checkpoint's
// score is within float rounding of its threshold.
void TestExportMultiLabel::exportedLabelSetsAreTheCheckpoints()
{
    QVERIFY(!m_outDir.isEmpty());
    engine::PredictOptions options;
    options.runDir = m_run.toStdString();
    options.checkpoint = "best";
    options.device = "cpu";
    const std::vector<engine::FilePrediction> checkpoint = engine::predictFiles(options, m_images);
    QCOMPARE(checkpoint.size(), m_images.size());

    for (const char *file : {"model.onnx", "model.tflite"}) {
        engine::OnnxPredictOptions onnx;
        onnx.modelPath = (fs::path(m_outDir.toStdString()) / file).string();
        onnx.images = m_images;
        onnx.top = 12;
        const nlohmann::json doc = engine::predictWithOnnx(onnx);
        const nlohmann::json &predictions = doc.at("predictions");
        QCOMPARE(predictions.size(), m_images.size());
        std::size_t same = 0, labelled = 0;
        for (std::size_t i = 0; i < m_images.size(); ++i) {
            const engine::FilePrediction &c = checkpoint[i];
            QVERIFY2(c.error.empty(), c.error.c_str());
            QVERIFY(c.multiLabel);
            const nlohmann::json &p = predictions.at(i);
            QCOMPARE(p.at("image").get<std::string>(), m_images[i]);
            QVERIFY2(p.contains("labels"), file);
            const std::vector<std::string> exported = p.at("labels").get<std::vector<std::string>>();
            if (exported == c.labelSet) {
                ++same;
            } else {
                const std::set<std::string> set(exported.begin(), exported.end());
                for (const engine::LabelScore &label : c.labelScores)
                    if (bool(set.count(label.name)) != label.inSet)
                        QVERIFY2(std::abs(double(label.score) - label.threshold) < 1e-4,
                                 qPrintable(QStringLiteral("%1: %2 of %3").arg(QString::fromLatin1(file),
                                                                               QString::fromStdString(label.name),
                                                                               QString::fromStdString(m_images[i]))));
            }
            labelled += c.labelSet.empty() ? 0 : 1;
            // The scores too, label by label.
            for (const nlohmann::json &top : p.at("top")) {
                const auto index = top.at("index").get<std::size_t>();
                const auto it = std::find_if(c.labelScores.begin(), c.labelScores.end(),
                                             [index](const engine::LabelScore &l) { return std::size_t(l.index) == index; });
                QVERIFY(it != c.labelScores.end());
                QVERIFY2(std::abs(top.at("probability").get<double>() - double(it->score)) < 1e-3, file);
            }
        }
        QVERIFY2(labelled > 0, "no training image got a label: the run learnt nothing");
        QVERIFY2(same >= m_images.size() - 1, file); // at most one image on a threshold
    }
}

QTEST_MAIN(TestExportMultiLabel)
#include "test_export_multilabel.moc"
