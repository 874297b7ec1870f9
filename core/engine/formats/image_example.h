#pragma once

#include <cstdint>
#include <string>

namespace lathe::engine {

// One image record of a shard: the fields of a tf.train.Example under the TF-slim keys
// image/encoded, image/format, image/class/label, image/class/text, image/height,
// image/width, image/channels, image/filename and image/key/sha256.
struct ImageExample
{
    std::string encoded; // the image file's bytes
    std::string format;  // "jpeg", "png", ...
    std::int64_t label = 0;
    std::string classText;
    int height = 0;
    int width = 0;
    int channels = 0;
    std::string filename;
    std::string sha256; // lower-case hex of encoded

    bool operator==(const ImageExample &other) const;
};

// The serialized tf.train.Example. Serialization is deterministic (features sorted by key),
// so the same images always give byte-identical shards and checksums.
std::string serializeImageExample(const ImageExample &example);

// Parses a serialized tf.train.Example. Throws EngineError, prefixed with where (e.g. the
// shard and the record's offset), when the bytes are not an Example, or a key is missing,
// has another type than the TF-slim one, does not hold exactly one value, or holds a
// height/width/channels value out of range. Keys beyond the TF-slim ones are ignored.
ImageExample parseImageExample(const std::string &record, const std::string &where = "record");

} // namespace lathe::engine
