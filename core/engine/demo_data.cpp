#include "demo_data.h"

#include "idx_file.h"
#include "staging_folder.h"

#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

struct Split
{
    std::string name;
    std::string imagesFile;
    std::string labelsFile;
    int perClass = 0;
    IdxImages images;
    std::vector<std::uint8_t> labels;
    std::vector<int> chosen; // indices into the IDX file, grouped by class
};

void loadSplit(Split &split, const std::string &sourceDir)
{
    const std::string imagesPath = (fs::path(sourceDir) / split.imagesFile).string();
    const std::string labelsPath = (fs::path(sourceDir) / split.labelsFile).string();
    split.images = readIdxImages(imagesPath);
    split.labels = readIdxLabels(labelsPath);
    if (split.labels.size() != static_cast<std::size_t>(split.images.count))
        throw EngineError(labelsPath + ": holds " + std::to_string(split.labels.size()) + " labels but "
                          + imagesPath + " holds " + std::to_string(split.images.count) + " images");

    const int classCount = static_cast<int>(fashionMnistClasses().size());
    std::vector<std::vector<int>> byClass(classCount);
    for (std::size_t i = 0; i < split.labels.size(); ++i) {
        if (split.labels[i] >= classCount)
            throw EngineError(labelsPath + ": label " + std::to_string(split.labels[i]) + " at index "
                              + std::to_string(i) + " is outside 0.." + std::to_string(classCount - 1));
        byClass[split.labels[i]].push_back(static_cast<int>(i));
    }
    for (int c = 0; c < classCount; ++c) {
        if (static_cast<int>(byClass[c].size()) < split.perClass)
            throw EngineError(split.name + " split: " + std::to_string(split.perClass) + " images per class asked, but class '"
                              + fashionMnistClasses()[c] + "' has only " + std::to_string(byClass[c].size()));
        split.chosen.insert(split.chosen.end(), byClass[c].begin(), byClass[c].begin() + split.perClass);
    }
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
    if (options.testPerClass < 0)
        throw EngineError("demo data: test images per class must not be negative, got "
                          + std::to_string(options.testPerClass));
    std::error_code ec;
    if (!fs::is_directory(options.sourceDir, ec))
        throw EngineError(options.sourceDir + ": Fashion-MNIST not found; install Debian's dataset-fashion-mnist "
                          "package (scripts/install-deps.sh does)");

    StagingFolder::checkTarget(fs::absolute(options.outDir)); // before the slow part

    std::vector<Split> splits;
    splits.push_back({"train", "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", options.perClass, {}, {}, {}});
    if (options.testPerClass > 0)
        splits.push_back({"test", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", options.testPerClass, {}, {}, {}});
    control.report(0.0, "reading Fashion-MNIST");
    for (Split &split : splits) {
        control.checkCancel();
        loadSplit(split, options.sourceDir);
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
            const std::size_t pixelsPerImage = std::size_t(split.images.rows) * split.images.cols;
            for (int index : split.chosen) {
                control.checkCancel();
                const cv::Mat image(split.images.rows, split.images.cols, CV_8UC1,
                                    const_cast<std::uint8_t *>(split.images.pixels.data() + index * pixelsPerImage));
                char name[32];
                std::snprintf(name, sizeof name, "%s-%05d.png", split.name.c_str(), index);
                const fs::path file = partial / split.name / result.classes[split.labels[index]] / name;
                if (!cv::imwrite(file.string(), image))
                    throw EngineError(file.string() + ": cannot write PNG (disk full or no permission?)");
                ++done;
                control.report(double(done) / double(total), "writing " + split.name + " images");
            }
            (split.name == "train" ? result.trainImages : result.testImages) = static_cast<int>(split.chosen.size());
        }
        staging.commit();
    }
    control.report(1.0, "done");
    return result;
}

} // namespace lathe::engine
