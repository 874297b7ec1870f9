#include "engine/tune/search_space.h"

#include "engine/base/engine_error.h"
#include "engine/base/json_fields.h"
#include "engine/run/run_config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

namespace {

const std::vector<std::string> kTypeNames{"choice", "uniform", "log_uniform", "int_uniform", "grid"};

// runConfigSchema() by field path: the one list of what a run config holds (run/ owns it).
const std::map<std::string, json> &schemaFields()
{
    static const std::map<std::string, json> fields = [] {
        std::map<std::string, json> m;
        for (const json &entry : runConfigSchema())
            m[entry.at("field").get<std::string>()] = entry;
        return m;
    }();
    return fields;
}

// The run's metrics a study can optimise: those a run config names for its best checkpoint.
std::vector<std::string> metricNames()
{
    const json &entry = schemaFields().at("checkpoints.best_metric");
    return entry.at("allowed").get<std::vector<std::string>>();
}

std::string quotedPath(const std::string &parent, const std::string &name)
{
    return parent + ".\"" + name + "\"";
}

// The schema entry of a run-config field, or an error at path saying why name is none.
const json &requireRunConfigField(const std::string &path, const std::string &name)
{
    const auto &fields = schemaFields();
    if (auto it = fields.find(name); it != fields.end() && name != "version")
        return it->second;
    if (name == "version")
        fail(path, "the config version is not something a search can vary");
    const std::string prefix = name + ".";
    for (const auto &[field, entry] : fields)
        if (field.compare(0, prefix.size(), prefix) == 0)
            fail(path, "is a section, not a field: name one of its fields, e.g. " + field);
    // The run config's own message for an unknown path carries its suggestion ("did you mean lr?").
    std::string reason = "unknown run-config field";
    try {
        applyRunConfigOverrides(RunConfig{}, json{{name, 0}});
    } catch (const EngineError &e) {
        const std::string message = e.what();
        const std::string own = name + ": unknown field";
        if (message.compare(0, own.size(), own) == 0)
            reason = "unknown run-config field" + message.substr(own.size());
    }
    // It names a field of the same section by its own name ("lr"): a space names it by its path.
    const std::string mean = " (did you mean ";
    const auto at = reason.find(mean), dot = name.rfind('.');
    if (at != std::string::npos && dot != std::string::npos && reason.back() == ')') {
        const std::string suggested = reason.substr(at + mean.size(), reason.size() - at - mean.size() - 2);
        const std::string qualified = name.substr(0, dot + 1) + suggested;
        if (suggested.find('.') == std::string::npos && fields.count(qualified))
            reason = reason.substr(0, at) + mean + qualified + "?)";
    }
    fail(path, reason);
}

// Whether the run config accepts value for field (its own type and range check); fails at path.
void checkFieldValue(const std::string &path, const std::string &field, const json &value)
{
    try {
        applyRunConfigOverrides(RunConfig{}, json{{field, value}});
    } catch (const EngineError &e) {
        std::string message = e.what();
        const std::string own = field + ": ";
        if (message.compare(0, own.size(), own) == 0)
            message = message.substr(own.size());
        fail(path, "not a valid " + field + ": " + message);
    }
}

void checkScalar(const std::string &path, const json &value)
{
    if (value.is_null() || value.is_object())
        fail(path, "expected a value such as a string, number, boolean or array (got " + shown(value) + ")");
}

std::vector<json> readValues(const std::string &path, const json &object, const std::string &field)
{
    if (!object.contains("values"))
        fail(fieldPath(path, "values"), "missing (a list of the values to try)");
    const std::string valuesPath = fieldPath(path, "values");
    const json &list = requireArray(valuesPath, object["values"], "a non-empty array of values");
    if (list.empty())
        fail(valuesPath, "expected a non-empty array of values (got [])");
    std::vector<json> values;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string itemAt = itemPath(valuesPath, i);
        checkScalar(itemAt, list[i]);
        for (const json &earlier : values)
            if (paramValuesEqual(earlier, list[i]))
                fail(itemAt, "repeats the value " + shown(list[i]));
        checkFieldValue(itemAt, field, list[i]);
        values.push_back(list[i]);
    }
    return values;
}

