#include "engine/base/parse_limits.h"
#include "engine/dataset/demo_data.h"
#include "engine/dataset/folder_scan.h"
#include "engine/dataset/image_header.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace lathe;
using lathe::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kPhotos = "/usr/share/darknet/data/";

std::vector<std::uint8_t> photoJpeg(const std::string &name)
{
    return test::readRaw(kPhotos + name);
}

std::vector<std::uint8_t> encode(const cv::Mat &image, const std::string &ext)
{
    std::vector<std::uint8_t> out;
    cv::imencode(ext, image, out);
    return out;
}

cv::Mat photo(const std::string &name, int width)
{
    cv::Mat image = cv::imread(kPhotos + name, cv::IMREAD_COLOR);
    cv::resize(image, image, cv::Size(width, image.rows * width / image.cols), 0, 0, cv::INTER_AREA);
    return image;
}

std::vector<std::uint8_t> cmykJpeg()
{
    cv::Mat cmyk(48, 64, CV_8UC4);
    cv::randu(cmyk, 0, 255);
    tjhandle h = tjInitCompress();
    unsigned char *jpeg = nullptr;
    unsigned long size = 0;
    tjCompress2(h, cmyk.data, 64, 0, 48, TJPF_CMYK, &jpeg, &size, TJSAMP_444, 90, 0);
    std::vector<std::uint8_t> out(jpeg, jpeg + size);
    tjFree(jpeg);
    tjDestroy(h);
    return out;
}

// A JPEG with an EXIF APP1 segment whose orientation tag says "rotate 90° clockwise" (6).
std::vector<std::uint8_t> exifRotatedJpeg()
{
    std::vector<std::uint8_t> jpeg = encode(photo("dog.jpg", 120), ".jpg");
    const std::vector<std::uint8_t> tiff = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1,   // header, IFD at 8, 1 entry
                                            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, // orientation = 6
                                            0, 0, 0, 0};
    std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), tiff.begin(), tiff.end());
    const std::size_t length = app1.size() - 2;
    app1[2] = std::uint8_t(length >> 8);
    app1[3] = std::uint8_t(length);
    jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());
    return jpeg;
}

// A PNG whose header claims 60000x60000 pixels (3.6 Gpx) followed by junk.
std::vector<std::uint8_t> bombPng()
{
    std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    test::appendU32(out, 60000);
    test::appendU32(out, 60000);
    out.insert(out.end(), {8, 2, 0, 0, 0, 0, 0, 0, 0});
    out.insert(out.end(), 64, 0x55);
    return out;
}

void put(const fs::path &path, const std::vector<std::uint8_t> &bytes)
{
    fs::create_directories(path.parent_path());
    test::writeRaw(path.string(), bytes);
}

std::map<std::string, engine::ScannedImage> byPath(const engine::ScanResult &r)
{
    std::map<std::string, engine::ScannedImage> m;
    for (const auto &i : r.images)
        m[i.relPath] = i;
    return m;
}

engine::ScanResult scan(const fs::path &root, std::vector<engine::ScannedImage> previous = {})
{
    engine::ScanOptions options;
    options.root = root.string();
    options.previous = std::move(previous);
    return engine::scanFolder(options);
}

// Every group holds its representative first at distance 0, and only images whose hash lies
// within the scan's threshold of the representative's, as the stored distances say.
void expectGroupsAroundRepresentatives(const engine::ScanResult &result)
{
    ASSERT_EQ(result.nearDuplicateDistances.size(), result.nearDuplicates.size());
    EXPECT_EQ(result.hashBits, engine::kPerceptualHashBits);
    std::vector<int> seen(result.images.size(), 0);
    for (std::size_t g = 0; g < result.nearDuplicates.size(); ++g) {
        const std::vector<int> &group = result.nearDuplicates[g];
        ASSERT_GE(group.size(), 2u);
        ASSERT_EQ(result.nearDuplicateDistances[g].size(), group.size());
        EXPECT_EQ(result.nearDuplicateDistances[g][0], 0);
        const engine::ScannedImage &representative = result.images[std::size_t(group[0])];
        for (std::size_t k = 0; k < group.size(); ++k) {
            const engine::ScannedImage &member = result.images[std::size_t(group[k])];
            EXPECT_EQ(member.status, engine::ImageStatus::Ok) << member.relPath;
            const int distance = engine::hashDistance(member.hash, representative.hash);
            EXPECT_EQ(distance, result.nearDuplicateDistances[g][k]) << member.relPath;
            EXPECT_LE(distance, result.nearDuplicateDistance) << member.relPath << " vs " << representative.relPath;
            ++seen[std::size_t(group[k])];
        }
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        EXPECT_LE(seen[i], 1) << result.images[i].relPath << " is in more than one group";
}

int groupOf(const engine::ScanResult &result, const std::string &relPath)
{
    for (std::size_t g = 0; g < result.nearDuplicates.size(); ++g)
        for (int i : result.nearDuplicates[g])
            if (result.images[std::size_t(i)].relPath == relPath)
                return int(g);
    return -1;
}

} // namespace

