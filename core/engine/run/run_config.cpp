// Reading run configs (files, JSON, unknown fields with a suggestion), writing them, and the
// overrides of `lathe-cli train --set`. The fields themselves are run_config_fields.cpp's.
#include "engine/run/run_config_fields.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace lathe::engine {
namespace {

using namespace json_fields;
using namespace run_config_detail;
using json = nlohmann::json;

// camelCase and kebab-case to snake_case: "batchSize" and "batch-size" are "batch_size".
std::string snakeCase(const std::string &name)
{
    std::string out;
    for (char ch : name) {
        if (ch >= 'A' && ch <= 'Z') {
            if (!out.empty() && out.back() != '_')
                out += '_';
            out += char(ch - 'A' + 'a');
        } else {
            out += ch == '-' ? '_' : ch;
        }
    }
    return out;
}

// Names people bring from other tools, and what they are called here.
const std::map<std::string, std::string> &aliases()
{
    static const std::map<std::string, std::string> m{
        {"learning_rate", "lr"},          {"base_lr", "lr"},
        {"batch", "batch_size"},          {"bs", "batch_size"},
        {"num_epochs", "epochs"},         {"max_epochs", "epochs"},
        {"wd", "weight_decay"},           {"epsilon", "eps"},
        {"beta", "betas"},                {"grad_clip", "clip_grad_norm"},
        {"clip_grad", "clip_grad_norm"},  {"max_grad_norm", "clip_grad_norm"},
        {"accumulation_steps", "accumulate_steps"}, {"gradient_accumulation_steps", "accumulate_steps"},
        {"architecture", "arch"},         {"backbone", "arch"},
        {"pretrained", "weights"},        {"checkpoint", "weights"},
        {"classes", "num_classes"},       {"n_classes", "num_classes"},
        {"channels", "in_channels"},      {"num_workers", "workers"},
        {"input_size", "image_size"},     {"img_size", "image_size"},
        {"resolution", "image_size"},     {"crop_size", "image_size"},
        {"augmentation", "augment"},      {"augmentations", "augment"},
        {"transforms", "augment"},        {"smoothing", "label_smoothing"},
        {"warmup", "warmup_epochs"},      {"lr_min", "min_lr"},
        {"eta_min", "min_lr"},            {"milestone", "milestones"},
        {"type", "name"},                 {"gpus", "devices"},
        {"device", "devices"},            {"amp", "precision"},
        {"dtype", "precision"},           {"mixed_precision", "precision"},
        {"random_seed", "seed"},          {"dataset", "data"},
        {"model_ema", "ema"},             {"scheduler", "schedule"},
        {"lr_schedule", "schedule"},      {"optim", "optimizer"},
        {"checkpoint_every", "every_epochs"}, {"save_every", "every_epochs"},
    };
    return m;
}

// " (did you mean X?)" for an unknown field, or "".
std::string suggestionFor(const std::string &path)
{
    const auto dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
    const std::string normal = snakeCase(leaf);
    const std::set<std::string> siblings = childrenOf(parent);

    if (siblings.count(normal))
        return " (did you mean " + normal + "?)";
    for (const auto &[alias, name] : aliases())
        if (siblings.count(name) && (alias == normal || (alias.size() >= 5 && similarNames(alias, normal))))
            return " (did you mean " + name + "?)";
    const std::string best = closestName(normal, std::vector<std::string>(siblings.begin(), siblings.end()));
    if (!best.empty())
        return " (did you mean " + best + "?)";
    // The right name in the wrong section: "optimizer.label_smoothing" is loss.label_smoothing.
    for (const Field &f : fields()) {
        const auto fdot = f.path.rfind('.');
        if ((fdot == std::string::npos ? f.path : f.path.substr(fdot + 1)) == normal)
            return " (did you mean " + f.path + "?)";
    }
    for (const std::string &section : childrenOf(""))
        if (section == normal && isSection(section))
            return " (did you mean the section " + section + "?)";
    return {};
}

void parseSection(const json &object, const std::string &prefix, RunConfig &config)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string path = fieldPath(prefix, it.key());
        if (it.key().find('.') != std::string::npos)
            fail(path, "unknown field (write nested objects: {\"" + it.key().substr(0, it.key().find('.')) +
                           "\": {...}})");
        if (const Field *field = findField(path)) {
            field->set(config, it.value());
        } else if (isSection(path)) {
            parseSection(requireObject(path, it.value()), path, config);
        } else {
            fail(path, "unknown field" + suggestionFor(path));
        }
    }
}

std::string typeOf(const json &v)
{
    return v.type_name(); // "object", "array", "string", "number", "boolean", "null"
}

// "optimizer.lr" -> /optimizer/lr (only called with known field or section paths).
json::json_pointer pointerOf(const std::string &path)
{
    std::string pointer = "/" + path;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    return json::json_pointer(pointer);
}

// "a,b" -> ["a", "b"]; with integers, items that are JSON numbers become numbers.
json splitList(const std::string &text, bool integers)
{
    json list = json::array();
    if (text.empty())
        return list;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const json number = integers ? json::parse(item, nullptr, false) : json();
        list.push_back(integers && !number.is_discarded() ? number : json(item));
        if (comma == std::string::npos)
            return list;
        start = comma + 1;
    }
}