ParamSpec parseParam(const std::string &path, const std::string &name, const json &object)
{
    const json &entry = requireRunConfigField(path, name);
    requireObject(path, object, "an object like {\"type\": \"uniform\", \"low\": 0, \"high\": 1}");
    checkKnownKeys(path, object, {"type", "low", "high", "log", "values", "when"},
                   "unknown key (a parameter has type, low, high, log, values, when)");
    ParamSpec p;
    p.name = name;
    if (!object.contains("type"))
        fail(fieldPath(path, "type"), "missing (one of " + joined(kTypeNames) + ")");
    const std::string type = readEnum(fieldPath(path, "type"), object["type"], kTypeNames);
    p.type = static_cast<ParamType>(std::find(kTypeNames.begin(), kTypeNames.end(), type) - kTypeNames.begin());
    const std::string fieldType = entry.at("type").get<std::string>();

    const auto allow = [&](const char *key, bool allowed) {
        if (object.contains(key) && !allowed)
            fail(fieldPath(path, key), std::string("not used by ") + type + " parameters");
    };
    allow("values", p.categorical());
    allow("low", !p.categorical());
    allow("high", !p.categorical());
    allow("log", p.type == ParamType::IntUniform);

    if (p.categorical()) {
        p.values = readValues(path, object, name);
    } else {
        if (p.type == ParamType::IntUniform) {
            if (fieldType != "integer" && fieldType != "number")
                fail(fieldPath(path, "type"), "int_uniform needs a numeric field (" + name + " is " + fieldType +
                                                  "): use choice or grid");
        } else if (fieldType != "number") {
            fail(fieldPath(path, "type"), type + " needs a number field (" + name + " is " + fieldType + ")" +
                                              (fieldType == "integer" ? ": use int_uniform" : ": use choice or grid"));
        }
        for (const char *key : {"low", "high"})
            if (!object.contains(key))
                fail(fieldPath(path, key), "missing (the " + std::string(key[0] == 'l' ? "lowest" : "highest") +
                                               " value to try)");
        if (p.type == ParamType::IntUniform) {
            p.low = readInt(fieldPath(path, "low"), object["low"]);
            p.high = readInt(fieldPath(path, "high"), object["high"]);
            if (object.contains("log"))
                p.log = readBool(fieldPath(path, "log"), object["log"]);
        } else {
            p.low = readNumber(fieldPath(path, "low"), object["low"]);
            p.high = readNumber(fieldPath(path, "high"), object["high"]);
        }
        if (p.logScale() && p.type == ParamType::LogUniform && !(p.low > 0))
            fail(fieldPath(path, "low"), "must be > 0 for log_uniform (got " + formatNumber(p.low) + ")");
        if (p.logScale() && p.type == ParamType::IntUniform && !(p.low >= 1))
            fail(fieldPath(path, "low"), "must be >= 1 for int_uniform with log (got " + formatNumber(p.low) + ")");
        if (!(p.low < p.high))
            fail(fieldPath(path, "high"), "must be > low (" + formatNumber(p.low) + ") (got " +
                                              formatNumber(p.high) + ")");
        // The field's range is an interval, so both ends valid means every value between is.
        const auto number = [&](double v) { return p.type == ParamType::IntUniform ? json(std::int64_t(v)) : json(v); };
        checkFieldValue(fieldPath(path, "low"), name, number(p.low));
        checkFieldValue(fieldPath(path, "high"), name, number(p.high));
    }
    return p;
}

// Reads "when" once every parameter is known (conditions may name parameters given later).
void parseConditions(const std::string &path, ParamSpec &p, const json &object, const SearchSpace &space)
{
    if (!object.contains("when"))
        return;
    const std::string whenPath = fieldPath(path, "when");
    const json &when = requireObject(whenPath, object["when"], "an object like {\"optimizer.name\": \"sgd\"}");
    if (when.empty())
        fail(whenPath, "expected at least one condition (or leave \"when\" out)");
    for (auto it = when.begin(); it != when.end(); ++it) {
        const std::string at = quotedPath(whenPath, it.key());
        const ParamSpec *other = space.find(it.key());
        if (it.key() == p.name)
            fail(at, "a parameter cannot depend on itself");
        if (!other)
            fail(at, "no such parameter in this space" +
                         [&] {
                             std::vector<std::string> names;
                             for (const ParamSpec &q : space.params)
                                 names.push_back(q.name);
                             const std::string best = closestName(it.key(), names);
                             return best.empty() ? std::string() : " (did you mean " + best + "?)";
                         }());
        ParamCondition c;
        c.param = it.key();
        if (it.value().is_array()) {
            if (it.value().empty())
                fail(at, "expected a value or a non-empty array of values (got [])");
            for (const json &v : it.value())
                c.allowed.push_back(v);
        } else {
            c.allowed.push_back(it.value());
        }
        for (std::size_t i = 0; i < c.allowed.size(); ++i) {
            const std::string valueAt = it.value().is_array() ? itemPath(at, i) : at;
            const json &v = c.allowed[i];
            checkScalar(valueAt, v);
            if (other->categorical()) {
                const bool known = std::any_of(other->values.begin(), other->values.end(),
                                               [&](const json &o) { return paramValuesEqual(o, v); });
                if (!known) {
                    std::vector<std::string> names;
                    for (const json &o : other->values)
                        names.push_back(shown(o));
                    fail(valueAt, shown(v) + " is not one of the values of " + other->name + " (" + joined(names) + ")");
                }
            } else if (!v.is_number() || v.get<double>() < other->low || v.get<double>() > other->high) {
                fail(valueAt, shown(v) + " is outside " + other->name + "'s range [" + formatNumber(other->low) + ", " +
                                  formatNumber(other->high) + "]");
            }
        }
        p.when.push_back(std::move(c));
    }
}

