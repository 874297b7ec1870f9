#pragma once

// The size and count limits that protect Lathe's parsers of files from strangers, stated once.
// Each has a stable name that its refusal message quotes ("x.safetensors: header is 120000001
// bytes, over the limit safetensors.header_bytes = 100000000") and docs/formats.md lists
// ("Limits"; test_engine_parse_limits keeps that table and this one equal). A limit marked
// "default" is the default of an option that can raise it; the others are fixed. Where a
// parser takes a limit as a parameter, it defaults to the value here (tests pass small ones).

#include "engine/base/engine_error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace lathe::engine {

struct ParseLimit
{
    const char *name; // stable: quoted by messages and docs
    std::uint64_t value;
    const char *unit;
    const char *why;
};

namespace parse_limits {

// Images (folder scans, lathe-cli predict, export calibration and checks).
inline constexpr ParseLimit kImageFileBytes{"image.file_bytes", std::uint64_t(1) << 30, "bytes",
                                            "an image file is read whole into memory before its header is checked"};
inline constexpr ParseLimit kImagePixels{
    "image.pixels", 178956970, "pixels",
    "decompression bombs: PIL's limit (2 x Image.MAX_IMAGE_PIXELS), checked from the header before any pixel memory"};
inline constexpr ParseLimit kImageSide{"image.side", 1000000, "pixels",
                                       "libpng's default width/height limit; keeps row sizes far from int overflow"};

// TFRecord shards and their DALI-style .idx files.
inline constexpr ParseLimit kTfrecordRecordBytes{
    "tfrecord.record_bytes", std::uint64_t(256) << 20, "bytes",
    "a record's declared length is allocated; one encoded image is far smaller"};
inline constexpr ParseLimit kTfrecordIndexLineBytes{
    "tfrecord.index_line_bytes", 127, "bytes", "an .idx line is two numbers; one endless line is refused, not slurped"};

// IDX files (MNIST and its relatives).
inline constexpr ParseLimit kIdxCount{"idx.count", 10000000, "items", "images or labels one IDX file may declare"};
inline constexpr ParseLimit kIdxSide{"idx.side", 4096, "pixels", "rows or columns of an IDX image"};
inline constexpr ParseLimit kIdxPayloadBytes{"idx.payload_bytes", std::uint64_t(2) << 30, "bytes",
                                             "pixels an IDX image file may declare (count x rows x columns)"};

// safetensors and torch.save (.pth) weights.
inline constexpr ParseLimit kSafetensorsHeaderBytes{"safetensors.header_bytes", 100000000, "bytes",
                                                    "the JSON header is read whole; the reference implementation's limit"};
inline constexpr ParseLimit kSafetensorsTensors{"safetensors.tensors", 65536, "tensors",
                                                "tensors one file may hold (a large model with its optimizer state has a few thousand)"};
inline constexpr ParseLimit kSafetensorsRank{"safetensors.rank", 64, "dimensions", "dimensions of one tensor's shape"};
inline constexpr ParseLimit kPthZipEntries{"pth.zip_entries", 65536, "entries",
                                           "entries of a torch.save zip (one per tensor storage, plus a few)"};
inline constexpr ParseLimit kPthPickleBytes{"pth.pickle_bytes", std::uint64_t(64) << 20, "bytes",
                                            "data.pkl is read whole; a state dict's pickle is a few hundred KiB"};
inline constexpr ParseLimit kPthPickleDepth{"pth.pickle_depth", 64, "levels",
                                            "containers nested inside each other in data.pkl; a state dict nests 3 deep"};

// JSON files: run configs and presets, model-zoo catalogs, dataset.json, checkpoint sidecars.
inline constexpr ParseLimit kJsonDepth{"json.depth", 64, "levels",
                                       "arrays and objects nested inside each other in any JSON file Lathe reads"};
inline constexpr ParseLimit kRunConfigBytes{"run_config.bytes", std::uint64_t(16) << 20, "bytes",
                                            "a run config or preset is a few KiB"};
inline constexpr ParseLimit kZooCatalogBytes{"zoo.catalog_bytes", std::uint64_t(16) << 20, "bytes",
                                             "a model-zoo catalog lists a few hundred weights"};
inline constexpr ParseLimit kDatasetManifestBytes{
    "dataset.manifest_bytes", std::uint64_t(256) << 20, "bytes",
    "dataset.json lists shards, counts and every skipped file with its reason"};
inline constexpr ParseLimit kCheckpointSidecarBytes{"checkpoint.sidecar_bytes", std::uint64_t(64) << 20, "bytes",
                                                    "a checkpoint's JSON sidecar (metrics, data position)"};

// Labels files of multi-label datasets (CSV or JSON lines, one row per image).
inline constexpr ParseLimit kLabelsFileBytes{"labels_file.bytes", std::uint64_t(256) << 20, "bytes",
                                             "a labels file is read whole; a million rows take ~50 MB"};
inline constexpr ParseLimit kLabelsFileRows{"labels_file.rows", 10000000, "rows",
                                            "rows (images) of one labels file; each becomes a scanned image"};

// ONNX files read back (INT8 checks, lathe-cli predict on an export).
inline constexpr ParseLimit kOnnxFileBytes{"onnx.file_bytes", std::uint64_t(2) << 30, "bytes",
                                           "protobuf refuses messages over 2 GiB; refused before reading"};

// TFLite files read back (the FP32 / FP16 / INT8 checks, lathe-cli predict on an export).
inline constexpr ParseLimit kTfliteFileBytes{"tflite.file_bytes", (std::uint64_t(2) << 30) - 2, "bytes",
                                             "FlatBuffers verify buffers under 2^31 - 1 bytes (32-bit signed offsets); refused before reading"};
inline constexpr ParseLimit kTfliteTensors{"tflite.tensors", 100000, "tensors",
                                           "tensors of the one subgraph; an image classifier has a few thousand"};
inline constexpr ParseLimit kTfliteOperators{"tflite.operators", 100000, "operators",
                                             "operators of the one subgraph; an image classifier has a few hundred to a few thousand"};
inline constexpr ParseLimit kTfliteRank{"tflite.rank", 8, "dimensions",
                                        "dimensions of one tensor's shape; TFLite's kernels take at most 6"};

// lathe-cli serve requests (defaults of its options).
inline constexpr ParseLimit kServeBodyBytes{"serve.body_bytes", 16000000, "bytes",
                                            "default: a request body, whatever its framing (--max-body-mb)"};
inline constexpr ParseLimit kServeJsonDepth{"serve.json_depth", 16, "levels",
                                            "a request body's nesting; an instance is at most 5 deep"};
inline constexpr ParseLimit kServeInstances{"serve.instances", 64, "instances",
                                            "default: instances per request (--max-instances)"};
inline constexpr ParseLimit kServeImagePixels{"serve.image_pixels", 40000000, "pixels",
                                              "default: pixels of one request image, from its header (--max-image-mpx)"};

// Every limit, in the order docs/formats.md lists them.
inline constexpr const ParseLimit *kAll[] = {
    &kImageFileBytes,      &kImagePixels,         &kImageSide,        &kTfrecordRecordBytes, &kTfrecordIndexLineBytes,
    &kIdxCount,            &kIdxSide,             &kIdxPayloadBytes,  &kSafetensorsHeaderBytes,
    &kSafetensorsTensors,  &kSafetensorsRank,     &kPthZipEntries,    &kPthPickleBytes,      &kPthPickleDepth,
    &kJsonDepth,           &kRunConfigBytes,      &kZooCatalogBytes,  &kDatasetManifestBytes,
    &kCheckpointSidecarBytes, &kLabelsFileBytes,  &kLabelsFileRows,    &kOnnxFileBytes,    &kTfliteFileBytes,  &kTfliteTensors,       &kTfliteOperators,
    &kTfliteRank,          &kServeBodyBytes,      &kServeJsonDepth,   &kServeInstances,      &kServeImagePixels,
};

} // namespace parse_limits

