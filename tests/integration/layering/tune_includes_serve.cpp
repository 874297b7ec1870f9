// Deliberate violation: tune/ reaching up to serve/, the newest subsystems. Must not compile.
#include "engine/serve/model_registry.h"
