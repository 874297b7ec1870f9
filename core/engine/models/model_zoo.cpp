#include "engine/models/model_zoo.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/base/file_io.h"
#include "engine/base/sha256.h"
#include "engine/models/backbone_registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace lathe::engine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kZooVersion = 1;
// The real catalog is ~10 KiB; anything near this is not a catalog, and is not read whole.

const std::set<std::string> kTopLevelKeys{"version", "source", "license_note", "weights"};
const std::set<std::string> kEntryKeys{"arch",       "id",        "default",     "url",           "file",
                                       "sha256_prefix", "acc1",   "acc5",        "num_params",    "min_size",
                                       "crop_size",  "resize_size", "interpolation", "mean",        "std",
                                       "license",    "license_url", "recipe",      "file_size"};

bool isLowerHex(const std::string &s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A name the cache can use as is: no folders, no hidden files, nothing a shell would mangle.
bool isPlainFileName(const std::string &s)
{
    if (s.empty() || s.size() > 255 || s[0] == '.')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
               || c == '-';
    });
}

bool startsWith(const std::string &s, const std::string &prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

// Plain http only for a mirror on this machine (and the tests' local server).
bool isAcceptedUrl(const std::string &url)
{
    if (startsWith(url, "https://"))
        return url.size() > 8;
    for (const char *local : {"http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/",
                              "http://[::1]:", "http://[::1]/"})
        if (startsWith(url, local))
            return true;
    return false;
}

class EntryReader
{
public:
    EntryReader(const json &object, std::string where)
        : m_object(object)
        , m_where(std::move(where))
    {
    }

    const std::string &where() const { return m_where; }
    void setWhere(std::string where) { m_where = std::move(where); }

    [[noreturn]] void fail(const char *key, const std::string &reason) const
    {
        throw EngineError(m_where + ": \"" + key + "\" " + reason);
    }

    const json *find(const char *key, bool required) const
    {
        const auto it = m_object.find(key);
        if (it == m_object.end()) {
            if (required)
                fail(key, "is missing");
            return nullptr;
        }
        return &*it;
    }

    std::string string(const char *key, bool required = true) const
    {
        const json *v = find(key, required);
        if (!v)
            return {};
        if (!v->is_string())
            fail(key, "must be a string");
        std::string s = v->get<std::string>();
        if (s.empty())
            fail(key, "must not be empty");
        return s;
    }

    bool boolean(const char *key) const
    {
        const json *v = find(key, true);
        if (!v->is_boolean())
            fail(key, "must be true or false");
        return v->get<bool>();
    }

    double number(const char *key, double min, double max) const
    {
        const json *v = find(key, true);
        if (!v->is_number())
            fail(key, "must be a number");
        const double d = v->get<double>();
        if (!(d >= min && d <= max))
            fail(key, "is " + v->dump() + ", outside " + json(min).dump() + ".." + json(max).dump());
        return d;
    }

    static bool integerIn(const json &v, std::int64_t min, std::int64_t max, std::int64_t &out)
    {
        if (v.is_number_unsigned()) {
            const std::uint64_t u = v.get<std::uint64_t>();
            if (u > std::uint64_t(max))
                return false;
            out = std::int64_t(u);
        } else if (v.is_number_integer()) {
            out = v.get<std::int64_t>();
        } else {
            return false;
        }
        return out >= min && out <= max;
    }

    std::int64_t integer(const char *key, std::int64_t min, std::int64_t max) const
    {
        const json *v = find(key, true);
        std::int64_t out = 0;
        if (!integerIn(*v, min, max, out))
            fail(key, "must be a whole number within " + std::to_string(min) + ".." + std::to_string(max) + ", got "
                          + v->dump());
        return out;
    }

    template<std::size_t N>
    std::array<double, N> numbers(const char *key, bool required, double min, double max) const
    {
        std::array<double, N> out{};
        const json *v = find(key, required);
        if (!v)
            return out;
        if (!v->is_array() || v->size() != N)
            fail(key, "must be a list of " + std::to_string(N) + " numbers");
        for (std::size_t i = 0; i < N; ++i) {
            const json &item = (*v)[i];
            if (!item.is_number() || !(item.get<double>() >= min && item.get<double>() <= max))
                fail(key, "must hold numbers within " + json(min).dump() + ".." + json(max).dump() + ", got "
                              + v->dump());
            out[i] = item.get<double>();
        }
        return out;
    }

private:
    const json &m_object;
    std::string m_where;
};

ZooWeights readEntry(const json &object, const std::string &where)
{
    if (!object.is_object())
        throw EngineError(where + ": is not an object");
    EntryReader r(object, where);
    for (const auto &item : object.items())
        if (!kEntryKeys.count(item.key()))
            throw EngineError(where + ": unknown field \"" + item.key() + "\"");

    ZooWeights w;
    w.arch = r.string("arch");
    w.id = r.string("id");
    r.setWhere(where + " (" + w.arch + " " + w.id + ")");
    const auto &registry = backboneRegistry();
    if (std::none_of(registry.begin(), registry.end(), [&](const BackboneInfo &b) { return b.name == w.arch; }))
        r.fail("arch", "names no Lathe backbone (\"" + w.arch + "\")");
    if (!std::all_of(w.id.begin(), w.id.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }))
        r.fail("id", "must be upper-case letters, digits and '_' (\"" + w.id + "\")");
    w.isDefault = r.boolean("default");

    w.url = r.string("url");
    if (!isAcceptedUrl(w.url))
        r.fail("url", "must be an https:// address (\"" + w.url + "\")");
    if (w.url.find_first_of("?# \t\r\n\\") != std::string::npos)
        r.fail("url", "must be a plain address without query, fragment or spaces (\"" + w.url + "\")");
    w.fileName = r.string("file");
    if (!isPlainFileName(w.fileName))
        r.fail("file", "must be a plain file name of letters, digits, '.', '_' and '-' (\"" + w.fileName + "\")");
    if (w.url.size() <= w.fileName.size() || w.url.compare(w.url.size() - w.fileName.size() - 1, std::string::npos,
                                                           "/" + w.fileName) != 0)
        r.fail("file", "is not the last part of the url (\"" + w.fileName + "\")");
    w.sha256Prefix = r.string("sha256_prefix");
    if (w.sha256Prefix.size() < 8 || w.sha256Prefix.size() > 64 || !isLowerHex(w.sha256Prefix))
        r.fail("sha256_prefix", "must be 8 to 64 lower-case hex digits (\"" + w.sha256Prefix + "\")");
    const std::string fromName = sha256PrefixOfFileName(w.fileName);
    if (fromName != w.sha256Prefix)
        r.fail("sha256_prefix", "is \"" + w.sha256Prefix + "\" but the file name carries \"" + fromName + "\"");

    w.acc1 = r.number("acc1", 0, 100);
    w.acc5 = r.number("acc5", 0, 100);
    w.numParams = r.integer("num_params", 1, std::int64_t(1) << 40);
    if (r.find("min_size", false)) {
        const auto m = r.numbers<2>("min_size", true, 1, 65536);
        if (m[0] != int(m[0]) || m[1] != int(m[1]))
            r.fail("min_size", "must hold whole numbers");
        w.minSize = {int(m[0]), int(m[1])};
    }
    w.cropSize = int(r.integer("crop_size", 1, 8192));
    w.resizeSize = int(r.integer("resize_size", 1, 8192));
    w.interpolation = r.string("interpolation");
    if (w.interpolation != "bilinear" && w.interpolation != "bicubic" && w.interpolation != "nearest")
        r.fail("interpolation", "must be \"bilinear\", \"bicubic\" or \"nearest\" (\"" + w.interpolation + "\")");
    const auto mean = r.numbers<3>("mean", true, 0, 1);
    const auto stdev = r.numbers<3>("std", true, 1e-6, 10);
    for (int c = 0; c < 3; ++c) {
        w.mean[c] = float(mean[c]);
        w.std[c] = float(stdev[c]);
    }
    w.license = r.string("license");
    w.licenseUrl = r.string("license_url", false);
    w.recipe = r.string("recipe", false);
    if (const json *size = r.find("file_size", false); size && !size->is_null())
        w.fileSize = r.integer("file_size", 0, std::int64_t(1) << 50);
    return w;
}

} // namespace