// "over the limit NAME = VALUE": what a refusal appends after saying what the file holds. value
// is the limit in force (the stated one unless a caller passed another).
inline std::string overLimit(const ParseLimit &limit, std::uint64_t value)
{
    return std::string("over the limit ") + limit.name + " = " + std::to_string(value);
}
inline std::string overLimit(const ParseLimit &limit)
{
    return overLimit(limit, limit.value);
}

// "ACTUAL UNIT, over the limit NAME = VALUE", e.g. "120000001 bytes, over the limit ...".
inline std::string limitReason(std::uint64_t actual, const ParseLimit &limit, std::uint64_t value)
{
    return std::to_string(actual) + " " + limit.unit + ", " + overLimit(limit, value);
}

// Throws EngineError "what: ACTUAL UNIT, over the limit NAME = VALUE" when actual > value.
inline void checkLimit(const std::string &what, std::uint64_t actual, const ParseLimit &limit, std::uint64_t value)
{
    if (actual > value)
        throw EngineError(what + ": " + limitReason(actual, limit, value));
}
inline void checkLimit(const std::string &what, std::uint64_t actual, const ParseLimit &limit)
{
    checkLimit(what, actual, limit, limit.value);
}

// How deep arrays and objects nest in JSON text (strings skipped): a linear scan that allocates
// nothing, so a hostile file costs neither recursion nor memory before it is refused.
inline std::uint64_t jsonNestingDepth(std::string_view text)
{
    std::uint64_t depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            if (ch == '\\')
                ++i;
            else if (ch == '"')
                inString = false;
        } else if (ch == '"') {
            inString = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > deepest)
                deepest = depth;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

// nlohmann::json has no depth limit of its own (its parser copes with any depth, but what is
// done with the value afterwards, comparing or printing, recurses): every JSON file is checked
// with this before it is parsed. Throws EngineError "where: JSON nested N levels deep, over the limit json.depth = 64".
inline void checkJsonDepth(std::string_view text, const std::string &where,
                           std::uint64_t maxDepth = parse_limits::kJsonDepth.value)
{
    const std::uint64_t depth = jsonNestingDepth(text);
    if (depth > maxDepth)
        throw EngineError(where + ": JSON nested " + std::to_string(depth) + " levels deep, "
                          + overLimit(parse_limits::kJsonDepth, maxDepth));
}

} // namespace lathe::engine
