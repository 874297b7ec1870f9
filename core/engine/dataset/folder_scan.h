#pragma once

#include "engine/base/task_control.h"
#include "engine/dataset/image_header.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lathe::engine {

enum class ImageStatus { Ok, Rejected, Duplicate };
const char *statusName(ImageStatus status); // "ok", "rejected", "duplicate"

// A perceptual difference hash of 576 bits: the picture in gray, scaled to a 12x12 grid of
// cells, with two bits for each pair of neighbours, across and down: set when the second is
// brighter by more than a margin, and when it is darker by more. The margin keeps flat areas
// (the black around a Fashion-MNIST garment) from flipping bits on compression noise; the
// falling edges and the vertical pairs tell apart garments whose outlines differ a little. One
// size for every image, so that a resized copy compares with its original.
// Measured on 12,000 demo images (28x28): within 10 bits stay a JPEG re-save at quality 95
// (100 % of the images) or 75 (73 %), +12 brightness (99.9 %), 0.9 contrast (98 %), noise of
// sigma 3 (93 %), a 2x or 3.5x upscale (81 %, 87 %), while only 0.1 % of the images have a
// different garment that close; a 1-pixel shift or crop moves the hash much further, so crops
// are not found. The 64-bit dHash (9x8 cells) used before put 38 % of the 1,400-image demo
// within 4 bits of a different garment. Distinct photographs are 140 bits apart or more.
inline constexpr int kPerceptualHashBits = 576;
using PerceptualHash = std::array<std::uint64_t, kPerceptualHashBits / 64>;
int hashDistance(const PerceptualHash &a, const PerceptualHash &b); // differing bits

// One file found under the scanned folder.
struct ScannedImage
{
    std::string relPath;   // relative to the root, '/'-separated
    std::string className; // the class folder it is in (empty when it is in none, and in a multi-label scan)
    // A multi-label scan's label names for this image (sorted, unique), from the labels file;
    // empty in a folder scan.
    std::vector<std::string> labels;
    std::string split;     // "train", "val" or "test"
    std::int64_t size = 0;
    std::int64_t mtimeNs = 0;
    ImageHeader header;
    std::string sha256;    // hex; empty when the file could not be read
    PerceptualHash hash{}; // all zero when not decoded
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
    // Most bits an image's hash may differ from its group's representative's (0 disables);
    // see PerceptualHash for how 10 was chosen.
    int nearDuplicateDistance = 10;
    // Files seen before (same relPath, size and mtime) are taken from here unread: an
    // incremental re-import only reads what changed.
    std::vector<ScannedImage> previous;
    // A multi-label labels file (readLabelsFile: CSV or JSON lines; a path as given, relative
    // to the working directory). When set, the images are the file's rows, their paths
    // relative to root, and not the class folders: files under root that it does not list
    // are no part of the scan.
    std::string labelsFile;
};

struct ScanResult
{
    std::string root;
    bool folderSplits = false;        // root/{train,val,test}/<class>/... layout
    // Scanned from a labels file: images carry label sets (ScannedImage::labels), and classes
    // is the sorted union of the usable images' labels.
    bool multiLabel = false;
    std::vector<std::string> classes; // sorted
    std::vector<ScannedImage> images; // sorted by relPath
    // Groups of indices into images whose pictures look alike (not byte-identical). Each
    // group's first index is its representative, and every other member's hash lies within
    // nearDuplicateDistance bits of the representative's: members are never chained through
    // one another, so a group cannot drift from one picture to a different one.
    std::vector<std::vector<int>> nearDuplicates;
    // nearDuplicateDistances[g][k]: bits between nearDuplicates[g][k]'s hash and its
    // representative's (0 for the representative itself).
    std::vector<std::vector<int>> nearDuplicateDistances;
    int nearDuplicateDistance = 0; // the threshold the groups were made with (0: not looked for)
    int hashBits = kPerceptualHashBits;

    int count(ImageStatus status) const;
};

// Walks root (one sub-folder per class, optionally under train/val/test folders), reads
// each file's header, validates it by decoding, hashes it, assigns splits and finds exact
// and near duplicates. One bad file never stops the scan: it is recorded with its reason.
// With a labels file, the images are its rows instead (splits from the rows' first folder
// when every row starts with a train/val/test folder, else by hash as for a folder without
// split folders); a row whose file is missing is rejected ("listed in labels.csv line 7 but
// not found"), and each of the file's bad rows is a rejected entry whose path is the file's
// name and line ("labels.csv:7") and whose reason is the row's.
// Throws EngineError only when the root itself or the labels file as a whole is unusable,
// or Cancelled.
ScanResult scanFolder(const ScanOptions &options, const TaskControl &control = {});

// The split an image gets when the folder defines none: stable under additions.
std::string assignSplit(const std::string &relPath, std::uint64_t seed, double valFraction, double testFraction);

} // namespace lathe::engine
