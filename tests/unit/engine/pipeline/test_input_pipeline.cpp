#include "engine/base/engine_error.h"
#include "engine/dataset/shard_converter.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_writer.h"
#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/input_pipeline.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <thread>

using namespace lathe;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr int kImages = 60;
constexpr int kClasses = 3;
constexpr int kSide = 32;

std::string encode(const cv::Mat &image, const std::string &ext)
{
    std::vector<std::uint8_t> bytes;
    cv::imencode(ext, image, bytes);
    return {bytes.begin(), bytes.end()};
}

// A distinct small picture: noise, a disc and a bar whose place depends on i.
cv::Mat picture(int i)
{
    cv::Mat image(30 + i % 7 * 3, 40 + i % 5 * 4, CV_8UC3);
    cv::RNG rng(std::uint64_t(1000 + i));
    rng.fill(image, cv::RNG::UNIFORM, 0, 255);
    cv::circle(image, {image.cols / 3 + i % 9, image.rows / 2}, 6 + i % 4, cv::Scalar(255 - i * 4, i * 4, 128), -1);
    cv::rectangle(image, {i % 20, 2}, {i % 20 + 8, image.rows - 3}, cv::Scalar(0, 255, i * 3), -1);
    return image;
}

// The datasets all tests share: made once, removed at the end.
struct Data
{
    TempDir dir;
    std::string clean;   // 60 images in 3 classes, JPEG and PNG, in 4 shards
    std::string corrupt; // the same plus a shard of 3 records: one good, one undecodable, one with a bad CRC
    std::string corruptShard;
    std::uint64_t undecodableOffset = 0;
    std::uint64_t badCrcOffset = 0;

    Data()
    {
        const fs::path images = dir.path() / "images";
        for (int i = 0; i < kImages; ++i) {
            const fs::path folder = images / ("class" + std::to_string(i % kClasses));
            fs::create_directories(folder);
            const std::string ext = i % 3 == 0 ? ".png" : ".jpg";
            const std::string bytes = encode(picture(i), ext);
            std::ofstream((folder / ("img" + std::to_string(i) + ext)).string(), std::ios::binary) << bytes;
        }
        engine::ConvertOptions options;
        options.scan.root = images.string();
        options.scan.valFraction = 0;
        options.scan.testFraction = 0;
        options.outDir = (dir.path() / "clean").string();
        options.shardRecords = 16;
        clean = engine::convertFolder(options).outDir;

        corrupt = (dir.path() / "corrupt").string();
        fs::copy(clean, corrupt, fs::copy_options::recursive);
        corruptShard = (fs::path(corrupt) / "train-corrupt.tfrecord").string();
        engine::TFRecordWriter writer(corruptShard);
        auto example = [](const std::string &bytes, const std::string &format, int label, const std::string &name) {
            engine::ImageExample e;
            e.encoded = bytes;
            e.format = format;
            e.label = label;
            e.classText = "class" + std::to_string(label);
            e.height = kSide;
            e.width = kSide;
            e.channels = 3;
            e.filename = name;
            e.sha256 = std::string(64, '0');
            return engine::serializeImageExample(e);
        };
        writer.write(example(encode(picture(100), ".png"), "png", 0, "class0/good.png"));
        std::string junk = "\xFF\xD8\xFF\xE0";
        junk += std::string(300, '\x5A');
        writer.write(example(junk, "jpeg", 1, "class1/junk.jpg"));
        writer.write(example(encode(picture(101), ".png"), "png", 2, "class2/crc.png"));
        const engine::TFRecordShard shard = writer.finish();
        undecodableOffset = shard.index[1].offset;
        badCrcOffset = shard.index[2].offset;
        {
            // Flip a byte inside the last record's data: its data CRC no longer matches.
            std::fstream f(corruptShard, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(std::streamoff(badCrcOffset + 12 + 40));
            f.put('\x01');
        }
        const std::string manifestPath = (fs::path(corrupt) / "dataset.json").string();
        nlohmann::json doc = nlohmann::json::parse(std::ifstream(manifestPath));
        doc["shards"].push_back({{"file", "train-corrupt.tfrecord"},
                                 {"index", "train-corrupt.tfrecord.idx"},
                                 {"split", "train"},
                                 {"records", 3},
                                 {"bytes", shard.bytes},
                                 {"sha256", shard.sha256}});
        std::ofstream(manifestPath) << doc.dump(2);
    }
};

Data &data()
{
    static Data d;
    return d;
}

engine::PipelineOptions optionsFor(const std::string &dir, int threads, int batch = 8)
{
    engine::PipelineOptions o;
    o.datasetDir = dir;
    o.transform.imageSize = kSide;
    o.transform.augmentations = engine::standardAugmentations();
    o.batchSize = batch;
    o.threads = threads;
    o.seed = 7;
    return o;
}

std::vector<engine::Batch> epochOf(engine::InputPipeline &pipeline, std::int64_t epoch)
{
    pipeline.startEpoch(epoch);
    std::vector<engine::Batch> batches;
    while (std::optional<engine::Batch> b = pipeline.next())
        batches.push_back(std::move(*b));
    return batches;
}

std::uint64_t key(const engine::RecordRef &r)
{
    return (std::uint64_t(r.shard) << 40) | r.entry.offset;
}

// The records an epoch's batches were made from, in order.
std::vector<std::uint64_t> recordsOf(const std::vector<engine::Batch> &batches, const engine::PipelineOptions &o,
                                     std::int64_t epoch)
{
    engine::ShardDataset dataset(o.datasetDir);
    const auto order = dataset.epochOrder(o.split, o.seed, std::uint64_t(epoch), o.rank, o.worldSize, o.shuffle);
    std::vector<std::uint64_t> keys;
    for (const engine::Batch &b : batches)
        for (std::uint64_t i : b.recordIndices)
            keys.push_back(key(order.at(i)));
    return keys;
}

void expectSameBatches(const std::vector<engine::Batch> &a, const std::vector<engine::Batch> &b)
{
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].recordIndices, b[i].recordIndices) << "batch " << i;
        EXPECT_TRUE(torch::equal(a[i].labels, b[i].labels)) << "batch " << i;
        EXPECT_TRUE(torch::equal(a[i].images, b[i].images)) << "batch " << i; // bitwise
    }
}

