#pragma once

#include <QCoreApplication>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace lathe::workspace {

// What an export was asked to do, as the project database records it beside its outcome.
struct ExportRequest
{
    QString runDir;
    QString checkpoint; // as asked: "best", "last", "step-<n>" or a file
    QStringList formats;
    QString outDir;
};

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

// The project database's record of exports. Paths inside the project folder are kept relative
// to it, so a moved project keeps its history; paths outside stay absolute. Each call opens a
// ProjectConnection of its own on the calling thread (a worker thread: the GUI never waits for
// the database), which migrates an older project first. Throws WorkspaceError naming the
// database.
class ExportStore
{
    Q_DECLARE_TR_FUNCTIONS(lathe::workspace::ExportStore)

public:
    // Returns the new id.
    static qint64 record(const QString &databasePath, const ExportRequest &request, bool ok, const QString &reportJson);
    static StoredExport load(const QString &databasePath, qint64 exportId);
    // Every recorded export of the project, newest first.
    static QVector<StoredExport> list(const QString &databasePath);
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::StoredExport)
