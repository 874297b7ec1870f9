#include "engine/base/parse_limits.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/shard_converter.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace lathe;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kPhotos = "/usr/share/darknet/data/";

void put(const fs::path &path, const std::vector<std::uint8_t> &bytes)
{
    fs::create_directories(path.parent_path());
    test::writeRaw(path.string(), bytes);
}

// Real photos in two classes plus hostile files that must stay out of the shards.
fs::path makeFolder(const TempDir &dir)
{
    const fs::path root = dir.path() / "images";
    int i = 0;
    for (const char *photo : {"dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "person.jpg", "scream.jpg"})
        put(root / (i++ % 2 ? "b" : "a") / photo, test::readRaw(kPhotos + photo));
    std::vector<std::uint8_t> cut = test::readRaw(kPhotos + "kite.jpg");
    cut.resize(cut.size() / 3);
    put(root / "a/cut.jpg", cut);
    put(root / "b/empty.jpg", {});
    put(root / "b/text.jpg", {'h', 'i'});
    return root;
}

std::vector<std::uint8_t> bytesOf(const fs::path &p)
{
    return test::readRaw(p.string());
}

engine::ConvertOptions optionsFor(const fs::path &root, const fs::path &out)
{
    engine::ConvertOptions options;
    options.scan.root = root.string();
    options.scan.valFraction = 0.0;
    options.scan.testFraction = 0.0;
    options.outDir = out.string();
    options.shardRecords = 2;
    return options;
}

} // namespace

TEST(ShardConverter, RoundTripKeepsEveryImagesBytesAndLabel)
{
    TempDir dir;
    const fs::path root = makeFolder(dir);
    const fs::path out = dir.path() / "shards";
    const engine::ConvertResult r = engine::convertFolder(optionsFor(root, out));
    const engine::DatasetManifest &m = r.manifest;
    EXPECT_EQ(m.records, 6u);
    EXPECT_EQ(m.classes, (std::vector<std::string>{"a", "b"}));
    ASSERT_EQ(m.shards.size(), 3u);
    EXPECT_EQ(m.shards[0].file, "train-00000-of-00003.tfrecord");
    EXPECT_EQ(m.counts.at("train").at("a"), 3u);
    std::set<std::string> rejected;
    for (const auto &rej : m.rejected)
        rejected.insert(rej.path);
    EXPECT_EQ(rejected, (std::set<std::string>{"a/cut.jpg", "b/empty.jpg", "b/text.jpg"}));

    // The manifest on disk says the same.
    const engine::DatasetManifest disk = engine::readDatasetManifest(out.string());
    EXPECT_EQ(disk.records, 6u);
    EXPECT_EQ(disk.shards.size(), 3u);
    EXPECT_EQ(disk.rejected.size(), 3u);

    std::set<std::string> seen;
    for (const engine::ShardInfo &s : m.shards) {
        const auto index = engine::TFRecordReader::readIndex((out / s.index).string());
        engine::TFRecordReader reader((out / s.file).string());
        std::string record;
        std::size_t k = 0;
        while (reader.next(record)) {
            ASSERT_LT(k, index.size());
            EXPECT_EQ(index[k].offset, reader.lastOffset()); // the .idx offsets are exact
            EXPECT_EQ(index[k].size, record.size() + 16);
            const engine::ImageExample e = engine::parseImageExample(record);
            const auto original = bytesOf(root / e.filename);
            EXPECT_EQ(std::vector<std::uint8_t>(e.encoded.begin(), e.encoded.end()), original) << e.filename;
            EXPECT_EQ(m.classes.at(e.label), e.classText);
            EXPECT_EQ(e.filename.substr(0, 1), e.classText);
            EXPECT_EQ(e.format, "jpeg");
            seen.insert(e.filename);
            ++k;
        }
        EXPECT_EQ(k, s.records);
    }
    EXPECT_EQ(seen.size(), 6u);
    EXPECT_TRUE(engine::verifyDataset(out.string()).ok());
}

TEST(ShardConverter, ExclusionsAndRelabelsFromTheCatalogAreApplied)
{
    TempDir dir;
    const fs::path root = makeFolder(dir);
    engine::ConvertOptions options = optionsFor(root, dir.path() / "fixed");
    options.excluded = {"a/dog.jpg"};
    options.relabels = {{"b/eagle.jpg", "a"}};
    const engine::ConvertResult r = engine::convertFolder(options);
    EXPECT_EQ(r.manifest.records, 5u);
    EXPECT_EQ(r.manifest.counts.at("train").at("a"), 3u); // giraffe, person, and the relabelled eagle
    EXPECT_EQ(r.manifest.counts.at("train").at("b"), 2u);
    bool reported = false;
    for (const auto &rej : r.manifest.rejected)
        reported |= rej.path == "a/dog.jpg" && rej.status == "excluded";
    EXPECT_TRUE(reported);
    EXPECT_TRUE(engine::verifyDataset(r.outDir).ok());

    options.outDir = (dir.path() / "wrong").string();
    options.relabels = {{"b/eagle.jpg", "zebra"}};
    EXPECT_THROW(engine::convertFolder(options), engine::EngineError);
    EXPECT_FALSE(fs::exists(dir.path() / "wrong"));
}

TEST(ShardConverter, ReencodeShrinksLargePhotos)
{
    TempDir dir;
    const fs::path root = makeFolder(dir);
    engine::ConvertOptions options = optionsFor(root, dir.path() / "small");
    options.maxSide = 128;
    options.quality = 80;
    const engine::ConvertResult r = engine::convertFolder(options);
    EXPECT_EQ(r.manifest.reencoded, 6u);
    engine::TFRecordReader reader((fs::path(r.outDir) / r.manifest.shards[0].file).string());
    std::string record;
    ASSERT_TRUE(reader.next(record));
    const engine::ImageExample e = engine::parseImageExample(record);
    EXPECT_EQ(std::max(e.width, e.height), 128);
    EXPECT_LT(e.encoded.size(), 30000u);
    EXPECT_TRUE(engine::verifyDataset(r.outDir).ok());
}

TEST(ShardConverter, VerifyNamesEveryKindOfCorruption)
{
    TempDir dir;
    const fs::path root = makeFolder(dir);
    const fs::path clean = dir.path() / "clean";
    engine::convertFolder(optionsFor(root, clean));

    struct Case
    {
        const char *name;
        std::function<void(const fs::path &)> damage;
        const char *expected;
    };
    const std::vector<Case> cases = {
        {"flipped byte",
         [](const fs::path &d) {
             auto b = bytesOf(d / "train-00001-of-00003.tfrecord");
             b[b.size() / 2] ^= 0x40;
             put(d / "train-00001-of-00003.tfrecord", b);
         },
         "bad data CRC"},
        {"truncated shard",
         [](const fs::path &d) {
             auto b = bytesOf(d / "train-00002-of-00003.tfrecord");
             b.resize(b.size() - 100);
             put(d / "train-00002-of-00003.tfrecord", b);
         },
         "train-00002-of-00003.tfrecord: "},
        {"index line deleted",
         [](const fs::path &d) {
             auto b = bytesOf(d / "train-00000-of-00003.tfrecord.idx");
             const auto nl = std::find(b.begin(), b.end(), '\n');
             b.erase(b.begin(), nl + 1);
             put(d / "train-00000-of-00003.tfrecord.idx", b);
         },
         "train-00000-of-00003.tfrecord.idx"},
        {"shard deleted", [](const fs::path &d) { fs::remove(d / "train-00001-of-00003.tfrecord"); }, "missing"},
        {"stray shard",
         [](const fs::path &d) { fs::copy_file(d / "train-00000-of-00003.tfrecord", d / "extra.tfrecord"); },
         "not listed in dataset.json"},
    };
    for (const Case &c : cases) {
        const fs::path copy = dir.path() / c.name;
        fs::copy(clean, copy);
        c.damage(copy);
        const engine::VerifyReport report = engine::verifyDataset(copy.string());
        EXPECT_FALSE(report.ok()) << c.name;
        bool named = false;
        for (const std::string &p : report.problems)
            named |= p.find(c.expected) != std::string::npos && p.find(copy.string()) != std::string::npos;
        EXPECT_TRUE(named) << c.name << ": " << (report.problems.empty() ? "" : report.problems.front());
    }

    // Two damaged records in one shard are both reported: the index leads past the first.
    const fs::path twice = dir.path() / "twice";
    fs::copy(clean, twice);
    {
        const auto index = engine::TFRecordReader::readIndex((twice / "train-00000-of-00003.tfrecord.idx").string());
        ASSERT_EQ(index.size(), 2u);
        auto b = bytesOf(twice / "train-00000-of-00003.tfrecord");
        b[index[0].offset + 40] ^= 0x01;
        b[index[1].offset + 40] ^= 0x01;
        put(twice / "train-00000-of-00003.tfrecord", b);
        const engine::VerifyReport report = engine::verifyDataset(twice.string());
        int crcProblems = 0;
        for (const std::string &p : report.problems)
            crcProblems += p.find("bad data CRC") != std::string::npos ? 1 : 0;
        EXPECT_EQ(crcProblems, 2);
    }

    // A malformed manifest is an error naming dataset.json.
    const fs::path bad = dir.path() / "bad-manifest";
    fs::copy(clean, bad);
    put(bad / "dataset.json", {'{', '"', 'f'});
    try {
        engine::verifyDataset(bad.string());
        FAIL();
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("dataset.json: not valid JSON"), std::string::npos) << e.what();
    }
}