std::string sha256PrefixOfFileName(const std::string &fileName)
{
    // torch.hub: re.search(r'-([a-f0-9]*)\.'), the first '-' followed by hex digits and a '.'.
    for (std::size_t dash = fileName.find('-'); dash != std::string::npos; dash = fileName.find('-', dash + 1)) {
        std::size_t end = dash + 1;
        while (end < fileName.size() && isLowerHex(std::string(1, fileName[end])))
            ++end;
        if (end < fileName.size() && fileName[end] == '.')
            return fileName.substr(dash + 1, end - dash - 1);
    }
    return {};
}

std::vector<ZooWeights> loadModelZoo(const std::string &path)
{
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read the model-zoo catalog (" + ec.message() + ")");
    if (size > parse_limits::kZooCatalogBytes.value)
        throw EngineError(path + ": too large for a model-zoo catalog ("
                          + limitReason(size, parse_limits::kZooCatalogBytes, parse_limits::kZooCatalogBytes.value) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot read the model-zoo catalog (" + errnoText() + ")");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
    checkJsonDepth(text, path);
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception &e) {
        throw EngineError(path + ": not valid JSON (" + e.what() + ")");
    }
    if (!doc.is_object())
        throw EngineError(path + ": not a model-zoo catalog (the top level is not an object)");
    for (const auto &item : doc.items())
        if (!kTopLevelKeys.count(item.key()))
            throw EngineError(path + ": unknown field \"" + item.key() + "\"");
    EntryReader top(doc, path);
    const std::int64_t version = top.integer("version", 1, 1'000'000);
    if (version > kZooVersion)
        throw EngineError(path + ": written for a newer Lathe (catalog version " + std::to_string(version) + ")");
    top.string("source", false);
    top.string("license_note", false);
    const json *weights = top.find("weights", true);
    if (!weights->is_array())
        top.fail("weights", "must be a list");

    std::vector<ZooWeights> zoo;
    std::set<std::pair<std::string, std::string>> ids;
    std::set<std::string> files;
    std::set<std::string> defaults;
    for (std::size_t i = 0; i < weights->size(); ++i) {
        const std::string where = path + ": weights[" + std::to_string(i) + "]";
        ZooWeights w = readEntry((*weights)[i], where);
        const std::string named = where + " (" + w.arch + " " + w.id + ")";
        if (!ids.insert({w.arch, w.id}).second)
            throw EngineError(named + ": \"id\" appears twice for this architecture");
        if (!files.insert(w.fileName).second)
            throw EngineError(named + ": \"file\" " + w.fileName + " is already another entry's");
        if (w.isDefault && !defaults.insert(w.arch).second)
            throw EngineError(named + ": \"default\" is true for a second entry of " + w.arch);
        zoo.push_back(std::move(w));
    }
    return zoo;
}

const ZooWeights *defaultWeights(const std::vector<ZooWeights> &zoo, const std::string &arch)
{
    for (const ZooWeights &w : zoo)
        if (w.arch == arch && w.isDefault)
            return &w;
    return nullptr;
}

const ZooWeights *findWeights(const std::vector<ZooWeights> &zoo, const std::string &arch, const std::string &id)
{
    for (const ZooWeights &w : zoo)
        if (w.arch == arch && w.id == id)
            return &w;
    return nullptr;
}

const ZooWeights *matchSha256(const std::vector<ZooWeights> &zoo, const std::string &sha256)
{
    for (const ZooWeights &w : zoo)
        if (!w.sha256Prefix.empty() && startsWith(sha256, w.sha256Prefix))
            return &w;
    return nullptr;
}

std::string cacheFileName(const ZooWeights &weights)
{
    return weights.fileName;
}

ZooMatch verifyWeightsFile(const std::string &path, const std::vector<ZooWeights> &zoo, const TaskControl &control)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw EngineError(path + ": not a readable file" + (ec ? " (" + ec.message() + ")" : std::string()));
    const std::uintmax_t total = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot read (" + errnoText() + ")");

    const std::string name = fs::path(path).filename().string();
    const std::string status = "Checking " + name;
    control.report(0.0, status);
    Sha256 hash;
    std::vector<char> buffer(1 << 20);
    ZooMatch match;
    while (in) {
        control.checkCancel();
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const std::streamsize got = in.gcount();
        if (got > 0) {
            hash.update(buffer.data(), std::size_t(got));
            match.bytes += std::uint64_t(got);
            control.report(total ? std::min(1.0, double(match.bytes) / double(total)) : 1.0, status);
        }
    }
    if (in.bad())
        throw EngineError(path + ": read error after " + std::to_string(match.bytes) + " bytes");
    match.sha256 = hash.hexDigest();
    control.report(1.0, status);

    if (const ZooWeights *w = matchSha256(zoo, match.sha256)) {
        match.weights = *w;
        return match;
    }
    match.message = path + ": no catalog entry matches this file (its SHA-256 is " + match.sha256
                    + "; the official weights' file names carry the start of theirs)";
    return match;
}

std::string findModelZooFile()
{
    if (const char *env = std::getenv("LATHE_MODEL_ZOO"); env && *env) {
        std::error_code ec;
        if (!fs::is_regular_file(env, ec))
            throw EngineError(std::string("LATHE_MODEL_ZOO names ") + env + ", which is not a file");
        return env;
    }

    std::vector<fs::path> candidates;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && exe.is_absolute()) {
        for (fs::path dir = exe.parent_path();; dir = dir.parent_path()) {
            candidates.push_back(dir / "share" / "lathe" / "model_zoo.json");
            candidates.push_back(dir / "resources" / "model_zoo.json");
            if (dir == dir.parent_path())
                break;
        }
    }
    candidates.emplace_back("/usr/share/lathe/model_zoo.json");
    for (const fs::path &candidate : candidates)
        if (fs::is_regular_file(candidate, ec))
            return candidate.string();

    std::ostringstream looked;
    for (std::size_t i = 0; i < candidates.size(); ++i)
        looked << (i ? ", " : "") << candidates[i].string();
    throw EngineError("model_zoo.json not found (set LATHE_MODEL_ZOO to its path); looked in " + looked.str());
}

std::vector<std::string> weightsCacheDirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("LATHE_WEIGHTS_CACHE"); env && *env)
        dirs.emplace_back(env);
    std::string cacheHome;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        cacheHome = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
        cacheHome = std::string(home) + "/.cache";
    if (!cacheHome.empty()) {
        dirs.push_back(cacheHome + "/Lathe/lathe/weights"); // the GUI's (QStandardPaths::CacheLocation + /weights)
        dirs.push_back(cacheHome + "/Lathe/weights");
        dirs.push_back(cacheHome + "/torch/hub/checkpoints"); // torchvision's own downloads share names
    }
    return dirs;
}

std::string resolveZooWeights(const std::string &arch)
{
    const std::vector<ZooWeights> zoo = loadModelZoo(findModelZooFile());
    const ZooWeights *w = defaultWeights(zoo, arch);
    if (!w)
        throw EngineError("model.weights: the model zoo has no pretrained weights for " + arch);
    const std::string name = cacheFileName(*w);
    std::string looked;
    for (const std::string &dir : weightsCacheDirs()) {
        const fs::path p = fs::path(dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(p, ec))
            return p.string();
        looked += (looked.empty() ? "" : ", ") + dir;
    }
    throw EngineError("model.weights: the zoo weights of " + arch + " (" + name +
                      ") are not downloaded; looked in " + looked +
                      ". Download them on the Model page (or put the file in $LATHE_WEIGHTS_CACHE)");
}

} // namespace lathe::engine
