// Augmentation lists (parsing, round trip), the functional ops against their torchvision
// definitions, SampleTransform (geometry, determinism, probabilities, layout, tensor steps,
// cache path), BatchMixer (mixup/cutmix), the preview facade, and a parity check against
// torchvision itself (tests/parity/augment_reference.py, the project venv's torchvision).

#include "engine/base/engine_error.h"
#include "engine/dataset/image_decoder.h"
#include "engine/dataset/shard_converter.h"
#include "engine/pipeline/augment_ops.h"
#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/augmentation_preview.h"
#include "engine/pipeline/sample_transform.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/torch.h>

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

using namespace lathe::engine;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kPhotoDir = "/usr/share/doc/opencv-doc/examples/data/";

std::vector<std::uint8_t> readPhoto(const std::string &name)
{
    const std::string path = kPhotoDir + name;
    return fs::exists(path) ? lathe::test::readRaw(path) : std::vector<std::uint8_t>{};
}

std::vector<std::uint8_t> encode(const cv::Mat &bgr, const std::string &ext)
{
    std::vector<std::uint8_t> out;
    EXPECT_TRUE(cv::imencode(ext, bgr, out));
    return out;
}

// A horizontal gradient (R rises with x), G rises with y, B constant.
cv::Mat gradient(int width, int height)
{
    cv::Mat rgb(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            rgb.at<cv::Vec3b>(y, x) = cv::Vec3b(std::uint8_t(x * 255 / std::max(1, width - 1)),
                                                std::uint8_t(y * 255 / std::max(1, height - 1)), 90);
    return rgb;
}

cv::Mat solid(int width, int height, cv::Vec3b rgb) { return cv::Mat(height, width, CV_8UC3, cv::Scalar(rgb[0], rgb[1], rgb[2])); }

std::string parseError(const json &list)
{
    try {
        parseAugmentations(list);
    } catch (const EngineError &e) {
        return e.what();
    }
    return "(no error)";
}

TransformOptions options(const json &augment, int size = 32)
{
    TransformOptions o;
    o.augmentations = parseAugmentations(augment);
    o.imageSize = size;
    o.resizeSize = size * 8 / 7;
    return o;
}

std::vector<std::uint8_t> run(const SampleTransform &t, const std::vector<std::uint8_t> &bytes, std::uint64_t seed)
{
    std::vector<std::uint8_t> out(t.sampleBytes());
    std::mt19937_64 rng(seed);
    t.apply(bytes.data(), bytes.size(), rng, out.data());
    return out;
}

// uint8 HWC output as an RGB image.
cv::Mat asImage(const std::vector<std::uint8_t> &bytes, int size, int channels = 3)
{
    return cv::Mat(size, size, CV_MAKETYPE(CV_8U, channels), const_cast<std::uint8_t *>(bytes.data())).clone();
}

} // namespace

// ---------------------------------------------------------------- parsing

TEST(AugmentationList, StandardRecipe)
{
    const auto list = standardAugmentations();
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].type, "random_resized_crop");
    EXPECT_EQ(list[0].probability, 1.0);
    EXPECT_EQ(list[0].params["scale"], json({0.08, 1.0}));
    EXPECT_EQ(list[1].type, "horizontal_flip");
    EXPECT_EQ(list[1].probability, 0.5);
}

TEST(AugmentationList, EveryTypeParsesWithDefaultsAndRoundTrips)
{
    json all = json::array();
    for (const std::string &type : augmentationTypes())
        if (type != "resize" && type != "center_crop") // they exclude random_resized_crop
            all.push_back({{"type", type}});
    const auto parsed = parseAugmentations(all);
    ASSERT_EQ(parsed.size(), all.size());
    const json once = augmentationsToJson(parsed);
    const auto again = parseAugmentations(once);
    EXPECT_EQ(augmentationsToJson(again), once);
    EXPECT_EQ(augmentationTypes().size(), 22u);
    // torchvision's default probabilities.
    for (const auto &spec : parsed) {
        if (spec.type == "horizontal_flip" || spec.type == "vertical_flip" || spec.type == "random_erasing") {
            EXPECT_EQ(spec.probability, 0.5) << spec.type;
        }
        if (spec.type == "grayscale") {
            EXPECT_EQ(spec.probability, 0.1);
        }
    }
    EXPECT_NO_THROW(parseAugmentations(json::array({{{"type", "resize"}, {"size", 300}}, {{"type", "center_crop"}}})));
}

TEST(AugmentationList, ShorthandsBecomeTorchvisionRanges)
{
    const auto list = parseAugmentations(json::parse(R"([
        {"type": "color_jitter", "brightness": 0.4, "contrast": 1.5, "saturation": [0.5, 2], "hue": 0.1},
        {"type": "rotation", "degrees": 10, "fill": 128},
        {"type": "affine", "shear": 5},
        {"type": "gaussian_blur", "kernel_size": 3, "sigma": 1.0},
        {"type": "random_erasing", "value": "random", "p": 0.25}
    ])"));
    EXPECT_EQ(list[0].params["brightness"], json({0.6, 1.4}));
    EXPECT_EQ(list[0].params["contrast"], json({0.0, 2.5})); // max(0, 1 - 1.5)
    EXPECT_EQ(list[0].params["saturation"], json({0.5, 2.0}));
    EXPECT_EQ(list[0].params["hue"], json({-0.1, 0.1}));
    EXPECT_EQ(list[1].params["degrees"], json({-10.0, 10.0}));
    EXPECT_EQ(list[1].params["fill"], json({128.0, 128.0, 128.0}));
    EXPECT_EQ(list[1].params["interpolation"], "nearest");
    EXPECT_EQ(list[2].params["shear"], json({-5.0, 5.0, 0.0, 0.0}));
    EXPECT_EQ(list[3].params["kernel_size"], json({3, 3}));
    EXPECT_EQ(list[3].params["sigma"], json({1.0, 1.0}));
    EXPECT_EQ(list[4].params["value"], "random");
    EXPECT_EQ(list[4].probability, 0.25);
}