// dataset.manifest_bytes and json.depth (engine/base/parse_limits.h) at the limit and one over:
// a real manifest padded with spaces to exactly the limit is read, one byte more is refused.
TEST(ShardConverter, ManifestLimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    TempDir dir;
    const fs::path out = dir.path() / "shards";
    engine::convertFolder(optionsFor(makeFolder(dir), out));
    const fs::path manifest = out / "dataset.json";
    const std::uintmax_t written = fs::file_size(manifest);
    {
        std::ofstream pad(manifest, std::ios::binary | std::ios::app);
        const std::string spaces(std::size_t(1) << 20, ' ');
        for (std::uintmax_t left = pl::kDatasetManifestBytes.value - written; left > 0;) {
            const std::size_t n = std::size_t(std::min<std::uintmax_t>(left, spaces.size()));
            pad.write(spaces.data(), std::streamsize(n));
            left -= n;
        }
    }
    ASSERT_EQ(fs::file_size(manifest), pl::kDatasetManifestBytes.value);
    EXPECT_EQ(engine::readDatasetManifest(out.string()).records, 6u);
    std::ofstream(manifest, std::ios::binary | std::ios::app) << ' ';
    std::string message;
    try {
        engine::readDatasetManifest(out.string());
    } catch (const engine::EngineError &e) {
        message = e.what();
    }
    EXPECT_EQ(message, manifest.string() + ": 268435457 bytes, over the limit dataset.manifest_bytes = 268435456");

    // Nested to json.depth the manifest is parsed (and its format refused); one level more is not.
    for (const std::uint64_t depth : {pl::kJsonDepth.value, pl::kJsonDepth.value + 1}) {
        std::ofstream(manifest, std::ios::binary | std::ios::trunc)
            << "{\"format\": " << std::string(depth - 1, '[') << std::string(depth - 1, ']') << "}";
        message.clear();
        try {
            engine::readDatasetManifest(out.string());
        } catch (const engine::EngineError &e) {
            message = e.what();
        }
        if (depth == pl::kJsonDepth.value)
            EXPECT_NE(message.find("not a Lathe shard manifest"), std::string::npos) << message;
        else
            EXPECT_EQ(message, manifest.string() + ": JSON nested 65 levels deep, over the limit json.depth = 64");
    }
}

