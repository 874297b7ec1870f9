#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Reading the fields of a JSON document a user wrote (a run config, its augmentation list):
// each reader checks one value and throws EngineError "<path>: <reason>", where path is the
// field's dotted name ("optimizer.lr", "data.augment[2].scale"). By default the reason says
// what was expected and shows what was found ("expected a number (got \"0.1\")", "must be >= 0
// (got -1)"). A caller that describes each value in its own words passes `expected`; then every
// failure of that reader reads "expected <expected>", whichever check it failed.
namespace lathe::engine::json_fields {

// "a.b" (just "b" under the top level "") and "a[2]".
std::string fieldPath(const std::string &parent, const std::string &key);
std::string itemPath(const std::string &parent, std::size_t index);

[[noreturn]] void fail(const std::string &path, const std::string &reason);

// A value as the user wrote it, short enough for a message (at most 60 characters, only the
// first levels of a nested value, invalid UTF-8 replaced).
std::string shown(const nlohmann::json &value);
// 3 as "3", 0.1 as "0.1", 1e-8 as "1e-08".
std::string formatNumber(double value);
std::string joined(const std::vector<std::string> &items, const std::string &separator = ", ");

// Bounds of a number, each inclusive or not: NumberRange().ge(0).lt(1) is [0, 1).
struct NumberRange
{
    std::optional<double> min, max;
    bool minExclusive = false, maxExclusive = false;

    NumberRange ge(double v) const;
    NumberRange gt(double v) const;
    NumberRange le(double v) const;
    NumberRange lt(double v) const;
    bool contains(double v) const; // never NaN
    // "[0, 1)", "> 0", "<= 4096"; "" without bounds.
    std::string text() const;
};

// A JSON number that is finite (JSON text cannot hold inf or NaN, a document built in code can).
bool isFiniteNumber(const nlohmann::json &value);

std::string readString(const std::string &path, const nlohmann::json &value);
// A string that is one of allowed: "must be one of sgd, adamw (got \"adam\")".
std::string readEnum(const std::string &path, const nlohmann::json &value, const std::vector<std::string> &allowed,
                     const std::string &expected = {});
bool readBool(const std::string &path, const nlohmann::json &value, const std::string &expected = {});
double readNumber(const std::string &path, const nlohmann::json &value, const NumberRange &range = {},
                  const std::string &expected = {});
// Integers may be written 3 or 3.0; 2.5 or "3" are errors. The value is range-checked as a
// double first, so absurd values give a message instead of wrapping around.
int readInt(const std::string &path, const nlohmann::json &value, const NumberRange &range = {},
            const std::string &expected = {});
// As readInt, never below 0, and exact up to 2^64 - 1.
std::uint64_t readUnsigned(const std::string &path, const nlohmann::json &value, const NumberRange &range = {});

// Containers: "expected <what> (got ...)", with what e.g. "an array of epochs like [30, 60]".
const nlohmann::json &requireArray(const std::string &path, const nlohmann::json &value,
                                   const std::string &what = "an array");
const nlohmann::json &requireObject(const std::string &path, const nlohmann::json &value,
                                    const std::string &what = "an object");

// Fails "<path>.<key>: <reason>" for the first key of object, in the object's order, that is
// not in known.
void checkKnownKeys(const std::string &path, const nlohmann::json &object, const std::vector<std::string> &known,
                    const std::string &reason);

// For "did you mean ...?" suggestions: whether two names are a typo apart (edits and swaps of
// neighbours: at most 2, and at most a third of the shorter name, 1 for short names), and the
// candidate nearest to name among those that are (the first of equals; "" when none is).
bool similarNames(const std::string &a, const std::string &b);
std::string closestName(const std::string &name, const std::vector<std::string> &candidates);

} // namespace lathe::engine::json_fields