TEST(AugmentationList, ErrorsNameTheField)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({})", "data.augment: expected a list"},
        {R"([3])", "data.augment[0]: expected an object"},
        {R"([{"p": 1}])", "data.augment[0].type: missing"},
        {R"([{"type": "horizontal_flip"}, {"type": "warp_drive"}])", "data.augment[1].type: unknown augmentation \"warp_drive\""},
        {R"([{"type": "rotation"}, {"type": "random_resized_crop", "scale": [0.5, 2]}])",
         "data.augment[1].scale: expected two numbers 0 < min <= max <= 1"},
        {R"([{"type": "random_resized_crop", "ratio": [2, 1]}])", "data.augment[0].ratio:"},
        {R"([{"type": "horizontal_flip", "p": 1.5}])", "data.augment[0].p: expected a probability"},
        {R"([{"type": "horizontal_flip", "p": "often"}])", "data.augment[0].p:"},
        {R"([{"type": "horizontal_flip", "angle": 3}])", "data.augment[0].angle: unknown parameter of horizontal_flip"},
        {R"([{"type": "color_jitter", "hue": 0.7}])", "data.augment[0].hue:"},
        {R"([{"type": "color_jitter", "brightness": -1}])", "data.augment[0].brightness:"},
        {R"([{"type": "color_jitter", "saturation": [2, 1]}])", "data.augment[0].saturation:"},
        {R"([{"type": "gaussian_blur", "kernel_size": 4}])", "data.augment[0].kernel_size: expected an odd integer"},
        {R"([{"type": "gaussian_blur", "sigma": 0}])", "data.augment[0].sigma:"},
        {R"([{"type": "rand_augment", "magnitude": 31}])", "data.augment[0].magnitude: must be less than num_magnitude_bins"},
        {R"([{"type": "rand_augment", "num_ops": 1.5}])", "data.augment[0].num_ops: expected an integer"},
        {R"([{"type": "affine", "translate": [0.2, 1.5]}])", "data.augment[0].translate:"},
        {R"([{"type": "affine", "shear": [0, 95]}])", "data.augment[0].shear:"},
        {R"([{"type": "rotation", "fill": [1, 2]}])", "data.augment[0].fill:"},
        {R"([{"type": "rotation", "interpolation": "bicubic"}])", "data.augment[0].interpolation:"},
        {R"([{"type": "posterize", "bits": 9}])", "data.augment[0].bits:"},
        {R"([{"type": "solarize", "threshold": 300}])", "data.augment[0].threshold:"},
        {R"([{"type": "gaussian_noise", "clip": 1}])", "data.augment[0].clip:"},
        {R"([{"type": "random_erasing", "value": "noise"}])", "data.augment[0].value:"},
        {R"([{"type": "mixup", "alpha": 0}])", "data.augment[0].alpha:"},
        {R"([{"type": "random_resized_crop"}, {"type": "random_resized_crop"}])", "data.augment[1].type: \"random_resized_crop\" may appear only once"},
        {R"([{"type": "resize", "p": 0.5}])", "data.augment[0].p: resize is a geometry step"},
        {R"([{"type": "resize", "size": 0}])", "data.augment[0].size:"},
        {R"([{"type": "random_resized_crop"}, {"type": "center_crop"}])", "one geometry"},
    };
    for (const auto &[text, expected] : cases) {
        const std::string message = parseError(json::parse(text));
        EXPECT_NE(message.find(expected), std::string::npos) << text << " -> " << message;
    }
}

// ---------------------------------------------------------------- random numbers and crop params

TEST(AugmentOps, RandomHelpersAreBoundedAndDeterministic)
{
    std::mt19937_64 a(7), b(7);
    double sum = 0, sumSq = 0, betaSum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        const double u = ops::uniform01(a);
        EXPECT_EQ(u, ops::uniform01(b));
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        const auto r = ops::randint(a, 5);
        ASSERT_GE(r, 0);
        ASSERT_LT(r, 5);
        ops::randint(b, 5);
        const double g = ops::normal(a);
        ops::normal(b);
        sum += g;
        sumSq += g * g;
        const double be = ops::beta(a, 0.4, 0.4);
        ops::beta(b, 0.4, 0.4);
        ASSERT_GE(be, 0.0);
        ASSERT_LE(be, 1.0);
        betaSum += be;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.05);
    EXPECT_NEAR(sumSq / n, 1.0, 0.05);
    EXPECT_NEAR(betaSum / n, 0.5, 0.02); // Beta(a, a) is symmetric
    EXPECT_EQ(ops::roundHalfEven(0.5), 0.0);
    EXPECT_EQ(ops::roundHalfEven(1.5), 2.0);
    EXPECT_EQ(ops::roundHalfEven(2.5), 2.0);
}

TEST(AugmentOps, RandomResizedCropParamsStayWithinScaleAndRatio)
{
    std::mt19937_64 rng(3);
    const int width = 500, height = 375;
    const std::array<double, 2> scale{0.08, 1.0}, ratio{3.0 / 4.0, 4.0 / 3.0};
    int fallbacks = 0;
    for (int i = 0; i < 5000; ++i) {
        const ops::CropRect c = ops::randomResizedCropParams(width, height, scale, ratio, rng);
        ASSERT_GE(c.left, 0);
        ASSERT_GE(c.top, 0);
        ASSERT_LE(c.left + c.width, width);
        ASSERT_LE(c.top + c.height, height);
        const double area = double(c.width) * c.height / (double(width) * height);
        const double r = double(c.width) / c.height;
        // Rounding w and h to integers moves the area and ratio by at most ~1 pixel per side.
        const double slackArea = (c.width + c.height + 1.0) / (double(width) * height);
        const double slackRatio = 1.0 / c.height + r / c.height;
        if (c.width == width && c.height == height) {
            ++fallbacks;
            continue;
        }
        EXPECT_GE(area, scale[0] - slackArea);
        EXPECT_LE(area, scale[1] + slackArea);
        EXPECT_GE(r, ratio[0] - slackRatio);
        EXPECT_LE(r, ratio[1] + slackRatio);
    }
    EXPECT_LT(fallbacks, 500);
    // No try can fit: the central crop with the ratio clamped (torchvision's fallback).
    const ops::CropRect f = ops::randomResizedCropParams(300, 300, {1.0, 1.0}, {3.0, 4.0}, rng);
    EXPECT_EQ(f.width, 300);
    EXPECT_EQ(f.height, 100);
    EXPECT_EQ(f.left, 0);
    EXPECT_EQ(f.top, 100);
}

TEST(AugmentOps, AutoAugmentMagnitudesAsTorchvision)
{
    using ops::AutoOp;
    // RandAugment(num_magnitude_bins=31), magnitude bin 9: linspace values and the posterize bits.
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::ShearX, 9, 31, 224, 224), 0.09, 1e-9);
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::TranslateX, 9, 31, 224, 100), 150.0 / 331.0 * 224 * 0.3, 1e-9);
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::TranslateY, 9, 31, 224, 100), 150.0 / 331.0 * 100 * 0.3, 1e-9);
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::Rotate, 9, 31, 224, 224), 9.0, 1e-9);
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::Brightness, 9, 31, 224, 224), 0.27, 1e-9);
    EXPECT_EQ(ops::randAugmentMagnitude(AutoOp::Posterize, 9, 31, 224, 224), 7.0);  // 8 - round(9 / 7.5)
    EXPECT_EQ(ops::randAugmentMagnitude(AutoOp::Posterize, 30, 31, 224, 224), 4.0); // 8 - 4
    EXPECT_NEAR(ops::randAugmentMagnitude(AutoOp::Solarize, 9, 31, 224, 224), 178.5, 1e-9);
    EXPECT_EQ(ops::trivialAugmentMagnitude(AutoOp::Posterize, 30, 31), 2.0);       // 8 - 6
    EXPECT_NEAR(ops::trivialAugmentMagnitude(AutoOp::Rotate, 30, 31), 135.0, 1e-9);
    EXPECT_FALSE(ops::autoOpSigned(AutoOp::Solarize));
    EXPECT_TRUE(ops::autoOpSigned(AutoOp::ShearY));
    EXPECT_FALSE(ops::autoOpHasMagnitude(AutoOp::Equalize));
    // Brightness magnitude m is factor 1 + m; identity changes nothing.
    cv::Mat a = solid(2, 2, {100, 100, 100}), b = a.clone();
    ops::applyAutoOp(a, AutoOp::Brightness, 0.5, {0, 0, 0}, false);
    EXPECT_EQ(a.at<cv::Vec3b>(0, 0), cv::Vec3b(150, 150, 150));
    ops::applyAutoOp(b, AutoOp::Identity, 0.0, {0, 0, 0}, false);
    EXPECT_EQ(b.at<cv::Vec3b>(1, 1), cv::Vec3b(100, 100, 100));
}