// Parents before children, else by name; a cycle is an error naming its members.
std::vector<ParamSpec> ordered(std::vector<ParamSpec> params, const std::string &paramsPath)
{
    std::vector<ParamSpec> out;
    std::set<std::string> placed;
    while (!params.empty()) {
        auto ready = std::find_if(params.begin(), params.end(), [&](const ParamSpec &p) {
            return std::all_of(p.when.begin(), p.when.end(),
                               [&](const ParamCondition &c) { return placed.count(c.param) > 0; });
        });
        if (ready == params.end()) {
            std::vector<std::string> names;
            for (const ParamSpec &p : params)
                names.push_back(p.name);
            fail(quotedPath(paramsPath, params.front().name) + ".when",
                 "the conditions form a cycle among " + joined(names));
        }
        placed.insert(ready->name);
        out.push_back(std::move(*ready));
        params.erase(ready);
    }
    return out;
}

std::string typeOf(const json &v)
{
    return v.type_name();
}

} // namespace

std::string paramTypeName(ParamType type)
{
    return kTypeNames.at(static_cast<std::size_t>(type));
}

const ParamSpec *SearchSpace::find(const std::string &name) const
{
    for (const ParamSpec &p : params)
        if (p.name == name)
            return &p;
    return nullptr;
}

bool paramValuesEqual(const json &a, const json &b)
{
    if (a.is_number() && b.is_number())
        return a.get<double>() == b.get<double>();
    return a == b;
}

SearchSpace parseSearchSpace(const json &document)
{
    const std::string root = "space";
    requireObject(root, document, "a JSON object holding a search space");
    checkKnownKeys(root, document, {"version", "params", "budget", "metric", "direction"},
                   "unknown key (a search space has version, params, budget, metric, direction)");
    SearchSpace space;
    if (document.contains("version")) {
        const int version = readInt(fieldPath(root, "version"), document["version"], NumberRange().ge(1));
        if (version > SearchSpace::kVersion)
            fail(fieldPath(root, "version"), "this file is from a newer Lathe (version " + std::to_string(version) +
                                                 ", this one reads up to " + std::to_string(SearchSpace::kVersion) + ")");
    }

    const std::string paramsPath = fieldPath(root, "params");
    if (!document.contains("params"))
        fail(paramsPath, "missing (an object of run-config fields to vary)");
    const json &params = requireObject(paramsPath, document["params"], "an object of \"field\": {parameter}");
    if (params.empty())
        fail(paramsPath, "expected at least one parameter to vary");
    for (auto it = params.begin(); it != params.end(); ++it)
        space.params.push_back(parseParam(quotedPath(paramsPath, it.key()), it.key(), it.value()));
    for (ParamSpec &p : space.params)
        parseConditions(quotedPath(paramsPath, p.name), p, params[p.name], space);
    space.params = ordered(std::move(space.params), paramsPath);

    if (document.contains("budget")) {
        const std::string at = fieldPath(root, "budget");
        const json &budget = requireObject(at, document["budget"], "an object like {\"trials\": 20, \"epochs\": 9}");
        checkKnownKeys(at, budget, {"trials", "epochs", "seconds"},
                       "unknown key (a budget has trials, epochs, seconds)");
        if (budget.contains("trials"))
            space.budget.trials = readInt(fieldPath(at, "trials"), budget["trials"], NumberRange().ge(0));
        if (budget.contains("epochs"))
            space.budget.epochs = readInt(fieldPath(at, "epochs"), budget["epochs"], NumberRange().ge(0));
        if (budget.contains("seconds"))
            space.budget.seconds = readNumber(fieldPath(at, "seconds"), budget["seconds"], NumberRange().ge(0));
    }
    if (document.contains("metric"))
        space.metric = readEnum(fieldPath(root, "metric"), document["metric"], metricNames());
    const bool loss = space.metric.size() >= 4 && space.metric.compare(space.metric.size() - 4, 4, "loss") == 0;
    space.maximize = !loss;
    if (document.contains("direction"))
        space.maximize = readEnum(fieldPath(root, "direction"), document["direction"], {"maximize", "minimize"}) ==
                         "maximize";
    return space;
}