TEST(FolderScan, HostileFilesGetTheRightStatusAndReason)
{
    TempDir dir;
    const fs::path root = dir.path() / "images";
    put(root / "dog/dog.jpg", photoJpeg("dog.jpg"));
    put(root / "dog/horses.jpg", photoJpeg("horses.jpg"));
    put(root / "dog/copy-of-dog.jpg", photoJpeg("dog.jpg"));
    put(root / "dog/nested/deeper/person.jpg", photoJpeg("person.jpg"));
    std::vector<std::uint8_t> truncated = photoJpeg("eagle.jpg");
    truncated.resize(truncated.size() / 2);
    put(root / "cat/truncated.jpg", truncated);
    put(root / "cat/empty.jpg", {});
    put(root / "cat/notes.jpg", {'j', 'u', 's', 't', ' ', 't', 'e', 'x', 't', '\n'});
    put(root / "cat/really-a-png.jpg", encode(photo("giraffe.jpg", 80), ".png"));
    cv::Mat sixteen(40, 50, CV_16UC1);
    cv::randu(sixteen, 0, 65535);
    put(root / "cat/sixteen.png", encode(sixteen, ".png"));
    put(root / "cat/cmyk.jpg", cmykJpeg());
    put(root / "cat/rotated.jpg", exifRotatedJpeg());
    put(root / "cat/bomb.png", bombPng());
    put(root / "cat/scream.tif", encode(photo("scream.jpg", 90), ".tiff"));
    put(root / "cat/scream.webp", encode(photo("scream.jpg", 90), ".webp"));
    put(root / "cat/scream.bmp", encode(photo("scream.jpg", 90), ".bmp"));
    std::vector<std::uint8_t> shortBmp = encode(photo("scream.jpg", 90), ".bmp");
    shortBmp.resize(shortBmp.size() - 500);
    put(root / "cat/short.bmp", shortBmp);
    put(root / "stray.txt", {'x'});
    fs::create_symlink("loop.jpg", root / "cat/loop.jpg");
    fs::create_symlink("/nonexistent/x.jpg", root / "cat/broken.jpg");
    put(root / "cat/.DS_Store", {'j', 'u', 'n', 'k'});
    const bool root_user = ::geteuid() == 0;
    if (!root_user) {
        put(root / "cat/locked.jpg", photoJpeg("dog.jpg"));
        fs::permissions(root / "cat/locked.jpg", fs::perms::none);
    }

    const engine::ScanResult result = scan(root);
    const auto images = byPath(result);
    EXPECT_EQ(result.classes, (std::vector<std::string>{"cat", "dog"}));
    EXPECT_FALSE(result.folderSplits);
    EXPECT_EQ(images.count("cat/.DS_Store"), 0u) << "hidden files are not images to report";

    struct Expect
    {
        std::string path;
        engine::ImageStatus status;
        std::string reason;
    };
    const std::vector<Expect> expected = {
        {"dog/dog.jpg", engine::ImageStatus::Duplicate, "duplicate of dog/copy-of-dog.jpg"},
        {"dog/copy-of-dog.jpg", engine::ImageStatus::Ok, ""},
        {"dog/horses.jpg", engine::ImageStatus::Ok, ""},
        {"dog/nested/deeper/person.jpg", engine::ImageStatus::Ok, ""},
        {"cat/truncated.jpg", engine::ImageStatus::Rejected, "corrupt or truncated JPEG data"},
        {"cat/empty.jpg", engine::ImageStatus::Rejected, "empty file (0 bytes)"},
        {"cat/notes.jpg", engine::ImageStatus::Rejected, "not an image"},
        {"cat/really-a-png.jpg", engine::ImageStatus::Ok, ""},
        {"cat/sixteen.png", engine::ImageStatus::Ok, ""},
        {"cat/cmyk.jpg", engine::ImageStatus::Ok, ""},
        {"cat/rotated.jpg", engine::ImageStatus::Ok, ""},
        {"cat/bomb.png", engine::ImageStatus::Rejected, "60000x60000 is 3600.0 Mpx, over the limit of 100.0 Mpx"},
        {"cat/scream.tif", engine::ImageStatus::Ok, ""},
        {"cat/scream.webp", engine::ImageStatus::Ok, ""},
        {"cat/scream.bmp", engine::ImageStatus::Ok, ""},
        {"cat/short.bmp", engine::ImageStatus::Rejected, "truncated BMP"},
        {"stray.txt", engine::ImageStatus::Rejected, "not inside a class folder"},
        {"cat/loop.jpg", engine::ImageStatus::Rejected, "symbolic link loop"},
        {"cat/broken.jpg", engine::ImageStatus::Rejected, "broken symbolic link"},
    };
    for (const Expect &e : expected) {
        ASSERT_EQ(images.count(e.path), 1u) << e.path;
        const engine::ScannedImage &i = images.at(e.path);
        EXPECT_EQ(i.status, e.status) << e.path << ": " << i.reason;
        EXPECT_NE(i.reason.find(e.reason), std::string::npos) << e.path << ": " << i.reason;
    }
    if (!root_user) {
        EXPECT_EQ(images.at("cat/locked.jpg").status, engine::ImageStatus::Rejected);
        EXPECT_NE(images.at("cat/locked.jpg").reason.find("Permission denied"), std::string::npos);
        fs::permissions(root / "cat/locked.jpg", fs::perms::owner_all);
    }
    EXPECT_EQ(result.images.size(), expected.size() + (root_user ? 0 : 1));

    // What the headers say.
    EXPECT_EQ(images.at("cat/really-a-png.jpg").header.format, engine::ImageFormat::Png);
    EXPECT_EQ(images.at("cat/sixteen.png").header.bitDepth, 16);
    EXPECT_EQ(images.at("cat/sixteen.png").header.channels, 1);
    EXPECT_TRUE(images.at("cat/cmyk.jpg").header.cmyk);
    EXPECT_EQ(images.at("cat/cmyk.jpg").header.channels, 4);
    EXPECT_EQ(images.at("cat/rotated.jpg").header.exifOrientation, 6);
    EXPECT_EQ(images.at("dog/horses.jpg").header.width, 773);
    EXPECT_EQ(images.at("dog/horses.jpg").header.height, 512);
    EXPECT_EQ(images.at("dog/horses.jpg").header.channels, 3);
    EXPECT_EQ(images.at("cat/scream.webp").header.format, engine::ImageFormat::Webp);
    EXPECT_EQ(images.at("cat/scream.tif").header.format, engine::ImageFormat::Tiff);
    EXPECT_EQ(images.at("cat/scream.bmp").header.width, 90);
    EXPECT_EQ(images.at("dog/horses.jpg").sha256.size(), 64u);

    // The same picture in three formats is one near-duplicate group.
    expectGroupsAroundRepresentatives(result);
    bool screamGroup = false;
    for (const auto &group : result.nearDuplicates) {
        std::vector<std::string> paths;
        for (int i : group)
            paths.push_back(result.images[i].relPath);
        screamGroup |= paths == std::vector<std::string>{"cat/scream.bmp", "cat/scream.tif", "cat/scream.webp"};
    }
    EXPECT_TRUE(screamGroup);
}

