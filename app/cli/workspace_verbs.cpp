#include "workspace_verbs.h"

#include "workspace/demo_project_job.h"
#include "workspace/import_job.h"
#include "workspace/project.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <sstream>
#include <stdexcept>

namespace lathe::cli {
namespace {

using workspace::DemoProjectJob;
using workspace::Project;

nlohmann::json projectJson(Project &project)
{
    return {{"folder", project.folder().toStdString()},
            {"name", project.name().toStdString()},
            {"schema_version", project.schemaVersion()},
            {"created", project.meta(QStringLiteral("created")).toStdString()},
            {"datasets_dir", project.datasetsDir().toStdString()},
            {"runs_dir", project.runsDir().toStdString()},
            {"exports_dir", project.exportsDir().toStdString()}};
}

std::string projectText(const nlohmann::json &doc)
{
    std::ostringstream text;
    text << "Project  " << doc["name"].get<std::string>() << "\nFolder   " << doc["folder"].get<std::string>()
         << "\nSchema   " << doc["schema_version"].get<int>() << "\nCreated  " << doc["created"].get<std::string>()
         << '\n';
    return text.str();
}

nlohmann::json importJson(const workspace::ImportSummary &s)
{
    return {{"datasetId", s.datasetId},
            {"added", s.added},
            {"removed", s.removed},
            {"changed", s.changed},
            {"unchanged", s.unchanged},
            {"ok", s.ok},
            {"rejected", s.rejected},
            {"duplicates", s.duplicates},
            {"nearDuplicateGroups", s.nearDuplicateGroups}};
}

std::string importText(const workspace::ImportSummary &s)
{
    std::ostringstream text;
    text << s.ok << " usable, " << s.rejected << " rejected, " << s.duplicates << " duplicates, "
         << s.nearDuplicateGroups << " near-duplicate groups (" << s.added << " added, " << s.changed
         << " changed, " << s.removed << " removed, " << s.unchanged << " unchanged)\n";
    return text.str();
}

void addImport(CLI::App &app, CliContext &context)
{
    auto params = std::make_shared<workspace::ImportJob::Params>();
    auto project = std::make_shared<std::string>();
    auto source = std::make_shared<std::string>();
    auto name = std::make_shared<std::string>();
    CLI::App *cmd = app.add_subcommand("import", "Import (or re-import, incrementally) an image folder into a "
                                                 "project's catalog");
    cmd->add_option("PROJECT", *project, "Project folder")->required();
    cmd->add_option("IMAGE_DIR", *source, "Folder with one sub-folder per class (optionally under train/val/test)")
        ->required();
    cmd->add_option("--name", *name, "Dataset name (default: the folder's name)");
    cmd->add_option("--val", params->valFraction, "Validation fraction when the folder has no splits")
        ->capture_default_str();
    cmd->add_option("--test", params->testFraction, "Test fraction when the folder has no splits")
        ->capture_default_str();
    cmd->add_option("--seed", params->seed, "Seed of the split assignment")->capture_default_str();
    cmd->add_option("--max-pixels", params->maxPixels, "Refuse images with more pixels than this")
        ->capture_default_str();
    auto labels = std::make_shared<std::string>();
    cmd->add_option("--labels", *labels,
                    "Multi-label labels file (CSV path,labels with ';' or '|' between labels, or JSON lines): "
                    "the images are its rows, relative to IMAGE_DIR");
    cmd->callback([&context, params, project, source, name, labels] {
        context.action = [&context, params, project, source, name, labels] {
            auto p = Project::open(QString::fromStdString(*project)); // checks and migrates the project
            params->databasePath = p->databasePath();
            p.reset();
            params->sourceDir = QString::fromStdString(*source);
            params->name = QString::fromStdString(*name);
            params->labelsFile = QString::fromStdString(*labels);
            const workspace::ImportSummary summary = workspace::ImportJob::importFolder(*params, {});
            context.print(importJson(summary), "Imported " + *source + ": " + importText(summary));
            return 0;
        };
    });
}

void addProject(CLI::App &app, CliContext &context)
{
    CLI::App *project = app.add_subcommand("project", "Create or inspect a Lathe project folder");
    project->require_subcommand(1);

    auto folder = std::make_shared<std::string>();
    auto name = std::make_shared<std::string>();
    CLI::App *create = project->add_subcommand("create", "Create a new project in a new or empty folder");
    create->add_option("DIR", *folder, "Project folder")->required();
    create->add_option("--name", *name, "Project name (default: the folder's name)");
    create->callback([&context, folder, name] {
        context.action = [&context, folder, name] {
            auto p = Project::create(QString::fromStdString(*folder), QString::fromStdString(*name));
            const nlohmann::json doc = projectJson(*p);
            context.print(doc, "Created\n" + projectText(doc));
            return 0;
        };
    });

    CLI::App *info = project->add_subcommand("info", "Open a project and describe it");
    info->add_option("DIR", *folder, "Project folder")->required();
    info->callback([&context, folder] {
        context.action = [&context, folder] {
            auto p = Project::open(QString::fromStdString(*folder));
            const nlohmann::json doc = projectJson(*p);
            context.print(doc, projectText(doc));
            return 0;
        };
    });
}

void addDemo(CLI::App &app, CliContext &context)
{
    auto params = std::make_shared<DemoProjectJob::Params>();
    auto root = std::make_shared<std::string>(DemoProjectJob::defaultRoot().toStdString());
    CLI::App *demo = app.add_subcommand("demo", "Run the demo headless: build the Fashion-MNIST demo project "
                                                "(training, validation and test images in its catalog) and print "
                                                "the commands that convert, train and evaluate it");
    demo->add_option("--dir", *root, "Folder for the demo images and project")->capture_default_str();
    demo->add_option("--per-class", params->perClass, "Training images per class")
        ->capture_default_str()
        ->check(CLI::Range(1, 6000));
    demo->add_option("--val-per-class", params->valPerClass,
                     "Validation images per class (taken from Fashion-MNIST's training file; 0: no val split)")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    demo->add_option("--test-per-class", params->testPerClass, "Test images per class")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    demo->callback([&context, params, root] {
        context.action = [&context, params, root] {
            params->root = QString::fromStdString(*root);
            DemoProjectJob job(*params);
            job.run(); // this thread: the CLI has nothing else to do meanwhile
            if (job.state() != workspace::Job::State::Finished)
                throw std::runtime_error(job.errorMessage().toStdString());
            const workspace::DemoProjectResult r = job.result().value<workspace::DemoProjectResult>();
            nlohmann::json classes = nlohmann::json::array();
            for (const QString &c : r.classes)
                classes.push_back(c.toStdString());
            const std::string project = r.project.toStdString();
            const std::string images = r.images.toStdString();
            // Paths quoted for a POSIX shell only where they need it.
            const auto shellArg = [](const std::string &path) {
                if (path.find_first_of(" \t'\"$\\") == std::string::npos)
                    return path;
                std::string quoted = "'";
                for (char c : path)
                    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
                return quoted + "'";
            };
            const std::string shards = shellArg(project + "/datasets/fashion-mnist");
            const std::string run = shellArg(project + "/runs/demo-resnet18");
            const nlohmann::json next = {
                "lathe-cli convert " + shellArg(images) + " " + shards,
                "lathe-cli train --config " + shellArg(r.recipeFile.toStdString()) + " --data " + shards + " --out " + run,
                "lathe-cli eval --run " + run + " --split val"};
            const nlohmann::json doc = {{"project", project},
                                        {"images", images},
                                        {"classes", classes},
                                        {"train_images", r.train},
                                        {"val_images", r.val},
                                        {"test_images", r.test},
                                        {"recipe", r.recipeFile.toStdString()},
                                        {"recipe_epochs", r.recipe.config.value(nlohmann::json::json_pointer("/optimizer/epochs"), 0)},
                                        {"reused", r.reused},
                                        {"import", importJson(r.import)},
                                        {"next", next}};
            std::ostringstream text;
            text << "Lathe demo\n"
                 << "  Images:  " << images << " (" << doc["train_images"].get<int>() << " training, "
                 << doc["val_images"].get<int>() << " validation and " << doc["test_images"].get<int>()
                 << " test PNGs, " << classes.size() << " Fashion-MNIST classes"
                 << (doc["reused"].get<bool>() ? ", already there" : "") << ")\n"
                 << "  Project: " << project << "\n"
                 << "  Catalog: dataset 'fashion-mnist', " << importText(r.import)
                 << "  Recipe:  " << r.recipe.name.toStdString() << ": " << r.recipe.description.toStdString() << "\n"
                 << "Open the project in the workbench (lathe " << project
                 << ") to convert, train and evaluate it there, or go on headless:\n";
            for (const auto &command : next)
                text << "  " << command.get<std::string>() << "\n";
            context.print(doc, text.str());
            return 0;
        };
    });
}

} // namespace

void addWorkspaceVerbs(CLI::App &app, CliContext &context)
{
    addProject(app, context);
    addImport(app, context);
    addDemo(app, context);
}

} // namespace lathe::cli
