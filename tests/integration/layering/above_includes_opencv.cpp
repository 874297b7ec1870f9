// Deliberate violation: OpenCV above the engine.
#include <opencv2/core.hpp>
