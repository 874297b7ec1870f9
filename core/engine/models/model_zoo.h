#pragma once

#include "engine/base/task_control.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

// One official pretrained weight file of the model-zoo catalog (resources/model_zoo.json,
// written by scripts/make-model-zoo.py from torchvision's weight enums).
struct ZooWeights
{
    std::string arch;         // backbone registry name: "resnet50"
    std::string id;           // torchvision's enum member: "IMAGENET1K_V2"
    std::string url;          // https://download.pytorch.org/models/...
    std::string fileName;     // torchvision's file name, the last segment of url
    std::string sha256Prefix; // lower-case hex from the file name; the file's SHA-256 starts with it
    bool isDefault = false;   // torchvision's DEFAULT for this architecture
    double acc1 = 0;          // ImageNet-1K top-1 / top-5 accuracy, percent
    double acc5 = 0;
    std::int64_t numParams = 0;
    std::array<int, 2> minSize{1, 1}; // smallest input (height, width) the weights accept
    int cropSize = 224;               // evaluation: resize the short side to resizeSize, ...
    int resizeSize = 256;             // ... then center-crop cropSize
    std::string interpolation;        // "bilinear" or "bicubic"
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
    std::string license;     // SPDX identifier: "BSD-3-Clause", "CC-BY-NC-4.0"
    std::string licenseUrl;
    std::string recipe;      // how the weights were trained
    std::int64_t fileSize = -1; // bytes; -1 when the catalog does not know it
};

// Reads and checks a catalog. Strict: a missing or mistyped field, an unknown architecture,
// a URL that is not https://, a file name that does not end the URL or whose hash part is
// not sha256_prefix, a duplicate (arch, id) or two defaults for one architecture throw
// EngineError naming the file, the entry and the field.
std::vector<ZooWeights> loadModelZoo(const std::string &path);

// torchvision's default entry for an architecture; nullptr when the catalog has none.
const ZooWeights *defaultWeights(const std::vector<ZooWeights> &zoo, const std::string &arch);
// The entry with that architecture and id; nullptr when there is none.
const ZooWeights *findWeights(const std::vector<ZooWeights> &zoo, const std::string &arch, const std::string &id);

// The name the file has in the weights cache: torchvision's own, so a torch.hub checkpoints
// folder and Lathe's cache can share files.
std::string cacheFileName(const ZooWeights &weights);

// The first entry whose sha256_prefix a file's full SHA-256 (lower-case hex) starts with;
// nullptr when none does.
const ZooWeights *matchSha256(const std::vector<ZooWeights> &zoo, const std::string &sha256);

// torch.hub's rule for the hash part of a weights file name (the hex between a '-' and the
// following '.', first match): "resnet50-11ad3fa6.pth" gives "11ad3fa6"; empty when none.
std::string sha256PrefixOfFileName(const std::string &fileName);

// What verifyWeightsFile found.
struct ZooMatch
{
    std::string sha256;                // of the whole file, lower-case hex
    std::uint64_t bytes = 0;
    std::optional<ZooWeights> weights; // the catalog entry whose sha256_prefix the hash starts with
    std::string message;               // when nothing matched: "<file>: no catalog entry ..."

    bool matched() const { return weights.has_value(); }
};

// Hashes a file (streaming; progress by bytes; cancellable) and finds the catalog entry whose
// sha256_prefix its SHA-256 starts with, torch.hub's check. A file that cannot be read throws
// EngineError; one that matches nothing is not an error (see ZooMatch::message).
ZooMatch verifyWeightsFile(const std::string &path, const std::vector<ZooWeights> &zoo,
                           const TaskControl &control = {});

// Where model_zoo.json is: $LATHE_MODEL_ZOO when set; else, walking up from the running
// executable's folder, the first <dir>/share/lathe/model_zoo.json (installed; also the copy
// a build folder keeps) or <dir>/resources/model_zoo.json (a build folder inside the source
// tree); else /usr/share/lathe/model_zoo.json. Throws EngineError listing where it looked.
std::string findModelZooFile();

// Where a downloaded zoo file may be, in the order looked: $LATHE_WEIGHTS_CACHE when set; then,
// under $XDG_CACHE_HOME (else ~/.cache), the GUI's cache (QStandardPaths::CacheLocation +
// /weights: Lathe/lathe/weights), Lathe/weights and torch.hub's checkpoints folder (torchvision's
// own downloads share the file names, see cacheFileName).
std::vector<std::string> weightsCacheDirs();

// model.weights "zoo": the cached file of the architecture's default zoo weights (catalog from
// findModelZooFile, folders from weightsCacheDirs). Throws EngineError (naming model.weights)
// when the catalog has no weights for arch or the file is in none of the folders.
std::string resolveZooWeights(const std::string &arch);

} // namespace lathe::engine