TEST(AugmentOps, ResizeGeometryAsTorchvision)
{
    EXPECT_EQ(ops::resizedShortSide(500, 375, 256), cv::Size(341, 256));
    EXPECT_EQ(ops::resizedShortSide(375, 500, 256), cv::Size(256, 341));
    EXPECT_EQ(ops::centerCropOrigin(341, 256, 224, 224), cv::Point(58, 16)); // round(58.5) = 58
    EXPECT_EQ(ops::centerCropOrigin(225, 225, 224, 224), cv::Point(0, 0));   // round(0.5) = 0
}

// ---------------------------------------------------------------- resampling

TEST(AugmentOps, ResampleIdentityConstantAndAntialias)
{
    const cv::Mat g = gradient(40, 30);
    cv::Mat out;
    ops::resampleBilinear(g, cv::Rect(0, 0, 40, 30), cv::Rect2d(0, 0, 40, 30), cv::Size(40, 30), out);
    EXPECT_EQ(cv::norm(out, g, cv::NORM_INF), 0.0);
    // A crop at scale 1 is an exact copy.
    ops::resampleBilinear(g, cv::Rect(5, 7, 20, 10), cv::Rect2d(5, 7, 20, 10), cv::Size(20, 10), out);
    EXPECT_EQ(cv::norm(out, g(cv::Rect(5, 7, 20, 10)), cv::NORM_INF), 0.0);
    // Constant stays constant, whatever the scale.
    const cv::Mat c = solid(97, 53, {10, 200, 77});
    ops::resampleBilinear(c, cv::Rect(0, 0, 97, 53), cv::Rect2d(3.3, 1.7, 80.2, 40.9), cv::Size(31, 17), out);
    EXPECT_EQ(cv::norm(out, solid(31, 17, {10, 200, 77}), cv::NORM_INF), 0.0);
    // A one-pixel checkerboard halved is grey (antialiased), not a checkerboard (aliased).
    cv::Mat board(64, 64, CV_8UC1);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
            board.at<std::uint8_t>(y, x) = (x + y) % 2 ? 255 : 0;
    ops::resampleBilinear(board, cv::Rect(0, 0, 64, 64), cv::Rect2d(0, 0, 64, 64), cv::Size(32, 32), out);
    double lo, hi;
    cv::minMaxLoc(out(cv::Rect(2, 2, 28, 28)), &lo, &hi);
    EXPECT_GE(lo, 120);
    EXPECT_LE(hi, 135);
}

TEST(AugmentOps, MirroredResampleIsTheFlippedResample)
{
    // SampleTransform folds a leading horizontal flip into the resample: the same pixels as
    // resampling and then flipping, for every tap count (shrink, copy, enlarge) and RGB or grey.
    cv::Mat rgb(57, 91, CV_8UC3);
    cv::randu(rgb, cv::Scalar::all(0), cv::Scalar::all(256));
    cv::Mat grey;
    cv::extractChannel(rgb, grey, 1);
    for (const cv::Mat &src : {rgb, grey})
        for (const cv::Size out : {cv::Size(13, 11), cv::Size(29, 23), cv::Size(60, 44), cv::Size(150, 90)}) {
            cv::Mat plain, mirrored;
            ops::resampleBilinear(src, cv::Rect(4, 3, 80, 50), cv::Rect2d(5.5, 3.25, 71.5, 44.5), out, plain);
            ops::resampleBilinear(src, cv::Rect(4, 3, 80, 50), cv::Rect2d(5.5, 3.25, 71.5, 44.5), out, mirrored, true);
            ops::horizontalFlip(plain);
            EXPECT_EQ(cv::norm(mirrored, plain, cv::NORM_INF), 0.0) << out << " channels " << src.channels();
        }
}

// ---------------------------------------------------------------- pixel functions

TEST(AugmentOps, FlipsOfAGradient)
{
    const cv::Mat g = gradient(9, 5);
    cv::Mat h = g.clone(), v = g.clone();
    ops::horizontalFlip(h);
    ops::verticalFlip(v);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 9; ++x) {
            EXPECT_EQ(h.at<cv::Vec3b>(y, x), g.at<cv::Vec3b>(y, 8 - x));
            EXPECT_EQ(v.at<cv::Vec3b>(y, x), g.at<cv::Vec3b>(4 - y, x));
        }
}

TEST(AugmentOps, ColourFunctionsOnKnownPixels)
{
    cv::Mat img = solid(2, 1, {100, 200, 101});
    img.at<cv::Vec3b>(0, 1) = cv::Vec3b(0, 1, 255);
    cv::Mat b = img.clone();
    ops::adjustBrightness(b, 2.0);
    EXPECT_EQ(b.at<cv::Vec3b>(0, 0), cv::Vec3b(200, 255, 202));
    EXPECT_EQ(b.at<cv::Vec3b>(0, 1), cv::Vec3b(0, 2, 255));
    b = img.clone();
    ops::adjustBrightness(b, 0.5);
    EXPECT_EQ(b.at<cv::Vec3b>(0, 0), cv::Vec3b(50, 100, 50)); // 50.5 truncated

    // Grey: 0.2989 R + 0.587 G + 0.114 B, truncated.
    cv::Mat primaries(1, 4, CV_8UC3);
    primaries.at<cv::Vec3b>(0, 0) = {255, 0, 0};
    primaries.at<cv::Vec3b>(0, 1) = {0, 255, 0};
    primaries.at<cv::Vec3b>(0, 2) = {0, 0, 255};
    primaries.at<cv::Vec3b>(0, 3) = {100, 150, 200};
    cv::Mat grey;
    ops::rgbToGrayscale(primaries, grey, 3);
    ASSERT_EQ(grey.type(), CV_8UC3);
    const int luma[4] = {76, 149, 29, 140};
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(grey.at<cv::Vec3b>(0, i), cv::Vec3b(luma[i], luma[i], luma[i])) << i;

    // Hue: a pure red turned by a third is green, by a half cyan.
    cv::Mat red = solid(1, 1, {255, 0, 0});
    cv::Mat h = red.clone();
    ops::adjustHue(h, 1.0 / 3.0);
    EXPECT_EQ(h.at<cv::Vec3b>(0, 0), cv::Vec3b(0, 255, 0));
    h = red.clone();
    ops::adjustHue(h, 0.5);
    EXPECT_EQ(h.at<cv::Vec3b>(0, 0), cv::Vec3b(0, 255, 255));
    h = red.clone();
    ops::adjustHue(h, -1.0 / 3.0);
    EXPECT_EQ(h.at<cv::Vec3b>(0, 0), cv::Vec3b(0, 0, 255));

    // Saturation 0 is the grey image; contrast 0 is the mean grey.
    cv::Mat s = primaries.clone();
    ops::adjustSaturation(s, 0.0);
    EXPECT_EQ(cv::norm(s, grey, cv::NORM_INF), 0.0);
    cv::Mat c = primaries.clone();
    ops::adjustContrast(c, 0.0);
    const int meanGrey = static_cast<int>((76 + 149 + 29 + 140) / 4.0); // 98.5 -> 98
    EXPECT_EQ(c.at<cv::Vec3b>(0, 2), cv::Vec3b(meanGrey, meanGrey, meanGrey));

    cv::Mat p = solid(1, 1, {255, 130, 63});
    ops::posterize(p, 2);
    EXPECT_EQ(p.at<cv::Vec3b>(0, 0), cv::Vec3b(192, 128, 0));
    cv::Mat so = solid(1, 1, {200, 100, 128});
    ops::solarize(so, 128);
    EXPECT_EQ(so.at<cv::Vec3b>(0, 0), cv::Vec3b(55, 100, 127));
    cv::Mat inv = solid(1, 1, {0, 55, 255});
    ops::invert(inv);
    EXPECT_EQ(inv.at<cv::Vec3b>(0, 0), cv::Vec3b(255, 200, 0));

    cv::Mat ac(1, 3, CV_8UC3, cv::Scalar(50, 50, 50));
    ac.at<cv::Vec3b>(0, 1) = {100, 100, 100};
    ac.at<cv::Vec3b>(0, 2) = {75, 75, 75};
    ops::autocontrast(ac);
    EXPECT_EQ(ac.at<cv::Vec3b>(0, 0)[0], 0);
    EXPECT_EQ(ac.at<cv::Vec3b>(0, 1)[0], 255);
    EXPECT_EQ(ac.at<cv::Vec3b>(0, 2)[0], 127); // 25 * 5.1 = 127.5 truncated

    // Equalize spreads a two-level image; a constant one stays.
    cv::Mat eq(1, 4, CV_8UC1);
    eq.at<std::uint8_t>(0, 0) = eq.at<std::uint8_t>(0, 1) = 10;
    eq.at<std::uint8_t>(0, 2) = eq.at<std::uint8_t>(0, 3) = 20;
    ops::equalize(eq); // step = 2 // 255 = 0: unchanged (torchvision)
    EXPECT_EQ(eq.at<std::uint8_t>(0, 2), 20);
    cv::Mat wide(1, 1000, CV_8UC1);
    for (int x = 0; x < 1000; ++x)
        wide.at<std::uint8_t>(0, x) = x < 500 ? 10 : 20;
    ops::equalize(wide);
    EXPECT_EQ(wide.at<std::uint8_t>(0, 0), 0);
    EXPECT_EQ(wide.at<std::uint8_t>(0, 999), 255); // (500 + 0) // 1 clamped
}

