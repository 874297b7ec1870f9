#include "engine/pipeline/augmentation.h"

#include "engine/base/json_fields.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace lathe::engine {
namespace {

using json = nlohmann::json;
using namespace json_fields;

// Parsing reports the first problem as "data.augment[i].field: reason". Every parameter says
// what it takes in its own words ("expected two numbers 0 < min <= max <= 1"), whichever check
// failed: many take several forms (a number or a list), and one description covers them all.
class Field
{
public:
    Field(std::size_t index, const std::string &name)
        : m_path(name.empty() ? itemPath("data.augment", index) : fieldPath(itemPath("data.augment", index), name))
    {
    }
    const std::string &path() const { return m_path; }
    [[noreturn]] void fail(const std::string &reason) const { json_fields::fail(m_path, reason); }

private:
    std::string m_path;
};

// A number within range; any failure reads "expected <what>".
double number(const json &v, const Field &f, const NumberRange &range, const std::string &what)
{
    return readNumber(f.path(), v, range, what);
}

// A [min, max] range from either a list of two numbers or one number n, which means
// single(n) (torchvision's convention: [-n, n] for angles, [1 - n, 1 + n] for factors).
json range(const json &v, const Field &f, const std::string &what, const std::function<json(double)> &single,
           const std::function<bool(double, double)> &valid)
{
    json r;
    if (isFiniteNumber(v)) {
        const double n = v.get<double>();
        if (n < 0)
            f.fail("expected a number >= 0 or " + what);
        r = single(n);
    } else if (v.is_array() && v.size() == 2 && isFiniteNumber(v[0]) && isFiniteNumber(v[1])) {
        r = json::array({v[0].get<double>(), v[1].get<double>()});
    } else {
        f.fail("expected a number >= 0 or " + what);
    }
    if (!valid(r[0].get<double>(), r[1].get<double>()))
        f.fail("expected " + what);
    return r;
}

json twoNumbers(const json &v, const Field &f, const std::string &what, const std::function<bool(double, double)> &valid)
{
    if (!v.is_array() || v.size() != 2 || !isFiniteNumber(v[0]) || !isFiniteNumber(v[1])
        || !valid(v[0].get<double>(), v[1].get<double>()))
        f.fail("expected " + what);
    return json::array({v[0].get<double>(), v[1].get<double>()});
}

int integer(const json &v, const Field &f, int lo, int hi)
{
    return readInt(f.path(), v, NumberRange().ge(lo).le(hi),
                   "an integer " + std::to_string(lo) + " <= n <= " + std::to_string(hi));
}

// Fill colour of geometric steps: one number or [r, g, b], each 0..255.
json fill(const json &v, const Field &f)
{
    const std::string what = "a number 0..255 or a list [r, g, b] of such numbers";
    auto ok = [](const json &x) { return isFiniteNumber(x) && x.get<double>() >= 0 && x.get<double>() <= 255; };
    if (ok(v))
        return json::array({v.get<double>(), v.get<double>(), v.get<double>()});
    if (v.is_array() && v.size() == 3 && std::all_of(v.begin(), v.end(), ok))
        return json::array({v[0].get<double>(), v[1].get<double>(), v[2].get<double>()});
    f.fail("expected " + what);
}

std::string interpolation(const json &v, const Field &f)
{
    return readEnum(f.path(), v, {"nearest", "bilinear"}, "\"nearest\" or \"bilinear\"");
}

bool unitRange(double lo, double hi) { return 0 < lo && lo <= hi && hi <= 1; }
bool positiveRange(double lo, double hi) { return 0 < lo && lo <= hi; }
bool ordered(double lo, double hi) { return lo <= hi; }

// One parameter of a type: its default (canonical form) and how a given value is read.
struct Param
{
    json defaultValue;
    std::function<json(const json &, const Field &)> read;
};

struct TypeInfo
{
    double defaultProbability = 1;
    bool geometry = false; // resize/center_crop: always applied, p must be 1
    std::map<std::string, Param> params;
};

Param factorRange(double center)
{
    // brightness/contrast/saturation: n -> [max(0, 1 - n), 1 + n]; a list needs 0 <= min <= max.
    return {json::array({center, center}), [](const json &v, const Field &f) {
                return range(
                    v, f, "a list [min, max] with 0 <= min <= max",
                    [](double n) { return json::array({std::max(0.0, 1 - n), 1 + n}); },
                    [](double lo, double hi) { return 0 <= lo && lo <= hi; });
            }};
}

Param fillParam()
{
    return {json::array({0.0, 0.0, 0.0}), [](const json &v, const Field &f) { return fill(v, f); }};
}

Param interpolationParam()
{
    return {"nearest", [](const json &v, const Field &f) { return json(interpolation(v, f)); }};
}

Param magnitudeBins()
{
    return {31, [](const json &v, const Field &f) { return json(integer(v, f, 2, 1000)); }};
}

// The types, their parameters (canonical form and default) and torchvision's default p.
// How SampleTransform applies a list: the geometry comes first whatever its place:
// random_resized_crop, or resize + center_crop, else (also when random_resized_crop is
// skipped by its p, and always in evaluation) the short side resized to resizeSize and a
// center crop of imageSize. Then the pixel steps in list order on uint8 RGB, then the
// tensor steps in list order: gaussian_noise on [0, 1] values before normalization,
// random_erasing after it (its value is a normalized one). mixup and cutmix act on whole
// batches (BatchMixer). In evaluation only the geometry runs.
const std::map<std::string, TypeInfo> &typeTable()
{
    static const std::map<std::string, TypeInfo> table = [] {
        std::map<std::string, TypeInfo> t;
        t["random_resized_crop"] = {1, false,
                                    {{"scale", {json::array({0.08, 1.0}), [](const json &v, const Field &f) {
                                          return twoNumbers(v, f, "two numbers 0 < min <= max <= 1", unitRange);
                                      }}},
                                     {"ratio", {json::array({3.0 / 4.0, 4.0 / 3.0}), [](const json &v, const Field &f) {
                                          return twoNumbers(v, f, "two numbers 0 < min <= max", positiveRange);
                                      }}}}};
        t["resize"] = {1, true,
                       {{"size", {nullptr, [](const json &v, const Field &f) { return json(integer(v, f, 1, 16384)); }}}}};
        t["center_crop"] = {1, true, {}};
        t["horizontal_flip"] = {0.5, false, {}};
        t["vertical_flip"] = {0.5, false, {}};
        t["rotation"] = {1, false,
                         {{"degrees", {json::array({-15.0, 15.0}), [](const json &v, const Field &f) {
                               return range(
                                   v, f, "a list [min, max] of degrees with min <= max",
                                   [](double n) { return json::array({-n, n}); }, ordered);
                           }}},
                          {"fill", fillParam()},
                          {"interpolation", interpolationParam()}}};
        t["affine"] = {1, false,
                       {{"degrees", {json::array({0.0, 0.0}), [](const json &v, const Field &f) {
                             return range(
                                 v, f, "a list [min, max] of degrees with min <= max",
                                 [](double n) { return json::array({-n, n}); }, ordered);
                         }}},
                        {"translate", {json::array({0.0, 0.0}), [](const json &v, const Field &f) {
                             return twoNumbers(v, f, "two fractions [x, y], each 0..1",
                                               [](double a, double b) { return a >= 0 && a <= 1 && b >= 0 && b <= 1; });
                         }}},
                        {"scale", {json::array({1.0, 1.0}), [](const json &v, const Field &f) {
                             return twoNumbers(v, f, "two numbers 0 < min <= max", positiveRange);
                         }}},
                        {"shear", {json::array({0.0, 0.0, 0.0, 0.0}), [](const json &v, const Field &f) {
                             const std::string what = "a number >= 0, [xmin, xmax] or [xmin, xmax, ymin, ymax] in degrees";
                             if (isFiniteNumber(v)) {
                                 const double n = v.get<double>();
                                 if (n < 0)
                                     f.fail("expected " + what);
                                 return json::array({-n, n, 0.0, 0.0});
                             }
                             if (!v.is_array() || (v.size() != 2 && v.size() != 4)
                                 || !std::all_of(v.begin(), v.end(), isFiniteNumber))
                                 f.fail("expected " + what);
                             json r = json::array();
                             for (const json &x : v)
                                 r.push_back(x.get<double>());
                             if (r.size() == 2) {
                                 r.push_back(0.0);
                                 r.push_back(0.0);
                             }
                             if (r[0].get<double>() > r[1].get<double>() || r[2].get<double>() > r[3].get<double>())
                                 f.fail("expected " + what + " with min <= max");
                             for (const json &x : r)
                                 if (std::abs(x.get<double>()) >= 90)
                                     f.fail("shear angles must lie strictly between -90 and 90 degrees");
                             return r;
                         }}},
                        {"fill", fillParam()},
                        {"interpolation", interpolationParam()}}};
        t["color_jitter"] = {1, false,
                             {{"brightness", factorRange(1)},
                              {"contrast", factorRange(1)},
                              {"saturation", factorRange(1)},
                              {"hue", {json::array({0.0, 0.0}), [](const json &v, const Field &f) {
                                   if (isFiniteNumber(v) && v.get<double>() > 0.5)
                                       f.fail("expected a number 0..0.5 or a list [min, max] with -0.5 <= min <= max <= 0.5");
                                   return range(
                                       v, f, "a list [min, max] with -0.5 <= min <= max <= 0.5",
                                       [](double n) { return json::array({-n, n}); },
                                       [](double lo, double hi) { return -0.5 <= lo && lo <= hi && hi <= 0.5; });
                               }}}}};
        t["grayscale"] = {0.1, false, {}};
        t["gaussian_blur"] = {1, false,
                              {{"kernel_size", {json::array({5, 5}), [](const json &v, const Field &f) {
                                    auto odd = [](const json &x) {
                                        return isFiniteNumber(x) && std::floor(x.get<double>()) == x.get<double>()
                                               && x.get<double>() > 0 && x.get<double>() <= 255
                                               && static_cast<int>(x.get<double>()) % 2 == 1;
                                    };
                                    if (odd(v))
                                        return json::array({v.get<int>(), v.get<int>()});
                                    if (v.is_array() && v.size() == 2 && odd(v[0]) && odd(v[1]))
                                        return json::array({v[0].get<int>(), v[1].get<int>()});
                                    f.fail("expected an odd integer 1..255 or a list [kx, ky] of such");
                                }}},
                               {"sigma", {json::array({0.1, 2.0}), [](const json &v, const Field &f) {
                                    if (isFiniteNumber(v)) {
                                        if (v.get<double>() <= 0)
                                            f.fail("expected a number > 0 or a list [min, max] with 0 < min <= max");
                                        return json::array({v.get<double>(), v.get<double>()});
                                    }
                                    return twoNumbers(v, f, "a number > 0 or a list [min, max] with 0 < min <= max",
                                                      positiveRange);
                                }}}}};
        t["sharpness"] = {0.5, false,
                          {{"sharpness_factor", {2.0, [](const json &v, const Field &f) {
                                return json(number(v, f, NumberRange().ge(0), "a number >= 0"));
                            }}}}};
        t["posterize"] = {0.5, false,
                          {{"bits", {4, [](const json &v, const Field &f) { return json(integer(v, f, 0, 8)); }}}}};
        t["solarize"] = {0.5, false,
                         {{"threshold", {128.0, [](const json &v, const Field &f) {
                               return json(number(v, f, NumberRange().ge(0).le(255), "a number 0..255"));
                           }}}}};
        t["autocontrast"] = {0.5, false, {}};
        t["equalize"] = {0.5, false, {}};
        t["invert"] = {0.5, false, {}};
        t["rand_augment"] = {1, false,
                             {{"num_ops", {2, [](const json &v, const Field &f) { return json(integer(v, f, 0, 16)); }}},
                              {"magnitude", {9, [](const json &v, const Field &f) { return json(integer(v, f, 0, 999)); }}},
                              {"num_magnitude_bins", magnitudeBins()},
                              {"fill", fillParam()},
                              {"interpolation", interpolationParam()}}};
        t["trivial_augment_wide"] = {
            1, false, {{"num_magnitude_bins", magnitudeBins()}, {"fill", fillParam()}, {"interpolation", interpolationParam()}}};
        t["gaussian_noise"] = {1, false,
                               {{"mean", {0.0, [](const json &v, const Field &f) { return json(number(v, f, {}, "a number")); }}},
                                {"sigma", {0.1, [](const json &v, const Field &f) {
                                     return json(number(v, f, NumberRange().ge(0), "a number >= 0"));
                                 }}},
                                {"clip", {true, [](const json &v, const Field &f) {
                                     return json(readBool(f.path(), v, "true or false"));
                                 }}}}};
        t["random_erasing"] = {0.5, false,
                               {{"scale", {json::array({0.02, 0.33}), [](const json &v, const Field &f) {
                                     return twoNumbers(v, f, "two numbers 0 < min <= max <= 1", unitRange);
                                 }}},
                                {"ratio", {json::array({0.3, 3.3}), [](const json &v, const Field &f) {
                                     return twoNumbers(v, f, "two numbers 0 < min <= max", positiveRange);
                                 }}},
                                // Values of the normalized tensor, as torchvision's RandomErasing.
                                {"value", {json::array({0.0, 0.0, 0.0}), [](const json &v, const Field &f) {
                                     if (v == "random")
                                         return v;
                                     if (isFiniteNumber(v))
                                         return json::array({v.get<double>(), v.get<double>(), v.get<double>()});
                                     if (v.is_array() && v.size() == 3 && std::all_of(v.begin(), v.end(), isFiniteNumber))
                                         return json::array({v[0].get<double>(), v[1].get<double>(), v[2].get<double>()});
                                     f.fail("expected a number, a list [r, g, b] or \"random\"");
                                 }}}}};
        auto alpha = [] {
            return Param{1.0, [](const json &v, const Field &f) {
                             return json(number(v, f, NumberRange().gt(0), "a number > 0"));
                         }};
        };
        t["mixup"] = {1, false, {{"alpha", alpha()}}};
        t["cutmix"] = {1, false, {{"alpha", alpha()}}};
        return t;
    }();
    return table;
}

} // namespace

