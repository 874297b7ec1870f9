#pragma once

#include "engine/base/task_control.h"
#include "engine/dataset/folder_scan.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lathe::engine {

struct ConvertOptions
{
    ScanOptions scan;                             // the source folder, splits, pixel limit, threads
    std::string outDir;                           // must not exist, or be an empty folder
    std::uint64_t shardBytes = 64ull << 20;       // target size of a shard
    std::uint64_t shardRecords = 0;               // if > 0: records per shard instead of bytes
    int maxSide = 0;                              // if > 0: re-encode larger images as JPEG ...
    int quality = 90;                             // ... with this quality
    std::uint64_t shuffleSeed = 0;                // order of records across a split's shards
    // The user's corrections from the catalog, by path relative to the source folder: files
    // left out of the shards, and files given another (existing) class.
    std::set<std::string> excluded;
    std::map<std::string, std::string> relabels;
    // A multi-label dataset's label sets as the catalog holds them (the user's edits included),
    // by path relative to the source folder: each replaces the labels file's set for that image
    // (duplicates collapse, order does not matter). A label no usable image of the labels file
    // carries joins the classes. Refused for a single-label scan, and when a set is empty or
    // holds an empty label.
    std::map<std::string, std::vector<std::string>> labelSets;
};

// One shard as listed in dataset.json.
struct ShardInfo
{
    std::string file;  // name relative to the dataset folder
    std::string index; // its .idx, relative to the dataset folder
    std::string split;
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
    std::string sha256;
};

struct RejectedFile
{
    std::string path;   // relative to the source folder
    std::string status; // "rejected" or "duplicate"
    std::string reason;
};

// DatasetManifest::task's values.
inline constexpr const char *kTaskSingleLabel = "single_label";
inline constexpr const char *kTaskMultiLabel = "multi_label";

// What dataset.json says about a converted dataset.
struct DatasetManifest
{
    std::string source;  // the image folder it was converted from
    std::string created; // ISO 8601, UTC
    // "single_label": a record holds one label (its class folder). "multi_label": a record
    // holds a label set (a labels file's import). dataset.json's "task"; files written before
    // it existed have none and are single-label.
    std::string task = "single_label";
    std::vector<std::string> classes; // label i is classes[i]
    // split -> class -> records of the split that carry the class (multi-label: a record
    // counts once for each of its labels, so a split's counts can sum to more than its records)
    std::map<std::string, std::map<std::string, std::uint64_t>> counts;
    std::vector<ShardInfo> shards;
    std::uint64_t records = 0;
    std::uint64_t reencoded = 0;
    std::uint64_t scanned = 0;
    std::vector<RejectedFile> rejected; // the conversion report
};

struct ConvertResult
{
    std::string outDir;
    DatasetManifest manifest;
};

// Reads DIR/dataset.json. Throws EngineError naming the file and the reason (missing,
// not JSON, not a Lathe shard manifest, a key missing or of the wrong type, a "task" other
// than single_label or multi_label).
DatasetManifest readDatasetManifest(const std::string &datasetDir);

// Scans the folder (scanFolder), then writes its usable images as TFRecord shards of
// TF-slim tf.train.Examples (a scan with a labels file: multi-label records, whose
// image/class/label and image/class/text are lists, and task "multi_label"; relabels are
// refused for it, label sets take their place), {split}-{i:05d}-of-{n:05d}.tfrecord with a DALI .idx beside
// each, and dataset.json (classes, counts, shards with sizes and SHA-256, source, report).
// Records are shuffled across a split's shards. Files are stored byte for byte unless
// maxSide asks for a re-encode. Everything is written into a temporary folder beside
// outDir that is renamed at the end: a cancelled, failed or killed conversion leaves no
// folder that looks like a dataset. Throws EngineError or Cancelled.
ConvertResult convertFolder(const ConvertOptions &options, const TaskControl &control = {});

// The problems verifyDataset found, each naming the file (and the record's offset) and the
// reason; empty when the dataset is sound.
struct VerifyReport
{
    std::uint64_t shards = 0;
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
    std::vector<std::string> problems;
    bool ok() const { return problems.empty(); }
};

// Checks a converted dataset: dataset.json is well formed; every shard exists with the
// listed size and SHA-256; every record's CRCs; every .idx entry against the records'
// real offsets; every record parses as an image example whose label and class text match
// the class list and whose image/key/sha256 matches its bytes; the per-split, per-class
// counts against the manifest. A single-label dataset's records hold exactly one label; a
// multi-label dataset's hold label sets sorted ascending and unique, each label matching its
// text, and count once per label. Throws EngineError only when dataset.json cannot be read.
VerifyReport verifyDataset(const std::string &datasetDir, const TaskControl &control = {});

} // namespace lathe::engine
