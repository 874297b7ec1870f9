#pragma once

#include "workspace/export_store.h"
#include "workspace/job.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

namespace lathe::workspace {

// What an ExportRunJob returns (Job::result().value<ExportRunResult>()).
struct ExportRunResult
{
    qint64 exportId = 0; // the recorded export; 0 when no database was given
    QString outDir;      // absolute and clean
    bool ok = false;     // every artifact passed its checks
    QString reportJson;  // the engine's report (report.json)
};

// Exports a run's checkpoint (engine::exportModel: ONNX FP32/FP16/INT8, TorchScript,
// safetensors, each verified) on this job's worker thread, then records the export in the
// project database (ExportStore). An export that throws is recorded as failed with its message
// before the job fails; a cancelled one is not recorded. Result: ExportRunResult.
class ExportRunJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString databasePath; // the project's project.sqlite; empty: nothing is recorded
        QString runDir;
        QString checkpoint = QStringLiteral("best");
        QStringList formats{QStringLiteral("onnx")}; // engine::ExportOptions::formats names
        QString outDir;
        bool preprocessing = false;
        bool softmax = false;
        QString calibMethod = QStringLiteral("minmax");
        int calibImages = 64;
        QString int8Io = QStringLiteral("uint8"); // TFLite INT8 input/output: "uint8" or "int8"
    };

    explicit ExportRunJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

protected:
    QVariant execute() override;

private:
    ExportRequest request() const;

    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::ExportRunResult)
