#include "engine/run/checkpoint_io.h"

#include "engine/base/clock.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"
#include "engine/base/sha256.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

// A sidecar's JSON, checked against checkpoint.sidecar_bytes and json.depth before parsing
// (engine/base/parse_limits.h): sidecars travel with checkpoints from other machines.
nlohmann::json parseSidecar(const std::string &path)
{
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec)
        checkLimit(path, size, parse_limits::kCheckpointSidecarBytes);
    const std::string text = readSmallFile(path, parse_limits::kCheckpointSidecarBytes.value);
    checkJsonDepth(text, path);
    return nlohmann::json::parse(text);
}

using run_layout::stepStem;

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The step of "step-<n><suffix>", or -1 for any other name.
std::int64_t stepOf(const std::string &name, const std::string &suffix)
{
    if (!endsWith(name, suffix))
        return -1;
    return run_layout::stepOfStem(name.substr(0, name.size() - suffix.size()));
}

std::int64_t sidecarStepOf(const std::string &name)
{
    return stepOf(name, run_layout::kSidecarSuffix);
}

// The step a name of a step checkpoint's files belongs to (-1: none of them).
std::int64_t stepOfAnyFile(const std::string &name)
{
    for (const char *suffix : {run_layout::kSidecarSuffix, run_layout::kStateSuffix, run_layout::kModelSuffix}) {
        const std::int64_t step = stepOf(name, suffix);
        if (step >= 0)
            return step;
    }
    return -1;
}

std::string sha256OfFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open to hash it");
    Sha256 sha;
    std::vector<char> buf(std::size_t(1) << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        sha.update(buf.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad())
        throw EngineError(path + ": read error while hashing");
    return sha.hexDigest();
}

