// Deliberate violation: formats/ reaching up to training/. Must not compile.
#include "engine/training/trainer.h"
