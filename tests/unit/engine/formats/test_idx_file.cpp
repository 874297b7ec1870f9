#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/dataset/demo_data.h"
#include "engine/formats/idx_file.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace lathe;
using lathe::test::errorOf;
using lathe::test::TempDir;

namespace {

std::string realFile(const char *name)
{
    return std::string(engine::kFashionMnistDir) + "/" + name;
}

} // namespace

TEST(IdxFile, ReadsDebianFashionMnistTrainingSet)
{
    const engine::IdxImages images = engine::readIdxImages(realFile("train-images-idx3-ubyte.gz"));
    EXPECT_EQ(images.count, 60000);
    EXPECT_EQ(images.rows, 28);
    EXPECT_EQ(images.cols, 28);
    EXPECT_EQ(images.pixels.size(), 60000u * 28 * 28);
    const auto labels = engine::readIdxLabels(realFile("train-labels-idx1-ubyte.gz"));
    ASSERT_EQ(labels.size(), 60000u);
    EXPECT_EQ(*std::max_element(labels.begin(), labels.end()), 9);
    // Fashion-MNIST is balanced: 6000 training images per class.
    EXPECT_EQ(std::count(labels.begin(), labels.end(), 0), 6000);
    EXPECT_EQ(std::count(labels.begin(), labels.end(), 9), 6000);
    // The first training image is an ankle boot (label 9), with ink in its middle.
    EXPECT_EQ(labels[0], 9);
    EXPECT_GT(*std::max_element(images.pixels.begin(), images.pixels.begin() + 784), 200);
}

TEST(IdxFile, ReadsPlainAndGzipSmallFiles)
{
    TempDir dir;
    test::writeRaw(dir.file("plain"), test::idxImages(3, 2, 4));
    test::writeGz(dir.file("packed.gz"), test::idxImages(3, 2, 4));
    for (const char *name : {"plain", "packed.gz"}) {
        const engine::IdxImages images = engine::readIdxImages(dir.file(name));
        EXPECT_EQ(images.count, 3);
        EXPECT_EQ(images.rows, 2);
        EXPECT_EQ(images.cols, 4);
        EXPECT_EQ(images.pixels[8], 1); // first pixel of image 1
    }
}

struct HostileCase
{
    const char *name;
    std::vector<std::uint8_t> bytes;
    bool labels;
    const char *expected; // part of the message
};

class IdxHostile : public ::testing::TestWithParam<HostileCase>
{
};

TEST_P(IdxHostile, IsRefusedWithTheFileAndTheReason)
{
    const HostileCase &c = GetParam();
    TempDir dir;
    const std::string path = dir.file(c.name);
    test::writeGz(path, c.bytes);
    const std::string message = errorOf([&] {
        if (c.labels)
            engine::readIdxLabels(path);
        else
            engine::readIdxImages(path);
    });
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
}

std::vector<std::uint8_t> truncated(std::vector<std::uint8_t> v, std::size_t size)
{
    v.resize(size);
    return v;
}

std::vector<std::uint8_t> withExtra(std::vector<std::uint8_t> v)
{
    v.push_back(7);
    return v;
}

