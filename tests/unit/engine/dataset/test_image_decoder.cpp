// Image decoding: JPEG (DCT scaling, partial decode, EXIF orientation, CMYK), PNG (16-bit,
// grey+alpha, RGBA), TIFF, BMP, WebP, and hostile input.

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/dataset/image_decoder.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

using namespace lathe::engine;

namespace {

const std::string kPhotoDir = "/usr/share/doc/opencv-doc/examples/data/";

std::vector<std::uint8_t> readPhoto(const std::string &name)
{
    const std::string path = kPhotoDir + name;
    if (!std::filesystem::exists(path))
        return {};
    return lathe::test::readRaw(path);
}

std::vector<std::uint8_t> encode(const cv::Mat &bgr, const std::string &ext, const std::vector<int> &params = {})
{
    std::vector<std::uint8_t> out;
    EXPECT_TRUE(cv::imencode(ext, bgr, out, params));
    return out;
}

// A colour test card: gradients plus a distinct block in the top-left corner, so that
// orientation mistakes show.
cv::Mat testCard(int width, int height)
{
    cv::Mat bgr(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(std::uint8_t(255 * y / height), std::uint8_t(128), std::uint8_t(255 * x / width));
    cv::rectangle(bgr, cv::Rect(0, 0, width / 4, height / 4), cv::Scalar(0, 0, 255), cv::FILLED); // red block (BGR)
    return bgr;
}

cv::Mat toRgb(const cv::Mat &bgr)
{
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

double maxAbsDiff(const cv::Mat &a, const cv::Mat &b)
{
    EXPECT_EQ(a.size(), b.size());
    EXPECT_EQ(a.type(), b.type());
    if (a.size() != b.size() || a.type() != b.type())
        return 1e9;
    return cv::norm(a, b, cv::NORM_INF);
}

double meanAbsDiff(const cv::Mat &a, const cv::Mat &b)
{
    cv::Mat d;
    cv::absdiff(a, b, d);
    const cv::Scalar m = cv::mean(d);
    return (m[0] + m[1] + m[2]) / 3.0;
}

// Inserts an EXIF APP1 segment (big-endian TIFF, IFD0 with Orientation) after SOI.
std::vector<std::uint8_t> withExifOrientation(std::vector<std::uint8_t> jpeg, int orientation)
{
    const std::vector<std::uint8_t> tiff = {'M', 'M', 0, 42, 0, 0, 0, 8,                            // header, IFD0 at 8
                                            0, 1,                                                   // one entry
                                            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, std::uint8_t(orientation), 0, 0, // SHORT
                                            0, 0, 0, 0};                                            // no next IFD
    std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), tiff.begin(), tiff.end());
    const std::size_t length = app1.size() - 2;
    app1[2] = std::uint8_t(length >> 8);
    app1[3] = std::uint8_t(length);
    jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());
    return jpeg;
}

// A PNG written byte by byte (colour types OpenCV cannot write, such as grey + alpha).
std::vector<std::uint8_t> handPng(int width, int height, int colorType, int bitDepth, const std::vector<std::uint8_t> &raw)
{
    std::vector<std::uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    auto chunk = [&](const char *type, const std::vector<std::uint8_t> &data) {
        lathe::test::appendU32(out, static_cast<std::uint32_t>(data.size()));
        const std::size_t start = out.size();
        out.insert(out.end(), type, type + 4);
        out.insert(out.end(), data.begin(), data.end());
        lathe::test::appendU32(out, static_cast<std::uint32_t>(crc32(0, out.data() + start, static_cast<uInt>(out.size() - start))));
    };
    std::vector<std::uint8_t> ihdr;
    lathe::test::appendU32(ihdr, static_cast<std::uint32_t>(width));
    lathe::test::appendU32(ihdr, static_cast<std::uint32_t>(height));
    ihdr.insert(ihdr.end(), {std::uint8_t(bitDepth), std::uint8_t(colorType), 0, 0, 0});
    chunk("IHDR", ihdr);
    if (!raw.empty()) {
        uLongf size = compressBound(static_cast<uLong>(raw.size()));
        std::vector<std::uint8_t> z(size);
        EXPECT_EQ(compress(z.data(), &size, raw.data(), static_cast<uLong>(raw.size())), Z_OK);
        z.resize(size);
        chunk("IDAT", z);
    }
    chunk("IEND", {});
    return out;
}

