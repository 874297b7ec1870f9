#include "engine/dataset/shard_dataset.h"

#include "engine/base/engine_error.h"
#include "engine/formats/tfrecord_reader.h"

#include <algorithm>
#include <filesystem>
#include <random>

namespace fs = std::filesystem;

namespace lathe::engine {

struct ShardDataset::Impl
{
    std::string dir;
    DatasetManifest manifest;
    std::vector<std::string> paths;                        // per shard
    std::vector<std::vector<TFRecordIndexEntry>> indexes; // per shard
    std::vector<std::unique_ptr<TFRecordReader>> readers; // opened on first use
};

ShardDataset::ShardDataset(const std::string &datasetDir)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->dir = datasetDir;
    m_impl->manifest = readDatasetManifest(datasetDir);
    for (const ShardInfo &s : m_impl->manifest.shards) {
        const std::string indexPath = (fs::path(datasetDir) / s.index).string();
        std::vector<TFRecordIndexEntry> index = TFRecordReader::readIndex(indexPath);
        if (index.size() != s.records)
            throw EngineError(indexPath + ": has " + std::to_string(index.size()) + " entries, dataset.json lists "
                              + std::to_string(s.records) + " records");
        m_impl->indexes.push_back(std::move(index));
        m_impl->paths.push_back((fs::path(datasetDir) / s.file).string());
    }
    m_impl->readers.resize(m_impl->manifest.shards.size());
}

ShardDataset::~ShardDataset() = default;
ShardDataset::ShardDataset(ShardDataset &&) noexcept = default;

const DatasetManifest &ShardDataset::manifest() const
{
    return m_impl->manifest;
}

std::uint64_t ShardDataset::size(const std::string &split) const
{
    std::uint64_t n = 0;
    for (const ShardInfo &s : m_impl->manifest.shards)
        n += s.split == split ? s.records : 0;
    return n;
}

std::vector<RecordRef> ShardDataset::epochOrder(const std::string &split, std::uint64_t seed, std::uint64_t epoch,
                                                int rank, int worldSize, bool shuffle) const
{
    if (worldSize < 1 || rank < 0 || rank >= worldSize)
        throw EngineError("rank " + std::to_string(rank) + " is outside a world of " + std::to_string(worldSize));
    std::vector<RecordRef> all;
    for (std::uint32_t s = 0; s < m_impl->manifest.shards.size(); ++s) {
        if (m_impl->manifest.shards[s].split != split)
            continue;
        for (const TFRecordIndexEntry &entry : m_impl->indexes[s])
            all.push_back({s, entry});
    }
    if (shuffle) {
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + epoch);
        std::shuffle(all.begin(), all.end(), rng);
    }
    const std::size_t perRank = all.size() / static_cast<std::size_t>(worldSize);
    std::vector<RecordRef> mine;
    mine.reserve(perRank);
    for (std::size_t k = 0; k < perRank; ++k)
        mine.push_back(all[k * static_cast<std::size_t>(worldSize) + static_cast<std::size_t>(rank)]);
    return mine;
}

ImageExample ShardDataset::read(const RecordRef &ref)
{
    if (ref.shard >= m_impl->readers.size())
        throw EngineError(m_impl->dir + ": no shard " + std::to_string(ref.shard));
    std::unique_ptr<TFRecordReader> &reader = m_impl->readers[ref.shard];
    const std::string &path = m_impl->paths[ref.shard];
    if (!reader)
        reader = std::make_unique<TFRecordReader>(path);
    return parseImageExample(reader->readAt(ref.entry), path + ": record at byte offset " + std::to_string(ref.entry.offset));
}

} // namespace lathe::engine