// The demo's real Fashion-MNIST images (100 training, 20 validation and 20 test images of each of
// ten classes): 28x28 garments on black, many of one class alike at a glance. Groups gather an
// image's altered copies, not different garments chained together.
// image.file_bytes (engine/base/parse_limits.h): a file of exactly the limit is read (and, being
// zeros, found not to be an image); one byte more is refused unread, naming the limit. Sparse
// files: the disk holds nothing.
TEST(FolderScan, ImageFileBytesAtTheLimitAndOneOver)
{
    TempDir dir;
    const fs::path root = dir.path() / "images";
    fs::create_directories(root / "a");
    for (const char *name : {"at.jpg", "over.jpg"}) {
        std::ofstream(root / "a" / name, std::ios::binary).put('\0');
        fs::resize_file(root / "a" / name, engine::parse_limits::kImageFileBytes.value + (name[0] == 'o' ? 1 : 0));
    }
    const auto images = byPath(scan(root));
    ASSERT_EQ(images.count("a/at.jpg"), 1u);
    EXPECT_EQ(images.at("a/at.jpg").status, engine::ImageStatus::Rejected);
    EXPECT_NE(images.at("a/at.jpg").reason.find("not an image"), std::string::npos) << images.at("a/at.jpg").reason;
    ASSERT_EQ(images.count("a/over.jpg"), 1u);
    EXPECT_EQ(images.at("a/over.jpg").status, engine::ImageStatus::Rejected);
    EXPECT_EQ(images.at("a/over.jpg").reason,
              "file too large (1073741825 bytes, over the limit image.file_bytes = 1073741824)");
}