TEST(ShardConverter, CancelledConversionLeavesNothing)
{
    TempDir dir;
    engine::DemoDataOptions demo;
    demo.outDir = dir.file("fm");
    demo.perClass = 30;
    demo.testPerClass = 0;
    engine::writeDemoData(demo);
    engine::ConvertOptions options = optionsFor(demo.outDir, dir.path() / "out");
    engine::TaskControl control;
    control.progress = [&](double f, const std::string &) {
        if (f > 0.3) // past the scan: shards are being written
            control.cancel.cancel();
    };
    EXPECT_THROW(engine::convertFolder(options, control), engine::Cancelled);
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
    for (const auto &entry : fs::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().filename(), "fm") << "left behind: " << entry.path();

    // And a non-empty output folder is refused without touching it.
    fs::create_directories(dir.path() / "busy");
    put(dir.path() / "busy/keep", {'k'});
    options.outDir = (dir.path() / "busy").string();
    EXPECT_THROW(engine::convertFolder(options), engine::EngineError);
    EXPECT_EQ(bytesOf(dir.path() / "busy/keep"), std::vector<std::uint8_t>{'k'});
}

TEST(ShardDataset, EpochOrdersShuffleAcrossShardsAndSplitRanksWithoutOverlap)
{
    TempDir dir;
    engine::DemoDataOptions demo;
    demo.outDir = dir.file("fm");
    demo.perClass = 5;
    demo.testPerClass = 0;
    engine::writeDemoData(demo);
    engine::ConvertOptions options = optionsFor(demo.outDir, dir.path() / "out");
    options.shardRecords = 7; // 50 records in 8 shards
    engine::convertFolder(options);

    engine::ShardDataset data((dir.path() / "out").string());
    ASSERT_EQ(data.size("train"), 50u);
    const auto key = [](const engine::RecordRef &r) { return std::make_pair(r.shard, r.entry.offset); };
    const auto order = data.epochOrder("train", 42, 0);
    std::set<std::pair<std::uint32_t, std::uint64_t>> unique;
    std::set<std::uint32_t> firstShards;
    for (const auto &r : order) {
        unique.insert(key(r));
    }
    for (std::size_t i = 0; i < 7; ++i)
        firstShards.insert(order[i].shard);
    EXPECT_EQ(unique.size(), 50u); // every record exactly once
    EXPECT_GT(firstShards.size(), 2u); // interleaved across shards, not shard by shard

    const auto again = data.epochOrder("train", 42, 0);
    const auto next = data.epochOrder("train", 42, 1);
    EXPECT_TRUE(std::equal(order.begin(), order.end(), again.begin(),
                           [&](const auto &a, const auto &b) { return key(a) == key(b); }));
    EXPECT_FALSE(std::equal(order.begin(), order.end(), next.begin(),
                            [&](const auto &a, const auto &b) { return key(a) == key(b); }));

    // Three ranks: 16 records each, disjoint.
    std::set<std::pair<std::uint32_t, std::uint64_t>> dealt;
    for (int rank = 0; rank < 3; ++rank) {
        const auto part = data.epochOrder("train", 42, 0, rank, 3);
        EXPECT_EQ(part.size(), 16u);
        for (const auto &r : part)
            EXPECT_TRUE(dealt.insert(key(r)).second) << "record given to two ranks";
    }
    EXPECT_THROW(data.epochOrder("train", 42, 0, 3, 3), engine::EngineError);

    // Reading through the references gives the images' real bytes.
    for (const auto &r : data.epochOrder("train", 7, 3)) {
        const engine::ImageExample e = data.read(r);
        const auto original = bytesOf(fs::path(demo.outDir) / e.filename);
        EXPECT_EQ(std::vector<std::uint8_t>(e.encoded.begin(), e.encoded.end()), original);
    }
}

