#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.
//
// safetensors (https://github.com/huggingface/safetensors): an 8-byte little-endian header
// size N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__":
// {string: string}}, then the byte buffer the offsets point into.

#include <torch/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lathe::engine {

// Tensors with their names, in file order (safetensors: sorted by name).
using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Reads every tensor (CPU, contiguous, owning its memory). Throws EngineError naming the file
// and the reason for anything the format does not allow: the header is checked completely
// before any tensor memory is allocated, and no allocation follows a size the file cannot hold.
NamedTensors readSafetensors(const std::string &path, std::map<std::string, std::string> *metadata = nullptr);

// Writes the tensors (any device, layout or stride; keys sorted) atomically
// (writeFileAtomically, engine/base/file_io.h). Throws EngineError for duplicate or empty names,
// dtypes safetensors cannot hold, or I/O failures.
void writeSafetensors(const std::string &path, const NamedTensors &tensors,
                      const std::map<std::string, std::string> &metadata = {});

} // namespace lathe::engine
