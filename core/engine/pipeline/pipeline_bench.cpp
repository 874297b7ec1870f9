#include "engine/pipeline/pipeline_bench.h"
#include "engine/base/clock.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/image_header.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/input_pipeline.h"

#include <sys/resource.h>
#include <turbojpeg.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

namespace lathe::engine {
namespace {

using Clock = std::chrono::steady_clock;

// The process's peak resident set (VmHWM), in MB; 0 where /proc is not there.
double peakRssMb()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0; // kB
    return 0;
}

// CPU seconds (user + system) of the whole process or of the calling thread. On a shared
// machine the wall-clock rate depends on the neighbours; images per CPU second does not.
double cpuSeconds(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct TjDeleter
{
    void operator()(void *handle) const { tjDestroy(handle); }
};

// Full-size decodes of the split's JPEG records to RGB on this one thread: what one core can
// do with libjpeg-turbo before any resizing. Records are read into memory first (up to a
// budget) so that only decoding is timed.
nlohmann::json benchDecode(const PipelineBenchOptions &options)
{
    ShardDataset dataset(options.datasetDir);
    const std::vector<RecordRef> order = dataset.epochOrder(options.split, 0, 0, 0, 1, false);
    std::vector<std::string> jpegs;
    std::size_t bytes = 0;
    constexpr std::size_t kBudget = std::size_t(512) << 20;
    for (const RecordRef &ref : order) {
        if (bytes >= kBudget)
            break;
        ImageExample example = dataset.read(ref);
        const auto *data = reinterpret_cast<const std::uint8_t *>(example.encoded.data());
        if (sniffFormat(data, example.encoded.size()) != ImageFormat::Jpeg)
            continue;
        bytes += example.encoded.size();
        jpegs.push_back(std::move(example.encoded));
    }
    if (jpegs.empty())
        throw EngineError(options.datasetDir + ": split '" + options.split + "' has no JPEG records to decode");

    std::unique_ptr<void, TjDeleter> tj(tjInitDecompress());
    std::vector<unsigned char> pixels;
    std::uint64_t images = 0;
    std::uint64_t failed = 0;
    double megapixels = 0;
    const Clock::time_point start = Clock::now();
    const double cpuStart = cpuSeconds(RUSAGE_THREAD);
    double elapsed = 0;
    while (elapsed < options.seconds || images == 0) {
        for (const std::string &jpeg : jpegs) {
            const auto *data = reinterpret_cast<const unsigned char *>(jpeg.data());
            int width = 0, height = 0, subsampling = 0, colorspace = 0;
            if (tjDecompressHeader3(tj.get(), data, static_cast<unsigned long>(jpeg.size()), &width, &height,
                                    &subsampling, &colorspace)
                != 0) {
                ++failed;
                continue;
            }
            pixels.resize(std::size_t(width) * std::size_t(height) * 3);
            if (tjDecompress2(tj.get(), data, static_cast<unsigned long>(jpeg.size()), pixels.data(), width, 0, height,
                              TJPF_RGB, 0)
                != 0) {
                ++failed;
                continue;
            }
            ++images;
            megapixels += double(width) * height / 1e6;
            if ((elapsed = secondsSince(start)) >= options.seconds)
                break;
        }
        elapsed = secondsSince(start);
    }
    const double cpu = cpuSeconds(RUSAGE_THREAD) - cpuStart;
    return {{"benchmark", "pipeline"},
            {"augment", "decode-only"},
            {"what", "full-size libjpeg-turbo decode to RGB (accurate DCT), one thread, records in memory"},
            {"threads", 1},
            {"decode_images_per_s_per_core", double(images) / elapsed},
            {"decode_images_per_cpu_s", cpu > 0 ? double(images) / cpu : 0.0},
            {"decode_megapixels_per_s_per_core", megapixels / elapsed},
            {"mean_megapixels", megapixels / double(std::max<std::uint64_t>(images, 1))},
            {"images", images},
            {"errors", failed},
            {"distinct_files", jpegs.size()},
            {"seconds", elapsed},
            {"peak_rss_mb", peakRssMb()}};
}

} // namespace

nlohmann::json benchPipeline(const PipelineBenchOptions &options)
{
    if (options.seconds <= 0)
        throw EngineError("bench pipeline: seconds must be positive");
    if (options.augment == "decode-only")
        return benchDecode(options);

    PipelineOptions p;
    p.datasetDir = options.datasetDir;
    p.split = options.split;
    p.batchSize = options.batchSize;
    p.threads = options.threads;
    p.cacheBytes = options.cacheBytes;
    p.transform.imageSize = options.imageSize;
    if (options.augment == "standard") {
        p.transform.train = true;
        p.transform.augmentations = standardAugmentations();
        p.transform.fastDecode = options.fastDecode;
    } else if (options.augment == "none") {
        p.transform.train = false;
        p.transform.resizeSize = options.imageSize * 256 / 224; // torchvision's 256 -> 224 ratio
    } else {
        throw EngineError("bench pipeline: augment '" + options.augment + "' is not standard, none or decode-only");
    }

    InputPipeline pipeline(p);
    if (pipeline.batchesPerEpoch() < 1)
        throw EngineError(options.datasetDir + ": split '" + options.split + "' has "
                          + std::to_string(pipeline.recordsPerEpoch()) + " records, fewer than one batch of "
                          + std::to_string(options.batchSize));

    const Clock::time_point start = Clock::now();
    Clock::time_point measured = start;
    double waitAtWarm = 0;
    double cpuAtWarm = 0;
    std::uint64_t imagesAtWarm = 0;
    std::uint64_t batches = 0;
    std::int64_t epochs = 0;
    bool warm = false;
    bool done = false;
    while (!done) {
        pipeline.startEpoch(epochs++);
        while (std::optional<Batch> batch = pipeline.next()) {
            ++batches;
            if (!warm) {
                // The first batch pays for thread start-up and the first reads: not counted.
                warm = true;
                measured = Clock::now();
                cpuAtWarm = cpuSeconds(RUSAGE_SELF);
                const PipelineStats s = pipeline.stats();
                waitAtWarm = s.consumerWaitSeconds;
                imagesAtWarm = s.images;
            }
            if (secondsSince(start) >= options.seconds) {
                done = true;
                break;
            }
        }
    }
    const double seconds = secondsSince(measured);
    const double cpu = cpuSeconds(RUSAGE_SELF) - cpuAtWarm;
    const PipelineStats s = pipeline.stats();
    pipeline.cancel();

    const double images = double(s.images - imagesAtWarm);
    nlohmann::json errors = nlohmann::json::array();
    for (const std::string &e : s.errorSamples)
        errors.push_back(e);
    return {{"benchmark", "pipeline"},
            {"augment", options.augment},
            {"images_per_s", seconds > 0 ? images / seconds : 0.0},
            {"images_per_cpu_s", cpu > 0 ? images / cpu : 0.0},
            {"cpu_seconds", cpu},
            {"images", s.images},
            {"batches", batches},
            {"epochs", epochs},
            {"errors", s.errors},
            {"error_samples", errors},
            {"threads", s.threads},
            {"prefetch_batches", s.prefetchBatches},
            {"wait_fraction", seconds > 0 ? (s.consumerWaitSeconds - waitAtWarm) / seconds : 0.0},
            {"image_size", options.imageSize},
            {"fast_decode", p.transform.train && p.transform.fastDecode},
            {"batch", options.batchSize},
            {"seconds", seconds},
            {"cache_mb", double(s.cacheBytesUsed) / (1024.0 * 1024.0)},
            {"cache_hits", s.cacheHits},
            {"peak_rss_mb", peakRssMb()}};
}

} // namespace lathe::engine