void writeJsonAtomically(const std::string &path, const nlohmann::json &json)
{
    writeFileAtomically(path, json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void removeFile(const fs::path &path)
{
    std::error_code ec;
    fs::remove(path, ec);
}

nlohmann::json fileEntry(const fs::path &path)
{
    std::error_code ec;
    const std::uintmax_t bytes = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path.string() + ": cannot stat the file just written (" + ec.message() + ")");
    return {{"name", path.filename().string()}, {"sha256", sha256OfFile(path.string())}, {"bytes", bytes}};
}

std::optional<double> finiteNumber(const nlohmann::json &object, const std::string &key)
{
    if (!object.is_object())
        return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// The sidecar path for a sidecar, model or state file of a checkpoint.
std::string sidecarFor(const std::string &path)
{
    for (const std::string suffix : {run_layout::kSidecarSuffix, run_layout::kStateSuffix, run_layout::kModelSuffix}) {
        if (endsWith(path, suffix))
            return path.substr(0, path.size() - suffix.size()) + run_layout::kSidecarSuffix;
    }
    return {};
}

void checkFileEntry(const std::string &sidecar, const fs::path &folder, const nlohmann::json &files, const char *key,
                    bool required, bool verify)
{
    const std::string field = std::string("files.") + key;
    const auto it = files.find(key);
    if (it == files.end()) {
        if (required)
            throw EngineError(sidecar + ": " + field + " is missing");
        return;
    }
    const nlohmann::json &entry = *it;
    if (!entry.is_object())
        throw EngineError(sidecar + ": " + field + " is not an object");
    const auto name = entry.find("name");
    if (name == entry.end() || !name->is_string())
        throw EngineError(sidecar + ": " + field + ".name is missing or not a string");
    const std::string fileName = name->get<std::string>();
    // A plain name in the checkpoint folder: a sidecar never points anywhere else.
    if (fileName.empty() || fileName == "." || fileName == ".." || fileName.find('/') != std::string::npos
        || fileName.find('\0') != std::string::npos)
        throw EngineError(sidecar + ": " + field + ".name '" + fileName + "' is not a file name in the checkpoint folder");
    const auto bytes = entry.find("bytes");
    if (bytes == entry.end() || !bytes->is_number_unsigned())
        throw EngineError(sidecar + ": " + field + ".bytes is missing or not a non-negative integer");
    const auto sha = entry.find("sha256");
    if (sha == entry.end() || !sha->is_string() || sha->get<std::string>().size() != 64)
        throw EngineError(sidecar + ": " + field + ".sha256 is missing or not 64 hex digits");

    const fs::path file = folder / fileName;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw EngineError(sidecar + ": " + field + " names " + fileName + ", which is missing");
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec || size != bytes->get<std::uintmax_t>())
        throw EngineError(sidecar + ": " + fileName + " has " + std::to_string(size) + " bytes, the sidecar records "
                          + std::to_string(bytes->get<std::uintmax_t>()) + " (cut short or replaced)");
    if (verify && sha256OfFile(file.string()) != sha->get<std::string>())
        throw EngineError(sidecar + ": " + fileName + " does not match its recorded SHA-256 (corrupt or replaced)");
}

// Best effort: a sidecar's step, for ordering candidates (-1 when unreadable).
std::int64_t stepInSidecar(const std::string &path)
{
    try {
        const nlohmann::json j = parseSidecar(path);
        if (j.is_object() && j.contains("step") && j["step"].is_number_integer())
            return j["step"].get<std::int64_t>();
    } catch (const std::exception &) {
    }
    return -1;
}

struct Candidate
{
    std::int64_t step;
    bool isLast;
    std::string sidecar;
};

// Complete-looking checkpoints (those with a sidecar), newest first; a step file beats last.json
// at the same step. Orphans and temp files go to notes.
std::vector<Candidate> candidates(const fs::path &folder, std::vector<std::string> *notes)
{
    std::vector<Candidate> out;
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return out;
    std::map<std::int64_t, bool> stepFiles; // step -> has sidecar
    for (const auto &entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (isTemporaryName(name)) {
            if (notes)
                notes->push_back(entry.path().string() + ": ignored (temporary file of an interrupted write)");
            continue;
        }
        const std::int64_t sidecarStep = sidecarStepOf(name);
        if (sidecarStep >= 0) {
            stepFiles[sidecarStep] = true;
            out.push_back({sidecarStep, false, entry.path().string()});
        } else if (name == run_layout::kLastSidecar) {
            out.push_back({stepInSidecar(entry.path().string()), true, entry.path().string()});
        } else if (const std::int64_t step = stepOfAnyFile(name); step >= 0) {
            stepFiles.emplace(step, false);
        }
    }
    if (notes) {
        for (const auto &[step, hasSidecar] : stepFiles) {
            if (!hasSidecar)
                notes->push_back((folder / (stepStem(step) + run_layout::kSidecarSuffix)).string()
                                 + ": missing, so step " + std::to_string(step) + " is ignored (a checkpoint cut short)");
        }
    }
    std::sort(out.begin(), out.end(), [](const Candidate &a, const Candidate &b) {
        if (a.step != b.step)
            return a.step > b.step;
        return !a.isLast && b.isLast;
    });
    return out;
}

nlohmann::json checkSidecarQuietly(const fs::path &sidecar, bool *ok);

// Deletes step checkpoints beyond keep (never `current` while keep > 0) and leftovers: temp
// files, step files without a sidecar or with files that do not match it, and checkpoints
// newer than `current` (a timeline the run left when it resumed from an older one). Sidecars
// go first, so a kill meanwhile never leaves a sidecar naming a deleted file.
void prune(const fs::path &folder, std::int64_t current, int keep)
{
    std::error_code ec;
    std::map<std::int64_t, std::vector<fs::path>> groups;
    std::vector<std::int64_t> complete;
    for (const auto &entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (isTemporaryName(name)) {
            removeFile(entry.path());
            continue;
        }
        const std::int64_t step = stepOfAnyFile(name);
        if (step < 0)
            continue;
        groups[step].push_back(entry.path());
        bool ok = false;
        if (sidecarStepOf(name) >= 0 && step < current) {
            checkSidecarQuietly(entry.path(), &ok);
            if (ok)
                complete.push_back(step);
        }
    }
    std::sort(complete.begin(), complete.end(), std::greater<>());
    std::vector<std::int64_t> kept;
    if (keep > 0) {
        kept.push_back(current);
        for (std::int64_t step : complete) {
            if (static_cast<int>(kept.size()) >= keep)
                break;
            kept.push_back(step);
        }
    }
    for (auto &[step, files] : groups) {
        if (std::find(kept.begin(), kept.end(), step) != kept.end())
            continue;
        std::stable_partition(files.begin(), files.end(),
                              [](const fs::path &p) { return p.extension() == run_layout::kSidecarSuffix; });
        for (const fs::path &file : files)
            removeFile(file);
    }
    syncFolder(folder);
}

// The alias files (last.*, best.*) for a checkpoint: links to its files and a sidecar naming them.
// The alias's old sidecar goes first: between the new links and the new sidecar it would vouch
// for files of another step whose sizes match its own (kill -9 there left last.json of step n
// over last.safetensors of step n + 1, which loading and export took). Without a sidecar the
// alias is simply absent until the caller writes the new one; the step files stay complete.
nlohmann::json writeAlias(const fs::path &folder, const std::string &alias, const nlohmann::json &sidecar,
                          bool withState)
{
    removeFile(folder / (alias + run_layout::kSidecarSuffix));
    syncFolder(folder);
    nlohmann::json out = sidecar;
    out["source"] = sidecar["files"]["model"]["name"].get<std::string>();
    const std::string modelName = alias + run_layout::kModelSuffix;
    replaceWithLink((folder / sidecar["files"]["model"]["name"].get<std::string>()).string(), (folder / modelName).string());
    out["files"]["model"]["name"] = modelName;
    const std::string stateName = alias + run_layout::kStateSuffix;
    if (withState && sidecar["files"].contains("state")) {
        replaceWithLink((folder / sidecar["files"]["state"]["name"].get<std::string>()).string(),
                        (folder / stateName).string());
        out["files"]["state"]["name"] = stateName;
    } else {
        out["files"].erase("state");
        removeFile(folder / stateName);
    }
    return out;
}

} // namespace