// Runs f on another thread; true if it finished within the bound (false instead of hanging).
template<typename F>
bool finishesWithin(F f, std::chrono::seconds bound, std::future<void> &future)
{
    future = std::async(std::launch::async, std::move(f));
    return future.wait_for(bound) == std::future_status::ready;
}

} // namespace

TEST(InputPipeline, AnEpochYieldsEveryRecordExactlyOnce)
{
    for (int threads : {1, 3}) {
        engine::PipelineOptions o = optionsFor(data().clean, threads, 7);
        o.dropLast = false;
        engine::InputPipeline pipeline(o);
        EXPECT_EQ(pipeline.recordsPerEpoch(), std::uint64_t(kImages));
        EXPECT_EQ(pipeline.batchesPerEpoch(), 9); // 8 of 7 and one of 4
        const std::vector<engine::Batch> batches = epochOf(pipeline, 0);
        ASSERT_EQ(batches.size(), 9u);
        std::set<std::uint64_t> positions;
        std::size_t total = 0;
        engine::ShardDataset dataset(o.datasetDir);
        const auto order = dataset.epochOrder(o.split, o.seed, 0);
        for (std::size_t i = 0; i < batches.size(); ++i) {
            const engine::Batch &b = batches[i];
            EXPECT_EQ(b.index, std::int64_t(i));
            EXPECT_EQ(b.epoch, 0);
            EXPECT_EQ(b.errors, 0);
            EXPECT_EQ(b.images.size(0), i + 1 < batches.size() ? 7 : 4);
            EXPECT_EQ(b.images.sizes(), (std::vector<std::int64_t>{b.images.size(0), 3, kSide, kSide}));
            EXPECT_EQ(b.images.scalar_type(), torch::kFloat);
            ASSERT_EQ(b.labels.size(0), b.images.size(0));
            ASSERT_EQ(b.recordIndices.size(), std::size_t(b.images.size(0)));
            // Batch b holds records [b*N, (b+1)*N) of the epoch order, with their labels.
            for (std::size_t k = 0; k < b.recordIndices.size(); ++k) {
                EXPECT_EQ(b.recordIndices[k], i * 7 + k);
                EXPECT_EQ(b.labels[std::int64_t(k)].item<std::int64_t>(), dataset.read(order[b.recordIndices[k]]).label);
            }
            positions.insert(b.recordIndices.begin(), b.recordIndices.end());
            total += b.recordIndices.size();
            EXPECT_TRUE(torch::isfinite(b.images).all().item<bool>());
        }
        EXPECT_EQ(total, std::size_t(kImages)) << threads << " threads"; // no duplicates ...
        EXPECT_EQ(positions.size(), std::size_t(kImages));            // ... none missing
        EXPECT_EQ(*positions.rbegin(), std::uint64_t(kImages - 1));
        EXPECT_FALSE(pipeline.next().has_value()); // still at the end
        const engine::PipelineStats s = pipeline.stats();
        EXPECT_EQ(s.images, std::uint64_t(kImages));
        EXPECT_EQ(s.batches, 9u);
        EXPECT_EQ(s.errors, 0u);
        EXPECT_EQ(s.threads, threads);
    }
}