TEST(FolderScan, NearDuplicatesOfSmallImagesAreCopiesNotLookAlikes)
{
    if (!fs::is_directory(engine::kFashionMnistDir))
        GTEST_SKIP() << "Debian's dataset-fashion-mnist is not installed";
    TempDir dir;
    engine::DemoDataOptions demo;
    demo.outDir = dir.file("demo");
    demo.valPerClass = 20;
    const engine::DemoDataResult written = engine::writeDemoData(demo);
    ASSERT_EQ(written.trainImages + written.valImages + written.testImages, 1400);

    const engine::ScanResult before = scan(demo.outDir);
    EXPECT_EQ(before.nearDuplicateDistance, 10);
    expectGroupsAroundRepresentatives(before);
    std::size_t grouped = 0, largest = 0;
    for (const auto &group : before.nearDuplicates) {
        grouped += group.size();
        largest = std::max(largest, group.size());
    }
    // The old 64-bit dHash with chaining put 251 different dresses in one group; now a few
    // look-alikes (trousers, whose silhouettes hardly differ) at most.
    EXPECT_LE(largest, 6u);
    EXPECT_LT(grouped, 1400u * 3 / 100);

    // An ungrouped bag, and its altered copies: re-saved as JPEG, brightened, scaled up 2x.
    std::string original;
    for (const auto &image : before.images)
        if (image.className == "Bag" && image.split == "train" && groupOf(before, image.relPath) < 0) {
            original = image.relPath;
            break;
        }
    ASSERT_FALSE(original.empty());
    const fs::path root(demo.outDir);
    const cv::Mat bag = cv::imread((root / original).string(), cv::IMREAD_GRAYSCALE);
    ASSERT_EQ(bag.size(), cv::Size(28, 28));
    const fs::path bagDir = (root / original).parent_path();
    std::vector<std::uint8_t> jpeg;
    cv::imencode(".jpg", bag, jpeg, {cv::IMWRITE_JPEG_QUALITY, 95});
    put(bagDir / "zz-resaved.jpg", jpeg);
    cv::Mat brighter;
    bag.convertTo(brighter, -1, 1.0, 10);
    put(bagDir / "zz-brighter.png", encode(brighter, ".png"));
    cv::Mat larger;
    cv::resize(bag, larger, cv::Size(56, 56), 0, 0, cv::INTER_CUBIC);
    put(bagDir / "zz-larger.png", encode(larger, ".png"));

    const engine::ScanResult after = scan(demo.outDir, before.images);
    expectGroupsAroundRepresentatives(after);
    const int group = groupOf(after, original);
    ASSERT_GE(group, 0) << original << " and its copies are not grouped";
    const std::string folder = fs::path(original).parent_path().generic_string() + "/";
    EXPECT_EQ(after.images[std::size_t(after.nearDuplicates[std::size_t(group)][0])].relPath, original)
        << "the original sorts first: it is the representative";
    for (const char *copy : {"zz-resaved.jpg", "zz-brighter.png", "zz-larger.png"})
        EXPECT_EQ(groupOf(after, folder + copy), group) << copy;
    EXPECT_EQ(after.nearDuplicates[std::size_t(group)].size(), 4u);
}

