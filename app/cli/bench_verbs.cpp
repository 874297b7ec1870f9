#include "bench_verbs.h"

#include "engine/base/clock.h"
#include "engine/dataset/folder_scan.h"
#include "engine/dataset/shard_converter.h"
#include "engine/formats/tfrecord_reader.h"
#include "engine/pipeline/pipeline_bench.h"
#include "scan_verbs.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

namespace fs = std::filesystem;

namespace lathe::cli {
namespace {

using engine::secondsSince;

// The scanner against the naive way: cv::imread of every file on one thread.
void addBenchScan(CLI::App *bench)
{
    auto options = std::make_shared<engine::ScanOptions>();
    CLI::App *cmd = bench->add_subcommand("scan", "Scanner throughput on IMAGE_DIR, with a naive peer");
    addScanOptions(cmd, *options);
    cmd->callback([options] {
        engine::scanFolder(*options); // fills the page cache
        auto start = std::chrono::steady_clock::now();
        const engine::ScanResult timed = engine::scanFolder(*options);
        const double scanSeconds = secondsSince(start);
        start = std::chrono::steady_clock::now();
        int decoded = 0;
        for (const engine::ScannedImage &i : timed.images)
            decoded += cv::imread(timed.root + "/" + i.relPath, cv::IMREAD_COLOR).empty() ? 0 : 1;
        const double naiveSeconds = secondsSince(start);
        const double n = double(timed.images.size());
        const nlohmann::json doc = {{"benchmark", "scan"},
                                    {"files", timed.images.size()},
                                    {"ok", timed.count(engine::ImageStatus::Ok)},
                                    {"lathe_scan_images_per_s", n / scanSeconds},
                                    {"peer", "cv::imread of every file, one thread (decode only, no hash)"},
                                    {"peer_images_per_s", decoded / naiveSeconds},
                                    {"ratio_lathe_over_peer", (n / scanSeconds) / (decoded / naiveSeconds)}};
        std::cout << doc.dump(2) << '\n';
    });
}

// Conversion (scan + shards, no re-encode) against copying the same files with `cat`, and
// a sequential CRC-checked read of the shards from the page cache.
void addBenchConvert(CLI::App *bench)
{
    auto options = std::make_shared<engine::ConvertOptions>();
    auto work = std::make_shared<std::string>();
    CLI::App *cmd = bench->add_subcommand("convert", "Conversion throughput on IMAGE_DIR (validating, and of an "
                                                     "imported folder) against cat; shard read speed");
    addScanOptions(cmd, options->scan);
    cmd->add_option("WORK_DIR", *work, "Scratch folder on the same disk (removed afterwards)")->required();
    cmd->callback([options, work] {
        const fs::path scratch = fs::absolute(*work);
        fs::create_directories(scratch);
        engine::scanFolder(options->scan); // warm page cache for both contenders

        std::uint64_t sourceBytes = 0;
        for (const auto &entry : fs::recursive_directory_iterator(options->scan.root))
            if (entry.is_regular_file())
                sourceBytes += entry.file_size();
        const std::string copy = (scratch / "copy.bin").string();
        auto start = std::chrono::steady_clock::now();
        const std::string command = "find '" + options->scan.root + "' -type f -exec cat {} + > '" + copy + "' && sync";
        if (std::system(command.c_str()) != 0)
            throw std::runtime_error("the cat peer failed");
        const double catSeconds = secondsSince(start);
        fs::remove(copy);

        // Full conversion: scan (read, hash, validate by decoding) + write.
        options->outDir = (scratch / "full").string();
        start = std::chrono::steady_clock::now();
        const engine::ConvertResult full = engine::convertFolder(*options);
        const double fullSeconds = secondsSince(start);

        // Conversion of a folder already imported (the workbench's case: the catalog's scan is
        // passed as ScanOptions::previous, so unchanged files are not decoded again).
        engine::ConvertOptions imported = *options;
        imported.scan.previous = engine::scanFolder(options->scan).images;
        imported.outDir = (scratch / "imported").string();
        start = std::chrono::steady_clock::now();
        const engine::ConvertResult r = engine::convertFolder(imported);
        const double convertSeconds = secondsSince(start);

        std::uint64_t shardBytes = 0;
        std::uint64_t records = 0;
        start = std::chrono::steady_clock::now();
        std::string record;
        for (const engine::ShardInfo &s : r.manifest.shards) {
            engine::TFRecordReader reader((fs::path(r.outDir) / s.file).string());
            while (reader.next(record))
                ++records;
            shardBytes += s.bytes;
        }
        const double readSeconds = secondsSince(start);
        fs::remove_all(scratch);

        const double mb = 1e6;
        const nlohmann::json doc = {
            {"benchmark", "convert"},
            {"records", r.manifest.records},
            {"source_mb", sourceBytes / mb},
            {"peer", "find -exec cat of the same files into one file on the same disk, then sync"},
            {"peer_cat_mb_per_s", sourceBytes / mb / catSeconds},
            {"lathe_convert_imported_mb_per_s", sourceBytes / mb / convertSeconds},
            {"ratio_imported_convert_over_cat", catSeconds / convertSeconds},
            {"lathe_convert_with_validation_mb_per_s", sourceBytes / mb / fullSeconds},
            {"ratio_validating_convert_over_cat", catSeconds / fullSeconds},
            {"full_records", full.manifest.records},
            {"shard_read_records", records},
            {"shard_read_gb_per_s", shardBytes / 1e9 / readSeconds}};
        std::cout << doc.dump(2) << '\n';
    });
}

// The input pipeline's throughput over converted shards (the peer, torchvision's DataLoader
// on the same images, runs from tests/bench/bench_pipeline.sh).
void addBenchPipeline(CLI::App *bench)
{
    auto options = std::make_shared<engine::PipelineBenchOptions>();
    auto cacheMb = std::make_shared<double>(0);
    CLI::App *cmd = bench->add_subcommand("pipeline", "Input pipeline throughput (decode, augment, batch) over "
                                                      "converted shards");
    cmd->add_option("--data", options->datasetDir, "Converted dataset folder (with dataset.json)")->required();
    cmd->add_option("--split", options->split, "Split to read")->capture_default_str();
    cmd->add_option("--image-size", options->imageSize, "Output side in pixels")->capture_default_str()->check(
        CLI::Range(8, 4096));
    cmd->add_option("--batch", options->batchSize, "Batch size")->capture_default_str()->check(CLI::Range(1, 65536));
    cmd->add_option("--threads", options->threads, "Worker threads (0: all cores)")->capture_default_str()->check(
        CLI::Range(0, 1024));
    cmd->add_option("--seconds", options->seconds, "How long to run")->capture_default_str()->check(
        CLI::Range(0.1, 86400.0));
    cmd->add_option("--augment", options->augment,
                    "standard (random resized crop + flip + normalize), none (resize + center crop), or "
                    "decode-only (full-size JPEG decode on one thread: the per-core ceiling)")
        ->capture_default_str()
        ->check(CLI::IsMember({"standard", "none", "decode-only"}));
    cmd->add_option("--fast-decode", options->fastDecode,
                    "standard: decode JPEGs with libjpeg's fast IDCT and replicated chroma (about 5% faster, "
                    "pixels a little off PIL's decode; false: PIL's accurate decode)")
        ->capture_default_str();
    cmd->add_option("--cache-mb", *cacheMb, "In-RAM cache of decoded images, MiB (0: off)")->capture_default_str()->check(
        CLI::Range(0.0, 1e7));
    cmd->callback([options, cacheMb] {
        options->cacheBytes = static_cast<std::size_t>(*cacheMb * 1024 * 1024);
        std::cout << engine::benchPipeline(*options).dump() << '\n';
    });
}

} // namespace

void addBenchVerbs(CLI::App &app)
{
    CLI::App *bench = app.add_subcommand("bench", "Benchmarks; print JSON");
    bench->require_subcommand(1);
    addBenchScan(bench);
    addBenchConvert(bench);
    addBenchPipeline(bench);
}

} // namespace lathe::cli
