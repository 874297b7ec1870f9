#include "workspace/export_run_job.h"

#include "engine/export/export_job.h" // the engine's exportModel (core/engine)
#include "workspace/workspace_error.h"

#include <QDir>

#include <nlohmann/json.hpp>

namespace lathe::workspace {

ExportRunJob::ExportRunJob(Params params, QObject *parent)
    : Job(tr("Export %1").arg(QDir(params.runDir).dirName()), parent)
    , m_params(std::move(params))
{
}

ExportRequest ExportRunJob::request() const
{
    return {m_params.runDir, m_params.checkpoint, m_params.formats, m_params.outDir};
}

QVariant ExportRunJob::execute()
{
    if (m_params.runDir.isEmpty())
        throw WorkspaceError(tr("No run was given to export"));
    if (m_params.outDir.isEmpty())
        throw WorkspaceError(tr("No output folder was given for the export"));
    engine::ExportOptions options;
    options.runDir = QDir::cleanPath(QDir(m_params.runDir).absolutePath()).toStdString();
    options.checkpoint = m_params.checkpoint.toStdString();
    options.formats.clear();
    for (const QString &format : m_params.formats)
        options.formats.push_back(format.toStdString());
    options.outDir = QDir::cleanPath(QDir(m_params.outDir).absolutePath()).toStdString();
    options.preprocessing = m_params.preprocessing;
    options.softmax = m_params.softmax;
    options.calibMethod = m_params.calibMethod.toStdString();
    options.calibImages = m_params.calibImages;
    options.int8Io = m_params.int8Io.toStdString();

    nlohmann::json report;
    try {
        report = engine::exportModel(options, taskControl(tr("Exporting")));
    } catch (const engine::Cancelled &) {
        throw;
    } catch (const std::exception &e) {
        // The history shows failed exports too, with the reason.
        const QString message = QString::fromUtf8(e.what());
        if (!m_params.databasePath.isEmpty()) {
            try {
                ExportStore::record(m_params.databasePath, request(), false,
                                    QString::fromStdString(nlohmann::json{{"error", e.what()}}.dump()));
            } catch (const std::exception &) {
                // The export's own failure is what the user needs to read.
            }
        }
        throw WorkspaceError(message);
    }
    checkCancel();
    ExportRunResult result;
    result.ok = report.value("status", std::string()) == "passed";
    result.reportJson = QString::fromStdString(report.dump());
    result.outDir = QString::fromStdString(options.outDir);
    if (!m_params.databasePath.isEmpty()) {
        reportProgress(1.0, tr("Recording the export"));
        result.exportId = ExportStore::record(m_params.databasePath, request(), result.ok, result.reportJson);
    }
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
