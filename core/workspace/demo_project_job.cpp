#include "demo_project_job.h"

#include "demo_data.h"
#include "import_job.h"
#include "project.h"
#include "workspace_error.h"

#include <QDir>
#include <QDirIterator>
#include <QStandardPaths>
#include <QVariantMap>

namespace lathe::workspace {
namespace {

int countPngs(const QString &folder)
{
    int count = 0;
    QDirIterator it(folder, {QStringLiteral("*.png")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        ++count;
    }
    return count;
}

} // namespace

DemoProjectJob::DemoProjectJob(Params params, QObject *parent)
    : Job(tr("Create the Fashion-MNIST demo project"), parent)
    , m_params(std::move(params))
{
}

QString DemoProjectJob::defaultRoot()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("demo"));
}

QString DemoProjectJob::projectFolder(const QString &root)
{
    return QDir(root).filePath(QStringLiteral("project"));
}

QString DemoProjectJob::imagesFolder(const QString &root)
{
    return QDir(root).filePath(QStringLiteral("fashion-mnist"));
}

QVariant DemoProjectJob::execute()
{
    const QString images = imagesFolder(m_params.root);
    const QString projectDir = projectFolder(m_params.root);
    if (!QDir().mkpath(m_params.root))
        throw WorkspaceError(tr("%1: cannot create the folder").arg(m_params.root));

    QVariantMap result;
    const bool reuseImages = QDir(images).exists() && !QDir(images).isEmpty();
    if (reuseImages) {
        result[QStringLiteral("train")] = countPngs(QDir(images).filePath(QStringLiteral("train")));
        result[QStringLiteral("val")] = countPngs(QDir(images).filePath(QStringLiteral("val")));
        result[QStringLiteral("test")] = countPngs(QDir(images).filePath(QStringLiteral("test")));
    } else {
        engine::DemoDataOptions options;
        options.outDir = images.toStdString();
        if (!m_params.sourceDir.isEmpty())
            options.sourceDir = m_params.sourceDir.toStdString();
        options.perClass = m_params.perClass;
        options.valPerClass = m_params.valPerClass;
        options.testPerClass = m_params.testPerClass;
        const engine::DemoDataResult written = engine::writeDemoData(options, taskControl(tr("Writing demo images")));
        result[QStringLiteral("train")] = written.trainImages;
        result[QStringLiteral("val")] = written.valImages;
        result[QStringLiteral("test")] = written.testImages;
    }
    checkCancel();

    reportProgress(1.0, tr("Creating the project"));
    const bool reuseProject = Project::isProjectFolder(projectDir);
    std::unique_ptr<Project> project = reuseProject ? Project::open(projectDir)
                                                    : Project::create(projectDir, tr("Fashion-MNIST demo"));
    project->setMeta(QStringLiteral("demo_images"), images);
    project->setMeta(QStringLiteral("demo_train_images"), result[QStringLiteral("train")].toString());
    project->setMeta(QStringLiteral("demo_val_images"), result[QStringLiteral("val")].toString());
    project->setMeta(QStringLiteral("demo_test_images"), result[QStringLiteral("test")].toString());

    const QString databasePath = project->databasePath();
    result[QStringLiteral("project")] = project->folder();
    project.reset(); // the import opens its own connection

    // Import the images into the catalog (incremental: a second demo reads nothing again).
    ImportJob::Params import;
    import.databasePath = databasePath;
    import.sourceDir = images;
    import.name = QStringLiteral("fashion-mnist");
    const ImportSummary summary = ImportJob::importFolder(import, taskControl(tr("Importing demo images")));
    result[QStringLiteral("import")] = ImportJob::toVariantMap(summary);

    QStringList classes;
    for (const std::string &name : engine::fashionMnistClasses())
        classes << QString::fromStdString(name);
    result[QStringLiteral("images")] = images;
    result[QStringLiteral("classes")] = classes;
    result[QStringLiteral("reused")] = reuseImages && reuseProject;
    return result;
}

} // namespace lathe::workspace