cv::Mat decodeBytes(const std::vector<std::uint8_t> &bytes, int channels = 3)
{
    return decodeImage(bytes.data(), bytes.size(), channels);
}

void expectEngineError(const std::vector<std::uint8_t> &bytes, const std::string &fragment)
{
    try {
        decodeBytes(bytes);
        ADD_FAILURE() << "no error for input of " << bytes.size() << " bytes (expected \"" << fragment << "\")";
    } catch (const EngineError &e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

} // namespace

TEST(ImageDecoder, JpegPhotoMatchesOpenCvDecode)
{
    const auto bytes = readPhoto("baboon.jpg");
    if (bytes.empty())
        GTEST_SKIP() << "opencv-doc photos not installed";
    const cv::Mat ours = decodeBytes(bytes);
    const cv::Mat reference = toRgb(cv::imdecode(bytes, cv::IMREAD_COLOR));
    ASSERT_EQ(ours.type(), CV_8UC3);
    EXPECT_EQ(ours.cols, 512);
    EXPECT_EQ(ours.rows, 512);
    // Both are libjpeg-turbo with the same defaults (ISLOW DCT, fancy upsampling).
    EXPECT_LE(maxAbsDiff(ours, reference), 1.0);
}

TEST(ImageDecoder, DecodeScaleChoosesSmallestSufficient)
{
    EXPECT_EQ(jpegDecodeScale(1.0), 1.0);
    EXPECT_EQ(jpegDecodeScale(0.51), 1.0);
    EXPECT_EQ(jpegDecodeScale(0.5), 0.5);
    EXPECT_EQ(jpegDecodeScale(0.3), 0.5);
    EXPECT_EQ(jpegDecodeScale(0.25), 0.25);
    EXPECT_EQ(jpegDecodeScale(0.2), 0.25);
    EXPECT_EQ(jpegDecodeScale(0.1), 0.125);
    EXPECT_EQ(jpegDecodeScale(0.01), 0.125);
}

TEST(ImageDecoder, DctScaledDecodeMatchesFullDecodePlusResize)
{
    const auto bytes = readPhoto("baboon.jpg");
    if (bytes.empty())
        GTEST_SKIP() << "opencv-doc photos not installed";
    const ImageHeader header = readCheckedHeader(bytes.data(), bytes.size());
    const cv::Mat full = decodeBytes(bytes);
    for (double scale : {0.5, 0.25, 0.125}) {
        for (bool partial : {false, true}) {
            const DecodedImage d = decodeRegion(bytes.data(), bytes.size(), header, cv::Rect(0, 0, 512, 512), scale, 3, partial);
            EXPECT_DOUBLE_EQ(d.scale, scale);
            const int side = static_cast<int>(512 * scale);
            ASSERT_EQ(d.pixels.cols, side);
            ASSERT_EQ(d.pixels.rows, side);
            cv::Mat reference;
            cv::resize(full, reference, d.pixels.size(), 0, 0, cv::INTER_AREA);
            // The DCT-domain scale is a slightly different low-pass than an area average.
            EXPECT_LT(meanAbsDiff(d.pixels, reference), scale < 0.2 ? 4.5 : 3.0) << "scale " << scale;
            EXPECT_GT(cv::PSNR(d.pixels, reference), 28.0) << "scale " << scale;
        }
    }
}

TEST(ImageDecoder, PartialDecodeEqualsFullDecodeOfTheRegion)
{
    for (const char *name : {"fruits.jpg", "Blender_Suzanne1.jpg"}) { // baseline 4:2:0; progressive
    const auto bytes = readPhoto(name);
    if (bytes.empty())
        GTEST_SKIP() << "opencv-doc photos not installed";
    const ImageHeader header = readCheckedHeader(bytes.data(), bytes.size());
    for (double scale : {1.0, 0.5, 0.25}) {
        const DecodedImage whole = decodeRegion(bytes.data(), bytes.size(), header, cv::Rect(0, 0, header.width, header.height),
                                                scale, 3, false);
        for (const cv::Rect region : {cv::Rect(100, 60, 200, 150), cv::Rect(333, 17, 90, 301), cv::Rect(0, 400, 512, 80)}) {
            const DecodedImage part = decodeRegion(bytes.data(), bytes.size(), header, region, scale, 3, true);
            // It covers the region ...
            const double x0 = region.x * part.scale - part.offsetX, y0 = region.y * part.scale - part.offsetY;
            const double x1 = region.br().x * part.scale - part.offsetX, y1 = region.br().y * part.scale - part.offsetY;
            EXPECT_GE(x0, -1e-9);
            EXPECT_GE(y0, -1e-9);
            EXPECT_LE(x1, part.pixels.cols + 1e-9);
            EXPECT_LE(y1, part.pixels.rows + 1e-9);
            // ... with the whole decode's pixels at the same full-resolution places.
            const int ox = static_cast<int>(std::lround(part.offsetX - whole.offsetX));
            const int oy = static_cast<int>(std::lround(part.offsetY - whole.offsetY));
            const cv::Mat same = whole.pixels(cv::Rect(ox, oy, part.pixels.cols, part.pixels.rows));
            EXPECT_LE(maxAbsDiff(part.pixels, same), 0.0)
                << name << " scale " << scale << " region " << region;
        }
    }
    }
}

TEST(ImageDecoder, FastDecodeStaysCloseToTheAccurateDecode)
{
    // fastDecode (a training option): libjpeg's fast integer IDCT and replicated chroma.
    // Bounded against the accurate decode of the same region, partial and whole, DCT-scaled too.
    double largest = 0;
    for (const char *name : {"fruits.jpg", "Blender_Suzanne1.jpg", "baboon.jpg"}) { // 4:2:0; progressive; 4:2:0
        const auto bytes = readPhoto(name);
        if (bytes.empty())
            GTEST_SKIP() << "opencv-doc photos not installed";
        const ImageHeader header = readCheckedHeader(bytes.data(), bytes.size());
        for (double scale : {1.0, 0.5}) {
            for (bool partial : {false, true}) {
                const cv::Rect region(96, 64, 300, 200);
                const DecodedImage accurate = decodeRegion(bytes.data(), bytes.size(), header, region, scale, 3, partial);
                const DecodedImage fast =
                    decodeRegion(bytes.data(), bytes.size(), header, region, scale, 3, partial, nullptr, true);
                ASSERT_EQ(fast.pixels.size(), accurate.pixels.size()) << name;
                EXPECT_EQ(fast.offsetX, accurate.offsetX);
                EXPECT_EQ(fast.offsetY, accurate.offsetY);
                const double mean = meanAbsDiff(fast.pixels, accurate.pixels);
                const double psnr = cv::PSNR(fast.pixels, accurate.pixels);
                std::printf("fast decode %-22s scale %.2f partial %d: mean abs %.3f, PSNR %.1f dB, max %.0f\n", name,
                            scale, int(partial), mean, psnr, maxAbsDiff(fast.pixels, accurate.pixels));
                // Measured: mean 0-2.65, PSNR >= 35.8 dB (baboon's fur is the worst case).
                EXPECT_LT(mean, 3.0) << name << " scale " << scale;
                EXPECT_GT(psnr, 34.0) << name << " scale " << scale;
                largest = std::max(largest, mean);
            }
        }
    }
    EXPECT_GT(largest, 0.5) << "the fast decode should differ a little from the accurate one";
}

TEST(ImageDecoder, ExifOrientationSixRotatesClockwise)
{
    const cv::Mat card = testCard(64, 32); // red block top-left
    const auto jpeg = withExifOrientation(encode(card, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 95}), 6);
    const ImageHeader header = readCheckedHeader(jpeg.data(), jpeg.size());
    EXPECT_EQ(header.exifOrientation, 6);
    const cv::Mat rgb = decodeBytes(jpeg);
    ASSERT_EQ(rgb.cols, 32);
    ASSERT_EQ(rgb.rows, 64);
    // Rotated 90 degrees clockwise: the stored top-left corner is now the top-right one.
    const cv::Vec3b topRight = rgb.at<cv::Vec3b>(2, 29);
    EXPECT_GT(topRight[0], 200);
    EXPECT_LT(topRight[2], 60);
    const cv::Vec3b topLeft = rgb.at<cv::Vec3b>(2, 2);
    EXPECT_LT(topLeft[0], 100);
    cv::Mat expected;
    cv::rotate(toRgb(cv::imdecode(jpeg, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION)), expected, cv::ROTATE_90_CLOCKWISE);
    EXPECT_LE(maxAbsDiff(rgb, expected), 1.0);
}