std::vector<std::uint8_t> hugeHeader()
{
    std::vector<std::uint8_t> out;
    test::appendU32(out, 0x803);
    test::appendU32(out, 9'000'000);
    test::appendU32(out, 4000);
    test::appendU32(out, 4000);
    return out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, IdxHostile,
    ::testing::Values(HostileCase{"empty", {}, false, "truncated header"},
                      HostileCase{"labels-as-images", test::idxLabels({1, 2}), false, "not an IDX image file"},
                      HostileCase{"images-as-labels", test::idxImages(1, 2, 2), true, "not an IDX label file"},
                      HostileCase{"short-header", truncated(test::idxImages(2, 3, 3), 10), false, "truncated header"},
                      HostileCase{"short-pixels", truncated(test::idxImages(2, 3, 3), 20), false, "truncated"},
                      HostileCase{"trailing", withExtra(test::idxImages(2, 3, 3)), false, "more data than its header"},
                      HostileCase{"zero-count", test::idxImages(0, 3, 3), false, "implausible image count"},
                      HostileCase{"zero-rows", test::idxImages(1, 0, 3), false, "implausible image size"},
                      HostileCase{"bomb", hugeHeader(), false, "over the limit idx.payload_bytes = 2147483648"},
                      HostileCase{"short-labels", truncated(test::idxLabels({1, 2, 3}), 9), true, "truncated"}),
    [](const ::testing::TestParamInfo<HostileCase> &info) {
        std::string name = info.param.name;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

// The IDX limits (engine/base/parse_limits.h) at the limit and just over, from the header alone:
// at the limit the reader goes on to find the data missing ("truncated"), over it the limit is
// named. The payload is count x rows x columns: 2^31 + 1 has no such factors within the other
// limits, so the smallest declarable size over 2^31 (2^31 + 2) stands for it.
TEST(IdxFile, LimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    struct Case
    {
        std::uint32_t magic, count, rows, cols;
        const char *over; // empty: at the limit
    };
    const std::uint32_t count = std::uint32_t(pl::kIdxCount.value), side = std::uint32_t(pl::kIdxSide.value);
    const Case cases[] = {
        {0x803, count, 1, 1, ""},
        {0x803, count + 1, 1, 1, "declares 10000001 items, over the limit idx.count = 10000000"},
        {0x801, count, 0, 0, ""},
        {0x801, count + 1, 0, 0, "declares 10000001 items, over the limit idx.count = 10000000"},
        {0x803, 1, side, side, ""},
        {0x803, 1, side + 1, 1, "declares images of 4097x1 pixels, over the limit idx.side = 4096"},
        {0x803, 1, 1, side + 1, "declares images of 1x4097 pixels, over the limit idx.side = 4096"},
        {0x803, 131072, 128, 128, ""},
        {0x803, 7040930, 1, 305, "declares 2147483650 bytes of pixels, over the limit idx.payload_bytes = 2147483648"},
    };
    TempDir dir;
    for (const Case &c : cases) {
        std::vector<std::uint8_t> bytes;
        test::appendU32(bytes, c.magic);
        test::appendU32(bytes, c.count);
        if (c.magic == 0x803) {
            test::appendU32(bytes, c.rows);
            test::appendU32(bytes, c.cols);
        }
        const std::string path = dir.file("limit.idx");
        test::writeRaw(path, bytes);
        const std::string message = errorOf([&] {
            if (c.magic == 0x801)
                engine::readIdxLabels(path);
            else
                engine::readIdxImages(path);
        });
        const std::string what = std::to_string(c.count) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols);
        if (*c.over) {
            EXPECT_NE(message.find(path + ": " + c.over), std::string::npos) << what << ": " << message;
        } else {
            EXPECT_NE(message.find(path + ": truncated: the header declares"), std::string::npos) << what << ": " << message;
            EXPECT_EQ(message.find("over the limit"), std::string::npos) << what << ": " << message;
        }
    }
}

TEST(IdxFile, CorruptGzipStreamIsAnError)
{
    TempDir dir;
    test::writeGz(dir.file("good.gz"), test::idxImages(50, 28, 28));
    std::vector<std::uint8_t> bytes = test::readRaw(dir.file("good.gz"));
    for (std::size_t i = 20; i < bytes.size() - 8; i += 3)
        bytes[i] ^= 0x5a;
    test::writeRaw(dir.file("bad.gz"), bytes);
    const std::string message = errorOf([&] { engine::readIdxImages(dir.file("bad.gz")); });
    EXPECT_NE(message.find(dir.file("bad.gz")), std::string::npos) << message;
    EXPECT_FALSE(message.empty());
}

TEST(IdxFile, MissingFileAndFolderAreNamed)
{
    TempDir dir;
    EXPECT_NE(errorOf([&] { engine::readIdxImages(dir.file("nope.gz")); }).find("file not found"), std::string::npos);
    EXPECT_NE(errorOf([&] { engine::readIdxLabels(dir.path().string()); }).find("is a folder"), std::string::npos);
}
