#pragma once

#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

namespace lathe::workspace {

// Named Train-page settings. A preset is the part of a run config that describes how to train
// (data loading and augmentation, optimiser, loss, schedule, precision, seed, checkpoints,
// early stopping, EMA, feature cache) — not what or where: the shards, the model (the Model
// page's), the devices and the machines are left out, so a preset works in any project and on
// any machine. User presets are JSON files in the user's configuration folder
// (QStandardPaths::AppConfigLocation/presets, e.g. ~/.config/Lathe/presets): habits that go
// from project to project, where a project's own settings already come back with the project.
// File: {"version": 1, "name": "...", "config": {partial run config}}.
class RunPresets
{
public:
    struct Preset
    {
        QString name;
        QString description; // built-ins: what they are for, in the UI's language
        bool builtIn = false;
        bool wantsPretrained = false; // built-ins: expects pretrained weights on the Model page
        bool wantsScratch = false;    // built-ins: expects random initial weights
        nlohmann::json config;        // the preset part, every field checked by the engine's parser
        QString file;                 // user presets: where it is stored
    };

    static QString folder();
    // "Fine-tune quickly" and "Train from scratch", built from overrides on the engine's default
    // config through its parser, so they are valid by construction.
    static QList<Preset> builtIns();
    // The user's presets by name. Files that cannot be read are skipped; errors (naming the
    // file and the reason) go to *problems when given.
    static QList<Preset> userPresets(QStringList *problems = nullptr);
    // Built-ins first, then the user's.
    static QList<Preset> all(QStringList *problems = nullptr);
    // Saves the preset part of config under name (replacing a user preset of that name); an
    // empty string, or the reason it could not be saved (a built-in's name, a bad config, the
    // file system).
    static QString save(const QString &name, const nlohmann::json &config);
    static QString remove(const QString &name);
    // The preset part of a full or partial config, every field checked; throws EngineError.
    static nlohmann::json presetPart(const nlohmann::json &config);
    static Preset read(const QString &file); // throws EngineError naming the file

private:
    static QString fileFor(const QString &name);
};

} // namespace lathe::workspace