TEST(ImageDecoder, EveryExifOrientationAndRegionMapping)
{
    const cv::Mat card = testCard(80, 48);
    const auto plain = encode(card, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 95});
    const cv::Mat stored = decodeBytes(plain);
    for (int o = 1; o <= 8; ++o) {
        const auto jpeg = withExifOrientation(plain, o);
        const cv::Mat shown = decodeBytes(jpeg);
        EXPECT_LE(maxAbsDiff(shown, applyOrientation(stored, o)), 0.0) << "orientation " << o;
        const ImageHeader header = readCheckedHeader(jpeg.data(), jpeg.size());
        // A region decode maps full-resolution displayed coordinates to its pixels.
        const cv::Rect region(10, 12, 30, 20);
        for (double scale : {1.0, 0.5}) {
            const DecodedImage d = decodeRegion(jpeg.data(), jpeg.size(), header, region, scale, 3, true);
            EXPECT_EQ(d.fullWidth, shown.cols);
            EXPECT_EQ(d.fullHeight, shown.rows);
            if (scale != 1.0)
                continue;
            for (int y = region.y; y < region.br().y; y += 3)
                for (int x = region.x; x < region.br().x; x += 3) {
                    const int px = static_cast<int>(std::floor(x + 0.5 - d.offsetX));
                    const int py = static_cast<int>(std::floor(y + 0.5 - d.offsetY));
                    ASSERT_TRUE(px >= 0 && py >= 0 && px < d.pixels.cols && py < d.pixels.rows) << "orientation " << o;
                    const cv::Vec3b a = d.pixels.at<cv::Vec3b>(py, px), b = shown.at<cv::Vec3b>(y, x);
                    EXPECT_LE(cv::norm(cv::Vec3i(a) - cv::Vec3i(b), cv::NORM_INF), 2.0) << "orientation " << o << " at " << x << "," << y;
                }
        }
    }
}

