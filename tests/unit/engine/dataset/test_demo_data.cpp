#include "engine/dataset/demo_data.h"
#include "engine/formats/idx_file.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

using namespace lathe;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

int countFiles(const fs::path &dir)
{
    int n = 0;
    for (const auto &entry : fs::directory_iterator(dir))
        n += entry.is_regular_file() ? 1 : 0;
    return n;
}

// Fashion-MNIST copied into dir, with the training labels replaced by bytes.
void writeSource(const fs::path &dir, const std::vector<std::uint8_t> &trainLabels)
{
    fs::create_directories(dir);
    for (const char *name : {"train-images-idx3-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
        fs::copy_file(fs::path(engine::kFashionMnistDir) / name, dir / name);
    test::writeGz((dir / "train-labels-idx1-ubyte.gz").string(), trainLabels);
}

} // namespace

TEST(DemoData, WritesTenClassFoldersOfRealFashionMnistPngs)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.perClass = 7;
    options.testPerClass = 3;
    std::vector<double> fractions;
    engine::TaskControl control;
    control.progress = [&](double f, const std::string &) { fractions.push_back(f); };

    const engine::DemoDataResult result = engine::writeDemoData(options, control);
    EXPECT_EQ(result.trainImages, 70);
    EXPECT_EQ(result.testImages, 30);
    ASSERT_EQ(result.classes.size(), 10u);
    EXPECT_EQ(result.classes.front(), "T-shirt_top");
    EXPECT_EQ(result.classes.back(), "Ankle_boot");

    for (const std::string &cls : result.classes) {
        EXPECT_EQ(countFiles(dir.path() / "demo" / "train" / cls), 7) << cls;
        EXPECT_EQ(countFiles(dir.path() / "demo" / "test" / cls), 3) << cls;
    }
    // Exactly train/ and test/ at the top, and no temporary folder left beside it.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "demo"), {}), 2);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), {}), 1);

    // The PNG is the IDX image, pixel for pixel: training image 0 is an ankle boot.
    const engine::IdxImages images =
        engine::readIdxImages(std::string(engine::kFashionMnistDir) + "/train-images-idx3-ubyte.gz");
    const cv::Mat png = cv::imread((dir.path() / "demo/train/Ankle_boot/train-00000.png").string(), cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(png.empty());
    EXPECT_EQ(png.rows, 28);
    EXPECT_EQ(png.cols, 28);
    EXPECT_EQ(png.channels(), 1);
    EXPECT_TRUE(std::equal(images.pixels.begin(), images.pixels.begin() + 784, png.data));

    ASSERT_FALSE(fractions.empty());
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
}

TEST(DemoData, ValidationImagesFollowTheTrainingOnesInTheTrainingFile)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.perClass = 2;
    options.valPerClass = 3;
    options.testPerClass = 1;
    const engine::DemoDataResult result = engine::writeDemoData(options);
    EXPECT_EQ(result.trainImages, 20);
    EXPECT_EQ(result.valImages, 30);
    EXPECT_EQ(result.testImages, 10);

    // Per class: training images are the first two of the training file, validation the next three.
    const std::vector<std::uint8_t> labels =
        engine::readIdxLabels(std::string(engine::kFashionMnistDir) + "/train-labels-idx1-ubyte.gz");
    for (std::size_t c = 0; c < result.classes.size(); ++c) {
        std::vector<std::string> expectTrain, expectVal;
        for (std::size_t i = 0; i < labels.size() && expectVal.size() < 3; ++i) {
            if (labels[i] != c)
                continue;
            char name[32];
            const bool train = expectTrain.size() < 2;
            std::snprintf(name, sizeof name, "%s-%05d.png", train ? "train" : "val", int(i));
            (train ? expectTrain : expectVal).push_back(name);
        }
        for (const auto &[split, expected] : {std::pair{"train", expectTrain}, std::pair{"val", expectVal}}) {
            std::vector<std::string> found;
            for (const auto &entry : fs::directory_iterator(dir.path() / "demo" / split / result.classes[c]))
                found.push_back(entry.path().filename().string());
            std::sort(found.begin(), found.end());
            EXPECT_EQ(found, expected) << split << '/' << result.classes[c];
        }
    }

    // More than the training file has left after the training images is refused by name.
    TempDir other;
    options.outDir = other.file("demo");
    options.perClass = 5990;
    options.valPerClass = 20;
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("val split: 20 images per class asked after the first 5990"),
                  std::string::npos)
            << e.what();
    }
}

TEST(DemoData, ZeroTestImagesWritesOnlyTrain)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.perClass = 1;
    options.testPerClass = 0;
    const auto result = engine::writeDemoData(options);
    EXPECT_EQ(result.testImages, 0);
    EXPECT_TRUE(fs::exists(dir.path() / "demo/train"));
    EXPECT_FALSE(fs::exists(dir.path() / "demo/test"));
}

TEST(DemoData, RefusesANonEmptyFolderAndLeavesItAlone)
{
    TempDir dir;
    fs::create_directories(dir.path() / "demo");
    test::writeRaw(dir.file("demo/keep.txt"), {'h', 'i'});
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("not empty"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::readRaw(dir.file("demo/keep.txt")), (std::vector<std::uint8_t>{'h', 'i'}));
    EXPECT_EQ(countFiles(dir.path() / "demo"), 1);
}

TEST(DemoData, CancelLeavesNothingBehind)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.perClass = 50;
    engine::TaskControl control;
    int reports = 0;
    control.progress = [&](double, const std::string &) {
        if (++reports == 20)
            control.cancel.cancel();
    };
    EXPECT_THROW(engine::writeDemoData(options, control), engine::Cancelled);
    EXPECT_TRUE(fs::is_empty(dir.path())) << "partial output left in " << dir.path();
}

TEST(DemoData, MissingPackageSaysWhatToInstall)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.sourceDir = dir.file("no-such-folder");
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("dataset-fashion-mnist"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir.path() / "demo"));
}

TEST(DemoData, MalformedLabelsAreNamed)
{
    TempDir dir;
    std::vector<std::uint8_t> labels(60000, 3);
    labels[123] = 42;
    writeSource(dir.path() / "src", test::idxLabels(labels));
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.sourceDir = dir.file("src");
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("train-labels-idx1-ubyte.gz"), std::string::npos) << message;
        EXPECT_NE(message.find("label 42 at index 123"), std::string::npos) << message;
    }
    EXPECT_FALSE(fs::exists(dir.path() / "demo"));
}

TEST(DemoData, CountMismatchBetweenImagesAndLabelsIsNamed)
{
    TempDir dir;
    writeSource(dir.path() / "src", test::idxLabels(std::vector<std::uint8_t>(100, 1)));
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.sourceDir = dir.file("src");
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("holds 100 labels but"), std::string::npos) << e.what();
    }
}

TEST(DemoData, AskingForMoreImagesThanAClassHasIsRefused)
{
    TempDir dir;
    engine::DemoDataOptions options;
    options.outDir = dir.file("demo");
    options.perClass = 1;
    options.testPerClass = 1001;
    try {
        engine::writeDemoData(options);
        FAIL() << "expected an error";
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("has only 1000"), std::string::npos) << e.what();
    }
    options.perClass = 0;
    EXPECT_THROW(engine::writeDemoData(options), engine::EngineError);
}