TEST(InputPipeline, DropLastLeavesOutThePartialBatch)
{
    engine::InputPipeline pipeline(optionsFor(data().clean, 2, 7));
    EXPECT_EQ(pipeline.batchesPerEpoch(), 8);
    const auto batches = epochOf(pipeline, 3);
    ASSERT_EQ(batches.size(), 8u);
    for (const auto &b : batches)
        EXPECT_EQ(b.images.size(0), 7);
}

TEST(InputPipeline, RanksGetDisjointRecordsAndTheSameNumberOfBatches)
{
    std::vector<std::uint64_t> all;
    std::vector<std::size_t> batchCounts;
    for (int rank : {0, 1}) {
        engine::PipelineOptions o = optionsFor(data().clean, 2, 8);
        o.worldSize = 2;
        o.rank = rank;
        o.dropLast = false;
        engine::InputPipeline pipeline(o);
        EXPECT_EQ(pipeline.recordsPerEpoch(), std::uint64_t(kImages / 2));
        const auto batches = epochOf(pipeline, 1);
        EXPECT_EQ(std::int64_t(batches.size()), pipeline.batchesPerEpoch());
        batchCounts.push_back(batches.size());
        const auto keys = recordsOf(batches, o, 1);
        EXPECT_EQ(keys.size(), std::size_t(kImages / 2));
        all.insert(all.end(), keys.begin(), keys.end());
    }
    EXPECT_EQ(batchCounts[0], batchCounts[1]);
    EXPECT_EQ(batchCounts[0], 4u);
    EXPECT_EQ(std::set<std::uint64_t>(all.begin(), all.end()).size(), std::size_t(kImages)); // disjoint, complete
}

TEST(InputPipeline, TheSameSeedGivesBitwiseTheSameBatchesWithAnyThreadCount)
{
    engine::InputPipeline one(optionsFor(data().clean, 1));
    engine::InputPipeline three(optionsFor(data().clean, 3));
    const auto a = epochOf(one, 2);
    const auto b = epochOf(three, 2);
    expectSameBatches(a, b);

    // Another epoch is another order (and other crops of the same records).
    const auto c = epochOf(three, 3);
    const engine::PipelineOptions o = optionsFor(data().clean, 1);
    EXPECT_NE(recordsOf(a, o, 2), recordsOf(c, o, 3));
    // Epochs are reproducible: epoch 2 again gives the same batches.
    expectSameBatches(a, epochOf(three, 2));

    // Another seed gives other pixels.
    engine::PipelineOptions other = optionsFor(data().clean, 2);
    other.seed = 8;
    engine::InputPipeline reseeded(other);
    const auto d = epochOf(reseeded, 2);
    ASSERT_FALSE(d.empty());
    EXPECT_FALSE(torch::equal(a[0].images, d[0].images));
}

TEST(InputPipeline, AugmentationIsRandomPerSample)
{
    // Unshuffled, so both epochs hold the same records at the same positions: the pixels
    // still differ because each epoch's crops and flips are drawn anew.
    engine::PipelineOptions o = optionsFor(data().clean, 2);
    o.shuffle = false;
    engine::InputPipeline pipeline(o);
    const auto a = epochOf(pipeline, 0);
    const auto b = epochOf(pipeline, 1);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(a[0].recordIndices, b[0].recordIndices);
    EXPECT_FALSE(torch::equal(a[0].images, b[0].images));
}

