#pragma once

#include "engine/base/task_control.h"
#include "engine/dataset/image_header.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lathe::engine {

enum class ImageStatus { Ok, Rejected, Duplicate };
const char *statusName(ImageStatus status); // "ok", "rejected", "duplicate"

// One file found under the scanned folder.
struct ScannedImage
{
    std::string relPath;   // relative to the root, '/'-separated
    std::string className; // the class folder it is in (empty when it is in none)
    std::string split;     // "train", "val" or "test"
    std::int64_t size = 0;
    std::int64_t mtimeNs = 0;
    ImageHeader header;
    std::string sha256;    // hex; empty when the file could not be read
    std::uint64_t dhash = 0; // perceptual difference hash (0 when not decoded)
    ImageStatus status = ImageStatus::Rejected;
    std::string reason;    // why it was rejected, or "duplicate of <relPath>"
    bool reused = false;   // taken from ScanOptions::previous instead of being read again
};

struct ScanOptions
{
    std::string root;
    std::int64_t maxPixels = 100'000'000; // larger images are refused from the header
    int threads = 0;                      // 0: every hardware thread
    // Used when the folder does not define splits: a stable, per-image hash decides.
    double valFraction = 0.1;
    double testFraction = 0.1;
    std::uint64_t seed = 0;
    int nearDuplicateDistance = 4; // max Hamming distance between dHashes (0 disables)
    // Files seen before (same relPath, size and mtime) are taken from here unread: an
    // incremental re-import only reads what changed.
    std::vector<ScannedImage> previous;
};

struct ScanResult
{
    std::string root;
    bool folderSplits = false;        // root/{train,val,test}/<class>/... layout
    std::vector<std::string> classes; // sorted
    std::vector<ScannedImage> images; // sorted by relPath
    // Groups of indices into images whose pictures look alike (not byte-identical).
    std::vector<std::vector<int>> nearDuplicates;

    int count(ImageStatus status) const;
};

// Walks root (one sub-folder per class, optionally under train/val/test folders), reads
// each file's header, validates it by decoding, hashes it, assigns splits and finds exact
// and near duplicates. One bad file never stops the scan: it is recorded with its reason.
// Throws EngineError only when the root itself is unusable, or Cancelled.
ScanResult scanFolder(const ScanOptions &options, const TaskControl &control = {});

// The split an image gets when the folder defines none: stable under additions.
std::string assignSplit(const std::string &relPath, std::uint64_t seed, double valFraction, double testFraction);

} // namespace lathe::engine
