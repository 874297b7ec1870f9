#pragma once

// Run folders laid out as docs/formats.md describes them, without training: a config.json, a
// metrics.jsonl and step checkpoints with their best/last aliases (model files of the recorded
// size whose bytes do not matter). For the run listing and the run/checkpoint picker tests.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fake_runs {

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

inline bool writeJson(const QString &path, const nlohmann::json &json)
{
    return writeFile(path, QByteArray::fromStdString(json.dump()));
}

// A run of arch whose metrics.jsonl holds events; config adds to its config.json.
inline bool writeRunEvents(const QString &dir, const std::vector<nlohmann::json> &events, const std::string &arch = "resnet18",
                           const nlohmann::json &config = nlohmann::json::object())
{
    nlohmann::json full = {{"model", {{"arch", arch}}}, {"optimizer", {{"epochs", 1}}}};
    full.update(config);
    std::string lines;
    for (const nlohmann::json &event : events)
        lines += event.dump() + "\n";
    return writeJson(QDir(dir).filePath(QStringLiteral("config.json")), full)
        && writeFile(QDir(dir).filePath(QStringLiteral("metrics.jsonl")), QByteArray::fromStdString(lines));
}

// A run of arch that finished after one epoch (time: its events').
inline bool writeRun(const QString &dir, const std::string &arch = "resnet18", double time = 1.0e9)
{
    const nlohmann::json finished = {{"type", "finished"}, {"time", time}, {"step", 3}, {"epoch", 0}};
    return writeRunEvents(dir, {finished}, arch);
}

// One checkpoint in dir/checkpoints: the model file and its sidecar; source names the step
// file an alias (stem "best" or "last") holds.
inline bool writeCheckpoint(const QString &dir, const std::string &stem, std::int64_t step, const std::string &source = {})
{
    const QDir folder(QDir(dir).filePath(QStringLiteral("checkpoints")));
    const QByteArray model(100, 'm');
    nlohmann::json sidecar = {{"format_version", 1}, {"step", step}, {"epoch", 0}, {"metrics", nlohmann::json::object()}};
    sidecar["files"]["model"] = {{"name", stem + ".safetensors"}, {"sha256", std::string(64, '0')}, {"bytes", model.size()}};
    if (!source.empty())
        sidecar["source"] = source;
    return writeFile(folder.filePath(QString::fromStdString(stem + ".safetensors")), model)
        && writeJson(folder.filePath(QString::fromStdString(stem + ".json")), sidecar);
}

// Step checkpoints of run dir, oldest first; best.* holds bestStep, last.* the newest step.
inline bool writeCheckpoints(const QString &dir, const std::vector<std::int64_t> &steps, std::int64_t bestStep)
{
    bool ok = true;
    for (const std::int64_t step : steps)
        ok = ok && writeCheckpoint(dir, "step-" + std::to_string(step), step);
    if (!steps.empty())
        ok = ok && writeCheckpoint(dir, "last", steps.back(), "step-" + std::to_string(steps.back()) + ".safetensors")
            && writeCheckpoint(dir, "best", bestStep, "step-" + std::to_string(bestStep) + ".safetensors");
    return ok;
}

} // namespace fake_runs
