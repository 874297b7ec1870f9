#include "workspace/demo_project_job.h"

#include "engine/base/runtime_info.h"
#include "engine/dataset/demo_data.h"
#include "workspace/atomic_file.h"
#include "workspace/import_job.h"
#include "workspace/project.h"
#include "workspace/quick_recipe.h"
#include "workspace/workspace_error.h"

#include <QDir>
#include <QDirIterator>
#include <QStandardPaths>

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

    DemoProjectResult result;
    const bool reuseImages = QDir(images).exists() && !QDir(images).isEmpty();
    if (reuseImages) {
        result.train = countPngs(QDir(images).filePath(QStringLiteral("train")));
        result.val = countPngs(QDir(images).filePath(QStringLiteral("val")));
        result.test = countPngs(QDir(images).filePath(QStringLiteral("test")));
    } else {
        engine::DemoDataOptions options;
        options.outDir = images.toStdString();
        if (!m_params.sourceDir.isEmpty())
            options.sourceDir = m_params.sourceDir.toStdString();
        options.perClass = m_params.perClass;
        options.valPerClass = m_params.valPerClass;
        options.testPerClass = m_params.testPerClass;
        const engine::DemoDataResult written = engine::writeDemoData(options, taskControl(tr("Writing demo images")));
        result.train = written.trainImages;
        result.val = written.valImages;
        result.test = written.testImages;
    }
    checkCancel();

    reportProgress(1.0, tr("Creating the project"));
    const bool reuseProject = Project::isProjectFolder(projectDir);
    std::unique_ptr<Project> project = reuseProject ? Project::open(projectDir)
                                                    : Project::create(projectDir, tr("Fashion-MNIST demo"));
    project->setMeta(QStringLiteral("demo_images"), images);
    project->setMeta(QStringLiteral("demo_train_images"), QString::number(result.train));
    project->setMeta(QStringLiteral("demo_val_images"), QString::number(result.val));
    project->setMeta(QStringLiteral("demo_test_images"), QString::number(result.test));

    // The recipe as a run config for lathe-cli (the GUI applies the same recipe to its pages).
    reportProgress(1.0, tr("Timing the quick recipe's training steps on this machine"));
    result.recipe = recipeForMachine(engine::runtimeInfo().cudaDevices, result.train, result.val,
                                     int(engine::fashionMnistClasses().size()));
    checkCancel();
    result.recipeFile = QDir(project->folder()).filePath(QStringLiteral("recipe.json"));
    try {
        writeFileAtomically(result.recipeFile, QByteArray::fromStdString(result.recipe.config.dump(2) + "\n"));
    } catch (const WorkspaceError &e) {
        throw WorkspaceError(tr("Cannot write the recipe: %1").arg(e.message())); // the file and the reason
    }

    const QString databasePath = project->databasePath();
    result.project = project->folder();
    project.reset(); // the import opens its own connection

    // Import the images into the catalog (incremental: a second demo reads nothing again).
    ImportJob::Params import;
    import.databasePath = databasePath;
    import.sourceDir = images;
    import.name = QStringLiteral("fashion-mnist");
    result.import = ImportJob::importFolder(import, taskControl(tr("Importing demo images")));

    for (const std::string &name : engine::fashionMnistClasses())
        result.classes << QString::fromStdString(name);
    result.images = images;
    result.reused = reuseImages && reuseProject;
    return QVariant::fromValue(result);
}

} // namespace lathe::workspace
