#pragma once

#include "workspace/catalog.h"
#include "workspace/job.h"

namespace lathe::workspace {

// Imports (or re-imports, incrementally) an image folder into a project's catalog: scans it
// with engine::scanFolder on this job's worker thread, using its own database connection,
// then applies the result in one transaction. Cancelling during the scan leaves the catalog
// exactly as it was. With a labels file the dataset is multi-label: each image listed has a
// label set, and each bad row of the file is a rejected entry with its line and reason. Result: ImportSummary (catalog.h).
class ImportJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString databasePath; // the project's project.sqlite
        QString sourceDir;
        QString name;         // dataset name; empty: the folder's name
        double valFraction = 0.1;
        double testFraction = 0.1;
        quint64 seed = 0;
        qint64 maxPixels = 100'000'000;
        // A multi-label labels file (CSV or JSON lines; engine::readLabelsFile): the images are
        // its rows, relative to sourceDir, each with its label set; empty: class folders.
        QString labelsFile;
    };

    explicit ImportJob(Params params, QObject *parent = nullptr);

    // The import itself, on the calling thread (the job, the demo, lathe-cli). Throws
    // WorkspaceError, EngineError or Cancelled.
    static ImportSummary importFolder(const Params &params, const engine::TaskControl &control);

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace
