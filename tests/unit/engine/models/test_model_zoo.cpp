#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/base/sha256.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/model_zoo.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>

using namespace lathe;
using lathe::test::errorOf;
using lathe::test::TempDir;
using nlohmann::json;

namespace {

bool isLowerHex(const std::string &s)
{
    return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::uint8_t> patternBytes(std::size_t n, std::uint32_t seed)
{
    std::vector<std::uint8_t> out(n);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto &b : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = std::uint8_t(x);
    }
    return out;
}

// A valid one-entry catalog entry; the malformed cases below each break one thing in it.
json validEntry(const std::string &prefix = "0123abcd", const std::string &arch = "resnet18",
                const std::string &id = "TEST_V1", bool isDefault = true)
{
    const std::string file = arch + "-" + prefix + ".pth";
    return {{"arch", arch},
            {"id", id},
            {"default", isDefault},
            {"url", "https://download.pytorch.org/models/" + file},
            {"file", file},
            {"sha256_prefix", prefix},
            {"acc1", 70.5},
            {"acc5", 89.25},
            {"num_params", 11689512},
            {"min_size", {1, 1}},
            {"crop_size", 224},
            {"resize_size", 256},
            {"interpolation", "bilinear"},
            {"mean", {0.485, 0.456, 0.406}},
            {"std", {0.229, 0.224, 0.225}},
            {"license", "BSD-3-Clause"},
            {"license_url", "https://github.com/pytorch/vision/blob/main/LICENSE"},
            {"recipe", "https://example.org/recipe"}};
}

json catalogOf(const std::vector<json> &entries)
{
    return {{"version", 1}, {"source", "test"}, {"weights", entries}};
}

std::vector<engine::ZooWeights> committedZoo()
{
    return engine::loadModelZoo(engine::findModelZooFile());
}

} // namespace

TEST(ModelZoo, CommittedCatalogCoversEveryRegistryArchitecture)
{
    const auto zoo = committedZoo();
    ASSERT_GE(zoo.size(), engine::backboneRegistry().size());
    for (const engine::BackboneInfo &b : engine::backboneRegistry()) {
        SCOPED_TRACE(b.name);
        const engine::ZooWeights *w = engine::defaultWeights(zoo, b.name);
        ASSERT_NE(w, nullptr);
        EXPECT_TRUE(w->isDefault);
        EXPECT_EQ(w->arch, b.name);
        // Both figures come from torchvision: the catalog from its enums, the registry typed in.
        EXPECT_EQ(w->numParams, b.parameters);
        EXPECT_EQ(w->cropSize, b.inputSize);
        int defaults = 0;
        for (const auto &e : zoo)
            defaults += e.arch == b.name && e.isDefault;
        EXPECT_EQ(defaults, 1);
    }
}

TEST(ModelZoo, CommittedCatalogEntriesAreTorchvisionsFiles)
{
    const auto zoo = committedZoo();
    std::set<std::string> files;
    for (const engine::ZooWeights &w : zoo) {
        SCOPED_TRACE(w.arch + " " + w.id);
        EXPECT_EQ(w.url.rfind("https://download.pytorch.org/models/", 0), 0u) << w.url;
        EXPECT_EQ(w.url, "https://download.pytorch.org/models/" + w.fileName);
        EXPECT_EQ(engine::cacheFileName(w), w.fileName);
        EXPECT_TRUE(isLowerHex(w.sha256Prefix)) << w.sha256Prefix;
        EXPECT_EQ(w.sha256Prefix.size(), 8u);
        EXPECT_EQ(engine::sha256PrefixOfFileName(w.fileName), w.sha256Prefix);
        EXPECT_NE(w.fileName.find("-" + w.sha256Prefix + "."), std::string::npos);
        EXPECT_GT(w.acc1, 50.0);
        EXPECT_GT(w.acc5, w.acc1);
        EXPECT_LE(w.acc5, 100.0);
        EXPECT_TRUE(w.interpolation == "bilinear" || w.interpolation == "bicubic") << w.interpolation;
        EXPECT_GE(w.resizeSize, w.cropSize);
        EXPECT_FALSE(w.license.empty());
        EXPECT_EQ(w.fileSize, -1); // unknown: never invented
        EXPECT_TRUE(files.insert(w.fileName).second);
    }
}

