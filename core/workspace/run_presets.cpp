#include "workspace/run_presets.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/run/run_config.h"
#include "workspace/atomic_file.h"
#include "workspace/workspace_error.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace lathe::workspace {
namespace {

// Sections that say how to train; the rest depends on the project or the machine.
const char *const kPresetSections[] = {"data", "optimizer", "loss", "schedule", "precision", "seed",
                                       "checkpoints", "early_stopping", "ema", "feature_cache"};

QString tr(const char *text)
{
    return QCoreApplication::translate("RunPresets", text);
}

RunPresets::Preset builtIn(const char *name, const char *description, const nlohmann::json &overrides)
{
    RunPresets::Preset p;
    p.name = tr(name);
    p.description = tr(description);
    p.builtIn = true;
    p.config = RunPresets::presetPart(engine::runConfigToJson(engine::applyRunConfigOverrides(engine::RunConfig(), overrides)));
    return p;
}

} // namespace

QString RunPresets::folder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)).filePath(QStringLiteral("presets"));
}

nlohmann::json RunPresets::presetPart(const nlohmann::json &config)
{
    // Every field through the engine's parser: defaults filled in, mistakes named.
    const nlohmann::json full = engine::runConfigToJson(engine::parseRunConfig(config));
    nlohmann::json part = nlohmann::json::object();
    for (const char *section : kPresetSections)
        part[section] = full[section];
    part["data"].erase("shards");
    return part;
}

QList<RunPresets::Preset> RunPresets::builtIns()
{
    QList<Preset> list;
    // Pretrained weights: a low learning rate keeps what they learned, a few epochs suffice, and
    // with the backbone frozen on the Model page the feature cache makes epochs cheap.
    Preset quick = builtIn(QT_TRANSLATE_NOOP("RunPresets", "Fine-tune quickly"),
                           QT_TRANSLATE_NOOP("RunPresets", "Pretrained weights, AdamW at a low learning rate (3e-4), 5 epochs "
                                                           "with a short warm-up and a cosine decay, light augmentation, "
                                                           "early stopping. Freezing the backbone on the Model page makes it "
                                                           "faster still."),
                           {{"optimizer.name", "adamw"},
                            {"optimizer.lr", 3e-4},
                            {"optimizer.weight_decay", 0.01},
                            {"optimizer.epochs", 5},
                            {"schedule.name", "cosine"},
                            {"schedule.warmup_epochs", 0.5},
                            {"loss.label_smoothing", 0.1},
                            {"early_stopping.enabled", true},
                            {"early_stopping.patience", 2},
                            {"data.augment", nlohmann::json::array({{{"type", "random_resized_crop"}, {"scale", {0.5, 1.0}}},
                                                                    {{"type", "horizontal_flip"}, {"p", 0.5}}})}});
    quick.wantsPretrained = true;
    // Random weights: a high learning rate with warm-up, many epochs, strong augmentation.
    Preset scratch = builtIn(QT_TRANSLATE_NOOP("RunPresets", "Train from scratch"),
                             QT_TRANSLATE_NOOP("RunPresets", "Random initial weights, SGD with Nesterov momentum at a high "
                                                             "learning rate (0.1) after 3 warm-up epochs, 60 epochs with a "
                                                             "cosine decay, strong augmentation (crops, flips, colour jitter, "
                                                             "TrivialAugment, random erasing), label smoothing."),
                             {{"optimizer.name", "sgd"},
                              {"optimizer.lr", 0.1},
                              {"optimizer.momentum", 0.9},
                              {"optimizer.nesterov", true},
                              {"optimizer.weight_decay", 5e-4},
                              {"optimizer.epochs", 60},
                              {"schedule.name", "cosine"},
                              {"schedule.warmup_epochs", 3},
                              {"loss.label_smoothing", 0.1},
                              {"data.augment", nlohmann::json::array({{{"type", "random_resized_crop"}},
                                                                      {{"type", "horizontal_flip"}, {"p", 0.5}},
                                                                      {{"type", "trivial_augment_wide"}},
                                                                      {{"type", "color_jitter"}, {"p", 0.8},
                                                                       {"brightness", 0.4}, {"contrast", 0.4}, {"saturation", 0.4}},
                                                                      {{"type", "random_erasing"}, {"p", 0.25}}})}});
    scratch.wantsScratch = true;
    list << quick << scratch;
    return list;
}

