// The child process of the catalog crash test (crash_kill.py catalog): real catalog writes
// through the workspace's own code, killed with SIGKILL at random moments by the driver.
//
//   crash_catalog_writer DB IMAGES_A IMAGES_B LOG FROM TO X1 CLASS1 X2 CLASS2 X3
//
// Runs operations FROM..TO-1 of a fixed cycle on dataset "ds" of project database DB:
//   0: import IMAGES_A (ImportJob::importFolder: a scan, then one transaction)
//   then repeatedly, for i >= 1, by (i - 1) % 8:
//   0 relabel X1 as CLASS1   1 relabel X2 as CLASS2   2 import IMAGES_B
//   3 relabel X1 back        4 relabel X2 back        5 exclude X3
//   6 import IMAGES_A        7 include X3
// so the catalog after operation i + 8 equals the one after operation i (i >= 1). Before each
// operation "begin <i>" and after it "done <i>" go to LOG with one unbuffered write() each,
// which a kill cannot lose once write() returned.

#include "workspace/catalog.h"
#include "workspace/import_job.h"
#include "workspace/project_connection.h"
#include "workspace/workspace_error.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace ws = lathe::workspace;

namespace {

void logLine(int fd, const std::string &line)
{
    const std::string text = line + "\n";
    if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
        std::perror("crash_catalog_writer: write to the log");
        std::exit(2);
    }
}

qint64 imageId(ws::Catalog &catalog, const QString &relPath)
{
    const int dataset = catalog.datasetId(QStringLiteral("ds"));
    for (const ws::CatalogImage &image : catalog.images(dataset)) {
        if (image.relPath == relPath)
            return image.id;
    }
    throw ws::WorkspaceError(relPath + QStringLiteral(": not in dataset ds"));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 12) {
        std::fprintf(stderr, "usage: crash_catalog_writer DB IMAGES_A IMAGES_B LOG FROM TO X1 CLASS1 X2 CLASS2 X3\n");
        return 2;
    }
    const QString db = QString::fromLocal8Bit(argv[1]);
    const QString imagesA = QString::fromLocal8Bit(argv[2]);
    const QString imagesB = QString::fromLocal8Bit(argv[3]);
    const int from = std::atoi(argv[5]);
    const int to = std::atoi(argv[6]);
    const QString x1 = QString::fromLocal8Bit(argv[7]), class1 = QString::fromLocal8Bit(argv[8]);
    const QString x2 = QString::fromLocal8Bit(argv[9]), class2 = QString::fromLocal8Bit(argv[10]);
    const QString x3 = QString::fromLocal8Bit(argv[11]);
    const int log = ::open(argv[4], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0) {
        std::perror(argv[4]);
        return 2;
    }
    try {
        for (int i = from; i < to; ++i) {
            logLine(log, "begin " + std::to_string(i));
            const int kind = i == 0 ? -1 : (i - 1) % 8;
            if (kind == -1 || kind == 2 || kind == 6) {
                ws::ImportJob::Params params;
                params.databasePath = db;
                params.sourceDir = kind == 2 ? imagesB : imagesA;
                params.name = QStringLiteral("ds");
                ws::ImportJob::importFolder(params, {});
            } else {
                ws::ProjectConnection connection(db);
                ws::Catalog &catalog = connection.catalog();
                switch (kind) {
                case 0: catalog.relabel(imageId(catalog, x1), class1); break;
                case 1: catalog.relabel(imageId(catalog, x2), class2); break;
                case 3: catalog.relabel(imageId(catalog, x1), catalog.image(imageId(catalog, x1)).folderClass); break;
                case 4: catalog.relabel(imageId(catalog, x2), catalog.image(imageId(catalog, x2)).folderClass); break;
                case 5: catalog.setExcluded(imageId(catalog, x3), true); break;
                default: catalog.setExcluded(imageId(catalog, x3), false); break;
                }
            }
            logLine(log, "done " + std::to_string(i));
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "crash_catalog_writer: %s\n", e.what());
        return 1;
    }
    return 0;
}