TEST(ModelZoo, CommittedCatalogHoldsTorchvisionsFigures)
{
    const auto zoo = committedZoo();
    // Spot checks against torchvision 0.14's documented weights.
    const engine::ZooWeights *r50 = engine::defaultWeights(zoo, "resnet50");
    ASSERT_NE(r50, nullptr);
    EXPECT_EQ(r50->id, "IMAGENET1K_V2");
    EXPECT_EQ(r50->fileName, "resnet50-11ad3fa6.pth");
    EXPECT_DOUBLE_EQ(r50->acc1, 80.858);
    EXPECT_DOUBLE_EQ(r50->acc5, 95.434);
    EXPECT_EQ(r50->resizeSize, 232);
    const engine::ZooWeights *r50v1 = engine::findWeights(zoo, "resnet50", "IMAGENET1K_V1");
    ASSERT_NE(r50v1, nullptr);
    EXPECT_FALSE(r50v1->isDefault);
    EXPECT_EQ(r50v1->sha256Prefix, "0676ba61");
    EXPECT_EQ(r50v1->resizeSize, 256);

    const engine::ZooWeights *b3 = engine::defaultWeights(zoo, "efficientnet_b3");
    ASSERT_NE(b3, nullptr);
    EXPECT_EQ(b3->fileName, "efficientnet_b3_rwightman-cf984f9c.pth");
    EXPECT_EQ(b3->interpolation, "bicubic");
    EXPECT_EQ(b3->cropSize, 300);
    EXPECT_EQ(b3->resizeSize, 320);

    // SWAG weights are not torchvision's own: CC-BY-NC 4.0, and 384 px for the end-to-end ones.
    const engine::ZooWeights *swag = engine::findWeights(zoo, "vit_b_16", "IMAGENET1K_SWAG_E2E_V1");
    ASSERT_NE(swag, nullptr);
    EXPECT_EQ(swag->license, "CC-BY-NC-4.0");
    EXPECT_EQ(swag->cropSize, 384);
    EXPECT_EQ(swag->minSize[0], 384);
    EXPECT_EQ(engine::defaultWeights(zoo, "vit_b_16")->license, "BSD-3-Clause");
    EXPECT_EQ(engine::defaultWeights(zoo, "no_such_arch"), nullptr);
}

TEST(ModelZoo, FindModelZooFileHonoursTheEnvironment)
{
    TempDir dir;
    const std::string path = dir.file("zoo.json");
    writeText(path, catalogOf({validEntry()}).dump());
    ::setenv("LATHE_MODEL_ZOO", path.c_str(), 1);
    const std::string found = engine::findModelZooFile();
    const std::string missing = errorOf([&] {
        ::setenv("LATHE_MODEL_ZOO", dir.file("absent.json").c_str(), 1);
        engine::findModelZooFile();
    });
    ::unsetenv("LATHE_MODEL_ZOO");
    EXPECT_EQ(found, path);
    EXPECT_NE(missing.find("absent.json"), std::string::npos) << missing;
    // Without the variable the committed catalog is found beside the build or install.
    EXPECT_NE(engine::findModelZooFile().find("model_zoo.json"), std::string::npos);
}

TEST(ModelZoo, HashPrefixFollowsTorchHubsRule)
{
    EXPECT_EQ(engine::sha256PrefixOfFileName("resnet50-11ad3fa6.pth"), "11ad3fa6");
    EXPECT_EQ(engine::sha256PrefixOfFileName("efficientnet_b0_rwightman-3dd342df.pth"), "3dd342df");
    EXPECT_EQ(engine::sha256PrefixOfFileName("my-model-0a1b.tar.gz"), "0a1b"); // "-model" is no hex run
    EXPECT_EQ(engine::sha256PrefixOfFileName("resnet50.pth"), "");
    EXPECT_EQ(engine::sha256PrefixOfFileName("resnet50-ABCD.pth"), ""); // upper case is not matched
}

TEST(ModelZoo, LoadsAValidTemporaryCatalog)
{
    TempDir dir;
    const std::string path = dir.file("zoo.json");
    json second = validEntry("feedbeef", "resnet18", "TEST_V2", false);
    second["file_size"] = 46830571;
    writeText(path, catalogOf({validEntry(), second}).dump(2));
    const auto zoo = engine::loadModelZoo(path);
    ASSERT_EQ(zoo.size(), 2u);
    EXPECT_EQ(zoo[0].fileName, "resnet18-0123abcd.pth");
    EXPECT_EQ(zoo[0].fileSize, -1);
    EXPECT_EQ(zoo[1].fileSize, 46830571);
    EXPECT_FLOAT_EQ(zoo[0].std[2], 0.225f);
    EXPECT_EQ(engine::defaultWeights(zoo, "resnet18")->id, "TEST_V1");
    EXPECT_EQ(engine::findWeights(zoo, "resnet18", "TEST_V2")->sha256Prefix, "feedbeef");
}

