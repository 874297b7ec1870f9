// Allowed: the workspace and widgets use the engine's torch-free headers.
#include "engine/run/run_config.h"
#include "engine/training/trainer.h"

#include <QString>