TEST(InputPipeline, CorruptRecordsAreCountedNamedAndReplaced)
{
    engine::PipelineOptions o = optionsFor(data().corrupt, 2, 8);
    o.dropLast = false;
    engine::InputPipeline pipeline(o);
    EXPECT_EQ(pipeline.recordsPerEpoch(), std::uint64_t(kImages + 3));
    for (std::int64_t epoch : {0, 1}) {
        const auto batches = epochOf(pipeline, epoch);
        ASSERT_EQ(std::int64_t(batches.size()), pipeline.batchesPerEpoch());
        int errors = 0;
        std::int64_t images = 0;
        for (const auto &b : batches) {
            errors += b.errors;
            images += b.images.size(0);
            EXPECT_EQ(b.labels.size(0), b.images.size(0));
            EXPECT_TRUE(torch::isfinite(b.images).all().item<bool>());
        }
        EXPECT_EQ(errors, 2);
        EXPECT_EQ(images, kImages + 3); // stand-ins keep every batch full
        // Neither bad record made it into a batch.
        const auto keys = recordsOf(batches, o, epoch);
        engine::ShardDataset dataset(o.datasetDir);
        const std::uint32_t corruptShard = std::uint32_t(dataset.manifest().shards.size() - 1);
        for (std::uint64_t bad : {data().undecodableOffset, data().badCrcOffset})
            EXPECT_EQ(std::count(keys.begin(), keys.end(), (std::uint64_t(corruptShard) << 40) | bad), 0);
    }
    const engine::PipelineStats s = pipeline.stats();
    EXPECT_EQ(s.errors, 4u);
    ASSERT_EQ(s.errorSamples.size(), 2u); // each bad record once, though it failed in both epochs
    bool undecodable = false, badCrc = false;
    for (const std::string &m : s.errorSamples) {
        EXPECT_NE(m.find("train-corrupt.tfrecord"), std::string::npos) << m;
        undecodable |= m.find("offset " + std::to_string(data().undecodableOffset)) != std::string::npos;
        badCrc |= m.find("offset " + std::to_string(data().badCrcOffset)) != std::string::npos;
    }
    EXPECT_TRUE(undecodable);
    EXPECT_TRUE(badCrc);
}

TEST(InputPipeline, CancelMidEpochReturnsPromptlyAndNextThrows)
{
    std::future<void> future;
    std::string outcome;
    const bool finished = finishesWithin(
        [&outcome] {
            engine::PipelineOptions o = optionsFor(data().clean, 2, 2);
            o.transform.imageSize = 256; // more work per sample than the other tests
            engine::InputPipeline pipeline(o);
            pipeline.startEpoch(0);
            if (!pipeline.next())
                return;
            std::thread canceller([&pipeline] { pipeline.cancel(); });
            try {
                // Blocks (or not) while the cancel arrives; then must throw, never hang.
                while (pipeline.next()) {
                }
                outcome = "ended";
            } catch (const engine::Cancelled &) {
                outcome = "cancelled";
            }
            canceller.join();
            try {
                pipeline.next();
                outcome += ", next returned";
            } catch (const engine::Cancelled &) {
                outcome += ", next throws";
            }
            EXPECT_THROW(pipeline.startEpoch(1), engine::Cancelled);
        },
        std::chrono::seconds(10), future);
    ASSERT_TRUE(finished) << "cancel did not stop the pipeline";
    future.get();
    // 30 batches of 2: the epoch cannot be over before the cancel lands... unless it is very
    // fast, which still must not hang. Either way next() throws afterwards.
    EXPECT_TRUE(outcome == "cancelled, next throws" || outcome == "ended, next throws") << outcome;
}

TEST(InputPipeline, DestructorJoinsMidEpoch)
{
    std::future<void> future;
    const bool finished = finishesWithin(
        [] {
            engine::PipelineOptions o = optionsFor(data().clean, 3, 2);
            o.transform.imageSize = 256;
            engine::InputPipeline pipeline(o);
            pipeline.startEpoch(0);
            ASSERT_TRUE(pipeline.next().has_value());
            // Leaves with workers busy and batches queued.
        },
        std::chrono::seconds(10), future);
    ASSERT_TRUE(finished) << "the destructor did not join";
    future.get();
}

