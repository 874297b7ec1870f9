#pragma once

#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"
#include "workspace/project.h"

#include <QDir>
#include <QString>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

// The short real run the Evaluate and Export page tests train on the demo images: ResNet-18
// from scratch on one channel at 32 pixels, one epoch, no augmentation, a fixed seed.
inline lathe::engine::RunConfig smallRunConfig(const std::string &shards, const std::string &valSplit)
{
    lathe::engine::RunConfig config;
    config.data.shards = shards;
    config.data.valSplit = valSplit;
    config.data.imageSize = 32;
    config.data.augment = {};
    config.data.workers = 1;
    config.model.arch = "resnet18";
    config.model.inChannels = 1;
    config.optimizer.batchSize = 16;
    config.optimizer.epochs = 1;
    config.optimizer.lr = 0.05;
    config.featureCache.mode = "off";
    config.seed = 7;
    return config;
}

// A new project NAME in DIR/project with the demo images `demo` asks for (written to DIR/images)
// converted into its datasets/demo folder; `convert` gives the conversion's other options.
struct DemoProject
{
    std::unique_ptr<lathe::workspace::Project> project;
    QString images;
    lathe::engine::ConvertResult converted;
};

inline DemoProject makeDemoProject(const QString &dir, const QString &name, lathe::engine::DemoDataOptions demo,
                                   lathe::engine::ConvertOptions convert = {})
{
    DemoProject out;
    out.images = QDir::cleanPath(QDir(dir).filePath(QStringLiteral("images")));
    demo.outDir = out.images.toStdString();
    lathe::engine::writeDemoData(demo);
    out.project = lathe::workspace::Project::create(QDir(dir).filePath(QStringLiteral("project")), name);
    convert.scan.root = out.images.toStdString();
    convert.scan.nearDuplicateDistance = 0;
    convert.outDir = QDir(out.project->datasetsDir()).filePath(QStringLiteral("demo")).toStdString();
    out.converted = lathe::engine::convertFolder(convert);
    return out;
}

// smallRunConfig trained into the project's runs/run-1; returns the trainer's status
// ("finished" when it went well).
inline std::string trainSmallRun(const lathe::workspace::Project &project, const std::string &shards,
                                 const std::string &valSplit, QString *runDir)
{
    *runDir = QDir::cleanPath(QDir(project.runsDir()).filePath(QStringLiteral("run-1")));
    return lathe::engine::train(smallRunConfig(shards, valSplit), runDir->toStdString()).value("status", std::string());
}

// Demo counts: `train` training, `val` validation and `test` test images per class.
inline lathe::engine::DemoDataOptions demoCounts(int train, int val, int test)
{
    lathe::engine::DemoDataOptions demo;
    demo.perClass = train;
    demo.valPerClass = val;
    demo.testPerClass = test;
    return demo;
}

// makeDemoProject for a multi-label dataset: the demo images with DIR/labels.csv giving each image
// (in the order of their sorted paths) its class, "feet" to the footwear and "dark" to every third,
// 12 labels in all. out.images holds the images; the file list is in DIR/labels.csv.
inline DemoProject makeMultiLabelDemoProject(const QString &dir, const QString &name,
                                             lathe::engine::DemoDataOptions demo)
{
    namespace fs = std::filesystem;
    const fs::path images = fs::path(QDir(dir).filePath(QStringLiteral("images")).toStdString());
    demo.outDir = images.string();
    lathe::engine::writeDemoData(demo);
    std::vector<std::string> files;
    for (const auto &entry : fs::recursive_directory_iterator(images))
        if (entry.is_regular_file())
            files.push_back(entry.path().lexically_relative(images).generic_string());
    std::sort(files.begin(), files.end());
    std::string csv = "path,labels\n";
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string cls = fs::path(files[i]).parent_path().filename().string();
        const bool feet = cls == "Sandal" || cls == "Sneaker" || cls == "Ankle_boot";
        csv += files[i] + "," + cls + (feet ? ";feet" : "") + (i % 3 == 0 ? ";dark" : "") + "\n";
    }
    const fs::path labels = fs::path(dir.toStdString()) / "labels.csv";
    std::ofstream(labels) << csv;

    DemoProject out;
    out.images = QDir::cleanPath(QString::fromStdString(images.string()));
    out.project = lathe::workspace::Project::create(QDir(dir).filePath(QStringLiteral("project")), name);
    lathe::engine::ConvertOptions convert;
    convert.scan.root = images.string();
    convert.scan.labelsFile = labels.string();
    convert.scan.nearDuplicateDistance = 0;
    convert.outDir = QDir(out.project->datasetsDir()).filePath(QStringLiteral("demo")).toStdString();
    out.converted = lathe::engine::convertFolder(convert);
    return out;
}
