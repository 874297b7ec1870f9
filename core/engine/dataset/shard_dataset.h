#pragma once

#include "engine/dataset/shard_converter.h"
#include "engine/formats/image_example.h"
#include "engine/formats/tfrecord_index.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

// Where one record lives.
struct RecordRef
{
    std::uint32_t shard = 0; // index into manifest().shards
    TFRecordIndexEntry entry;
};

// What the folds and the balanced sampler need of a record without decoding its image.
struct RecordMeta
{
    std::uint64_t key = 0;             // the first 64 bits of the image's SHA-256 (image/key/sha256)
    std::vector<std::int64_t> labels;  // image/class/label
};

// Which of a split's records an epoch uses, and how it draws them.
struct RecordSelection
{
    // K-fold cross-validation: a record's fold is key % folds + 1, so an image keeps its fold
    // whatever else the dataset holds (and copies of one image share a fold). 0: no folds.
    int folds = 0;
    int fold = 0;         // 1..folds
    bool heldOut = false; // false: every fold but `fold` (training); true: only `fold` (validation)
    // "none": every selected record once per epoch. "inverse" / "sqrt": an epoch of as many
    // draws with replacement, each record weighted 1/n or 1/sqrt(n) where n is the number of
    // selected records of its class (for a label set, of its rarest label), so that classes
    // come equally often (inverse) or half-way there (sqrt). Needs shuffle.
    std::string sampler = "none";

    bool selectsAll() const { return folds == 0 && sampler == "none"; }
};

// A converted dataset opened for reading: its manifest and every shard's index, so records
// can be read in any order with bounded memory (one record at a time, one open reader per
// shard). Not thread-safe: give each reading thread its own ShardDataset.
class ShardDataset
{
public:
    // Throws EngineError naming the file for a missing or malformed dataset.json or .idx.
    explicit ShardDataset(const std::string &datasetDir);
    ~ShardDataset();
    ShardDataset(ShardDataset &&) noexcept;

    const DatasetManifest &manifest() const;
    std::uint64_t size(const std::string &split) const;
    // Records of the split that a selection keeps (its epochs have this many samples).
    std::uint64_t size(const std::string &split, const RecordSelection &selection) const;

    // Every record's key and labels, by shard then record (recordMeta()[shard][i] is the
    // record of index entry i). Made by one pass over the shards the first time it is needed,
    // then kept in DIR/records.tsv (written atomically; a read-only dataset folder only loses
    // the cache). Throws EngineError naming the shard and offset of a record that cannot be read.
    const std::vector<std::vector<RecordMeta>> &recordMeta() const;

    // One rank's records of a split for one epoch. With shuffle, every record of the split,
    // across all its shards, is put in a random order from (seed, epoch): the same pair
    // always gives the same order, another epoch another one. The order is then dealt to
    // worldSize ranks in turn, each taking floor(n / worldSize) records so that ranks step
    // together; ranks never share a record. Without shuffle, records come shard by shard.
    // A selection first keeps its folds' records, then draws the epoch with its sampler from
    // (seed, epoch) alone, so a resumed run and every rank see the same epoch.
    std::vector<RecordRef> epochOrder(const std::string &split, std::uint64_t seed, std::uint64_t epoch,
                                      int rank = 0, int worldSize = 1, bool shuffle = true,
                                      const RecordSelection &selection = {}) const;

    // Reads and parses one record; CRCs are checked. Throws EngineError naming the shard,
    // the offset and the reason.
    ImageExample read(const RecordRef &ref);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