void rejectNulls(const json &value, const std::string &path)
{
    if (value.is_null())
        fail(path, "expected a value (got null)");
    if (value.is_object())
        for (auto it = value.begin(); it != value.end(); ++it)
            rejectNulls(it.value(), path + "." + it.key());
}

} // namespace

RunConfig parseRunConfig(const nlohmann::json &json)
{
    if (!json.is_object())
        throw EngineError("run config: expected a JSON object (got " + typeOf(json) + ")");
    RunConfig config;
    // The version first: a newer file's other fields may mean something this Lathe cannot know.
    if (json.contains("version"))
        findField("version")->set(config, json["version"]);
    parseSection(json, "", config);
    return config;
}

RunConfig readRunConfig(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw EngineError(path + ": no such file");
    if (!fs::is_regular_file(path, ec))
        throw EngineError(path + ": not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    if (size > parse_limits::kRunConfigBytes.value)
        throw EngineError(path + ": too large for a run config ("
                          + limitReason(size, parse_limits::kRunConfigBytes, parse_limits::kRunConfigBytes.value) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open for reading");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad())
        throw EngineError(path + ": read error");
    const std::string text = bytes.str();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw EngineError(path + ": empty file (expected a JSON run config)");
    // A config nests about 5 deep.
    if (const std::uint64_t depth = jsonNestingDepth(text); depth > parse_limits::kJsonDepth.value)
        throw EngineError(path + ": not a run config (JSON nested " + std::to_string(depth) + " levels deep, "
                          + overLimit(parse_limits::kJsonDepth) + ")");
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 3, ...": keep the readable part.
        if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
            what = what.substr(what.find("] ") + 2);
        // Its "last read: '...'" quotes the file's bytes, which may be binary.
        for (char &ch : what)
            if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
                ch = '?';
        throw EngineError(path + ": not valid JSON: " + what);
    }
    if (!document.is_object())
        throw EngineError(path + ": expected a JSON object holding a run config (got " + typeOf(document) + ")");
    try {
        return parseRunConfig(document);
    } catch (const EngineError &e) {
        throw EngineError(path + ": " + e.what());
    }
}

nlohmann::json runConfigToJson(const RunConfig &config)
{
    json out = json::object();
    for (const Field &f : fields()) {
        json *node = &out;
        std::string rest = f.path;
        for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
            node = &(*node)[rest.substr(0, dot)];
            rest = rest.substr(dot + 1);
        }
        (*node)[rest] = f.get(config);
    }
    return out;
}

RunConfig applyRunConfigOverrides(RunConfig config, const nlohmann::json &overrides)
{
    if (!overrides.is_object())
        throw EngineError("overrides: expected an object of \"path\": value (got " + typeOf(overrides) + ")");
    json document = runConfigToJson(config);
    const std::string multipliers = "model.freeze.lr_multipliers.";
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        const std::string &path = it.key();
        json value = it.value();
        if (const Field *field = findField(path)) {
            // Command-line friendliness: "cuda:0,cuda:1" for a list, "30,60" for epochs.
            if (value.is_string() && (field->type == "array of strings" || field->type == "array of integers"))
                value = splitList(value.get<std::string>(), field->type == "array of integers");
            document[pointerOf(path)] = std::move(value);
        } else if (isSection(path)) {
            requireObject(path, value);
            // merge_patch would read a null as "remove": refuse it rather than reset a field silently.
            rejectNulls(value, path);
            document[pointerOf(path)].merge_patch(value);
        } else if (path.compare(0, multipliers.size(), multipliers) == 0 && path.size() > multipliers.size() &&
                   path.find('.', multipliers.size()) == std::string::npos) {
            document["model"]["freeze"]["lr_multipliers"][path.substr(multipliers.size())] = std::move(value);
        } else {
            fail(path.empty() ? "overrides" : path, "unknown field" + suggestionFor(path));
        }
    }
    return parseRunConfig(document);
}

nlohmann::json runConfigOverrides(const std::vector<std::string> &assignments)
{
    json overrides = json::object();
    for (const std::string &assignment : assignments) {
        const auto equals = assignment.find('=');
        if (equals == std::string::npos || equals == 0)
            throw EngineError("--set " + assignment + ": expected PATH=VALUE, e.g. optimizer.lr=0.1");
        const std::string path = assignment.substr(0, equals);
        const std::string text = assignment.substr(equals + 1);
        const json value = json::parse(text, nullptr, false);
        overrides[path] = value.is_discarded() ? json(text) : value;
    }
    return overrides;
}

ModelSpec modelSpecForDataset(const RunConfig &config, int datasetClasses)
{
    ModelSpec spec = config.model;
    if (spec.head.numClasses == 0)
        spec.head.numClasses = datasetClasses;
    else if (spec.head.numClasses != datasetClasses)
        throw EngineError("model.head.num_classes: " + std::to_string(spec.head.numClasses) + " differs from the " +
                          std::to_string(datasetClasses) + " classes of the dataset (use 0 to take the dataset's)");
    return spec;
}

} // namespace lathe::engine