namespace {

// Demo images with unequal classes: class i keeps 2 + 4 * i of its images (2 to 38).
fs::path convertImbalanced(const TempDir &dir)
{
    engine::DemoDataOptions demo;
    demo.outDir = dir.file("fm");
    demo.perClass = 38;
    demo.testPerClass = 0;
    engine::writeDemoData(demo);
    std::vector<fs::path> classes;
    for (const fs::directory_entry &e : fs::directory_iterator(fs::path(demo.outDir) / "train"))
        if (e.is_directory())
            classes.push_back(e.path());
    std::sort(classes.begin(), classes.end());
    for (std::size_t c = 0; c < classes.size(); ++c) {
        std::vector<fs::path> files;
        for (const fs::directory_entry &e : fs::directory_iterator(classes[c]))
            files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (std::size_t i = 2 + 4 * c; i < files.size(); ++i)
            fs::remove(files[i]);
    }
    const fs::path out = dir.path() / "out";
    engine::ConvertOptions options = optionsFor(demo.outDir, out);
    options.shardRecords = 16;
    engine::convertFolder(options);
    return out;
}

using RecordKey = std::pair<std::uint32_t, std::uint64_t>;
RecordKey keyOf(const engine::RecordRef &r)
{
    return {r.shard, r.entry.offset};
}

} // namespace