TEST(AugmentOps, BlurSharpnessAndGeometry)
{
    cv::Mat flat = solid(20, 20, {60, 120, 180});
    ops::gaussianBlur(flat, 5, 5, 1.3, 1.3);
    EXPECT_EQ(cv::norm(flat, solid(20, 20, {60, 120, 180}), cv::NORM_INF), 0.0);
    cv::Mat sharp = solid(20, 20, {60, 120, 180});
    ops::adjustSharpness(sharp, 3.0);
    EXPECT_EQ(cv::norm(sharp, solid(20, 20, {60, 120, 180}), cv::NORM_INF), 0.0);

    // rotate by +90 is counter-clockwise (torchvision), exact on an even square.
    const cv::Mat g = gradient(16, 16);
    cv::Mat r = g.clone();
    ops::rotate(r, 90, {0, 0, 0}, false);
    cv::Mat expected;
    cv::rotate(g, expected, cv::ROTATE_90_COUNTERCLOCKWISE);
    EXPECT_EQ(cv::norm(r, expected, cv::NORM_INF), 0.0);

    // Translation by (5, 0) moves content right and fills the left.
    cv::Mat t = g.clone();
    ops::AffineParams a;
    a.translateX = 5;
    ops::affine(t, a, {1, 2, 3}, false);
    EXPECT_EQ(t.at<cv::Vec3b>(4, 2), cv::Vec3b(1, 2, 3));
    EXPECT_EQ(t.at<cv::Vec3b>(4, 10), g.at<cv::Vec3b>(4, 5));
}

// ---------------------------------------------------------------- SampleTransform

TEST(SampleTransform, ShapesBytesAndValueRange)
{
    const auto photo = readPhoto("fruits.jpg");
    TransformOptions o;
    o.augmentations = standardAugmentations();
    const SampleTransform t(o);
    EXPECT_EQ(t.sampleBytes(), 224u * 224u * 3u * 4u);
    std::vector<float> out(224 * 224 * 3);
    std::mt19937_64 rng(1);
    if (photo.size() < 100)
        GTEST_SKIP() << "opencv-doc photos not installed";
    t.apply(photo.data(), photo.size(), rng, out.data());
    for (int c = 0; c < 3; ++c) {
        const float lo = (0 - o.mean[std::size_t(c)]) / o.std[std::size_t(c)];
        const float hi = (1 - o.mean[std::size_t(c)]) / o.std[std::size_t(c)];
        for (int i = 0; i < 224 * 224; ++i) {
            ASSERT_GE(out[std::size_t(c) * 224 * 224 + std::size_t(i)], lo - 1e-5f);
            ASSERT_LE(out[std::size_t(c) * 224 * 224 + std::size_t(i)], hi + 1e-5f);
        }
    }
    o.uint8Output = true;
    o.channels = 1;
    EXPECT_EQ(SampleTransform(o).sampleBytes(), 224u * 224u);
}

TEST(SampleTransform, InvalidOptionsThrow)
{
    TransformOptions o;
    o.imageSize = 0;
    EXPECT_THROW(SampleTransform{o}, EngineError);
    o.imageSize = 224;
    o.resizeSize = 200;
    EXPECT_THROW(SampleTransform{o}, EngineError);
    o.resizeSize = 256;
    o.channels = 2;
    EXPECT_THROW(SampleTransform{o}, EngineError);
    o.channels = 3;
    o.augmentations = {AugmentationSpec{"random_resized_crop", 1, {{"scale", {0.5, 3}}}}};
    try {
        SampleTransform{o};
        ADD_FAILURE() << "no error";
    } catch (const EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("data.augment[0].scale"), std::string::npos) << e.what();
    }
}