TEST(InputPipeline, AnUnfinishedEpochIsDroppedByTheNextOne)
{
    engine::InputPipeline pipeline(optionsFor(data().clean, 2, 4));
    pipeline.startEpoch(0);
    ASSERT_TRUE(pipeline.next().has_value());
    ASSERT_TRUE(pipeline.next().has_value());
    const auto batches = epochOf(pipeline, 1);
    ASSERT_EQ(std::int64_t(batches.size()), pipeline.batchesPerEpoch());
    for (std::size_t i = 0; i < batches.size(); ++i) {
        EXPECT_EQ(batches[i].epoch, 1);
        EXPECT_EQ(batches[i].index, std::int64_t(i));
    }
    // And equal to a fresh pipeline's epoch 1.
    engine::InputPipeline fresh(optionsFor(data().clean, 1, 4));
    expectSameBatches(batches, epochOf(fresh, 1));
}

TEST(InputPipeline, BatchBuffersInFlightNeverExceedThePrefetchDepth)
{
    engine::PipelineOptions o = optionsFor(data().clean, 3, 4);
    o.prefetchBatches = 2;
    {
        // A consumer that holds one batch at a time: buffers are reused, never reallocated.
        engine::InputPipeline pipeline(o);
        for (std::int64_t epoch : {0, 1}) {
            pipeline.startEpoch(epoch);
            int n = 0;
            while (std::optional<engine::Batch> b = pipeline.next())
                n += int(b->images.size(0));
            EXPECT_EQ(n, kImages);
        }
        const engine::PipelineStats s = pipeline.stats();
        EXPECT_EQ(s.prefetchBatches, 2);
        EXPECT_LE(s.buffersInFlightPeak, 2);
        EXPECT_GE(s.buffersInFlightPeak, 1);
        EXPECT_LE(s.bufferAllocations, 3u); // the depth plus the one the consumer holds
        EXPECT_EQ(s.batches, 30u);
    }
    {
        // A consumer that keeps every batch: its batches stay intact (never overwritten) and
        // the pipeline itself still never has more than the depth in flight.
        engine::InputPipeline pipeline(o);
        std::vector<engine::Batch> kept = epochOf(pipeline, 0);
        std::vector<torch::Tensor> copies;
        for (const auto &b : kept)
            copies.push_back(b.images.clone());
        epochOf(pipeline, 1);
        for (std::size_t i = 0; i < kept.size(); ++i)
            EXPECT_TRUE(torch::equal(kept[i].images, copies[i])) << "batch " << i << " was overwritten";
        EXPECT_LE(pipeline.stats().buffersInFlightPeak, 2);
    }
}

TEST(InputPipeline, TheCacheIsUsedAfterTheFirstEpochAndChangesNothing)
{
    engine::PipelineOptions o = optionsFor(data().clean, 2);
    o.dropLast = false; // every record in every epoch
    engine::InputPipeline plain(o);
    o.cacheBytes = 64 << 20;
    engine::InputPipeline cached(o);
    const auto first = epochOf(cached, 0);
    EXPECT_EQ(cached.stats().cacheHits, 0u);
    EXPECT_GT(cached.stats().cacheBytesUsed, 0u);
    const auto second = epochOf(cached, 1);
    EXPECT_EQ(cached.stats().cacheHits, std::uint64_t(kImages));
    expectSameBatches(first, epochOf(plain, 0));
    expectSameBatches(second, epochOf(plain, 1));

    // A budget too small for the whole set: memory stays within it, outputs stay the same.
    o.cacheBytes = 20000;
    engine::InputPipeline small(o);
    expectSameBatches(first, epochOf(small, 0));
    expectSameBatches(second, epochOf(small, 1));
    EXPECT_LE(small.stats().cacheBytesUsed, 20000u);
    EXPECT_GT(small.stats().cacheBytesUsed, 0u);
}