RunPresets::Preset RunPresets::read(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        throw engine::EngineError(file.toStdString() + ": cannot open (" + f.errorString().toStdString() + ")");
    if (std::uint64_t(f.size()) > engine::parse_limits::kRunConfigBytes.value)
        throw engine::EngineError(file.toStdString() + ": too large for a preset ("
                                  + engine::limitReason(std::uint64_t(f.size()), engine::parse_limits::kRunConfigBytes,
                                                        engine::parse_limits::kRunConfigBytes.value)
                                  + ")");
    const std::string text = f.readAll().toStdString();
    engine::checkJsonDepth(text, file.toStdString());
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("config") || !j["config"].is_object())
        throw engine::EngineError(file.toStdString() + ": not a Lathe preset (expected {\"version\": 1, \"name\": ..., \"config\": {...}})");
    if (j.contains("version") && (!j["version"].is_number_integer() || j["version"].get<long long>() > 1))
        throw engine::EngineError(file.toStdString() + ": preset version " + j["version"].dump() + " is from a newer Lathe");
    Preset p;
    p.file = file;
    p.name = j.contains("name") && j["name"].is_string() ? QString::fromStdString(j["name"].get<std::string>())
                                                          : QFileInfo(file).completeBaseName();
    try {
        p.config = presetPart(j["config"]);
    } catch (const engine::EngineError &e) {
        throw engine::EngineError(file.toStdString() + ": " + e.what());
    }
    return p;
}

QList<RunPresets::Preset> RunPresets::userPresets(QStringList *problems)
{
    QList<Preset> list;
    const QDir dir(folder());
    for (const QString &name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name | QDir::IgnoreCase)) {
        try {
            list << read(dir.filePath(name));
        } catch (const engine::EngineError &e) {
            if (problems)
                problems->append(QString::fromUtf8(e.what()));
        }
    }
    return list;
}

QList<RunPresets::Preset> RunPresets::all(QStringList *problems)
{
    return builtIns() + userPresets(problems);
}

QString RunPresets::fileFor(const QString &name)
{
    // A file name from any preset name: characters a file system may refuse become '_'.
    QString base;
    for (const QChar c : name.trimmed())
        base += c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char(' ') ? c : QLatin1Char('_');
    return QDir(folder()).filePath(base.left(100) + QStringLiteral(".json"));
}

QString RunPresets::save(const QString &name, const nlohmann::json &config)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return QCoreApplication::translate("RunPresets", "A preset needs a name.");
    for (const Preset &p : builtIns())
        if (p.name.compare(trimmed, Qt::CaseInsensitive) == 0)
            return QCoreApplication::translate("RunPresets", "\"%1\" is a built-in preset; choose another name.").arg(trimmed);
    nlohmann::json part;
    try {
        part = presetPart(config);
    } catch (const engine::EngineError &e) {
        return QString::fromUtf8(e.what());
    }
    if (!QDir().mkpath(folder()))
        return QCoreApplication::translate("RunPresets", "Cannot create the folder %1.").arg(QDir::toNativeSeparators(folder()));
    const QString file = fileFor(trimmed);
    const nlohmann::json document = {{"version", 1}, {"name", trimmed.toStdString()}, {"config", part}};
    try {
        writeFileAtomically(file, QByteArray::fromStdString(document.dump(2) + "\n"));
    } catch (const WorkspaceError &e) {
        return e.message(); // names the file and the reason
    }
    return {};
}

QString RunPresets::remove(const QString &name)
{
    for (const Preset &p : userPresets())
        if (p.name == name)
            return QFile::remove(p.file) ? QString() : QCoreApplication::translate("RunPresets", "Cannot delete %1.").arg(QDir::toNativeSeparators(p.file));
    return QCoreApplication::translate("RunPresets", "There is no saved preset \"%1\".").arg(name);
}

} // namespace lathe::workspace
