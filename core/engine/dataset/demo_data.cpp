#include "engine/dataset/demo_data.h"

#include "engine/base/staging_folder.h"
#include "engine/formats/idx_file.h"

#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

// One IDX image/label file pair of the source, with its indices grouped by class.
struct Source
{
    std::string imagesPath;
    std::string labelsPath;
    IdxImages images;
    std::vector<std::uint8_t> labels;
    std::vector<std::vector<int>> byClass;
};

Source loadSource(const std::string &sourceDir, const std::string &imagesFile, const std::string &labelsFile)
{
    Source source;
    source.imagesPath = (fs::path(sourceDir) / imagesFile).string();
    source.labelsPath = (fs::path(sourceDir) / labelsFile).string();
    source.images = readIdxImages(source.imagesPath);
    source.labels = readIdxLabels(source.labelsPath);
    if (source.labels.size() != static_cast<std::size_t>(source.images.count))
        throw EngineError(source.labelsPath + ": holds " + std::to_string(source.labels.size()) + " labels but "
                          + source.imagesPath + " holds " + std::to_string(source.images.count) + " images");

    const int classCount = static_cast<int>(fashionMnistClasses().size());
    source.byClass.resize(classCount);
    for (std::size_t i = 0; i < source.labels.size(); ++i) {
        if (source.labels[i] >= classCount)
            throw EngineError(source.labelsPath + ": label " + std::to_string(source.labels[i]) + " at index "
                              + std::to_string(i) + " is outside 0.." + std::to_string(classCount - 1));
        source.byClass[source.labels[i]].push_back(static_cast<int>(i));
    }
    return source;
}

struct Split
{
    std::string name;
    const Source *source = nullptr;
    std::vector<int> chosen; // indices into the source's IDX file, grouped by class
};

// Images first..first+perClass-1 of each class, in file order.
Split chooseSplit(const std::string &name, const Source &source, int first, int perClass)
{
    Split split{name, &source, {}};
    const std::vector<std::string> &classes = fashionMnistClasses();
    for (std::size_t c = 0; c < classes.size(); ++c) {
        const std::vector<int> &indices = source.byClass[c];
        if (static_cast<int>(indices.size()) < first + perClass)
            throw EngineError(name + " split: " + std::to_string(perClass) + " images per class asked"
                              + (first ? " after the first " + std::to_string(first) : std::string()) + ", but class '"
                              + classes[c] + "' has only " + std::to_string(indices.size()));
        split.chosen.insert(split.chosen.end(), indices.begin() + first, indices.begin() + first + perClass);
    }
    return split;
}

} // namespace

const std::vector<std::string> &fashionMnistClasses()
{
    static const std::vector<std::string> classes = {"T-shirt_top", "Trouser", "Pullover", "Dress", "Coat",
                                                     "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle_boot"};
    return classes;
}

DemoDataResult writeDemoData(const DemoDataOptions &options, const TaskControl &control)
{
    if (options.outDir.empty())
        throw EngineError("demo data: no output folder given");
    if (options.perClass < 1)
        throw EngineError("demo data: images per class must be at least 1, got " + std::to_string(options.perClass));
    if (options.valPerClass < 0 || options.testPerClass < 0)
        throw EngineError("demo data: validation and test images per class must not be negative, got "
                          + std::to_string(options.valPerClass) + " and " + std::to_string(options.testPerClass));
    std::error_code ec;
    if (!fs::is_directory(options.sourceDir, ec))
        throw EngineError(options.sourceDir + ": Fashion-MNIST not found; install Debian's dataset-fashion-mnist "
                          "package (scripts/install-deps.sh does)");

    StagingFolder::checkTarget(fs::absolute(options.outDir)); // before the slow part

    control.report(0.0, "reading Fashion-MNIST");
    const Source trainSource =
        loadSource(options.sourceDir, "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz");
    std::vector<Split> splits;
    splits.push_back(chooseSplit("train", trainSource, 0, options.perClass));
    // Validation images come from the training file, after the training ones: Fashion-MNIST
    // has no validation set of its own, and its test set stays the test split.
    if (options.valPerClass > 0)
        splits.push_back(chooseSplit("val", trainSource, options.perClass, options.valPerClass));
    control.checkCancel();
    Source testSource;
    if (options.testPerClass > 0) {
        testSource = loadSource(options.sourceDir, "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");
        splits.push_back(chooseSplit("test", testSource, 0, options.testPerClass));
    }

    StagingFolder staging(options.outDir);
    const fs::path &partial = staging.path();
    DemoDataResult result;
    result.outDir = staging.finalPath().string();
    result.classes = fashionMnistClasses();
    {
        std::size_t total = 0;
        for (const Split &split : splits)
            total += split.chosen.size();
        std::size_t done = 0;
        for (const Split &split : splits) {
            for (const std::string &cls : result.classes) {
                fs::create_directories(partial / split.name / cls, ec);
                if (ec)
                    throw EngineError((partial / split.name / cls).string() + ": cannot create (" + ec.message() + ")");
            }
            const IdxImages &images = split.source->images;
            const std::size_t pixelsPerImage = std::size_t(images.rows) * images.cols;
            for (int index : split.chosen) {
                control.checkCancel();
                const cv::Mat image(images.rows, images.cols, CV_8UC1,
                                    const_cast<std::uint8_t *>(images.pixels.data() + index * pixelsPerImage));
                char name[32];
                std::snprintf(name, sizeof name, "%s-%05d.png", split.name.c_str(), index);
                const fs::path file = partial / split.name / result.classes[split.source->labels[index]] / name;
                if (!cv::imwrite(file.string(), image))
                    throw EngineError(file.string() + ": cannot write PNG (disk full or no permission?)");
                ++done;
                control.report(double(done) / double(total), "writing " + split.name + " images");
            }
            const int written = static_cast<int>(split.chosen.size());
            if (split.name == "train")
                result.trainImages = written;
            else if (split.name == "val")
                result.valImages = written;
            else
                result.testImages = written;
        }
        staging.commit();
    }
    control.report(1.0, "done");
    return result;
}

} // namespace lathe::engine
