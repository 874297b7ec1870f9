#pragma once

#include <cstdint>

namespace lathe::engine {

// One line of a DALI-style TFRecord index (`{shard}.idx`, "offset size" per record): the
// byte offset of a record in its shard and its full framed size (8 + 4 + length + 4).
struct TFRecordIndexEntry
{
    std::uint64_t offset = 0;
    std::uint64_t size = 0;

    bool operator==(const TFRecordIndexEntry &other) const { return offset == other.offset && size == other.size; }
};

} // namespace lathe::engine
