#pragma once

#include "engine/base/task_control.h"

#include <string>
#include <vector>

namespace lathe::engine {

// Where Debian's dataset-fashion-mnist package puts the IDX files.
inline constexpr const char *kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// The ten Fashion-MNIST classes as folder names ('/' and ' ' of the official names replaced).
const std::vector<std::string> &fashionMnistClasses();

struct DemoDataOptions
{
    std::string outDir;
    std::string sourceDir = kFashionMnistDir;
    int perClass = 100;     // training images per class
    int valPerClass = 0;    // validation images per class (0 writes no val split)
    int testPerClass = 20;  // test images per class (0 writes no test split)
};

struct DemoDataResult
{
    std::string outDir;
    std::vector<std::string> classes;
    int trainImages = 0;
    int valImages = 0;
    int testImages = 0;
};

// Writes real Fashion-MNIST images as PNG class folders: OUT/train/<class>/*.png,
// OUT/val/<class>/*.png and OUT/test/<class>/*.png, taking the first N images of each class in
// file order (validation: the next ones of the training file, after the training images). The
// folder appears complete or not at all: it is written under a temporary name and renamed.
// Throws EngineError (missing package, malformed file, OUT not empty) or Cancelled.
DemoDataResult writeDemoData(const DemoDataOptions &options, const TaskControl &control = {});

} // namespace lathe::engine
