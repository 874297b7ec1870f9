#pragma once

#include "workspace/catalog.h"
#include "workspace/job.h"
#include "workspace/quick_recipe.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

namespace lathe::workspace {

// What a DemoProjectJob returns (Job::result().value<DemoProjectResult>()).
struct DemoProjectResult
{
    QString project;     // the project folder
    QString images;      // the image folder
    QStringList classes; // Fashion-MNIST's, in label order
    int train = 0;       // images per split
    int val = 0;
    int test = 0;
    Recipe recipe;       // the recipe for this machine (recipeForMachine), sized by timing its steps here
    QString recipeFile;  // recipe.config as a run config in the project
    bool reused = false; // both the images and the project were there already
    ImportSummary import;
};

// Builds the demo: real Fashion-MNIST images as PNG class folders in ROOT/fashion-mnist
// (train/, val/ and test/, so a demo run reports validation metrics), a Lathe project in
// ROOT/project that records where they are, and the images imported into its catalog as the
// dataset "fashion-mnist". Existing parts are reused, so running it again is quick. The recipe
// for this machine (recipeForMachine) is written to ROOT/project/recipe.json, a run config
// `lathe-cli train --config` takes. Result: DemoProjectResult.
class DemoProjectJob : public Job
{
    Q_OBJECT

public:
    struct Params
    {
        QString root;
        // As many images as the quick CPU recipe needs to reach 85% validation top-1 in minutes.
        int perClass = 1000;
        int valPerClass = 100;
        int testPerClass = 100;
        QString sourceDir; // empty: Debian's dataset-fashion-mnist location
    };

    explicit DemoProjectJob(Params params, QObject *parent = nullptr);

    static QString defaultRoot();
    static QString projectFolder(const QString &root);
    static QString imagesFolder(const QString &root);

protected:
    QVariant execute() override;

private:
    const Params m_params;
};

} // namespace lathe::workspace

Q_DECLARE_METATYPE(lathe::workspace::DemoProjectResult)