TEST(SampleTransform, DeterministicForASeed)
{
    const auto bytes = encode(cv::imread(kPhotoDir + "butterfly.jpg").empty() ? gradient(300, 200) : cv::imread(kPhotoDir + "butterfly.jpg"), ".jpg");
    const SampleTransform t(options(json::parse(R"([
        {"type": "random_resized_crop"}, {"type": "horizontal_flip"},
        {"type": "color_jitter", "brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1},
        {"type": "rotation", "degrees": 20}, {"type": "grayscale", "p": 0.3},
        {"type": "gaussian_blur", "p": 0.5}, {"type": "trivial_augment_wide"}, {"type": "rand_augment"},
        {"type": "gaussian_noise", "sigma": 0.05, "p": 0.5}, {"type": "random_erasing"}
    ])"), 64));
    for (std::uint64_t seed : {1u, 2u, 3u, 99u}) {
        EXPECT_EQ(run(t, bytes, seed), run(t, bytes, seed)) << seed;
    }
    EXPECT_NE(run(t, bytes, 1), run(t, bytes, 2));
}

TEST(SampleTransform, ProbabilityZeroIsIdentityAndOneAlwaysApplies)
{
    const auto bytes = encode(gradient(120, 90), ".png");
    auto with = [&](const json &list) {
        TransformOptions o = options(list, 48);
        o.uint8Output = true;
        o.channelsLast = true;
        return SampleTransform(o);
    };
    const SampleTransform plain = with(json::array({{{"type", "random_resized_crop"}}}));
    const SampleTransform allOff = with(json::parse(R"([
        {"type": "random_resized_crop"}, {"type": "horizontal_flip", "p": 0}, {"type": "vertical_flip", "p": 0},
        {"type": "rotation", "p": 0}, {"type": "affine", "degrees": 30, "p": 0},
        {"type": "color_jitter", "brightness": 0.5, "p": 0}, {"type": "grayscale", "p": 0},
        {"type": "gaussian_blur", "p": 0}, {"type": "sharpness", "p": 0}, {"type": "posterize", "p": 0},
        {"type": "solarize", "p": 0}, {"type": "autocontrast", "p": 0}, {"type": "equalize", "p": 0},
        {"type": "invert", "p": 0}, {"type": "rand_augment", "p": 0}, {"type": "trivial_augment_wide", "p": 0},
        {"type": "gaussian_noise", "p": 0}, {"type": "random_erasing", "p": 0}
    ])"));
    const SampleTransform flipAlways = with(json::parse(R"([{"type": "random_resized_crop"}, {"type": "horizontal_flip", "p": 1}])"));
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        const auto base = run(plain, bytes, seed);
        EXPECT_EQ(run(allOff, bytes, seed), base) << seed;
        cv::Mat flipped = asImage(base, 48);
        cv::flip(flipped, flipped, 1);
        EXPECT_EQ(cv::norm(asImage(run(flipAlways, bytes, seed), 48), flipped, cv::NORM_INF), 0.0) << seed;
    }
}

TEST(SampleTransform, EvaluationIgnoresTheListAndMatchesResizeCenterCrop)
{
    const cv::Mat g = gradient(100, 80);
    const auto bytes = encode(cv::Mat(g.clone()), ".png"); // RGB stored as "BGR": same values both ways
    TransformOptions o = options(json::parse(R"([{"type": "random_resized_crop"}, {"type": "invert", "p": 1}])"), 32);
    o.train = false;
    o.resizeSize = 40;
    o.uint8Output = true;
    o.channelsLast = true;
    const SampleTransform t(o);
    const auto a = run(t, bytes, 1), b = run(t, bytes, 2);
    EXPECT_EQ(a, b);
    // Resize short side 80 -> 40 (100 -> 50), center crop 32 at (9, 4).
    const cv::Mat rgb = decodeImage(bytes.data(), bytes.size());
    cv::Mat resized;
    ops::resampleBilinear(rgb, cv::Rect(0, 0, 100, 80), cv::Rect2d(0, 0, 100, 80), cv::Size(50, 40), resized);
    EXPECT_EQ(cv::norm(asImage(a, 32), resized(cv::Rect(9, 4, 32, 32)), cv::NORM_INF), 0.0);
    // Training with resize + center_crop gives the same geometry.
    TransformOptions tr = options(json::parse(R"([{"type": "resize", "size": 40}, {"type": "center_crop"}])"), 32);
    tr.uint8Output = true;
    tr.channelsLast = true;
    EXPECT_EQ(run(SampleTransform(tr), bytes, 5), a);
}

TEST(SampleTransform, LayoutNormalizationAndGreyOutput)
{
    const auto bytes = encode(gradient(64, 64), ".png");
    TransformOptions o = options(json::array(), 16);
    o.train = false;
    o.resizeSize = 16;
    o.uint8Output = true;
    o.channelsLast = true;
    const auto hwc = run(SampleTransform(o), bytes, 0);
    o.channelsLast = false;
    const auto chw = run(SampleTransform(o), bytes, 0);
    o.uint8Output = false;
    const auto f = run(SampleTransform(o), bytes, 0);
    const float *fl = reinterpret_cast<const float *>(f.data());
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 256; ++i) {
            const std::uint8_t v = hwc[std::size_t(i) * 3 + std::size_t(c)];
            ASSERT_EQ(chw[std::size_t(c) * 256 + std::size_t(i)], v);
            ASSERT_EQ(fl[std::size_t(c) * 256 + std::size_t(i)], (float(v) / 255.0f - o.mean[std::size_t(c)]) / o.std[std::size_t(c)]);
        }
    o.channels = 1;
    o.uint8Output = true;
    const auto grey = run(SampleTransform(o), bytes, 0);
    ASSERT_EQ(grey.size(), 256u);
    for (int i = 0; i < 256; ++i) {
        const std::uint8_t *p = &hwc[std::size_t(i) * 3];
        EXPECT_EQ(grey[std::size_t(i)], static_cast<std::uint8_t>(0.2989f * p[0] + 0.587f * p[1] + 0.114f * p[2]));
    }
}

TEST(SampleTransform, GrayscaleStepGivesEqualChannels)
{
    const auto bytes = encode(gradient(50, 50), ".png");
    TransformOptions o = options(json::parse(R"([{"type": "grayscale", "p": 1}])"), 24);
    o.uint8Output = true;
    o.channelsLast = true;
    const auto out = run(SampleTransform(o), bytes, 4);
    for (std::size_t i = 0; i < out.size(); i += 3) {
        ASSERT_EQ(out[i], out[i + 1]);
        ASSERT_EQ(out[i], out[i + 2]);
    }
}

TEST(SampleTransform, RandomErasingAreaWithinScale)
{
    const auto bytes = encode(gradient(80, 80), ".png");
    TransformOptions o = options(json::parse(R"([{"type": "random_erasing", "p": 1, "scale": [0.1, 0.2], "value": 7}])"), 40);
    o.channelsLast = true;
    const SampleTransform t(o);
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
        const auto bytesOut = run(t, bytes, seed);
        const float *v = reinterpret_cast<const float *>(bytesOut.data());
        int count = 0, minX = 40, maxX = -1, minY = 40, maxY = -1;
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 40; ++x) {
                const float *p = v + (y * 40 + x) * 3;
                if (p[0] == 7.0f && p[1] == 7.0f && p[2] == 7.0f) {
                    ++count;
                    minX = std::min(minX, x), maxX = std::max(maxX, x), minY = std::min(minY, y), maxY = std::max(maxY, y);
                }
            }
        ASSERT_GT(count, 0) << seed;
        EXPECT_EQ(count, (maxX - minX + 1) * (maxY - minY + 1)) << "not a rectangle, seed " << seed;
        // h, w are rounded from the drawn area: allow a pixel on each side.
        const int h = maxY - minY + 1, w = maxX - minX + 1;
        EXPECT_GE(double(count), 0.1 * 1600 - (h + w + 1)) << seed;
        EXPECT_LE(double(count), 0.2 * 1600 + (h + w + 1)) << seed;
    }
}

TEST(SampleTransform, GaussianNoiseHasTheAskedSigma)
{
    const auto bytes = encode(solid(64, 64, {128, 128, 128}), ".png");
    TransformOptions o = options(json::parse(R"([{"type": "gaussian_noise", "sigma": 0.05, "clip": false}])"), 64);
    o.train = true;
    o.mean = {0, 0, 0};
    o.std = {1, 1, 1};
    o.augmentations.insert(o.augmentations.begin(), parseAugmentations(json::parse(R"([{"type": "resize", "size": 64}])"))[0]);
    const auto out = run(SampleTransform(o), bytes, 11);
    const float *v = reinterpret_cast<const float *>(out.data());
    double sum = 0, sumSq = 0;
    const int n = 64 * 64 * 3;
    for (int i = 0; i < n; ++i) {
        const double d = v[i] - 128.0 / 255.0;
        sum += d;
        sumSq += d * d;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.003);
    EXPECT_NEAR(std::sqrt(sumSq / n), 0.05, 0.003);
}

TEST(SampleTransform, ExifOrientationIsAppliedBeforeGeometry)
{
    // A tall stored image (30 x 60) with orientation 6 is displayed 60 x 30 (wide).
    cv::Mat stored(60, 30, CV_8UC3, cv::Scalar(0, 0, 0));
    stored(cv::Rect(0, 0, 30, 10)).setTo(cv::Scalar(255, 255, 255)); // white top band
    std::vector<std::uint8_t> jpeg = encode(stored, ".jpg");
    const std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 34, 'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1,
                                            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0};
    jpeg.insert(jpeg.begin() + 2, app1.begin(), app1.end());
    TransformOptions o = options(json::array(), 30);
    o.train = false;
    o.resizeSize = 30;
    o.uint8Output = true;
    o.channelsLast = true;
    const cv::Mat out = asImage(run(SampleTransform(o), jpeg, 0), 30);
    // Rotated clockwise, the white band is on the right: the centre crop of the 60 x 30 shows
    // the middle, all dark, so check the full decode instead and the crop's darkness.
    const cv::Mat shown = decodeImage(jpeg.data(), jpeg.size());
    ASSERT_EQ(shown.cols, 60);
    ASSERT_EQ(shown.rows, 30);
    EXPECT_GT(shown.at<cv::Vec3b>(15, 55)[0], 200);
    EXPECT_LT(shown.at<cv::Vec3b>(15, 5)[0], 50);
    EXPECT_LT(cv::mean(out)[0], 30.0);
}