// Representatives, not chains: b is a with its top-left corner changed, c is b with its
// bottom-right corner changed too, so c is as far from a as both changes together. With the
// threshold at the larger change, b joins a, and c, too far from a, the only representative,
// is not pulled in through b (union-find chaining grouped all three).
TEST(FolderScan, GroupsDoNotChain)
{
    TempDir dir;
    const fs::path root = dir.path() / "chain";
    cv::Mat a(48, 48, CV_8UC1);
    cv::RNG rng(7);
    for (int y = 0; y < 48; y += 4)
        for (int x = 0; x < 48; x += 4)
            a(cv::Rect(x, y, 4, 4)).setTo(rng.uniform(0, 256));
    const auto invert = [](const cv::Mat &image, const cv::Rect &corner) {
        cv::Mat out = image.clone();
        cv::Mat region = out(corner);
        cv::bitwise_not(region, region);
        return out;
    };
    const cv::Mat b = invert(a, cv::Rect(0, 0, 8, 8));
    const cv::Mat c = invert(b, cv::Rect(40, 40, 8, 8));
    put(root / "x/a.png", encode(a, ".png"));
    put(root / "x/b.png", encode(b, ".png"));
    put(root / "x/c.png", encode(c, ".png"));

    engine::ScanOptions options;
    options.root = root.string();
    options.nearDuplicateDistance = 0;
    const engine::ScanResult hashes = engine::scanFolder(options);
    ASSERT_EQ(hashes.images.size(), 3u);
    const int ab = engine::hashDistance(hashes.images[0].hash, hashes.images[1].hash);
    const int bc = engine::hashDistance(hashes.images[1].hash, hashes.images[2].hash);
    const int ac = engine::hashDistance(hashes.images[0].hash, hashes.images[2].hash);
    ASSERT_GT(ab, 0);
    ASSERT_GT(bc, 0);
    EXPECT_EQ(ac, ab + bc); // the corners are far apart: no bit depends on both
    EXPECT_TRUE(hashes.nearDuplicates.empty());

    options.nearDuplicateDistance = std::max(ab, bc);
    const engine::ScanResult result = engine::scanFolder(options);
    ASSERT_EQ(result.nearDuplicates.size(), 1u);
    EXPECT_EQ(result.nearDuplicates[0], (std::vector<int>{0, 1}));
    EXPECT_EQ(result.nearDuplicateDistances[0], (std::vector<int>{0, ab}));
    expectGroupsAroundRepresentatives(result);
}

TEST(FolderScan, FolderSplitsWinAndHashSplitsAreStable)
{
    TempDir dir;
    const fs::path split = dir.path() / "split";
    put(split / "train/a/1.png", encode(photo("dog.jpg", 32), ".png"));
    put(split / "validation/a/2.png", encode(photo("eagle.jpg", 32), ".png"));
    put(split / "test/b/3.png", encode(photo("horses.jpg", 32), ".png"));
    const auto s = byPath(scan(split));
    EXPECT_EQ(s.at("train/a/1.png").split, "train");
    EXPECT_EQ(s.at("validation/a/2.png").split, "val");
    EXPECT_EQ(s.at("test/b/3.png").split, "test");
    EXPECT_EQ(s.at("test/b/3.png").className, "b");

    // Without split folders: the hash decides, near the asked fractions, and adding
    // images later moves none of the existing ones.
    const fs::path flat = dir.path() / "flat";
    cv::Mat tile(8, 8, CV_8UC1);
    for (int i = 0; i < 400; ++i) {
        cv::randu(tile, 0, 255);
        put(flat / (i % 2 ? "a" : "b") / (std::to_string(i) + ".png"), encode(tile, ".png"));
    }
    const auto before = byPath(scan(flat));
    std::map<std::string, int> counts;
    for (const auto &[path, image] : before)
        ++counts[image.split];
    EXPECT_GT(counts["val"], 20);
    EXPECT_LT(counts["val"], 70);
    EXPECT_GT(counts["test"], 20);
    EXPECT_LT(counts["test"], 70);
    for (int i = 400; i < 500; ++i) {
        cv::randu(tile, 0, 255);
        put(flat / "a" / (std::to_string(i) + ".png"), encode(tile, ".png"));
    }
    const auto after = byPath(scan(flat));
    EXPECT_EQ(after.size(), 500u);
    for (const auto &[path, image] : before)
        EXPECT_EQ(after.at(path).split, image.split) << path;
    EXPECT_EQ(engine::assignSplit("a/1.png", 7, 0.1, 0.1), engine::assignSplit("a/1.png", 7, 0.1, 0.1));
}

