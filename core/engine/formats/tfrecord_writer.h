#pragma once

#include "engine/formats/tfrecord_index.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lathe::engine {

// What finish() leaves on disk.
struct TFRecordShard
{
    std::string path;      // the shard, under its final name
    std::string indexPath; // path + ".idx"
    std::uint64_t bytes = 0;
    std::uint64_t records = 0;
    std::string sha256; // lower-case hex of the shard's bytes
    std::vector<TFRecordIndexEntry> index;
};

// Writes one TFRecord shard: each record framed as u64 LE length, masked CRC32C of those 8
// bytes, the data, masked CRC32C of the data. Both the shard and its DALI-style index are
// written under temporary names in the same folder and only appear under their final names
// in finish() (fsync, then rename), so a killed process never leaves a half shard that looks
// complete. Destroying a writer without finish() removes its temporary files.
// Failures throw EngineError naming the shard and the reason.
class TFRecordWriter
{
public:
    explicit TFRecordWriter(const std::string &path);
    ~TFRecordWriter();
    TFRecordWriter(const TFRecordWriter &) = delete;
    TFRecordWriter &operator=(const TFRecordWriter &) = delete;

    void write(const void *data, std::size_t size);
    void write(std::string_view record) { write(record.data(), record.size()); }

    std::uint64_t records() const;
    std::uint64_t bytes() const; // framed bytes written so far

    TFRecordShard finish();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