struct MalformedCase
{
    const char *name;
    std::function<std::string()> text; // the whole file
    const char *expected;              // part of the message, beside the file's path
};

class MalformedCatalog : public testing::TestWithParam<MalformedCase>
{
};

TEST_P(MalformedCatalog, ErrorNamesFileAndField)
{
    TempDir dir;
    const std::string path = dir.file("broken-zoo.json");
    writeText(path, GetParam().text());
    const std::string message = errorOf([&] { engine::loadModelZoo(path); });
    ASSERT_FALSE(message.empty()) << "accepted: " << GetParam().name;
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
}

std::function<std::string()> withEntry(std::function<void(json &)> edit)
{
    return [edit] {
        json e = validEntry();
        edit(e);
        return catalogOf({e}).dump();
    };
}

const MalformedCase kMalformed[] = {
    {"empty", [] { return std::string(); }, "not valid JSON"},
    {"not_json", [] { return std::string("{\"version\": 1, \"weights\": ["); }, "not valid JSON"},
    {"array", [] { return std::string("[]"); }, "not a model-zoo catalog"},
    {"no_version", [] { return json{{"weights", json::array()}}.dump(); }, "\"version\" is missing"},
    {"newer", [] { return json{{"version", 2}, {"weights", json::array()}}.dump(); }, "newer"},
    {"weights_object", [] { return json{{"version", 1}, {"weights", json::object()}}.dump(); }, "\"weights\""},
    {"top_unknown", [] { return json{{"version", 1}, {"weights", json::array()}, {"extra", 1}}.dump(); }, "\"extra\""},
    {"entry_not_object", [] { return catalogOf({json(3)}).dump(); }, "weights[0]"},
    {"no_prefix", withEntry([](json &e) { e.erase("sha256_prefix"); }), "\"sha256_prefix\" is missing"},
    {"prefix_upper", withEntry([](json &e) { e["sha256_prefix"] = "0123ABCD"; }), "\"sha256_prefix\""},
    {"prefix_short", withEntry([](json &e) {
         e["sha256_prefix"] = "0123";
         e["file"] = "resnet18-0123.pth";
         e["url"] = "https://download.pytorch.org/models/resnet18-0123.pth";
     }),
     "\"sha256_prefix\""},
    {"prefix_not_file", withEntry([](json &e) { e["sha256_prefix"] = "deadbeef"; }), "file name carries"},
    {"acc_string", withEntry([](json &e) { e["acc1"] = "70"; }), "\"acc1\" must be a number"},
    {"acc_range", withEntry([](json &e) { e["acc5"] = 120; }), "\"acc5\""},
    {"no_arch", withEntry([](json &e) { e.erase("arch"); }), "\"arch\" is missing"},
    {"unknown_arch", withEntry([](json &e) { e["arch"] = "resnet9000"; }), "\"arch\""},
    {"bad_id", withEntry([](json &e) { e["id"] = "v1 weights"; }), "\"id\""},
    {"default_string", withEntry([](json &e) { e["default"] = "yes"; }), "\"default\""},
    {"http_url", withEntry([](json &e) { e["url"] = "http://example.org/resnet18-0123abcd.pth"; }), "\"url\""},
    {"url_query", withEntry([](json &e) { e["url"] = e["url"].get<std::string>() + "?x=1"; }), "\"url\""},
    {"file_not_url", withEntry([](json &e) { e["file"] = "resnet34-0123abcd.pth"; }), "\"file\""},
    {"file_path", withEntry([](json &e) {
         e["file"] = "../resnet18-0123abcd.pth";
         e["url"] = "https://download.pytorch.org/resnet18-0123abcd.pth";
     }),
     "\"file\""},
    {"crop_float", withEntry([](json &e) { e["crop_size"] = 224.5; }), "\"crop_size\""},
    {"resize_negative", withEntry([](json &e) { e["resize_size"] = -1; }), "\"resize_size\""},
    {"huge_params", withEntry([](json &e) { e["num_params"] = 1e300; }), "\"num_params\""},
    {"interpolation", withEntry([](json &e) { e["interpolation"] = "lanczos"; }), "\"interpolation\""},
    {"mean_short", withEntry([](json &e) { e["mean"] = {0.5, 0.5}; }), "\"mean\""},
    {"std_zero", withEntry([](json &e) { e["std"] = {0.2, 0.0, 0.2}; }), "\"std\""},
    {"no_license", withEntry([](json &e) { e.erase("license"); }), "\"license\" is missing"},
    {"file_size_string", withEntry([](json &e) { e["file_size"] = "big"; }), "\"file_size\""},
    {"unknown_field", withEntry([](json &e) { e["sha256"] = "00"; }), "unknown field \"sha256\""},
    {"duplicate_id", [] { return catalogOf({validEntry("0123abcd"), validEntry("4567abcd", "resnet18", "TEST_V1", false)}).dump(); },
     "\"id\" appears twice"},
    {"two_defaults", [] { return catalogOf({validEntry("0123abcd"), validEntry("4567abcd", "resnet18", "TEST_V2", true)}).dump(); },
     "\"default\""},
    {"same_file", [] { return catalogOf({validEntry("0123abcd"), validEntry("0123abcd", "resnet18", "TEST_V2", false)}).dump(); },
     "\"file\""},
};

