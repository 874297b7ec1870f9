// Allowed: formats/ uses base/ and itself.
#include "engine/base/sha256.h"
#include "engine/formats/tfrecord_reader.h"