std::string writeCheckpoint(const std::string &runDir, std::int64_t step, const nlohmann::json &meta,
                            const NamedTensors &model, const NamedTensors &state, const CheckpointPolicy &policy)
{
    const fs::path folder = run_layout::checkpointsPath(runDir);
    if (step < 0)
        throw EngineError(folder.string() + ": checkpoint step must be >= 0 (got " + std::to_string(step) + ")");
    if (!meta.is_null() && !meta.is_object())
        throw EngineError(folder.string() + ": checkpoint meta must be a JSON object");
    if (model.empty())
        throw EngineError(folder.string() + ": a checkpoint needs the model's tensors");
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
        throw EngineError(folder.string() + ": cannot create (" + ec.message() + ")");

    const std::string stem = stepStem(step);
    const fs::path sidecarPath = folder / (stem + run_layout::kSidecarSuffix);
    const fs::path modelPath = folder / (stem + run_layout::kModelSuffix);
    const fs::path statePath = folder / (stem + run_layout::kStateSuffix);
    // Rewriting a step (after a resume from an older one): the old sidecar goes first, so it
    // never vouches for the new files.
    removeFile(sidecarPath);

    writeSafetensors(modelPath.string(), model, {{"format", "pt"}});
    if (!state.empty())
        writeSafetensors(statePath.string(), state, {{"format", "pt"}});
    else
        removeFile(statePath);

    nlohmann::json sidecar = meta.is_object() ? meta : nlohmann::json::object();
    sidecar["format_version"] = kCheckpointFormatVersion;
    sidecar["step"] = step;
    for (const char *key : {"epoch", "batch_in_epoch"}) {
        if (!sidecar.contains(key))
            sidecar[key] = 0;
    }
    for (const char *key : {"scheduler", "rng", "metrics"}) {
        if (!sidecar.contains(key))
            sidecar[key] = nlohmann::json::object();
    }
    if (!sidecar.contains("config_sha256")) {
        const std::string config = run_layout::configPath(runDir);
        sidecar["config_sha256"] = fs::exists(config, ec) ? sha256OfFile(config) : std::string();
    }
    sidecar["files"] = nlohmann::json::object();
    sidecar["files"]["model"] = fileEntry(modelPath);
    if (!state.empty())
        sidecar["files"]["state"] = fileEntry(statePath);
    sidecar["wall_time"] = unixSeconds();
    writeJsonAtomically(sidecarPath.string(), sidecar);

    // last: its old sidecar removed, the files linked, then its new sidecar. A kill in between
    // leaves no last.json, and step-<n> itself stays complete.
    writeJsonAtomically((folder / run_layout::kLastSidecar).string(),
                        writeAlias(folder, run_layout::kLastAlias, sidecar, true));

    if (!policy.bestMetric.empty()) {
        const std::optional<double> value = finiteNumber(sidecar["metrics"], policy.bestMetric);
        std::optional<double> previous;
        const std::string bestPath = (folder / run_layout::kBestSidecar).string();
        try {
            if (fs::exists(bestPath, ec)) {
                const nlohmann::json best = parseSidecar(bestPath);
                if (best.is_object() && best.value("best_metric", std::string()) == policy.bestMetric)
                    previous = finiteNumber(best, "best_value");
            }
        } catch (const std::exception &) {
            previous.reset(); // a damaged best.json is replaced by the next candidate
        }
        const bool lower = metricLowerIsBetter(policy.bestMetric);
        if (value && (!previous || (lower ? *value < *previous : *value > *previous))) {
            nlohmann::json best = writeAlias(folder, run_layout::kBestAlias, sidecar, false);
            best["best_metric"] = policy.bestMetric;
            best["best_value"] = *value;
            writeJsonAtomically(bestPath, best);
        }
    }

    prune(folder, step, std::max(0, policy.keep));
    return policy.keep > 0 ? sidecarPath.string() : (folder / run_layout::kLastSidecar).string();
}