TEST(SampleTransform, CachePathGivesTheSameResultFamily)
{
    const auto photo = readPhoto("squirrel_cls.jpg"); // 535 x 426
    if (photo.empty())
        GTEST_SKIP() << "opencv-doc photos not installed";
    TransformOptions o;
    o.imageSize = 112;
    o.resizeSize = 128;
    o.train = false;
    o.uint8Output = true;
    o.channelsLast = true;
    const SampleTransform t(o);
    EXPECT_EQ(t.cacheShortSide(), 129); // ceil(112 * 1.15)
    const cv::Mat cached = t.decodeForCache(photo.data(), photo.size());
    EXPECT_EQ(std::min(cached.cols, cached.rows), 129);
    EXPECT_EQ(cached.cols, static_cast<int>(129.0 * 535 / 426));
    std::vector<std::uint8_t> viaCache(t.sampleBytes());
    std::mt19937_64 rng(1);
    t.applyDecoded(cached, rng, viaCache.data());
    const auto direct = run(t, photo, 1);
    const cv::Mat a = asImage(viaCache, 112), b = asImage(direct, 112);
    cv::Mat d;
    cv::absdiff(a, b, d);
    EXPECT_LT(cv::mean(d)[0], 3.0);
    // Training crops from the cache stay within the normalized range and are deterministic.
    o.train = true;
    o.augmentations = standardAugmentations();
    const SampleTransform tt(o);
    std::vector<std::uint8_t> x(tt.sampleBytes()), y(tt.sampleBytes());
    std::mt19937_64 r1(9), r2(9);
    tt.applyDecoded(cached, r1, x.data());
    tt.applyDecoded(cached, r2, y.data());
    EXPECT_EQ(x, y);
}

TEST(SampleTransform, HostileImagesThrowEngineError)
{
    TransformOptions o;
    o.augmentations = standardAugmentations();
    const SampleTransform t(o);
    std::vector<float> out(224 * 224 * 3);
    std::mt19937_64 rng(0);
    const std::vector<std::uint8_t> empty;
    EXPECT_THROW(t.apply(empty.data(), 0, rng, out.data()), EngineError);
    const std::vector<std::uint8_t> text = {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'};
    EXPECT_THROW(t.apply(text.data(), text.size(), rng, out.data()), EngineError);
    const auto jpeg = encode(gradient(300, 200), ".jpg");
    const std::vector<std::uint8_t> cut(jpeg.begin(), jpeg.begin() + long(jpeg.size() * 2 / 3));
    for (int i = 0; i < 10; ++i) // whatever crop is drawn, a truncated file fails
        EXPECT_THROW(t.apply(cut.data(), cut.size(), rng, out.data()), EngineError);
    std::vector<std::uint8_t> huge = jpeg;
    for (std::size_t i = 2; i + 9 < huge.size(); ++i)
        if (huge[i] == 0xFF && huge[i + 1] == 0xC0) {
            huge[i + 5] = 0xEA, huge[i + 6] = 0x60, huge[i + 7] = 0xEA, huge[i + 8] = 0x60;
            break;
        }
    EXPECT_THROW(t.apply(huge.data(), huge.size(), rng, out.data()), EngineError);
    EXPECT_THROW(t.decodeForCache(cut.data(), cut.size()), EngineError);
}

// ---------------------------------------------------------------- BatchMixer

namespace {
// N constant images, image i filled with 10 * (i + 1); label i.
std::pair<at::Tensor, at::Tensor> constantBatch(int n, int size)
{
    at::Tensor images = at::empty({n, 3, size, size});
    for (int i = 0; i < n; ++i)
        images[i].fill_(10.0 * (i + 1));
    return {images, at::arange(n, at::kLong)};
}
} // namespace

TEST(BatchMixer, MixupMixesPixelsAndLabelsWithOneLambda)
{
    const BatchMixer mixer(parseAugmentations(json::parse(R"([{"type": "mixup", "alpha": 0.4}])")), 5);
    ASSERT_TRUE(mixer.active());
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        auto [images, labels] = constantBatch(4, 6);
        std::mt19937_64 rng(seed);
        const at::Tensor targets = mixer.apply(images, labels, rng);
        ASSERT_EQ(targets.sizes(), (at::IntArrayRef{4, 5}));
        EXPECT_TRUE(at::allclose(targets.sum(1), at::ones({4})));
        const double lambda = targets[0][0].item<double>();
        for (int i = 0; i < 4; ++i) {
            const int prev = (i + 3) % 4;
            EXPECT_NEAR(targets[i][i].item<double>(), lambda, 1e-6);
            EXPECT_NEAR(targets[i][prev].item<double>(), 1 - lambda, 1e-6);
            const double expected = lambda * 10 * (i + 1) + (1 - lambda) * 10 * (prev + 1);
            EXPECT_NEAR(images[i].min().item<double>(), expected, 1e-4);
            EXPECT_NEAR(images[i].max().item<double>(), expected, 1e-4);
        }
    }
}

TEST(BatchMixer, MultiLabelSetsMixWithTheImagesWeights)
{
    const BatchMixer mixer(parseAugmentations(json::parse(R"([{"type": "mixup", "alpha": 0.4}])")), 5);
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        // Label sets {0, 2}, {1}, {2, 3, 4}, {}: multi-hot rows.
        const at::Tensor sets = at::tensor({1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0}, at::kFloat).view({4, 5});
        auto [images, labels] = constantBatch(4, 6);
        auto [same, ignored] = constantBatch(4, 6);
        std::mt19937_64 rng(seed), again(seed);
        const at::Tensor mixed = mixer.mix(images, sets, rng);
        // One-hot rows through mix() are exactly apply()'s targets: one code path, the same draws.
        const at::Tensor oneHot = mixer.mix(same, at::one_hot(labels, 5).to(at::kFloat), again);
        std::mt19937_64 third(seed);
        auto [viaApply, labelsAgain] = constantBatch(4, 6);
        EXPECT_TRUE(at::equal(oneHot, mixer.apply(viaApply, labelsAgain, third)));
        EXPECT_TRUE(at::equal(images, viaApply));
        // lambda from the pixels of image 0 (10 mixed with image 3's 40).
        const double lambda = (images[0].min().item<double>() - 40.0) / (10.0 - 40.0);
        const at::Tensor expected = sets * lambda + sets.roll(1, 0) * (1 - lambda);
        EXPECT_TRUE(at::allclose(mixed, expected, 1e-5, 1e-6)) << "seed " << seed;
    }
    const auto wrongWidth = [&mixer] {
        at::Tensor images = constantBatch(4, 6).first;
        std::mt19937_64 rng(0);
        mixer.mix(images, at::zeros({4, 3}), rng);
    };
    EXPECT_THROW(wrongWidth(), EngineError);
}

