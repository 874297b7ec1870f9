#pragma once

// Private to core/engine/run. The run config in four files, one job each, sharing what is here:
//   run_config.cpp         reading (files, JSON, unknown-field suggestions), writing, overrides
//   run_config_fields.cpp  the field table: every field's path, type, limits, description, and
//                          how it is read and written
//   run_config_rules.cpp   the rules across fields, and validateRunConfig
//   run_config_docs.cpp    the schema, the Markdown reference (docs/run-config.md), the example

#include "engine/base/json_fields.h"
#include "engine/run/run_config.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace lathe::engine::run_config_detail {

// One field of the config: its place, documentation, limits, and how it is read and written.
// range and allowed are what parsing enforces and what the schema documents.
struct Field
{
    std::string path;
    std::string type;
    std::string description;
    json_fields::NumberRange range;
    std::vector<std::string> allowed; // the values of an enum field
    std::function<nlohmann::json(const RunConfig &)> get;
    std::function<void(RunConfig &, const nlohmann::json &)> set;
};

// Every field, in the order of the reference. Descriptions live there and nowhere else; defaults
// are those of the structs in run_config.h.
const std::vector<Field> &fields();
const Field *findField(const std::string &path); // nullptr when path is no field
// "optimizer" for "optimizer.lr", "" for a top-level field.
std::string sectionOf(const std::string &path);
// The names directly under a section ("" is the top level): fields and sub-sections.
std::set<std::string> childrenOf(const std::string &section);
bool isSection(const std::string &path);

// A rule across fields; its summary documents it in the reference.
struct Rule
{
    std::string summary;
    std::function<void(const RunConfig &)> check;
};

const std::vector<Rule> &rules();

} // namespace lathe::engine::run_config_detail