TEST(ShardDataset, FoldsPartitionTheSplitByTheImagesHashAndSurviveTheCache)
{
    TempDir dir;
    const fs::path out = convertImbalanced(dir);
    engine::ShardDataset data(out.string());
    const std::uint64_t n = data.size("train");
    ASSERT_EQ(n, 200u);

    std::set<RecordKey> heldOutUnion;
    std::uint64_t heldOutTotal = 0;
    for (int k = 1; k <= 5; ++k) {
        engine::RecordSelection held{5, k, true};
        engine::RecordSelection rest{5, k, false};
        const auto val = data.epochOrder("train", 0, 0, 0, 1, false, held);
        const auto train = data.epochOrder("train", 3, 2, 0, 1, true, rest);
        EXPECT_EQ(val.size(), data.size("train", held));
        EXPECT_EQ(train.size(), data.size("train", rest));
        EXPECT_EQ(val.size() + train.size(), n);
        EXPECT_GT(val.size(), 20u); // about a fifth each
        EXPECT_LT(val.size(), 60u);
        std::set<RecordKey> valKeys;
        for (const auto &r : val)
            valKeys.insert(keyOf(r));
        for (const auto &r : train)
            EXPECT_EQ(valKeys.count(keyOf(r)), 0u) << "a held-out record is trained on";
        heldOutTotal += val.size();
        heldOutUnion.insert(valKeys.begin(), valKeys.end());
    }
    EXPECT_EQ(heldOutTotal, n); // every record in exactly one fold
    EXPECT_EQ(heldOutUnion.size(), n);

    // The fold is the image's: its SHA-256 key, whatever the shard layout.
    const auto &meta = data.recordMeta();
    for (const auto &r : data.epochOrder("train", 0, 0, 0, 1, false, {5, 2, true})) {
        const engine::ImageExample e = data.read(r);
        std::uint64_t key = std::stoull(e.sha256.substr(0, 16), nullptr, 16);
        EXPECT_EQ(int(key % 5) + 1, 2) << e.filename;
        EXPECT_EQ(meta[r.shard].size(), data.manifest().shards[r.shard].records);
    }

    // The table was kept beside the shards; a new reader uses it and draws the same folds.
    ASSERT_TRUE(fs::exists(out / "records.tsv"));
    engine::ShardDataset again(out.string());
    EXPECT_EQ(again.recordMeta().size(), meta.size());
    const auto a = data.epochOrder("train", 0, 0, 0, 1, false, {5, 4, true});
    const auto b = again.epochOrder("train", 0, 0, 0, 1, false, {5, 4, true});
    ASSERT_EQ(a.size(), b.size());
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), [](const auto &x, const auto &y) { return keyOf(x) == keyOf(y); }));
    // A damaged cache is ignored and made again, never trusted.
    test::writeRaw((out / "records.tsv").string(), {'x', '\n'});
    engine::ShardDataset damaged(out.string());
    EXPECT_EQ(damaged.size("train", {5, 4, true}), a.size());

    EXPECT_THROW(data.epochOrder("train", 0, 0, 0, 1, false, {5, 6, true}), engine::EngineError);
    EXPECT_THROW(data.epochOrder("train", 0, 0, 0, 1, false, {1, 1, true}), engine::EngineError);
}

