#include "engine/dataset/shard_converter.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"
#include "engine/base/sha256.h"
#include "engine/base/staging_folder.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_reader.h"
#include "engine/formats/tfrecord_writer.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace lathe::engine {
namespace {

constexpr const char *kManifest = "dataset.json";
constexpr const char *kFormat = "lathe-shards";
constexpr int kManifestVersion = 1;
const std::vector<std::string> kSplits = {"train", "val", "test"};

std::string fileSha256(const fs::path &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw EngineError(path.string() + ": cannot read (" + errnoText() + ")");
    Sha256 sha;
    std::vector<char> buffer(1 << 20);
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0)
        sha.update(buffer.data(), n);
    std::fclose(f);
    return sha.hexDigest();
}

std::string readFile(const fs::path &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw EngineError(path.string() + ": cannot read (" + errnoText() + ")");
    std::string bytes;
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0)
        bytes.append(buffer, n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed)
        throw EngineError(path.string() + ": read error");
    return bytes;
}

std::string nowIso()
{
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string shardName(const std::string &split, std::size_t i, std::size_t n)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s-%05zu-of-%05zu.tfrecord", split.c_str(), i, n);
    return buf;
}

// One shard to write: a contiguous run of a split's shuffled images.
struct ShardPlan
{
    std::string split;
    std::string file;
    std::vector<const ScannedImage *> images;
    ShardInfo info;
};

// The record for one image: its bytes as they are, or re-encoded as JPEG when asked.
// labels: the image's class indices (one for a single-label dataset, the sorted set for a
// multi-label one, whose records hold lists even for a single label).
ImageExample makeExample(const fs::path &root, const ScannedImage &image, const std::vector<std::int64_t> &labels,
                         bool multiLabel, const ConvertOptions &options, bool &reencoded)
{
    ImageExample example;
    example.encoded = readFile(root / image.relPath);
    example.format = formatName(image.header.format);
    example.width = image.header.width;
    example.height = image.header.height;
    example.channels = image.header.channels;
    reencoded = false;
    if (options.maxSide > 0 && std::max(image.header.width, image.header.height) > options.maxSide) {
        const cv::Mat buffer(1, static_cast<int>(example.encoded.size()), CV_8UC1, example.encoded.data());
        cv::Mat decoded = cv::imdecode(buffer, cv::IMREAD_COLOR); // applies EXIF orientation
        if (decoded.empty())
            throw EngineError((root / image.relPath).string() + ": cannot decode it for re-encoding");
        const double scale = double(options.maxSide) / std::max(decoded.cols, decoded.rows);
        cv::resize(decoded, decoded, cv::Size(std::max(1, int(decoded.cols * scale + 0.5)),
                                              std::max(1, int(decoded.rows * scale + 0.5))),
                   0, 0, cv::INTER_AREA);
        std::vector<std::uint8_t> jpeg;
        cv::imencode(".jpg", decoded, jpeg, {cv::IMWRITE_JPEG_QUALITY, options.quality});
        example.encoded.assign(jpeg.begin(), jpeg.end());
        example.format = "jpeg";
        example.width = decoded.cols;
        example.height = decoded.rows;
        example.channels = 3;
        reencoded = true;
    }
    if (multiLabel) {
        example.labels = labels;
        example.classTexts = image.labels;
    } else {
        example.label = labels.front();
        example.classText = image.className;
    }
    example.filename = image.relPath;
    // The scan hashed these very bytes unless the file changed since (then its size shows it
    // or the hash is computed again; verify checks every record's hash either way).
    example.sha256 = !reencoded && example.encoded.size() == std::size_t(image.size) && !image.sha256.empty()
                         ? image.sha256
                         : sha256Hex(example.encoded.data(), example.encoded.size());
    return example;
}

json manifestJson(const ConvertOptions &options, const DatasetManifest &m)
{
    json shards = json::array();
    for (const ShardInfo &s : m.shards)
        shards.push_back({{"file", s.file}, {"index", s.index}, {"split", s.split}, {"records", s.records},
                          {"bytes", s.bytes}, {"sha256", s.sha256}});
    json rejected = json::array();
    for (const RejectedFile &r : m.rejected)
        rejected.push_back({{"path", r.path}, {"status", r.status}, {"reason", r.reason}});
    return {{"format", kFormat},
            {"version", kManifestVersion},
            {"source", m.source},
            {"created", m.created},
            {"task", m.task},
            {"classes", m.classes},
            {"counts", m.counts},
            {"shards", shards},
            {"records", m.records},
            {"reencoded", m.reencoded},
            {"options",
             {{"val_fraction", options.scan.valFraction},
              {"test_fraction", options.scan.testFraction},
              {"seed", options.scan.seed},
              {"shuffle_seed", options.shuffleSeed},
              {"max_pixels", options.scan.maxPixels},
              {"shard_bytes", options.shardBytes},
              {"shard_records", options.shardRecords},
              {"max_side", options.maxSide},
              {"quality", options.quality}}},
            {"report", {{"scanned", m.scanned}, {"ok", m.records}, {"rejected", rejected}}}};
}

