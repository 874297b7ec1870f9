#pragma once

// Engine-internal: OpenCV types. The deterministic image functions behind SampleTransform,
// each following the torchvision function of the same name (torchvision.transforms.
// functional on uint8 tensors; resize as PIL's bilinear filter, which torchvision uses for
// PIL images). Images are 8-bit RGB (CV_8UC3) or grey (CV_8UC1), modified in place unless
// said otherwise. The random draws of the transforms are here too, so tests can check them.

#include <opencv2/core/mat.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace lathe::engine::ops {

// --- Random numbers: only from the generator passed in, the same on every platform.
double uniform01(std::mt19937_64 &rng);                       // [0, 1)
double uniform(std::mt19937_64 &rng, double lo, double hi);   // [lo, hi)
std::int64_t randint(std::mt19937_64 &rng, std::int64_t n);   // [0, n), n >= 1
double normal(std::mt19937_64 &rng);                          // N(0, 1)
double beta(std::mt19937_64 &rng, double a, double b);        // Beta(a, b)
// Python's round(): half to even.
double roundHalfEven(double v);

// --- Geometry.
struct CropRect
{
    int top = 0, left = 0, height = 0, width = 0;
};

// torchvision RandomResizedCrop.get_params: ten tries of a log-uniform aspect ratio and a
// uniform area, then the central crop with the ratio clamped.
CropRect randomResizedCropParams(int width, int height, const std::array<double, 2> &scale,
                                 const std::array<double, 2> &ratio, std::mt19937_64 &rng);

// torchvision Resize(size) on the short side: the resized width and height.
cv::Size resizedShortSide(int width, int height, int size);
// torchvision CenterCrop: top-left of a crop (with Python's rounding).
cv::Point centerCropOrigin(int width, int height, int cropWidth, int cropHeight);

// PIL's bilinear resampling (Resample.c: triangle filter widened by the scale factor when
// shrinking, i.e. antialiased) of the box [x0, x1) x [y0, y1) of src to dst (size out).
// Filter taps are confined to `bounds` (a rectangle of src): the crop for crop-then-resize,
// the whole image for resize-then-crop. The vertical pass runs first in float, one rounding
// at the end (PIL rounds between its passes too: differences are at most 1). mirror: the
// output flipped left-right as well (horizontalFlip of the result, at no extra cost).
void resampleBilinear(const cv::Mat &src, const cv::Rect &bounds, const cv::Rect2d &box, cv::Size out, cv::Mat &dst,
                      bool mirror = false);

// --- Pixel functions (torchvision.transforms.functional on uint8 tensors).
void horizontalFlip(cv::Mat &img);
void verticalFlip(cv::Mat &img);
void adjustBrightness(cv::Mat &img, double factor);
void adjustContrast(cv::Mat &img, double factor);
void adjustSaturation(cv::Mat &img, double factor);
void adjustHue(cv::Mat &img, double hueFactor); // hueFactor in [-0.5, 0.5]
void adjustSharpness(cv::Mat &img, double factor);
// rgb_to_grayscale: 0.2989 R + 0.587 G + 0.114 B, truncated; outChannels 1 or 3.
void rgbToGrayscale(const cv::Mat &src, cv::Mat &dst, int outChannels);
void posterize(cv::Mat &img, int bits);
void solarize(cv::Mat &img, double threshold);
void autocontrast(cv::Mat &img);
void equalize(cv::Mat &img);
void invert(cv::Mat &img);
// gaussian_blur: reflect padding, kernel sizes odd.
void gaussianBlur(cv::Mat &img, int kernelX, int kernelY, double sigmaX, double sigmaY);

// F.affine / F.rotate on tensors: angle in degrees (affine: clockwise as torchvision's affine;
// rotate: counter-clockwise), translate in pixels, shear in degrees. centerAtOrigin: the
// centre of the transform is the top-left corner (autoaugment's shears), else the image centre.
struct AffineParams
{
    double angle = 0, translateX = 0, translateY = 0, scale = 1, shearX = 0, shearY = 0;
    bool centerAtOrigin = false;
};
void affine(cv::Mat &img, const AffineParams &params, const std::array<double, 3> &fill, bool bilinear);
void rotate(cv::Mat &img, double angle, const std::array<double, 3> &fill, bool bilinear);

// --- The autoaugment family (torchvision.transforms.autoaugment), ops in its order.
enum class AutoOp { Identity, ShearX, ShearY, TranslateX, TranslateY, Rotate, Brightness, Color, Contrast, Sharpness,
                    Posterize, Solarize, AutoContrast, Equalize };
constexpr int kAutoOpCount = 14;
void applyAutoOp(cv::Mat &img, AutoOp op, double magnitude, const std::array<double, 3> &fill, bool bilinear);
// RandAugment / TrivialAugmentWide: the magnitude of bin `bin` of num bins, unsigned.
double randAugmentMagnitude(AutoOp op, int bin, int numBins, int width, int height);
double trivialAugmentMagnitude(AutoOp op, int bin, int numBins);
bool autoOpSigned(AutoOp op);
bool autoOpHasMagnitude(AutoOp op);

} // namespace lathe::engine::ops