TEST(InputPipeline, Uint8AndChannelsLastOutput)
{
    engine::PipelineOptions o = optionsFor(data().clean, 2, 5);
    o.transform.uint8Output = true;
    o.transform.channelsLast = true;
    engine::InputPipeline pipeline(o);
    const auto batches = epochOf(pipeline, 0);
    ASSERT_EQ(batches.size(), 12u);
    const torch::Tensor &images = batches[0].images;
    EXPECT_EQ(images.scalar_type(), torch::kByte);
    EXPECT_EQ(images.sizes(), (std::vector<std::int64_t>{5, 3, kSide, kSide}));
    EXPECT_EQ(images.strides(), (std::vector<std::int64_t>{kSide * kSide * 3, 1, kSide * 3, 3}));
    EXPECT_TRUE(images.is_contiguous(torch::MemoryFormat::ChannelsLast));
    EXPECT_GT(images.max().item<int>(), images.min().item<int>());

    // Float channels-last holds the same values as float NCHW.
    engine::PipelineOptions f = optionsFor(data().clean, 2, 5);
    engine::InputPipeline nchw(f);
    f.transform.channelsLast = true;
    engine::InputPipeline nhwc(f);
    const auto a = epochOf(nchw, 0);
    const auto b = epochOf(nhwc, 0);
    EXPECT_TRUE(a[0].images.is_contiguous());
    EXPECT_TRUE(b[0].images.is_contiguous(torch::MemoryFormat::ChannelsLast));
    EXPECT_TRUE(torch::allclose(a[0].images, b[0].images));
}

TEST(InputPipeline, MixupGivesSoftTargetsThatSumToOne)
{
    engine::PipelineOptions o = optionsFor(data().clean, 2, 8);
    o.transform.augmentations = engine::parseAugmentations(nlohmann::json::parse(
        R"([{"type": "random_resized_crop"}, {"type": "horizontal_flip", "p": 0.5}, {"type": "mixup", "alpha": 0.4}])"));
    engine::InputPipeline pipeline(o);
    const auto batches = epochOf(pipeline, 0);
    ASSERT_FALSE(batches.empty());
    bool mixed = false;
    for (const auto &b : batches) {
        ASSERT_TRUE(b.softTargets.defined());
        EXPECT_EQ(b.softTargets.sizes(), (std::vector<std::int64_t>{8, kClasses}));
        EXPECT_TRUE(torch::allclose(b.softTargets.sum(1), torch::ones({8})));
        EXPECT_GE(b.softTargets.min().item<float>(), 0.f);
        mixed |= b.softTargets.max().item<float>() < 0.999f;
    }
    EXPECT_TRUE(mixed);
    // Deterministic too.
    engine::PipelineOptions one = o;
    one.threads = 1;
    engine::InputPipeline single(one);
    const auto again = epochOf(single, 0);
    expectSameBatches(batches, again);
    EXPECT_TRUE(torch::equal(batches[0].softTargets, again[0].softTargets));

    // Mixing needs float pixels.
    o.transform.uint8Output = true;
    const std::string message = test::errorOf([&] { engine::InputPipeline p(o); });
    EXPECT_NE(message.find("mixup"), std::string::npos) << message;
}

TEST(InputPipeline, InvalidOptionsAndMisuseAreErrors)
{
    engine::PipelineOptions o = optionsFor(data().clean, 1);
    o.batchSize = 0;
    EXPECT_NE(test::errorOf([&] { engine::InputPipeline p(o); }).find("batchSize"), std::string::npos);
    o = optionsFor(data().clean, 1);
    o.rank = 2;
    o.worldSize = 2;
    EXPECT_NE(test::errorOf([&] { engine::InputPipeline p(o); }).find("rank"), std::string::npos);
    o = optionsFor((data().dir.path() / "nowhere").string(), 1);
    EXPECT_NE(test::errorOf([&] { engine::InputPipeline p(o); }).find("dataset.json"), std::string::npos);

    engine::InputPipeline p(optionsFor(data().clean, 1));
    EXPECT_THROW(p.next(), engine::EngineError); // before startEpoch

    // A split without records is an empty epoch, not an error.
    o = optionsFor(data().clean, 1);
    o.split = "val";
    engine::InputPipeline empty(o);
    EXPECT_EQ(empty.batchesPerEpoch(), 0);
    EXPECT_TRUE(epochOf(empty, 0).empty());
}