// "[0, 3, 17]"
std::string labelList(const std::vector<std::int64_t> &labels)
{
    std::string text = "[";
    for (std::size_t i = 0; i < labels.size(); ++i)
        text += (i ? ", " : "") + std::to_string(labels[i]);
    return text + "]";
}

template<typename T>
T field(const json &object, const char *key, const std::string &where)
{
    if (!object.is_object() || !object.contains(key))
        throw EngineError(where + ": \"" + key + "\" is missing");
    try {
        return object.at(key).get<T>();
    } catch (const json::exception &) {
        throw EngineError(where + ": \"" + key + "\" has the wrong type");
    }
}

} // namespace

DatasetManifest readDatasetManifest(const std::string &datasetDir)
{
    const std::string path = (fs::path(datasetDir) / kManifest).string();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": not found (is this a converted dataset folder?)");
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    checkLimit(path, size, parse_limits::kDatasetManifestBytes);
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
    checkJsonDepth(text, path);
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error &e) {
        throw EngineError(path + ": not valid JSON (" + e.what() + ")");
    }
    // value() would throw nlohmann's type_error for a "format" that is not a string.
    if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
        throw EngineError(path + ": not a Lathe shard manifest (\"format\" is not \"" + kFormat + "\")");
    if (field<int>(doc, "version", path) > kManifestVersion)
        throw EngineError(path + ": written by a newer Lathe (version " + doc["version"].dump() + ")");
    DatasetManifest m;
    m.source = field<std::string>(doc, "source", path);
    m.created = field<std::string>(doc, "created", path);
    if (doc.contains("task")) { // datasets converted before multi-label have none
        m.task = field<std::string>(doc, "task", path);
        if (m.task != kTaskSingleLabel && m.task != kTaskMultiLabel)
            throw EngineError(path + ": \"task\" is '" + m.task + "', expected '" + kTaskSingleLabel + "' or '"
                              + kTaskMultiLabel + "'");
    }
    m.classes = field<std::vector<std::string>>(doc, "classes", path);
    m.counts = field<std::map<std::string, std::map<std::string, std::uint64_t>>>(doc, "counts", path);
    m.records = field<std::uint64_t>(doc, "records", path);
    m.reencoded = field<std::uint64_t>(doc, "reencoded", path);
    const json shards = field<json>(doc, "shards", path);
    if (!shards.is_array())
        throw EngineError(path + ": \"shards\" is not a list");
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const std::string where = path + ": shards[" + std::to_string(i) + "]";
        ShardInfo s;
        s.file = field<std::string>(shards[i], "file", where);
        s.index = field<std::string>(shards[i], "index", where);
        s.split = field<std::string>(shards[i], "split", where);
        s.records = field<std::uint64_t>(shards[i], "records", where);
        s.bytes = field<std::uint64_t>(shards[i], "bytes", where);
        s.sha256 = field<std::string>(shards[i], "sha256", where);
        if (s.file.find('/') != std::string::npos || s.index.find('/') != std::string::npos)
            throw EngineError(where + ": file names must not contain '/'");
        m.shards.push_back(std::move(s));
    }
    const json report = field<json>(doc, "report", path);
    m.scanned = field<std::uint64_t>(report, "scanned", path + ": report");
    for (const json &r : field<json>(report, "rejected", path + ": report"))
        m.rejected.push_back({field<std::string>(r, "path", path + ": report"),
                              field<std::string>(r, "status", path + ": report"),
                              field<std::string>(r, "reason", path + ": report")});
    return m;
}