INSTANTIATE_TEST_SUITE_P(ModelZoo, MalformedCatalog, testing::ValuesIn(kMalformed),
                         [](const testing::TestParamInfo<MalformedCase> &info) { return std::string(info.param.name); });

TEST(ModelZoo, MissingAndOversizedCatalogsAreErrors)
{
    TempDir dir;
    EXPECT_NE(errorOf([&] { engine::loadModelZoo(dir.file("absent.json")); }).find("absent.json"), std::string::npos);
    const std::string big = dir.file("big.json");
    {
        std::ofstream out(big, std::ios::binary);
        out.seekp((std::streamoff(17) << 20) - 1);
        out.put(' ');
    }
    const std::string message = errorOf([&] { engine::loadModelZoo(big); });
    EXPECT_NE(message.find("too large"), std::string::npos) << message;
}

// zoo.catalog_bytes and json.depth (engine/base/parse_limits.h) at the limit and one over.
TEST(ModelZoo, LimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    TempDir dir;
    const std::string path = dir.file("zoo.json");
    std::string text = catalogOf({validEntry()}).dump();
    text.resize(pl::kZooCatalogBytes.value, ' ');
    writeText(path, text);
    EXPECT_EQ(engine::loadModelZoo(path).size(), 1u);
    writeText(path, text + " ");
    EXPECT_EQ(errorOf([&] { engine::loadModelZoo(path); }),
              path + ": too large for a model-zoo catalog (16777217 bytes, over the limit zoo.catalog_bytes = 16777216)");
    text = {};

    // Nested to json.depth the catalog is parsed (and "source" refused); one level more is not parsed.
    const auto nested = [](std::uint64_t depth) {
        return R"({"version": 1, "weights": [], "source": )" + std::string(depth - 1, '[') + std::string(depth - 1, ']')
               + "}";
    };
    writeText(path, nested(pl::kJsonDepth.value));
    std::string message = errorOf([&] { engine::loadModelZoo(path); });
    EXPECT_NE(message.find("\"source\""), std::string::npos) << message;
    EXPECT_EQ(message.find("over the limit"), std::string::npos) << message;
    writeText(path, nested(pl::kJsonDepth.value + 1));
    EXPECT_EQ(errorOf([&] { engine::loadModelZoo(path); }),
              path + ": JSON nested 65 levels deep, over the limit json.depth = 64");
}

TEST(ModelZoo, VerifyFindsTheEntryWhoseHashPrefixTheFileHas)
{
    TempDir dir;
    const auto bytes = patternBytes(3 * (1 << 20) + 12345, 7); // several read chunks
    const std::string weights = dir.file("downloaded.pth");
    test::writeRaw(weights, bytes);
    const std::string sha = engine::sha256Hex(bytes.data(), bytes.size());

    // A catalog read from disk, holding a decoy and an entry with the file's own prefix.
    const std::string catalog = dir.file("zoo.json");
    writeText(catalog, catalogOf({validEntry(sha == "0123abcd" ? "0123abce" : "0123abcd"),
                                  validEntry(sha.substr(0, 8), "resnet34", "IMAGENET1K_V1", true)})
                           .dump());
    const auto zoo = engine::loadModelZoo(catalog);

    std::vector<double> fractions;
    engine::TaskControl control;
    control.progress = [&](double f, const std::string &) { fractions.push_back(f); };
    const engine::ZooMatch match = engine::verifyWeightsFile(weights, zoo, control);
    ASSERT_TRUE(match.matched()) << match.message;
    EXPECT_EQ(match.weights->arch, "resnet34");
    EXPECT_EQ(match.weights->id, "IMAGENET1K_V1");
    EXPECT_EQ(match.sha256, sha);
    EXPECT_EQ(match.bytes, bytes.size());
    EXPECT_TRUE(match.message.empty());
    ASSERT_GE(fractions.size(), 4u);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);

    // One byte changed: the hash no longer starts with any catalog prefix.
    auto other = bytes;
    other[1000] ^= 1;
    const std::string changed = dir.file("changed.pth");
    test::writeRaw(changed, other);
    const engine::ZooMatch none = engine::verifyWeightsFile(changed, zoo);
    EXPECT_FALSE(none.matched());
    EXPECT_EQ(none.sha256, engine::sha256Hex(other.data(), other.size()));
    EXPECT_NE(none.message.find("no catalog entry"), std::string::npos) << none.message;
    EXPECT_NE(none.message.find(changed), std::string::npos) << none.message;

    // The committed catalog matches neither (its prefixes are torchvision's).
    EXPECT_FALSE(engine::verifyWeightsFile(weights, committedZoo()).matched());
}

