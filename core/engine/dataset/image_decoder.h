#pragma once

// Engine-internal: uses OpenCV types. Not for workspace or widgets.

#include "engine/dataset/image_header.h"

#include <opencv2/core/mat.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lathe::engine {

// readImageHeader plus the decompression-bomb checks (engine/base/parse_limits.h): more pixels
// than image.pixels, or a side longer than image.side, is refused before any pixel memory is
// allocated. Throws EngineError with the reason, naming the limit.
ImageHeader readCheckedHeader(const std::uint8_t *data, std::size_t size);

// A decoded image, or the part of one that was asked for, as displayed (EXIF orientation
// applied), 8-bit RGB (CV_8UC3) or grey (CV_8UC1). The full-resolution point (X, Y) of the
// displayed image lies at pixels coordinates (X * scale - offsetX, Y * scale - offsetY),
// pixel (i, j) covering [j, j + 1) x [i, i + 1).
struct DecodedImage
{
    cv::Mat pixels;
    double scale = 1; // 1, 1/2, 1/4 or 1/8: JPEG DCT-domain scaling
    double offsetX = 0;
    double offsetY = 0;
    int fullWidth = 0; // the full-resolution image as displayed
    int fullHeight = 0;
};

// The DCT scale (1, 1/2, 1/4, 1/8) a JPEG decode can use when it needs at least minScale
// decoded pixels per full-resolution pixel: the smallest that still gives them.
double jpegDecodeScale(double minScale);

// Decodes the whole image. channels: 3 (RGB) or 1 (grey). Grey, grey+alpha, RGBA (alpha
// dropped, as PIL's convert), 16-bit (scaled by 1/257), palette and CMYK (inverted Adobe
// CMYK as PIL reads it) sources are converted. Throws EngineError with the reason.
cv::Mat decodeImage(const std::uint8_t *data, std::size_t size, int channels = 3);

// Decodes at least `region` (full-resolution, displayed coordinates; clipped to the image)
// with at least minScale pixels per full-resolution pixel. JPEG: the smallest DCT scale
// that gives them and, where the build has libjpeg's API (LATHE_HAVE_JPEGLIB), only the
// rows and iMCU columns the region needs (allowPartial); the result may cover more than the
// region. Other formats are decoded whole. With scratch, the pixels may live in *scratch
// (valid until it is reused or resized) instead of an allocation of their own: worker
// threads pass a thread_local buffer. fastDecode (JPEG only): libjpeg's fast integer IDCT
// (JDCT_IFAST) and chroma upsampling by replication (do_fancy_upsampling off) instead of the
// accurate IDCT and interpolated chroma that PIL and TurboJPEG use by default: some 5% less
// decode time, pixels off the accurate ones by 0.3-2.6 levels on average on the test photos
// (PSNR 36-53 dB; up to ~40 levels at sharp chroma edges); for training augmentation only,
// never for evaluation. Throws EngineError with the reason.
DecodedImage decodeRegion(const std::uint8_t *data, std::size_t size, const ImageHeader &header, const cv::Rect &region,
                          double minScale, int channels = 3, bool allowPartial = true,
                          std::vector<std::uint8_t> *scratch = nullptr, bool fastDecode = false);

// Whether this build decodes JPEG regions partially (libjpeg's jpeg_crop_scanline and
// jpeg_skip_scanlines) rather than whole.
bool partialJpegDecodeAvailable();

// Applies an EXIF orientation (1..8) to pixels stored as in the file.
cv::Mat applyOrientation(const cv::Mat &stored, int orientation);

} // namespace lathe::engine