TEST(BatchMixer, CutmixBoxAreaMatchesLambda)
{
    const BatchMixer mixer(parseAugmentations(json::parse(R"([{"type": "cutmix"}])")), 4);
    int mixed = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        auto [images, labels] = constantBatch(4, 20);
        std::mt19937_64 rng(seed);
        const at::Tensor targets = mixer.apply(images, labels, rng);
        EXPECT_TRUE(at::allclose(targets.sum(1), at::ones({4})));
        for (int i = 0; i < 4; ++i) {
            const int prev = (i + 3) % 4;
            const at::Tensor replaced = images[i][0].eq(10.0 * (prev + 1));
            const at::Tensor kept = images[i][0].eq(10.0 * (i + 1));
            EXPECT_EQ(replaced.sum().item<std::int64_t>() + kept.sum().item<std::int64_t>(), 400);
            const double share = replaced.sum().item<double>() / 400.0;
            EXPECT_NEAR(targets[i][prev].item<double>(), share, 1e-6);
            EXPECT_NEAR(targets[i][i].item<double>(), 1 - share, 1e-6);
            // The replaced pixels form one box.
            const at::Tensor rows = replaced.any(1).nonzero(), cols = replaced.any(0).nonzero();
            if (rows.numel() > 0) {
                ++mixed;
                const auto h = rows.max().item<std::int64_t>() - rows.min().item<std::int64_t>() + 1;
                const auto w = cols.max().item<std::int64_t>() - cols.min().item<std::int64_t>() + 1;
                EXPECT_EQ(replaced.sum().item<std::int64_t>(), h * w);
            }
        }
    }
    EXPECT_GT(mixed, 0);
}

TEST(BatchMixer, InactiveOrSkippedGivesOneHot)
{
    const BatchMixer none(standardAugmentations(), 3);
    EXPECT_FALSE(none.active());
    auto [images, labels] = constantBatch(3, 4);
    const at::Tensor before = images.clone();
    std::mt19937_64 rng(0);
    at::Tensor t = none.apply(images, labels, rng);
    EXPECT_TRUE(at::equal(t, at::eye(3)));
    const BatchMixer never(parseAugmentations(json::parse(R"([{"type": "mixup", "p": 0}])")), 3);
    t = never.apply(images, labels, rng);
    EXPECT_TRUE(at::equal(t, at::eye(3)));
    EXPECT_TRUE(at::equal(images, before));
    const at::Tensor bad = at::tensor({0, 5, 1}, at::kLong);
    EXPECT_THROW(never.apply(images, bad, rng), EngineError);
}

// ---------------------------------------------------------------- preview

TEST(AugmentationPreview, ShardsAndInMemoryImages)
{
    lathe::test::TempDir dir;
    const fs::path images = dir.path() / "images";
    for (int i = 0; i < 6; ++i) {
        const fs::path folder = images / (i % 2 ? "cat" : "dog");
        fs::create_directories(folder);
        lathe::test::writeRaw((folder / ("img" + std::to_string(i) + ".png")).string(), encode(gradient(40 + i, 30), ".png"));
    }
    ConvertOptions convert;
    convert.scan.root = images.string();
    convert.scan.valFraction = 0;
    convert.scan.testFraction = 0;
    convert.outDir = (dir.path() / "shards").string();
    const std::string dataset = convertFolder(convert).outDir;

    const auto list = parseAugmentations(json::parse(R"([{"type": "random_resized_crop"}, {"type": "horizontal_flip"}])"));
    const auto a = previewAugmentations(dataset, "train", 4, list, 32, 7);
    ASSERT_EQ(a.size(), 4u);
    for (const PreviewImage &p : a) {
        EXPECT_EQ(p.width, 32);
        EXPECT_EQ(p.height, 32);
        EXPECT_EQ(p.rgb.size(), 32u * 32u * 3u);
        EXPECT_TRUE(p.label == "cat" || p.label == "dog") << p.label;
    }
    const auto b = previewAugmentations(dataset, "train", 4, list, 32, 7);
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(a[i].rgb, b[i].rgb);
    EXPECT_THROW(previewAugmentations(dataset, "test", 2, list, 32, 7), EngineError);

    std::vector<std::string> encoded;
    for (int i = 0; i < 2; ++i) {
        const auto bytes = encode(solid(20, 20, {std::uint8_t(50 * i), 0, 0}), ".png");
        encoded.emplace_back(bytes.begin(), bytes.end());
    }
    const auto mem = previewAugmentationsOnImages(encoded, {}, 16, 1);
    ASSERT_EQ(mem.size(), 2u);
    EXPECT_EQ(mem[1].rgb[0], 0); // BGR (50, 0, 0) written by OpenCV is RGB (0, 0, 50)
    EXPECT_EQ(mem[1].rgb[2], 50);
    // With mixup every image shows two sources (each in-memory image is its own class).
    const auto mixed = previewAugmentationsOnImages(encoded, parseAugmentations(json::parse(R"([{"type": "mixup"}])")), 16, 3);
    ASSERT_EQ(mixed.size(), 2u);
    EXPECT_NE(mixed[0].label.find(" + "), std::string::npos) << mixed[0].label;
    EXPECT_NE(mixed[0].label.find("image 1"), std::string::npos) << mixed[0].label;
    encoded.push_back("broken");
    try {
        previewAugmentationsOnImages(encoded, {}, 16, 1);
        ADD_FAILURE() << "no error";
    } catch (const EngineError &e) {
        EXPECT_NE(std::string(e.what()).find("image 2"), std::string::npos) << e.what();
    }
}

// ---------------------------------------------------------------- torchvision parity

namespace {

// Reference outputs of tests/parity/augment_reference.py (empty when the script is missing).
struct Reference
{
    std::map<std::string, cv::Mat> images;
};

Reference loadReference(const std::string &photo, const std::string &large, const std::string &dir)
{
    Reference r;
    const fs::path script = fs::path(LATHE_SOURCE_ROOT) / "tests" / "parity" / "augment_reference.py";
    if (!fs::exists(script))
        return r;
    const std::string command = "'" + lathe::test::python() + "' '" + script.string() + "' --photo '" + photo + "' --large '" + large + "' --out '" + dir + "' > '" + dir + "/log.txt' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(dir + "/index.json");
    if (!in)
        return r;
    const json index = json::parse(in);
    for (auto it = index.begin(); it != index.end(); ++it) {
        const std::vector<int> shape = it.value().get<std::vector<int>>();
        const auto bytes = lathe::test::readRaw(dir + "/" + it.key() + ".raw");
        EXPECT_EQ(bytes.size(), std::size_t(shape[0]) * shape[1] * shape[2]) << it.key();
        r.images[it.key()] = cv::Mat(shape[0], shape[1], CV_8UC3, const_cast<std::uint8_t *>(bytes.data())).clone();
    }
    return r;
}

struct Difference
{
    double max = 0;
    double fractionOff = 0; // share of values that differ at all
};

Difference compare(const cv::Mat &ours, const cv::Mat &theirs)
{
    EXPECT_EQ(ours.size(), theirs.size());
    EXPECT_EQ(ours.type(), theirs.type());
    if (ours.size() != theirs.size() || ours.type() != theirs.type())
        return {1e9, 1};
    cv::Mat d;
    cv::absdiff(ours, theirs, d);
    Difference r;
    r.max = cv::norm(d, cv::NORM_INF);
    r.fractionOff = double(cv::countNonZero(d.reshape(1))) / double(d.total() * d.channels());
    return r;
}

} // namespace

