#pragma once

#include "engine/models/model_spec.h"

namespace lathe::engine {

// Builds the model a spec describes (random initialisation: no weights are read), applies its
// freezing policy as at epoch 0 and counts parameters per stage. Throws EngineError for an
// unknown architecture or invalid options; custom TorchScript backbones are not summarised here.
ModelSummary summarizeModel(const ModelSpec &spec);

} // namespace lathe::engine