TEST(ShardDataset, BalancedSamplersEvenOutClassesAndRepeatExactlyForAResume)
{
    TempDir dir;
    engine::ShardDataset data(convertImbalanced(dir).string());
    // Label of each record by (shard, offset).
    std::map<RecordKey, std::int64_t> labels;
    for (const auto &r : data.epochOrder("train", 0, 0, 0, 1, false))
        labels[keyOf(r)] = data.read(r).label;

    const auto frequencies = [&](const std::string &sampler) {
        std::vector<double> f(10, 0.0);
        std::uint64_t draws = 0;
        engine::RecordSelection s;
        s.sampler = sampler;
        for (std::uint64_t epoch = 0; epoch < 40; ++epoch) {
            const auto order = data.epochOrder("train", 11, epoch, 0, 1, true, s);
            EXPECT_EQ(order.size(), 200u); // an epoch keeps the split's length
            for (const auto &r : order)
                f[std::size_t(labels.at(keyOf(r)))] += 1;
            draws += order.size();
        }
        for (double &x : f)
            x /= double(draws);
        return f;
    };
    // Class i holds (2 + 4i) / 200 of the records: 1% to 19%.
    const std::vector<double> balanced = frequencies("inverse");
    for (std::size_t c = 0; c < 10; ++c)
        EXPECT_NEAR(balanced[c], 0.1, 0.02) << "class " << c;
    // sqrt: proportional to sqrt(n_i), between the data's frequencies and uniform.
    const std::vector<double> sqrtFreq = frequencies("sqrt");
    double norm = 0;
    for (int c = 0; c < 10; ++c)
        norm += std::sqrt(2.0 + 4.0 * c);
    for (int c = 0; c < 10; ++c)
        EXPECT_NEAR(sqrtFreq[std::size_t(c)], std::sqrt(2.0 + 4.0 * c) / norm, 0.02) << "class " << c;

    // The same (seed, epoch) draws the same epoch: what a resumed run and every rank rely on.
    engine::RecordSelection s;
    s.sampler = "inverse";
    const auto first = data.epochOrder("train", 11, 7, 0, 1, true, s);
    engine::ShardDataset reopened((dir.path() / "out").string());
    const auto resumed = reopened.epochOrder("train", 11, 7, 0, 1, true, s);
    ASSERT_EQ(first.size(), resumed.size());
    EXPECT_TRUE(std::equal(first.begin(), first.end(), resumed.begin(),
                           [](const auto &x, const auto &y) { return keyOf(x) == keyOf(y); }));
    // Two ranks take alternate draws of that one epoch.
    const auto r0 = data.epochOrder("train", 11, 7, 0, 2, true, s);
    const auto r1 = data.epochOrder("train", 11, 7, 1, 2, true, s);
    ASSERT_EQ(r0.size(), 100u);
    for (std::size_t i = 0; i < r0.size(); ++i) {
        EXPECT_EQ(keyOf(r0[i]), keyOf(first[2 * i]));
        EXPECT_EQ(keyOf(r1[i]), keyOf(first[2 * i + 1]));
    }
    // Folds and the sampler combine: only the training folds are drawn.
    s.folds = 4;
    s.fold = 2;
    std::set<RecordKey> heldOut;
    for (const auto &r : data.epochOrder("train", 0, 0, 0, 1, false, {4, 2, true}))
        heldOut.insert(keyOf(r));
    for (const auto &r : data.epochOrder("train", 11, 0, 0, 1, true, s))
        EXPECT_EQ(heldOut.count(keyOf(r)), 0u);

    s = {};
    s.sampler = "inverse";
    EXPECT_THROW(data.epochOrder("train", 0, 0, 0, 1, false, s), engine::EngineError); // needs shuffle
    s.sampler = "cubic";
    EXPECT_THROW(data.epochOrder("train", 0, 0, 0, 1, true, s), engine::EngineError);
}
