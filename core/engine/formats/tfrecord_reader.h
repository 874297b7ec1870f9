#pragma once

#include "engine/base/parse_limits.h"
#include "engine/formats/tfrecord_index.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

// Reads the records of one TFRecord shard with bounded memory: a fixed read buffer plus the
// current record, never the whole shard. Every record's length CRC and data CRC are checked.
// A corrupt or truncated record throws EngineError naming the shard, the byte offset of the
// record and the reason (bad length CRC, bad data CRC, truncated record, record larger than
// the limit); the length is checked against the limit and the file size before anything is
// allocated for it. After a throw the position is inside the bad record: only seek() (to
// an offset from the index) makes next() meaningful again.
class TFRecordReader
{
public:
    // maxRecordBytes: tfrecord.record_bytes (engine/base/parse_limits.h) unless a test passes less.
    explicit TFRecordReader(const std::string &path,
                            std::uint64_t maxRecordBytes = parse_limits::kTfrecordRecordBytes.value);
    ~TFRecordReader();
    TFRecordReader(const TFRecordReader &) = delete;
    TFRecordReader &operator=(const TFRecordReader &) = delete;

    // The next record's data; false at the clean end of the shard.
    bool next(std::string &record);

    // Random access: the record at offset (which must start a record, as index entries do).
    // Reading continues from there: next() then returns the record after it.
    void seek(std::uint64_t offset);
    std::string readAt(std::uint64_t offset);
    // Also checks the record's framed size against the entry, so a stale index is caught.
    std::string readAt(const TFRecordIndexEntry &entry);

    const std::string &path() const;
    std::uint64_t fileSize() const;
    // Byte offset of the record next() returned last, and of the one it will return next.
    std::uint64_t lastOffset() const;
    std::uint64_t offset() const;

    // Parses a DALI-style index file ("offset size" per line). Throws EngineError naming the
    // file, the line number and the reason for anything malformed: not two unsigned numbers,
    // a size smaller than an empty record (16 bytes), records that overlap or go backwards, a
    // line longer than tfrecord.index_line_bytes.
    static std::vector<TFRecordIndexEntry> readIndex(const std::string &path);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
