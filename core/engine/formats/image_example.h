#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// One image record of a shard: the fields of a tf.train.Example under the TF-slim keys
// image/encoded, image/format, image/class/label, image/class/text, image/height,
// image/width, image/channels, image/filename and image/key/sha256.
//
// A multi-label record holds its label set in image/class/label (an int64 list) and the class
// names in image/class/text (a bytes list of the same length, same order): what tf.data reads
// with tf.io.VarLenFeature(tf.int64). A single-label record holds one value in each.
struct ImageExample
{
    std::string encoded; // the image file's bytes
    std::string format;  // "jpeg", "png", ...
    // Single label. Parsing sets it to the first of image/class/label's values.
    std::int64_t label = 0;
    std::string classText;
    // Multi-label: the label set, sorted ascending and unique, with the class names in the
    // same order. When non-empty, serialization writes these lists instead of label and
    // classText (which are then ignored); when empty, exactly the single values, so a
    // single-label record is byte for byte what it was before multi-label existed. Parsing
    // always fills them, with one element for a single-label record.
    std::vector<std::int64_t> labels;
    std::vector<std::string> classTexts;
    int height = 0;
    int width = 0;
    int channels = 0;
    std::string filename;
    std::string sha256; // lower-case hex of encoded

    // The labels the record holds, as serialization writes them: labels/classTexts when
    // labels is non-empty, else the single label/classText.
    std::vector<std::int64_t> labelSet() const;
    std::vector<std::string> classTextSet() const;

    // Equal when they serialize to the same record (a single label equals a one-element set).
    bool operator==(const ImageExample &other) const;
};

// The serialized tf.train.Example. Serialization is deterministic (features sorted by key),
// so the same images always give byte-identical shards and checksums.
std::string serializeImageExample(const ImageExample &example);

// Parses a serialized tf.train.Example. Throws EngineError, prefixed with where (e.g. the
// shard and the record's offset), when the bytes are not an Example, or a key is missing,
// has another type than the TF-slim one, does not hold exactly one value (image/class/label
// and image/class/text: one or more, as many in both), or holds a height/width/channels value
// out of range. Keys beyond the TF-slim ones are ignored. Whether a label set is sorted,
// unique and within the dataset's classes is the dataset's to check (verifyDataset).
ImageExample parseImageExample(const std::string &record, const std::string &where = "record");

} // namespace lathe::engine