nlohmann::json checkCheckpoint(const std::string &sidecarPath, bool verify)
{
    std::error_code ec;
    if (!fs::is_regular_file(sidecarPath, ec))
        throw EngineError(sidecarPath + ": missing (no such checkpoint, or one cut short)");
    nlohmann::json sidecar;
    try {
        sidecar = parseSidecar(sidecarPath);
    } catch (const nlohmann::json::exception &e) {
        throw EngineError(sidecarPath + ": not valid JSON (" + e.what() + ")");
    }
    if (!sidecar.is_object())
        throw EngineError(sidecarPath + ": not a JSON object");
    const auto version = sidecar.find("format_version");
    if (version == sidecar.end() || !version->is_number_integer())
        throw EngineError(sidecarPath + ": format_version is missing or not an integer");
    if (version->get<std::int64_t>() < 1 || version->get<std::int64_t>() > kCheckpointFormatVersion)
        throw EngineError(sidecarPath + ": format_version " + version->dump() + " is not supported (at most "
                          + std::to_string(kCheckpointFormatVersion) + "; written by a newer Lathe?)");
    const auto step = sidecar.find("step");
    if (step == sidecar.end() || !step->is_number_integer() || step->get<std::int64_t>() < 0)
        throw EngineError(sidecarPath + ": step is missing or not a non-negative integer");
    const std::int64_t nameStep = sidecarStepOf(fs::path(sidecarPath).filename().string());
    if (nameStep >= 0 && nameStep != step->get<std::int64_t>())
        throw EngineError(sidecarPath + ": records step " + step->dump() + ", its name says " + std::to_string(nameStep));
    const auto files = sidecar.find("files");
    if (files == sidecar.end() || !files->is_object())
        throw EngineError(sidecarPath + ": files is missing or not an object");
    const fs::path folder = fs::path(sidecarPath).parent_path();
    checkFileEntry(sidecarPath, folder, *files, "model", true, verify);
    checkFileEntry(sidecarPath, folder, *files, "state", false, verify);
    return sidecar;
}

namespace {

nlohmann::json checkSidecarQuietly(const fs::path &sidecar, bool *ok)
{
    try {
        nlohmann::json j = checkCheckpoint(sidecar.string(), false);
        *ok = true;
        return j;
    } catch (const EngineError &) {
        *ok = false;
        return {};
    }
}

} // namespace

CheckpointData loadCheckpoint(const std::string &pathOfSidecarOrModelFile, bool verify)
{
    const std::string sidecarPath = sidecarFor(pathOfSidecarOrModelFile);
    if (sidecarPath.empty())
        throw EngineError(pathOfSidecarOrModelFile + ": not a checkpoint file (expected .json or .safetensors)");
    std::error_code ec;
    if (sidecarPath != pathOfSidecarOrModelFile && !fs::exists(sidecarPath, ec))
        throw EngineError(pathOfSidecarOrModelFile + ": no sidecar " + fs::path(sidecarPath).filename().string()
                          + " beside it (not a Lathe checkpoint, or one cut short)");
    CheckpointData data;
    data.meta = checkCheckpoint(sidecarPath, verify);
    data.sidecarPath = sidecarPath;
    const fs::path folder = fs::path(sidecarPath).parent_path();
    const nlohmann::json &files = data.meta["files"];
    data.model = readSafetensors((folder / files["model"]["name"].get<std::string>()).string());
    if (files.contains("state"))
        data.state = readSafetensors((folder / files["state"]["name"].get<std::string>()).string());
    return data;
}