TEST(ImageDecoder, SixteenBitPngIsScaledTo8Bit)
{
    cv::Mat bgr16(4, 5, CV_16UC3, cv::Scalar(0, 257 * 100, 65535)); // B=0, G=25700, R=65535
    bgr16.at<cv::Vec3w>(1, 1) = cv::Vec3w(1000, 30000, 128);
    const auto png = encode(bgr16, ".png");
    const ImageHeader header = readCheckedHeader(png.data(), png.size());
    EXPECT_EQ(header.bitDepth, 16);
    const cv::Mat rgb = decodeBytes(png);
    ASSERT_EQ(rgb.type(), CV_8UC3);
    EXPECT_EQ(rgb.at<cv::Vec3b>(0, 0), cv::Vec3b(255, 100, 0));
    EXPECT_EQ(rgb.at<cv::Vec3b>(1, 1), cv::Vec3b(0, 117, 4)); // round(128/257), round(30000/257), round(1000/257)
}

TEST(ImageDecoder, GreyAlphaPngDropsAlpha)
{
    // 3 x 2 grey + alpha, 8 bit: rows of (grey, alpha) pairs, each row after filter byte 0.
    const std::vector<std::uint8_t> raw = {0, 10, 255, 20, 0, 30, 128, 0, 40, 50, 60, 70, 80, 90};
    const auto png = handPng(3, 2, 4, 8, raw);
    const ImageHeader header = readCheckedHeader(png.data(), png.size());
    EXPECT_EQ(header.channels, 2);
    const cv::Mat rgb = decodeBytes(png);
    ASSERT_EQ(rgb.type(), CV_8UC3);
    ASSERT_EQ(rgb.cols, 3);
    ASSERT_EQ(rgb.rows, 2);
    const int expected[2][3] = {{10, 20, 30}, {40, 60, 80}};
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x)
            EXPECT_EQ(rgb.at<cv::Vec3b>(y, x), cv::Vec3b(expected[y][x], expected[y][x], expected[y][x])) << x << "," << y;
    const cv::Mat grey = decodeBytes(png, 1);
    ASSERT_EQ(grey.type(), CV_8UC1);
    EXPECT_EQ(grey.at<std::uint8_t>(1, 2), 80);
}

