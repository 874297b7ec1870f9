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

    // One rank's records of a split for one epoch. With shuffle, every record of the split,
    // across all its shards, is put in a random order from (seed, epoch): the same pair
    // always gives the same order, another epoch another one. The order is then dealt to
    // worldSize ranks in turn, each taking floor(n / worldSize) records so that ranks step
    // together; ranks never share a record. Without shuffle, records come shard by shard.
    std::vector<RecordRef> epochOrder(const std::string &split, std::uint64_t seed, std::uint64_t epoch,
                                      int rank = 0, int worldSize = 1, bool shuffle = true) const;

    // Reads and parses one record; CRCs are checked. Throws EngineError naming the shard,
    // the offset and the reason.
    ImageExample read(const RecordRef &ref);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