std::optional<CheckpointData> loadLatestCheckpoint(const std::string &runDir, std::vector<std::string> *notes, bool verify)
{
    std::vector<std::string> local;
    std::vector<std::string> &out = notes ? *notes : local;
    const std::vector<Candidate> found = candidates(run_layout::checkpointsPath(runDir), &out);
    for (const Candidate &c : found) {
        try {
            return loadCheckpoint(c.sidecar, verify);
        } catch (const EngineError &e) {
            out.push_back(std::string("skipped: ") + e.what());
        }
    }
    if (found.empty())
        return std::nullopt;
    std::string message = runDir + ": no usable checkpoint, although checkpoints exist:";
    for (const std::string &note : out)
        message += "\n  " + note;
    throw EngineError(message);
}

CheckpointRef resolveCheckpoint(const std::string &runDir, const std::string &which)
{
    const fs::path folder = run_layout::checkpointsPath(runDir);
    auto fromSidecar = [](const std::string &sidecar) {
        const nlohmann::json meta = checkCheckpoint(sidecar);
        CheckpointRef ref;
        ref.sidecar = sidecar;
        ref.model = (fs::path(sidecar).parent_path() / meta["files"]["model"]["name"].get<std::string>()).string();
        ref.step = meta["step"].get<std::int64_t>();
        return ref;
    };
    auto newest = [&](bool includeLast) {
        std::vector<std::string> notes;
        for (const Candidate &c : candidates(folder, &notes)) {
            if (c.isLast && !includeLast)
                continue;
            try {
                return fromSidecar(c.sidecar);
            } catch (const EngineError &e) {
                notes.push_back(e.what());
            }
        }
        std::string message = runDir + ": no complete checkpoint";
        for (const std::string &note : notes)
            message += "\n  " + note;
        throw EngineError(message);
    };

    if (which == run_layout::kBestAlias) {
        const std::string best = (folder / run_layout::kBestSidecar).string();
        std::error_code ec;
        if (!fs::exists(best, ec))
            throw EngineError(best + ": missing (no checkpoint with the best metric yet)");
        return fromSidecar(best);
    }
    if (which == run_layout::kLastAlias) {
        const std::string last = (folder / run_layout::kLastSidecar).string();
        try {
            return fromSidecar(last);
        } catch (const EngineError &) {
            return newest(false); // last.* is being replaced, or was never written
        }
    }
    if (which == "latest")
        return newest(true);
    // "step-<n>", or just "<n>".
    const bool prefixed = which.rfind(run_layout::kStepPrefix, 0) == 0;
    const std::int64_t step = run_layout::stepOfStem(prefixed ? which : run_layout::kStepPrefix + which);
    if (step >= 0)
        return fromSidecar((folder / (stepStem(step) + run_layout::kSidecarSuffix)).string());

    std::error_code ec;
    fs::path file(which);
    if (!fs::exists(file, ec) && file.is_relative() && fs::exists(folder / file, ec))
        file = folder / file;
    if (!fs::is_regular_file(file, ec))
        throw EngineError(which + ": no such checkpoint (expected best, last, latest, step-<n> or a file)");
    const std::string sidecar = sidecarFor(file.string());
    if (!sidecar.empty() && fs::exists(sidecar, ec)) {
        // A JSON file beside weights need not be a sidecar (an export's model.json is not).
        bool isSidecar = true;
        try {
            const nlohmann::json j = parseSidecar(sidecar);
            isSidecar = j.is_object() && j.contains("format_version") && j.contains("files");
        } catch (const std::exception &) {
            isSidecar = file.extension() == run_layout::kSidecarSuffix;
        }
        if (isSidecar)
            return fromSidecar(sidecar);
    }
    CheckpointRef ref;
    ref.model = file.string();
    return ref;
}

std::vector<double> checkpointThresholds(const nlohmann::json &meta, const std::string &sidecarPath, std::size_t classes)
{
    std::vector<double> thresholds;
    if (meta.is_object() && meta.contains("metrics") && meta["metrics"].is_object() && meta["metrics"].contains("thresholds")) {
        for (const nlohmann::json &t : meta["metrics"]["thresholds"]) {
            if (!t.is_number())
                throw EngineError(sidecarPath + ": metrics.thresholds must be numbers");
            thresholds.push_back(t.get<double>());
        }
    } else {
        thresholds.assign(classes, 0.5);
    }
    if (thresholds.size() != classes)
        throw EngineError(sidecarPath + ": " + std::to_string(thresholds.size()) + " thresholds for " +
                          std::to_string(classes) + " classes");
    return thresholds;
}

} // namespace lathe::engine