TEST(ImageDecoder, RgbaPngDropsAlphaAndGreyPngExpands)
{
    cv::Mat bgra(2, 2, CV_8UC4, cv::Scalar(30, 20, 10, 0)); // fully transparent: colour kept
    const cv::Mat rgb = decodeBytes(encode(bgra, ".png"));
    EXPECT_EQ(rgb.at<cv::Vec3b>(1, 1), cv::Vec3b(10, 20, 30));
    cv::Mat grey(2, 2, CV_8UC1, cv::Scalar(77));
    const cv::Mat fromGrey = decodeBytes(encode(grey, ".png"));
    EXPECT_EQ(fromGrey.at<cv::Vec3b>(0, 1), cv::Vec3b(77, 77, 77));
}

TEST(ImageDecoder, CmykJpegConvertsAsPil)
{
    // 16 x 16 patches of constant CMYK (as stored), compressed by TurboJPEG.
    const int w = 32, h = 16;
    std::vector<std::uint8_t> cmyk(std::size_t(w) * h * 4);
    const std::uint8_t left[4] = {200, 100, 50, 255}, right[4] = {30, 220, 180, 128};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            std::memcpy(&cmyk[(std::size_t(y) * w + x) * 4], x < 16 ? left : right, 4);
    tjhandle handle = tjInitCompress();
    unsigned char *jpeg = nullptr;
    unsigned long size = 0;
    ASSERT_EQ(tjCompress2(handle, cmyk.data(), w, 0, h, TJPF_CMYK, &jpeg, &size, TJSAMP_444, 98, 0), 0) << tjGetErrorStr2(handle);
    const std::vector<std::uint8_t> bytes(jpeg, jpeg + size);
    tjFree(jpeg);
    tjDestroy(handle);
    const ImageHeader header = readCheckedHeader(bytes.data(), bytes.size());
    EXPECT_TRUE(header.cmyk);
    const cv::Mat rgb = decodeBytes(bytes);
    ASSERT_EQ(rgb.type(), CV_8UC3);
    // libjpeg writes an Adobe marker with CMYK, so PIL reads the values as inverted inks:
    // R = K' * C' / 255 with the stored (inverted) values.
    auto expected = [](const std::uint8_t *s, int c) { return s[c] * s[3] / 255.0; };
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(rgb.at<cv::Vec3b>(8, 4)[c], expected(left, c), 3.0) << "channel " << c;
        EXPECT_NEAR(rgb.at<cv::Vec3b>(8, 28)[c], expected(right, c), 3.0) << "channel " << c;
    }
    // Partial and scaled decodes take the same path.
    const DecodedImage part = decodeRegion(bytes.data(), bytes.size(), header, cv::Rect(16, 0, 16, 16), 0.5, 3, true);
    EXPECT_NEAR(part.pixels.at<cv::Vec3b>(2, part.pixels.cols - 2)[1], expected(right, 1), 4.0);
}

