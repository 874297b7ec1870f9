#include "engine/dataset/shard_dataset.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/formats/tfrecord_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

namespace lathe::engine {

struct ShardDataset::Impl
{
    std::string dir;
    DatasetManifest manifest;
    std::vector<std::string> paths;                        // per shard
    std::vector<std::vector<TFRecordIndexEntry>> indexes; // per shard
    std::vector<std::unique_ptr<TFRecordReader>> readers; // opened on first use
    std::optional<std::vector<std::vector<RecordMeta>>> meta; // recordMeta(), made on first use
};

namespace {

constexpr const char *kRecordTable = "records.tsv";

std::uint64_t keyOf(const std::string &sha256Hex, const std::string &where)
{
    if (sha256Hex.size() < 16)
        throw EngineError(where + ": image/key/sha256 is not a SHA-256 (\"" + sha256Hex + "\")");
    std::uint64_t key = 0;
    for (int i = 0; i < 16; ++i) {
        const char c = sha256Hex[std::size_t(i)];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0)
            throw EngineError(where + ": image/key/sha256 is not lower-case hex (\"" + sha256Hex + "\")");
        key = key << 4 | std::uint64_t(digit);
    }
    return key;
}

// records.tsv: a first line naming the manifest's creation time and record count, then one
// "key-hex<TAB>label,label..." line per record, shard by shard. A cache: anything that does not
// match the dataset exactly is ignored and made again.
std::string recordTableText(const DatasetManifest &m, const std::vector<std::vector<RecordMeta>> &meta)
{
    std::ostringstream out;
    out << "lathe-records 1\t" << m.created << '\t' << m.records << '\n';
    char hex[17];
    for (const std::vector<RecordMeta> &shard : meta)
        for (const RecordMeta &r : shard) {
            std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r.key));
            out << hex << '\t';
            for (std::size_t i = 0; i < r.labels.size(); ++i)
                out << (i ? "," : "") << r.labels[i];
            out << '\n';
        }
    return out.str();
}

std::optional<std::vector<std::vector<RecordMeta>>> readRecordTable(const std::string &path, const DatasetManifest &m)
{
    std::ifstream in(path);
    std::string line;
    std::ostringstream header;
    header << "lathe-records 1\t" << m.created << '\t' << m.records;
    if (!in || !std::getline(in, line) || line != header.str())
        return std::nullopt;
    std::vector<std::vector<RecordMeta>> meta(m.shards.size());
    for (std::size_t s = 0; s < m.shards.size(); ++s) {
        meta[s].resize(m.shards[s].records);
        for (RecordMeta &r : meta[s]) {
            if (!std::getline(in, line))
                return std::nullopt;
            const std::size_t tab = line.find('\t');
            if (tab != 16)
                return std::nullopt;
            try {
                r.key = keyOf(line.substr(0, 16), path);
                std::istringstream labels(line.substr(17));
                for (std::string label; std::getline(labels, label, ',');)
                    r.labels.push_back(std::stoll(label));
            } catch (const std::exception &) {
                return std::nullopt;
            }
        }
    }
    if (std::getline(in, line))
        return std::nullopt;
    return meta;
}

// Uniform in [0, 1) from 53 bits: the same numbers with every standard library (unlike
// std::uniform_real_distribution), so a seed draws the same epoch everywhere.
double unitUniform(std::mt19937_64 &rng)
{
    return double(rng() >> 11) * 0x1.0p-53;
}

} // namespace

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

const std::vector<std::vector<RecordMeta>> &ShardDataset::recordMeta() const
{
    Impl &d = *m_impl;
    if (d.meta)
        return *d.meta;
    const std::string cachePath = (fs::path(d.dir) / kRecordTable).string();
    d.meta = readRecordTable(cachePath, d.manifest);
    if (d.meta)
        return *d.meta;
    std::vector<std::vector<RecordMeta>> meta(d.manifest.shards.size());
    for (std::size_t s = 0; s < meta.size(); ++s) {
        TFRecordReader reader(d.paths[s]);
        for (const TFRecordIndexEntry &entry : d.indexes[s]) {
            const std::string where = d.paths[s] + ": record at byte offset " + std::to_string(entry.offset);
            const ImageExample example = parseImageExample(reader.readAt(entry), where);
            meta[s].push_back({keyOf(example.sha256, where),
                               example.labels.empty() ? std::vector<std::int64_t>{example.label} : example.labels});
        }
    }
    try {
        writeFileAtomically(cachePath, recordTableText(d.manifest, meta));
    } catch (const EngineError &) {
        // A read-only dataset folder: the table is made again next time.
    }
    d.meta = std::move(meta);
    return *d.meta;
}

