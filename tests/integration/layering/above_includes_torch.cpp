// Deliberate violation: an engine header that exposes LibTorch, included above the engine.
#include "engine/run/checkpoint_io.h"