SearchSpace readSearchSpace(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot read the search space (no such file or not readable)");
    std::stringstream text;
    text << in.rdbuf();
    const json document = json::parse(text.str(), nullptr, false);
    if (document.is_discarded())
        throw EngineError(path + ": not valid JSON");
    if (!document.is_object())
        throw EngineError(path + ": expected a JSON object holding a search space (got " + typeOf(document) + ")");
    try {
        return parseSearchSpace(document);
    } catch (const EngineError &e) {
        throw EngineError(path + ": " + e.what());
    }
}

json searchSpaceToJson(const SearchSpace &space)
{
    json params = json::object();
    for (const ParamSpec &p : space.params) {
        json entry = {{"type", paramTypeName(p.type)}};
        if (p.categorical()) {
            entry["values"] = p.values;
        } else if (p.type == ParamType::IntUniform) {
            entry["low"] = static_cast<std::int64_t>(p.low);
            entry["high"] = static_cast<std::int64_t>(p.high);
            entry["log"] = p.log;
        } else {
            entry["low"] = p.low;
            entry["high"] = p.high;
        }
        if (!p.when.empty()) {
            json when = json::object();
            for (const ParamCondition &c : p.when)
                when[c.param] = c.allowed.size() == 1 ? c.allowed.front() : json(c.allowed);
            entry["when"] = std::move(when);
        }
        params[p.name] = std::move(entry);
    }
    return {{"version", SearchSpace::kVersion},
            {"params", std::move(params)},
            {"budget", {{"trials", space.budget.trials}, {"epochs", space.budget.epochs}, {"seconds", space.budget.seconds}}},
            {"metric", space.metric},
            {"direction", space.maximize ? "maximize" : "minimize"}};
}

bool isParamActive(const ParamSpec &param, const json &params)
{
    for (const ParamCondition &c : param.when) {
        if (!params.is_object() || !params.contains(c.param))
            return false;
        const json &value = params[c.param];
        if (std::none_of(c.allowed.begin(), c.allowed.end(), [&](const json &a) { return paramValuesEqual(a, value); }))
            return false;
    }
    return true;
}

void checkTrialParams(const SearchSpace &space, const json &params, const std::string &where)
{
    requireObject(where, params, "an object of parameter values");
    for (auto it = params.begin(); it != params.end(); ++it)
        if (!space.find(it.key()))
            fail(quotedPath(where, it.key()), "not a parameter of the study's space");
    for (const ParamSpec &p : space.params) {
        const std::string at = quotedPath(where, p.name);
        const bool active = isParamActive(p, params);
        if (!params.contains(p.name)) {
            if (active)
                fail(at, "missing (the parameter is active in this trial)");
            continue;
        }
        if (!active)
            fail(at, "present although its condition does not hold");
        const json &v = params[p.name];
        if (p.categorical()) {
            if (std::none_of(p.values.begin(), p.values.end(), [&](const json &o) { return paramValuesEqual(o, v); }))
                fail(at, shown(v) + " is not one of the parameter's values");
            continue;
        }
        if (!isFiniteNumber(v) || v.get<double>() < p.low || v.get<double>() > p.high)
            fail(at, shown(v) + " is outside [" + formatNumber(p.low) + ", " + formatNumber(p.high) + "]");
        if (p.type == ParamType::IntUniform && !v.is_number_integer())
            fail(at, "expected an integer (got " + shown(v) + ")");
    }
}

json applyTrialParams(const json &runConfig, const json &params)
{
    if (!runConfig.is_object())
        throw EngineError("run config: expected a JSON object (got " + typeOf(runConfig) + ")");
    requireObject("params", params, "an object of \"field\": value");
    json out = runConfig;
    for (auto it = params.begin(); it != params.end(); ++it) {
        const std::string at = quotedPath("params", it.key());
        requireRunConfigField(at, it.key());
        json *node = &out;
        std::string rest = it.key();
        std::string section;
        for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
            section += (section.empty() ? "" : ".") + rest.substr(0, dot);
            json &child = (*node)[rest.substr(0, dot)];
            if (child.is_null())
                child = json::object();
            if (!child.is_object())
                fail(at, "the run config's " + section + " is not an object (got " + shown(child) + ")");
            node = &child;
            rest = rest.substr(dot + 1);
        }
        (*node)[rest] = it.value();
    }
    return out;
}

} // namespace lathe::engine