TEST(ImageDecoder, TiffBmpAndWebp)
{
    const cv::Mat card = testCard(40, 30);
    const cv::Mat rgb = toRgb(card);
    EXPECT_LE(maxAbsDiff(decodeBytes(encode(card, ".tiff")), rgb), 0.0);
    EXPECT_LE(maxAbsDiff(decodeBytes(encode(card, ".bmp")), rgb), 0.0);
    cv::Mat card16;
    card.convertTo(card16, CV_16U, 257.0);
    EXPECT_LE(maxAbsDiff(decodeBytes(encode(card16, ".tiff")), rgb), 0.0);
    if (cv::haveImageWriter(".webp")) {
        EXPECT_LE(maxAbsDiff(decodeBytes(encode(card, ".webp", {cv::IMWRITE_WEBP_QUALITY, 101})), rgb), 0.0);
    }
}

TEST(ImageDecoder, GreyJpegGivesEqualChannelsOrOneChannel)
{
    cv::Mat grey(24, 24, CV_8UC1);
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 24; ++x)
            grey.at<std::uint8_t>(y, x) = std::uint8_t(10 * x);
    const auto jpeg = encode(grey, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 100});
    const cv::Mat rgb = decodeBytes(jpeg);
    ASSERT_EQ(rgb.type(), CV_8UC3);
    std::vector<cv::Mat> planes;
    cv::split(rgb, planes);
    EXPECT_EQ(cv::norm(planes[0], planes[1], cv::NORM_INF), 0.0);
    EXPECT_EQ(cv::norm(planes[0], planes[2], cv::NORM_INF), 0.0);
    const cv::Mat one = decodeBytes(jpeg, 1);
    ASSERT_EQ(one.type(), CV_8UC1);
    EXPECT_LE(cv::norm(one, planes[0], cv::NORM_INF), 0.0);
    EXPECT_NEAR(one.at<std::uint8_t>(5, 20), 200, 3);
}

TEST(ImageDecoder, HostileInputGivesEngineError)
{
    expectEngineError({}, "0 bytes");
    expectEngineError({'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'}, "not an image");
    expectEngineError({0xFF, 0xD8, 0xFF}, "JPEG");

    const auto jpeg = encode(testCard(64, 64), ".jpg");
    expectEngineError(std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + long(jpeg.size() / 2)), "truncated");
    expectEngineError(std::vector<std::uint8_t>(jpeg.begin(), jpeg.begin() + 30), "JPEG");

    const auto png = encode(testCard(64, 64), ".png");
    expectEngineError(std::vector<std::uint8_t>(png.begin(), png.begin() + long(png.size() / 2)), "png");

    // Declared sizes far beyond the bomb limit are refused before any pixel memory exists.
    expectEngineError(handPng(100000, 100000, 2, 8, {}), "decompression bomb");
    std::vector<std::uint8_t> huge = jpeg;
    for (std::size_t i = 2; i + 9 < huge.size(); ++i)
        if (huge[i] == 0xFF && huge[i + 1] == 0xC0) { // SOF0: height, width at +5, +7
            huge[i + 5] = 0xEA, huge[i + 6] = 0x60, huge[i + 7] = 0xEA, huge[i + 8] = 0x60; // 60000 x 60000
            break;
        }
    expectEngineError(huge, "decompression bomb");

    // Garbage in the entropy-coded data: an error or some pixels, never a crash.
    std::vector<std::uint8_t> noisy = jpeg;
    for (std::size_t i = noisy.size() / 2; i < noisy.size() - 2; i += 7)
        noisy[i] ^= 0x5A;
    try {
        decodeBytes(noisy);
    } catch (const EngineError &) {
    }
}