const std::vector<std::string> &augmentationTypes()
{
    static const std::vector<std::string> types{
        "random_resized_crop", "resize",         "center_crop",  "horizontal_flip", "vertical_flip",
        "rotation",            "affine",         "color_jitter", "grayscale",       "gaussian_blur",
        "sharpness",           "posterize",      "solarize",     "autocontrast",    "equalize",
        "invert",              "rand_augment",   "trivial_augment_wide", "gaussian_noise", "random_erasing",
        "mixup",               "cutmix"};
    return types;
}

std::vector<AugmentationSpec> parseAugmentations(const nlohmann::json &list)
{
    if (list.is_null())
        return {};
    if (!list.is_array())
        fail("data.augment", "expected a list of augmentation steps");
    const auto &table = typeTable();
    std::vector<AugmentationSpec> out;
    std::set<std::string> seenOnce;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json &item = list[i];
        if (!item.is_object())
            Field(i, "").fail("expected an object with a \"type\"");
        if (!item.contains("type") || !item["type"].is_string())
            Field(i, "type").fail("missing or not a string");
        const std::string type = item["type"].get<std::string>();
        const auto info = table.find(type);
        if (info == table.end())
            Field(i, "type").fail("unknown augmentation \"" + type + "\" (known: " + joined(augmentationTypes()) + ")");
        // A sample has one geometry; two crops, or two mixers of the same kind, would be a mistake.
        const bool once = type == "random_resized_crop" || type == "resize" || type == "center_crop" || type == "mixup"
                          || type == "cutmix";
        if (once && !seenOnce.insert(type).second)
            Field(i, "type").fail("\"" + type + "\" may appear only once");
        AugmentationSpec spec;
        spec.type = type;
        spec.probability = info->second.defaultProbability;
        if (item.contains("p")) {
            const Field f(i, "p");
            spec.probability = number(item["p"], f, NumberRange().ge(0).le(1), "a probability 0..1");
            if (info->second.geometry && spec.probability != 1)
                f.fail(type + " is a geometry step and always applies: p must be 1");
        }
        std::vector<std::string> params;
        for (const auto &p : info->second.params)
            params.push_back(p.first);
        std::vector<std::string> known = params;
        known.insert(known.end(), {"type", "p"});
        checkKnownKeys(itemPath("data.augment", i), item, known,
                       "unknown parameter of " + type +
                           (params.empty() ? " (it takes only p)" : " (known: " + joined(params) + ", p)"));
        for (const auto &[name, param] : info->second.params) {
            if (item.contains(name))
                spec.params[name] = param.read(item[name], Field(i, name));
            else if (!param.defaultValue.is_null())
                spec.params[name] = param.defaultValue;
        }
        if (type == "rand_augment"
            && spec.params["magnitude"].get<int>() >= spec.params["num_magnitude_bins"].get<int>())
            Field(i, "magnitude").fail("must be less than num_magnitude_bins ("
                                       + std::to_string(spec.params["num_magnitude_bins"].get<int>()) + ")");
        out.push_back(std::move(spec));
    }
    const bool rrc = std::any_of(out.begin(), out.end(), [](const AugmentationSpec &s) { return s.type == "random_resized_crop"; });
    const bool fixed = std::any_of(out.begin(), out.end(),
                                   [](const AugmentationSpec &s) { return s.type == "resize" || s.type == "center_crop"; });
    if (rrc && fixed)
        fail("data.augment", "random_resized_crop cannot be combined with resize/center_crop (a sample has one geometry)");
    return out;
}

nlohmann::json augmentationsToJson(const std::vector<AugmentationSpec> &list)
{
    json out = json::array();
    for (const AugmentationSpec &spec : list) {
        json item = spec.params.is_object() ? spec.params : json::object();
        item["type"] = spec.type;
        item["p"] = spec.probability;
        out.push_back(std::move(item));
    }
    return out;
}

std::vector<AugmentationSpec> standardAugmentations()
{
    return parseAugmentations(json::array({{{"type", "random_resized_crop"}}, {{"type", "horizontal_flip"}, {"p", 0.5}}}));
}

} // namespace lathe::engine
