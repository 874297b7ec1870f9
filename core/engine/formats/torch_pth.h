#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.

#include "engine/formats/safetensors.h"

#include <string>

namespace lathe::engine {

// Reads the tensors of a state dict saved with torch.save (the zip format of PyTorch >= 1.6:
// <archive>/data.pkl + <archive>/data/<key> storages), e.g. torchvision's checkpoints.
//
// LibTorch's own torch::pickle_load fails on these (the OrderedDict's _metadata), and Python's
// pickle runs code, so data.pkl is read by a small unpickler that builds only plain values
// (dicts, lists, tuples, numbers, strings) and tensors, and refuses every global outside
// collections.OrderedDict, torch._utils._rebuild_tensor_v2 / _rebuild_parameter and the
// torch.*Storage types, naming it.
//
// The top level is a dict of tensors; a checkpoint dict whose "state_dict" or "model" entry is
// that dict is accepted too. Entries that are not tensors are skipped. Tensors come back
// contiguous, on the CPU, in file order. Throws EngineError naming the file and the reason for
// anything else: not a zip, truncated or compressed records, bad pickle, unknown globals,
// missing storages, views beyond their storage.
NamedTensors readTorchPth(const std::string &path);

} // namespace lathe::engine