// image.pixels and image.side (engine/base/parse_limits.h), from PNG headers alone: at each
// limit the header is accepted, one over it is refused naming the limit. 178956970 =
// 416179 x 430; 178956971 = 3033169 x 59 (the pixel limit is checked first).
TEST(ImageDecoder, PixelAndSideLimitsAtTheLimitAndOneOver)
{
    namespace pl = lathe::engine::parse_limits;
    const auto header = [](int width, int height) {
        const auto png = handPng(width, height, 2, 8, {});
        return readCheckedHeader(png.data(), png.size());
    };
    EXPECT_EQ(std::uint64_t(header(416179, 430).pixels()), pl::kImagePixels.value);
    std::string message;
    try {
        header(3033169, 59);
    } catch (const EngineError &e) {
        message = e.what();
    }
    EXPECT_EQ(message, "image of 3033169x59 = 178956971 pixels, over the limit image.pixels = 178956970 (possible "
                       "decompression bomb)");

    EXPECT_EQ(header(int(pl::kImageSide.value), 1).width, int(pl::kImageSide.value));
    EXPECT_EQ(header(1, int(pl::kImageSide.value)).height, int(pl::kImageSide.value));
    for (const auto &[w, h] : {std::pair{int(pl::kImageSide.value) + 1, 1}, std::pair{1, int(pl::kImageSide.value) + 1}}) {
        message.clear();
        try {
            header(w, h);
        } catch (const EngineError &e) {
            message = e.what();
        }
        EXPECT_EQ(message, "image of " + std::to_string(w) + "x" + std::to_string(h)
                               + " pixels, over the limit image.side = 1000000 for its longer side (possible "
                                 "decompression bomb)");
    }
}

TEST(ImageDecoder, CorruptHeaderDoesNotFailTheNextImage)
{
    const auto good = encode(testCard(48, 32), ".jpg");
    std::size_t sos = 2;
    while (sos + 1 < good.size() && !(good[sos] == 0xFF && good[sos + 1] == 0xDA))
        ++sos;
    // Cut before the scan: libjpeg fails inside the header ("missing SOS marker").
    const std::vector<std::uint8_t> badHeader(good.begin(), good.begin() + long(sos));
    for (int i = 0; i < 3; ++i) {
        EXPECT_THROW(decodeBytes(badHeader), EngineError);
        EXPECT_EQ(decodeBytes(good).cols, 48);
    }
}

TEST(ImageDecoder, ConcurrentDecodesAgree)
{
    const auto bytes = readPhoto("fruits.jpg");
    if (bytes.empty())
        GTEST_SKIP() << "opencv-doc photos not installed";
    const ImageHeader header = readCheckedHeader(bytes.data(), bytes.size());
    const cv::Rect region(50, 40, 300, 200);
    const DecodedImage reference = decodeRegion(bytes.data(), bytes.size(), header, region, 0.5, 3, true);
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            std::vector<std::uint8_t> scratch;
            for (int i = 0; i < 20; ++i) {
                const DecodedImage d = decodeRegion(bytes.data(), bytes.size(), header, region, 0.5, 3, true, &scratch);
                if (d.pixels.size() != reference.pixels.size() || cv::norm(d.pixels, reference.pixels, cv::NORM_INF) != 0)
                    ++mismatches[std::size_t(t)];
            }
        });
    for (std::thread &t : threads)
        t.join();
    for (int m : mismatches)
        EXPECT_EQ(m, 0);
}