TEST(FolderScan, RescanReusesUnchangedFilesOnly)
{
    TempDir dir;
    const fs::path root = dir.path() / "img";
    put(root / "a/keep.png", encode(photo("dog.jpg", 40), ".png"));
    put(root / "a/change.png", encode(photo("eagle.jpg", 40), ".png"));
    put(root / "b/gone.png", encode(photo("horses.jpg", 40), ".png"));
    const engine::ScanResult first = scan(root);
    fs::remove(root / "b/gone.png");
    put(root / "a/change.png", encode(photo("eagle.jpg", 41), ".png"));
    put(root / "b/new.png", encode(photo("person.jpg", 40), ".png"));
    const auto second = byPath(scan(root, first.images));
    EXPECT_EQ(second.size(), 3u);
    EXPECT_TRUE(second.at("a/keep.png").reused);
    EXPECT_FALSE(second.at("a/change.png").reused);
    EXPECT_EQ(second.at("a/change.png").header.width, 41);
    EXPECT_FALSE(second.at("b/new.png").reused);
    EXPECT_EQ(second.at("a/keep.png").sha256, byPath(first).at("a/keep.png").sha256);

    // A copy added later is the duplicate, even when its name sorts first.
    const engine::ScanResult third = scan(root);
    fs::copy_file(root / "a/keep.png", root / "a/0-copy.png");
    const auto fourth = byPath(scan(root, third.images));
    EXPECT_EQ(fourth.at("a/keep.png").status, engine::ImageStatus::Ok);
    EXPECT_EQ(fourth.at("a/0-copy.png").status, engine::ImageStatus::Duplicate);
    EXPECT_EQ(fourth.at("a/0-copy.png").reason, "duplicate of a/keep.png");
}

TEST(FolderScan, UnusableRootsAndCancel)
{
    TempDir dir;
    engine::ScanOptions options;
    options.root = dir.file("missing");
    try {
        engine::scanFolder(options);
        FAIL();
    } catch (const engine::EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("folder not found"), std::string::npos);
    }
    put(dir.path() / "file", {'x'});
    options.root = dir.file("file");
    EXPECT_THROW(engine::scanFolder(options), engine::EngineError);
    options.root = dir.path().string();
    options.valFraction = 0.6;
    options.testFraction = 0.6;
    EXPECT_THROW(engine::scanFolder(options), engine::EngineError);

    for (int i = 0; i < 200; ++i)
        put(dir.path() / "c/a" / (std::to_string(i) + ".jpg"), photoJpeg("dog.jpg"));
    options = {};
    options.root = (dir.path() / "c").string();
    engine::TaskControl control;
    control.progress = [&](double, const std::string &) { control.cancel.cancel(); };
    EXPECT_THROW(engine::scanFolder(options, control), engine::Cancelled);
}

TEST(ImageHeader, SniffsContentNotExtensions)
{
    const auto png = encode(cv::Mat(4, 4, CV_8UC3, cv::Scalar(1, 2, 3)), ".png");
    EXPECT_EQ(engine::sniffFormat(png.data(), png.size()), engine::ImageFormat::Png);
    const std::uint8_t text[] = "GIF89a";
    EXPECT_EQ(engine::sniffFormat(text, sizeof text), engine::ImageFormat::Unknown);
    // Headers cut short anywhere are refused with a reason, never read out of bounds.
    const auto jpeg = photoJpeg("dog.jpg");
    for (std::size_t n : {0, 1, 3, 10, 20, 100, 400}) {
        // A PNG header is complete at 26 bytes; shorter cuts must all fail.
        EXPECT_THROW(engine::readImageHeader(png.data(), std::min(n, std::size_t(25))), engine::EngineError) << n;
        if (n < 400) {
            EXPECT_THROW(engine::readImageHeader(jpeg.data(), n), engine::EngineError) << n;
        }
    }
}
