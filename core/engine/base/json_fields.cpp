#include "engine/base/json_fields.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace lathe::engine::json_fields {
namespace {

using json = nlohmann::json;

// dump() recurses, and hostile input nests deep: only the first levels of a value are written.
void appendShown(std::string &out, const json &value, int depth)
{
    if (out.size() > 80)
        return;
    if (!value.is_structured()) {
        out += value.dump(-1, ' ', false, json::error_handler_t::replace);
        return;
    }
    const bool array = value.is_array();
    out += array ? '[' : '{';
    if (depth >= 3 && !value.empty()) {
        out += "...";
    } else {
        bool first = true;
        for (auto it = value.begin(); it != value.end() && out.size() <= 80; ++it) {
            out += first ? "" : ", ";
            first = false;
            if (!array)
                out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
            appendShown(out, it.value(), depth + 1);
        }
    }
    out += array ? ']' : '}';
}

// The reason a reader gives: its own words, or the caller's description of the value.
std::string reason(const std::string &expected, const std::string &own)
{
    return expected.empty() ? own : "expected " + expected;
}

void checkRange(const std::string &path, double v, const NumberRange &range, const std::string &expected)
{
    if (range.contains(v))
        return;
    fail(path, reason(expected, (range.min && range.max ? "must be in " : "must be ") + range.text() + " (got " +
                                    formatNumber(v) + ")"));
}

double readIntegral(const std::string &path, const json &v, const NumberRange &range, const std::string &expected)
{
    if (!v.is_number())
        fail(path, reason(expected, "expected an integer (got " + shown(v) + ")"));
    const double d = v.get<double>();
    if (v.is_number_float() && (!std::isfinite(d) || d != std::floor(d)))
        fail(path, reason(expected, "expected an integer (got " + shown(v) + ")"));
    checkRange(path, d, range, expected);
    return d;
}

// Optimal string alignment distance (edits and swaps of neighbours).
std::size_t editDistance(const std::string &a, const std::string &b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

} // namespace

std::string fieldPath(const std::string &parent, const std::string &key)
{
    return parent.empty() ? key : parent + "." + key;
}

std::string itemPath(const std::string &parent, std::size_t index)
{
    return parent + "[" + std::to_string(index) + "]";
}

void fail(const std::string &path, const std::string &reason)
{
    throw EngineError(path + ": " + reason);
}

std::string shown(const json &value)
{
    std::string text;
    appendShown(text, value, 0);
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return text;
}

std::string formatNumber(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
    return buffer;
}

std::string joined(const std::vector<std::string> &items, const std::string &separator)
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

NumberRange NumberRange::ge(double v) const
{
    NumberRange r = *this;
    r.min = v;
    r.minExclusive = false;
    return r;
}

NumberRange NumberRange::gt(double v) const
{
    NumberRange r = *this;
    r.min = v;
    r.minExclusive = true;
    return r;
}

NumberRange NumberRange::le(double v) const
{
    NumberRange r = *this;
    r.max = v;
    r.maxExclusive = false;
    return r;
}

NumberRange NumberRange::lt(double v) const
{
    NumberRange r = *this;
    r.max = v;
    r.maxExclusive = true;
    return r;
}

bool NumberRange::contains(double v) const
{
    if (std::isnan(v))
        return false;
    if (min && (minExclusive ? !(v > *min) : !(v >= *min)))
        return false;
    if (max && (maxExclusive ? !(v < *max) : !(v <= *max)))
        return false;
    return true;
}

std::string NumberRange::text() const
{
    if (min && max)
        return std::string(minExclusive ? "(" : "[") + formatNumber(*min) + ", " + formatNumber(*max) +
               (maxExclusive ? ")" : "]");
    if (min)
        return (minExclusive ? "> " : ">= ") + formatNumber(*min);
    if (max)
        return (maxExclusive ? "< " : "<= ") + formatNumber(*max);
    return {};
}

bool isFiniteNumber(const json &value)
{
    return value.is_number() && std::isfinite(value.get<double>());
}

std::string readString(const std::string &path, const json &v)
{
    if (!v.is_string())
        fail(path, "expected a string (got " + shown(v) + ")");
    return v.get<std::string>();
}

std::string readEnum(const std::string &path, const json &v, const std::vector<std::string> &allowed,
                     const std::string &expected)
{
    if (!v.is_string())
        fail(path, reason(expected, "expected a string (got " + shown(v) + ")"));
    const std::string s = v.get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
        fail(path, reason(expected, "must be one of " + joined(allowed) + " (got " + shown(v) + ")"));
    return s;
}

bool readBool(const std::string &path, const json &v, const std::string &expected)
{
    if (!v.is_boolean())
        fail(path, reason(expected, "expected true or false (got " + shown(v) + ")"));
    return v.get<bool>();
}

double readNumber(const std::string &path, const json &v, const NumberRange &range, const std::string &expected)
{
    if (!isFiniteNumber(v))
        fail(path, reason(expected, "expected a number (got " + shown(v) + ")"));
    const double d = v.get<double>();
    checkRange(path, d, range, expected);
    return d;
}

int readInt(const std::string &path, const json &v, const NumberRange &range, const std::string &expected)
{
    const double d = readIntegral(path, v, range, expected);
    if (d > std::numeric_limits<int>::max() || d < std::numeric_limits<int>::min())
        fail(path, reason(expected, "out of range (got " + shown(v) + ")"));
    return static_cast<int>(d);
}

std::uint64_t readUnsigned(const std::string &path, const json &v, const NumberRange &range)
{
    const double d = readIntegral(path, v, range.ge(0), {});
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>(); // exact, also above 2^53
    if (d >= 18446744073709551616.0)
        fail(path, "out of range (got " + shown(v) + ")");
    return static_cast<std::uint64_t>(d);
}

const json &requireArray(const std::string &path, const json &value, const std::string &what)
{
    if (!value.is_array())
        fail(path, "expected " + what + " (got " + shown(value) + ")");
    return value;
}

const json &requireObject(const std::string &path, const json &value, const std::string &what)
{
    if (!value.is_object())
        fail(path, "expected " + what + " (got " + shown(value) + ")");
    return value;
}

void checkKnownKeys(const std::string &path, const json &object, const std::vector<std::string> &known,
                    const std::string &reason)
{
    for (auto it = object.begin(); it != object.end(); ++it)
        if (std::find(known.begin(), known.end(), it.key()) == known.end())
            fail(fieldPath(path, it.key()), reason);
}

bool similarNames(const std::string &a, const std::string &b)
{
    const std::size_t d = editDistance(a, b);
    return d <= 2 && d <= std::max<std::size_t>(1, std::min(a.size(), b.size()) / 3);
}

std::string closestName(const std::string &name, const std::vector<std::string> &candidates)
{
    std::string best;
    std::size_t bestDistance = std::numeric_limits<std::size_t>::max();
    for (const std::string &candidate : candidates) {
        const std::size_t d = editDistance(name, candidate);
        if (similarNames(name, candidate) && d < bestDistance) {
            best = candidate;
            bestDistance = d;
        }
    }
    return best;
}

} // namespace lathe::engine::json_fields
