#pragma once

#include "job.h"

#include <QCoreApplication>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// An export as the project database keeps it (table exports): the Export page lists them and
// shows a report again without reading the export folder.
struct StoredExport
{
    qint64 id = 0;
    QString created;    // ISO 8601, UTC
    QString runDir;     // absolute (stored relative to the project folder when inside it)
    QString checkpoint; // as asked: "best", "last", "step-<n>" or a file
    QStringList formats;
    QString outDir;     // absolute, like runDir
    bool ok = false;    // every artifact passed its checks
    QString reportJson; // the engine's report (report.json); {"error": ...} when the export threw
};

// Exports a run's checkpoint (engine::exportModel: ONNX FP32/FP16/INT8, TorchScript,
// safetensors, each verified) on this job's worker thread, then records the export in the
// project database through a connection of its own. An export that throws is recorded as
// failed with its message before the job fails; a cancelled one is not recorded. Result: a
// QVariantMap with exportId, outDir, ok and report (the JSON text).
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
    };

    explicit ExportRunJob(Params params, QObject *parent = nullptr);

    const Params &params() const { return m_params; }

    // Storage, each on a connection of its own opened on the calling thread (a worker thread:
    // the GUI never waits for the database). Throw WorkspaceError naming the database.
    static qint64 record(const Params &params, bool ok, const QString &reportJson);
    static StoredExport load(const QString &databasePath, qint64 exportId);
    // Every recorded export of the project, newest first.
    static QVector<StoredExport> list(const QString &databasePath);

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::StoredExport)