ConvertResult convertFolder(const ConvertOptions &options, const TaskControl &control)
{
    if (options.outDir.empty())
        throw EngineError("convert: no output folder given");
    if (options.shardBytes == 0 && options.shardRecords == 0)
        throw EngineError("convert: the shard size must be positive");
    if (options.quality < 1 || options.quality > 100)
        throw EngineError("convert: JPEG quality must be within 1..100, got " + std::to_string(options.quality));
    if (options.maxSide < 0)
        throw EngineError("convert: the maximum side must not be negative");
    StagingFolder::checkTarget(fs::absolute(options.outDir)); // before the slow scan

    // Scanning is the first 30% of the work, writing the rest.
    TaskControl scanControl;
    scanControl.cancel = control.cancel;
    scanControl.progress = [&control](double f, const std::string &status) { control.report(0.3 * f, status); };
    ScanResult scan = scanFolder(options.scan, scanControl);
    const fs::path root = scan.root;

    ConvertResult result;
    DatasetManifest &m = result.manifest;
    m.source = scan.root;
    m.created = nowIso();
    m.task = scan.multiLabel ? kTaskMultiLabel : kTaskSingleLabel;
    m.classes = scan.classes;
    m.scanned = scan.images.size();
    if (scan.multiLabel && !options.relabels.empty())
        throw EngineError("convert: relabelling applies to single-label datasets; a multi-label dataset's labels come "
                          "from its labels file " + options.scan.labelsFile);
    if (!scan.multiLabel && !options.labelSets.empty())
        throw EngineError("convert: label sets apply to multi-label datasets; " + scan.root
                          + " is scanned from its class folders (give a labels file)");
    // The catalog's label sets replace the labels file's; a label only they use is a class too.
    for (ScannedImage &image : scan.images) {
        const auto it = options.labelSets.find(image.relPath);
        if (it == options.labelSets.end() || image.status != ImageStatus::Ok || options.excluded.count(image.relPath))
            continue;
        std::vector<std::string> labels = it->second;
        std::sort(labels.begin(), labels.end());
        labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
        if (labels.empty())
            throw EngineError(image.relPath + ": an empty label set (an image needs at least one label; exclude it "
                              "instead)");
        if (labels.front().empty())
            throw EngineError(image.relPath + ": an empty label in its label set");
        image.labels = std::move(labels);
        for (const std::string &label : image.labels)
            if (!std::binary_search(m.classes.begin(), m.classes.end(), label))
                m.classes.insert(std::upper_bound(m.classes.begin(), m.classes.end(), label), label);
    }
    for (const std::string &split : kSplits)
        for (const std::string &cls : m.classes)
            m.counts[split][cls] = 0;

    // The user's relabels become the images' classes; exclusions join the report.
    std::map<std::string, std::vector<const ScannedImage *>> bySplit;
    for (ScannedImage &image : scan.images) {
        if (image.status != ImageStatus::Ok || (scan.multiLabel ? image.labels.empty() : image.className.empty())) {
            m.rejected.push_back({image.relPath, statusName(image.status), image.reason});
            continue;
        }
        if (options.excluded.count(image.relPath)) {
            m.rejected.push_back({image.relPath, "excluded", "excluded by the user"});
            continue;
        }
        if (const auto it = options.relabels.find(image.relPath); it != options.relabels.end()) {
            if (!std::binary_search(m.classes.begin(), m.classes.end(), it->second))
                throw EngineError(image.relPath + ": relabelled as '" + it->second + "', which is not a class of "
                                  + scan.root);
            image.className = it->second;
        }
        bySplit[image.split].push_back(&image);
    }

    // Plan shards: shuffle each split, then cut it into runs by bytes or by record count.
    std::vector<ShardPlan> plans;
    for (const std::string &split : kSplits) {
        std::vector<const ScannedImage *> &images = bySplit[split];
        if (images.empty())
            continue;
        std::mt19937_64 rng(options.shuffleSeed ^ std::hash<std::string>{}(split));
        std::shuffle(images.begin(), images.end(), rng);
        std::vector<std::vector<const ScannedImage *>> runs(1);
        std::uint64_t bytes = 0;
        for (const ScannedImage *image : images) {
            const std::uint64_t estimate = std::uint64_t(image->size) + 256; // framing + example keys
            const bool full = options.shardRecords > 0 ? runs.back().size() >= options.shardRecords
                                                       : bytes + estimate > options.shardBytes;
            if (full && !runs.back().empty()) {
                runs.emplace_back();
                bytes = 0;
            }
            runs.back().push_back(image);
            bytes += estimate;
        }
        for (std::size_t i = 0; i < runs.size(); ++i) {
            ShardPlan plan;
            plan.split = split;
            plan.file = shardName(split, i, runs.size());
            plan.images = std::move(runs[i]);
            plans.push_back(std::move(plan));
        }
    }

    std::map<std::string, std::int64_t> labels;
    for (std::size_t i = 0; i < m.classes.size(); ++i)
        labels[m.classes[i]] = static_cast<std::int64_t>(i);

    StagingFolder staging(options.outDir);
    const fs::path &partial = staging.path();

    // Each worker writes whole shards, records in plan order; shards are independent.
    std::uint64_t total = 0;
    for (const ShardPlan &p : plans)
        total += p.images.size();
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> reencoded{0};
    std::atomic<bool> stop{false};
    std::exception_ptr failure;
    std::mutex failureMutex;
    const int threadCount = std::max(1, std::min<int>(static_cast<int>(plans.size()),
                                                      options.scan.threads > 0
                                                          ? options.scan.threads
                                                          : static_cast<int>(std::thread::hardware_concurrency())));
    std::vector<std::thread> workers;
    for (int t = 0; t < threadCount; ++t)
        workers.emplace_back([&] {
            try {
                for (std::size_t k = next++; k < plans.size() && !stop; k = next++) {
                    ShardPlan &plan = plans[k];
                    TFRecordWriter writer((partial / plan.file).string());
                    for (const ScannedImage *image : plan.images) {
                        if (stop || control.cancel.isCancelled())
                            return; // the writer removes its temporary files
                        bool wasReencoded = false;
                        std::vector<std::int64_t> indices;
                        if (scan.multiLabel) // sorted names of sorted classes: sorted indices
                            for (const std::string &name : image->labels)
                                indices.push_back(labels.at(name));
                        else
                            indices.push_back(labels.at(image->className));
                        const ImageExample example =
                            makeExample(root, *image, indices, scan.multiLabel, options, wasReencoded);
                        writer.write(serializeImageExample(example));
                        reencoded += wasReencoded ? 1 : 0;
                        ++done;
                    }
                    const TFRecordShard shard = writer.finish();
                    plan.info = {plan.file, fs::path(shard.indexPath).filename().string(), plan.split, shard.records,
                                 shard.bytes, shard.sha256};
                }
            } catch (...) {
                std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
                stop = true;
            }
        });
    while (done.load() < total && !stop.load()) {
        if (control.cancel.isCancelled())
            break;
        control.report(0.3 + 0.7 * double(done.load()) / double(total),
                       "writing record " + std::to_string(done.load()) + " of " + std::to_string(total));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (std::thread &w : workers)
        w.join();
    if (failure)
        std::rethrow_exception(failure); // the staging folder goes with its shards
    control.checkCancel();

    for (const ShardPlan &plan : plans) {
        m.shards.push_back(plan.info);
        for (const ScannedImage *image : plan.images) {
            if (scan.multiLabel)
                for (const std::string &name : image->labels)
                    ++m.counts[plan.split][name];
            else
                ++m.counts[plan.split][image->className];
        }
    }
    m.records = total;
    m.reencoded = reencoded;
    // dataset.json is written last: a folder without it is not a finished conversion.
    writeFileAtomically((partial / kManifest).string(), manifestJson(options, m).dump(2) + "\n");
    staging.commit();
    result.outDir = staging.finalPath().string();
    control.report(1.0, "done");
    return result;
}

VerifyReport verifyDataset(const std::string &datasetDir, const TaskControl &control)
{
    const DatasetManifest m = readDatasetManifest(datasetDir);
    const bool multiLabel = m.task == kTaskMultiLabel;
    VerifyReport report;
    std::map<std::string, std::map<std::string, std::uint64_t>> counts;
    std::uint64_t listedBytes = 0;
    for (const ShardInfo &s : m.shards)
        listedBytes += s.bytes;
    std::uint64_t checkedBytes = 0;

    for (const ShardInfo &s : m.shards) {
        control.checkCancel();
        const fs::path path = fs::path(datasetDir) / s.file;
        const std::string name = path.string();
        ++report.shards;
        std::error_code ec;
        const auto size = fs::file_size(path, ec);
        if (ec) {
            report.problems.push_back(name + ": missing (" + ec.message() + ")");
            continue;
        }
        if (size != s.bytes)
            report.problems.push_back(name + ": " + std::to_string(size) + " bytes, dataset.json lists "
                                      + std::to_string(s.bytes));
        else if (fileSha256(path) != s.sha256)
            report.problems.push_back(name + ": SHA-256 differs from dataset.json");

        std::vector<TFRecordIndexEntry> index;
        bool indexOk = true;
        try {
            index = TFRecordReader::readIndex((fs::path(datasetDir) / s.index).string());
        } catch (const EngineError &e) {
            report.problems.push_back(e.what());
            indexOk = false;
        }

        std::uint64_t records = 0;
        const auto check = [&](const std::string &record, std::uint64_t offset) {
            const std::string where = name + ": record at byte offset " + std::to_string(offset);
            try {
                const ImageExample example = parseImageExample(record, where);
                if (!multiLabel && example.labels.size() != 1)
                    report.problems.push_back(where + ": holds " + std::to_string(example.labels.size())
                                              + " labels, a single-label dataset's records hold one");
                else if (!std::is_sorted(example.labels.begin(), example.labels.end())
                         || std::adjacent_find(example.labels.begin(), example.labels.end()) != example.labels.end())
                    report.problems.push_back(where + ": labels " + labelList(example.labels)
                                              + " are not sorted ascending and unique");
                else {
                    bool good = true;
                    for (std::size_t i = 0; i < example.labels.size() && good; ++i) {
                        const std::int64_t label = example.labels[i];
                        const std::string &text = example.classTexts[i];
                        good = false;
                        if (label < 0 || std::size_t(label) >= m.classes.size())
                            report.problems.push_back(where + ": label " + std::to_string(label)
                                                      + " is not a class of dataset.json");
                        else if (m.classes[std::size_t(label)] != text)
                            report.problems.push_back(where + ": label " + std::to_string(label) + " is class '"
                                                      + m.classes[std::size_t(label)] + "' but the text says '" + text
                                                      + "'");
                        else
                            good = true;
                    }
                    // A record with any bad label counts for none: counts then disagree too.
                    if (good)
                        for (const std::string &text : example.classTexts)
                            ++counts[s.split][text];
                }
                if (sha256Hex(example.encoded.data(), example.encoded.size()) != example.sha256)
                    report.problems.push_back(where + ": image bytes do not match image/key/sha256");
            } catch (const EngineError &e) {
                report.problems.push_back(e.what());
            }
        };
        bool damaged = false;
        try {
            TFRecordReader reader(name);
            std::string record;
            try {
                while (reader.next(record)) {
                    const std::uint64_t offset = reader.lastOffset();
                    if (indexOk) {
                        if (records >= index.size()) {
                            report.problems.push_back(name + ".idx: has " + std::to_string(index.size())
                                                      + " entries, the shard has more records");
                            indexOk = false;
                        } else if (index[records].offset != offset || index[records].size != record.size() + 16) {
                            report.problems.push_back(name + ".idx: entry " + std::to_string(records + 1) + " says "
                                                      + std::to_string(index[records].offset) + " "
                                                      + std::to_string(index[records].size) + ", the record is at "
                                                      + std::to_string(offset) + " with size "
                                                      + std::to_string(record.size() + 16));
                            indexOk = false;
                        }
                    }
                    check(record, offset);
                    ++records;
                }
            } catch (const EngineError &e) {
                report.problems.push_back(e.what()); // names the shard, the offset and the reason
                damaged = true;
                // The index, where it still agrees with the shard, leads past the bad record so
                // that every other damaged record is reported too.
                for (std::size_t k = records + 1; indexOk && k < index.size(); ++k) {
                    try {
                        check(reader.readAt(index[k]), index[k].offset);
                        ++records;
                    } catch (const EngineError &again) {
                        report.problems.push_back(again.what());
                    }
                }
            }
        } catch (const EngineError &e) {
            report.problems.push_back(e.what()); // the shard cannot be opened
            damaged = true;
        }
        if (indexOk && !damaged && index.size() != records)
            report.problems.push_back(name + ".idx: has " + std::to_string(index.size()) + " entries for "
                                      + std::to_string(records) + " records");
        if (records != s.records)
            report.problems.push_back(name + ": " + std::to_string(records) + " readable records, dataset.json lists "
                                      + std::to_string(s.records));
        report.records += records;
        report.bytes += size;
        checkedBytes += s.bytes;
        control.report(listedBytes ? double(checkedBytes) / double(listedBytes) : 1.0, "verifying " + s.file);
    }

    for (const auto &[split, classes] : m.counts)
        for (const auto &[cls, n] : classes)
            if (counts[split][cls] != n)
                report.problems.push_back((fs::path(datasetDir) / kManifest).string() + ": lists " + std::to_string(n)
                                          + " " + split + " records of class '" + cls + "', the shards hold "
                                          + std::to_string(counts[split][cls]));
    // Shards on disk that the manifest does not know are leftovers of something else.
    std::error_code ec;
    for (const fs::directory_entry &entry : fs::directory_iterator(datasetDir, ec)) {
        const std::string file = entry.path().filename().string();
        if (entry.path().extension() == ".tfrecord"
            && std::none_of(m.shards.begin(), m.shards.end(), [&](const ShardInfo &s) { return s.file == file; }))
            report.problems.push_back(entry.path().string() + ": a shard not listed in dataset.json");
    }
    return report;
}

} // namespace lathe::engine