std::uint64_t ShardDataset::size(const std::string &split, const RecordSelection &selection) const
{
    if (selection.folds == 0)
        return size(split);
    const std::vector<std::vector<RecordMeta>> &meta = recordMeta();
    std::uint64_t n = 0;
    for (std::size_t s = 0; s < meta.size(); ++s)
        if (m_impl->manifest.shards[s].split == split)
            for (const RecordMeta &r : meta[s])
                n += (int(r.key % std::uint64_t(selection.folds)) + 1 == selection.fold) == selection.heldOut;
    return n;
}

std::vector<RecordRef> ShardDataset::epochOrder(const std::string &split, std::uint64_t seed, std::uint64_t epoch,
                                                int rank, int worldSize, bool shuffle,
                                                const RecordSelection &selection) const
{
    if (worldSize < 1 || rank < 0 || rank >= worldSize)
        throw EngineError("rank " + std::to_string(rank) + " is outside a world of " + std::to_string(worldSize));
    if (selection.folds < 0 || (selection.folds > 0 && (selection.folds < 2 || selection.fold < 1 || selection.fold > selection.folds)))
        throw EngineError("fold " + std::to_string(selection.fold) + " of " + std::to_string(selection.folds)
                          + ": folds must be 2 or more and the fold between 1 and folds");
    const bool weighted = selection.sampler != "none";
    if (weighted && selection.sampler != "inverse" && selection.sampler != "sqrt")
        throw EngineError("sampler \"" + selection.sampler + "\": expected none, inverse or sqrt");
    if (weighted && !shuffle)
        throw EngineError("sampler \"" + selection.sampler + "\" draws at random: it needs shuffle");
    const std::vector<std::vector<RecordMeta>> *meta = selection.selectsAll() ? nullptr : &recordMeta();
    std::vector<RecordRef> all;
    std::vector<const RecordMeta *> allMeta;
    for (std::uint32_t s = 0; s < m_impl->manifest.shards.size(); ++s) {
        if (m_impl->manifest.shards[s].split != split)
            continue;
        for (std::size_t i = 0; i < m_impl->indexes[s].size(); ++i) {
            if (meta) {
                const RecordMeta &r = (*meta)[s][i];
                if (selection.folds > 0
                    && (int(r.key % std::uint64_t(selection.folds)) + 1 == selection.fold) != selection.heldOut)
                    continue;
                allMeta.push_back(&r);
            }
            all.push_back({s, m_impl->indexes[s][i]});
        }
    }
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + epoch);
    if (weighted && !all.empty()) {
        // Each record's weight from its (rarest) label's count among the selected records.
        std::map<std::int64_t, std::uint64_t> counts;
        for (const RecordMeta *r : allMeta)
            for (std::int64_t label : r->labels)
                ++counts[label];
        std::vector<double> cumulative(all.size());
        double total = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::uint64_t n = 0;
            for (std::int64_t label : allMeta[i]->labels)
                n = n == 0 ? counts[label] : std::min(n, counts[label]);
            const double w = n == 0 ? 0.0 : selection.sampler == "inverse" ? 1.0 / double(n) : 1.0 / std::sqrt(double(n));
            total += w;
            cumulative[i] = total;
        }
        std::vector<RecordRef> drawn(all.size());
        for (RecordRef &ref : drawn) {
            const double u = unitUniform(rng) * total;
            const std::size_t k = std::size_t(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
            ref = all[std::min(k, all.size() - 1)];
        }
        all = std::move(drawn);
    } else if (shuffle) {
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