TEST(ModelZoo, VerifyReportsUnreadableFilesAndStopsWhenCancelled)
{
    TempDir dir;
    const std::string message = errorOf([&] { engine::verifyWeightsFile(dir.file("absent.pth"), {}); });
    EXPECT_NE(message.find("absent.pth"), std::string::npos) << message;
    EXPECT_NE(errorOf([&] { engine::verifyWeightsFile(dir.path().string(), {}); }).find(dir.path().string()),
              std::string::npos);

    const std::string weights = dir.file("w.pth");
    test::writeRaw(weights, patternBytes(1 << 20, 3));
    engine::TaskControl control;
    control.cancel.cancel();
    EXPECT_THROW(engine::verifyWeightsFile(weights, {}, control), engine::Cancelled);

    // An empty file is hashed like any other (and matches nothing here).
    const std::string empty = dir.file("empty.pth");
    test::writeRaw(empty, {});
    const engine::ZooMatch match = engine::verifyWeightsFile(empty, {});
    EXPECT_EQ(match.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(match.bytes, 0u);
    EXPECT_FALSE(match.matched());
}

TEST(ModelZoo, WeightsCacheDirsInTheOrderLooked)
{
    const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
    ::setenv("LATHE_WEIGHTS_CACHE", "/w", 1);
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    const std::vector<std::string> withXdg = engine::weightsCacheDirs();
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("LATHE_WEIGHTS_CACHE");
    ::setenv("HOME", "/home/u", 1);
    const std::vector<std::string> withHome = engine::weightsCacheDirs();
    ::setenv("HOME", home.c_str(), 1);
    EXPECT_EQ(withXdg, (std::vector<std::string>{"/w", "/xdg/Lathe/lathe/weights", "/xdg/Lathe/weights",
                                                 "/xdg/torch/hub/checkpoints"}));
    EXPECT_EQ(withHome, (std::vector<std::string>{"/home/u/.cache/Lathe/lathe/weights", "/home/u/.cache/Lathe/weights",
                                                  "/home/u/.cache/torch/hub/checkpoints"}));
}

TEST(ModelZoo, ResolveZooWeightsFindsTheCachedDefault)
{
    const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
    TempDir dir;
    const std::string zooPath = dir.file("zoo.json");
    writeText(zooPath, catalogOf({validEntry()}).dump());
    const std::string cache = dir.file("cache");
    std::filesystem::create_directories(cache);
    ::setenv("LATHE_MODEL_ZOO", zooPath.c_str(), 1);
    ::setenv("LATHE_WEIGHTS_CACHE", cache.c_str(), 1);
    ::setenv("HOME", dir.file("no-home").c_str(), 1);
    ::unsetenv("XDG_CACHE_HOME");
    const std::string notDownloaded = errorOf([] { engine::resolveZooWeights("resnet18"); });
    const std::string noEntry = errorOf([] { engine::resolveZooWeights("resnet50"); });
    writeText(cache + "/resnet18-0123abcd.pth", "weights");
    const std::string found = engine::resolveZooWeights("resnet18");
    ::unsetenv("LATHE_MODEL_ZOO");
    ::unsetenv("LATHE_WEIGHTS_CACHE");
    ::setenv("HOME", home.c_str(), 1);
    EXPECT_EQ(found, cache + "/resnet18-0123abcd.pth");
    EXPECT_NE(notDownloaded.find("model.weights"), std::string::npos) << notDownloaded;
    EXPECT_NE(notDownloaded.find(cache), std::string::npos) << notDownloaded;
    EXPECT_NE(noEntry.find("no pretrained weights for resnet50"), std::string::npos) << noEntry;
}