TEST(AugmentParity, MatchesTorchvisionOnAPhoto)
{
    const std::string photo = kPhotoDir + "squirrel_cls.jpg"; // 535 x 426
    const std::string large = kPhotoDir + "aloeL.jpg";         // 1282 x 1110: decoded at 1/4 scale
    if (!fs::exists(photo) || !fs::exists(large))
        GTEST_SKIP() << "opencv-doc photos not installed";
    lathe::test::TempDir dir;
    const Reference ref = loadReference(photo, large, dir.path().string());
    if (ref.images.empty())
        FAIL() << "no reference from tests/parity/augment_reference.py (" << lathe::test::python() << ")";
    const auto bytes = lathe::test::readRaw(photo);
    std::map<std::string, Difference> report;

    // Decoding: both are libjpeg-turbo with the same settings.
    const cv::Mat decoded = decodeImage(bytes.data(), bytes.size());
    report["decoded"] = compare(decoded, ref.images.at("decoded"));

    // Geometry from the full-resolution decode, and through SampleTransform (DCT scaling and
    // partial decoding where they apply).
    cv::Mat out;
    const cv::Size scaled = ops::resizedShortSide(decoded.cols, decoded.rows, 256);
    const cv::Point origin = ops::centerCropOrigin(scaled.width, scaled.height, 224, 224);
    const double sx = double(decoded.cols) / scaled.width, sy = double(decoded.rows) / scaled.height;
    ops::resampleBilinear(decoded, cv::Rect(0, 0, decoded.cols, decoded.rows),
                          cv::Rect2d(origin.x * sx, origin.y * sy, 224 * sx, 224 * sy), cv::Size(224, 224), out);
    report["eval_256_224 (ops)"] = compare(out, ref.images.at("eval_256_224"));
    TransformOptions o;
    o.train = false;
    o.uint8Output = true;
    o.channelsLast = true;
    const cv::Mat viaTransform = asImage(run(SampleTransform(o), bytes, 0), 224);
    report["eval_256_224 (SampleTransform)"] = compare(viaTransform, ref.images.at("eval_256_224"));
    ops::resampleBilinear(decoded, cv::Rect(50, 30, 280, 300), cv::Rect2d(50, 30, 280, 300), cv::Size(224, 224), out);
    report["resized_crop"] = compare(out, ref.images.at("resized_crop"));
    ops::resampleBilinear(decoded, cv::Rect(0, 0, decoded.cols, decoded.rows), cv::Rect2d(0, 0, decoded.cols, decoded.rows),
                          cv::Size(640, 600), out);
    report["resize_up"] = compare(out, ref.images.at("resize_up"));

    // Pixel functions on the same 224 x 224 input.
    const cv::Mat base = ref.images.at("eval_256_224");
    auto check = [&](const std::string &name, const std::function<void(cv::Mat &)> &f) {
        cv::Mat img = base.clone();
        f(img);
        report[name] = compare(img, ref.images.at(name));
    };
    const std::array<double, 3> black{0, 0, 0};
    check("hflip", [](cv::Mat &m) { ops::horizontalFlip(m); });
    check("vflip", [](cv::Mat &m) { ops::verticalFlip(m); });
    check("brightness_1.5", [](cv::Mat &m) { ops::adjustBrightness(m, 1.5); });
    check("brightness_0.7", [](cv::Mat &m) { ops::adjustBrightness(m, 0.7); });
    check("contrast_0.6", [](cv::Mat &m) { ops::adjustContrast(m, 0.6); });
    check("contrast_1.8", [](cv::Mat &m) { ops::adjustContrast(m, 1.8); });
    check("saturation_1.7", [](cv::Mat &m) { ops::adjustSaturation(m, 1.7); });
    check("saturation_0.3", [](cv::Mat &m) { ops::adjustSaturation(m, 0.3); });
    check("hue_0.2", [](cv::Mat &m) { ops::adjustHue(m, 0.2); });
    check("hue_-0.35", [](cv::Mat &m) { ops::adjustHue(m, -0.35); });
    check("grayscale", [](cv::Mat &m) { ops::rgbToGrayscale(m, m, 3); });
    check("sharpness_2.5", [](cv::Mat &m) { ops::adjustSharpness(m, 2.5); });
    check("posterize_3", [](cv::Mat &m) { ops::posterize(m, 3); });
    check("solarize_100", [](cv::Mat &m) { ops::solarize(m, 100); });
    check("autocontrast", [](cv::Mat &m) { ops::autocontrast(m); });
    check("equalize", [](cv::Mat &m) { ops::equalize(m); });
    check("invert", [](cv::Mat &m) { ops::invert(m); });
    check("gaussian_blur_7_1.5", [](cv::Mat &m) { ops::gaussianBlur(m, 7, 7, 1.5, 1.5); });
    check("rotate_30", [&](cv::Mat &m) { ops::rotate(m, 30, black, false); });
    check("affine", [&](cv::Mat &m) {
        ops::AffineParams a;
        a.angle = -12;
        a.translateX = 9;
        a.translateY = -5;
        a.scale = 1.1;
        a.shearX = 8;
        a.shearY = -4;
        ops::affine(m, a, black, false);
    });

    // Stated tolerances: exact where the arithmetic is the same; one level where only float
    // summation order or an intermediate rounding differs; the DCT-scaled decode of the
    // SampleTransform path is a different low-pass; nearest-neighbour warps may pick the
    // neighbour pixel where a source coordinate falls within float error of a pixel edge.
    const std::map<std::string, std::pair<double, double>> tolerance = {
        {"decoded", {0, 0}},
        {"eval_256_224 (ops)", {1, 0.2}},
        {"eval_256_224 (SampleTransform)", {255, 0.9}}, // checked on the mean below
        {"resized_crop", {1, 0.2}},
        {"resize_up", {1, 0.2}},
        {"rotate_30", {255, 0.01}},
        {"affine", {255, 0.01}},
        {"gaussian_blur_7_1.5", {1, 0.05}},
        {"sharpness_2.5", {1, 0.05}},
    };
    for (const auto &[name, d] : report) {
        const auto t = tolerance.count(name) ? tolerance.at(name) : std::make_pair(1.0, 0.02);
        std::printf("parity %-32s max %5.0f  differing %.4f\n", name.c_str(), d.max, d.fractionOff);
        EXPECT_LE(d.max, t.first) << name;
        EXPECT_LE(d.fractionOff, t.second) << name;
    }
    auto meanDifference = [](const cv::Mat &a, const cv::Mat &b) {
        cv::Mat diff;
        cv::absdiff(a, b, diff);
        const cv::Scalar m = cv::mean(diff);
        return (m[0] + m[1] + m[2]) / 3;
    };
    const double mean = meanDifference(viaTransform, ref.images.at("eval_256_224"));
    std::printf("parity eval_256_224 (SampleTransform) mean abs difference %.3f\n", mean);
    EXPECT_LT(mean, 1.0);
    // A large photo goes through the DCT-scaled (1/4) decode: a different low-pass than PIL's
    // antialiased resize of the full decode, close on average.
    const auto largeBytes = lathe::test::readRaw(large);
    const cv::Mat largeOut = asImage(run(SampleTransform(o), largeBytes, 0), 224);
    const Difference l = compare(largeOut, ref.images.at("large_eval_256_224"));
    const double largeMean = meanDifference(largeOut, ref.images.at("large_eval_256_224"));
    std::printf("parity large_eval_256_224 (SampleTransform, DCT 1/4) max %.0f mean abs difference %.3f\n", l.max, largeMean);
    EXPECT_LT(largeMean, 3.0);
    EXPECT_GT(cv::PSNR(largeOut, ref.images.at("large_eval_256_224")), 30.0);
}
