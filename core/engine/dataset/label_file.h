#pragma once

#include "engine/base/parse_limits.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// One usable row of a labels file: an image and its label set.
struct LabelsRow
{
    std::string path;                // relative to the image folder, '/'-separated, normalized
    std::vector<std::string> labels; // sorted, unique, none empty
    int line = 0;                    // 1-based line the row starts on
};

// A row refused with its reason; the rest of the file is still read.
struct LabelsRowError
{
    int line = 0;
    std::string reason; // e.g. "absolute path /data/a.jpg (paths are relative to the image folder)"
};

struct LabelsFile
{
    std::string path;                   // as given
    std::vector<LabelsRow> rows;        // in file order
    std::vector<LabelsRowError> errors; // in file order
};

// Reads a multi-label labels file (docs/formats.md, "Labels files"):
//   CSV: a header naming the columns `path` and `labels` (case-insensitive, any order; other
//   columns are ignored), then one row per image, RFC 4180 quoting; the labels are separated
//   by ';' or '|', whitespace around each trimmed;
//   JSON lines (.jsonl or .json, or a file whose first character is '{'): one object per line,
//   {"path": "...", "labels": ["dog", "outdoor"]}.
// Blank lines are skipped; a UTF-8 byte order mark is dropped. Duplicate labels in one row
// collapse into one. Every bad row is collected in errors, never stopping the read: an empty
// path, an absolute one or one with a '..' component, no labels, an empty label between
// separators, a second row for the same path (naming the first one's line), a malformed line.
// Whether a row's file exists is the scan's to say. Throws EngineError naming the file when
// the file as a whole is unusable: missing, over a limit, a CSV without the two columns.
LabelsFile readLabelsFile(const std::string &path, std::uint64_t maxBytes = parse_limits::kLabelsFileBytes.value,
                          std::uint64_t maxRows = parse_limits::kLabelsFileRows.value);

} // namespace lathe::engine
