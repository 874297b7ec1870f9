#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lathe::engine {

enum class ImageFormat { Unknown, Jpeg, Png, Bmp, Tiff, Webp };

// Lower-case name: "jpeg", "png", "bmp", "tiff", "webp" or "unknown".
const char *formatName(ImageFormat format);

// What a file's header says, read without decoding any pixels.
struct ImageHeader
{
    ImageFormat format = ImageFormat::Unknown;
    int width = 0;
    int height = 0;
    int channels = 0;        // 1 grey, 2 grey+alpha, 3 colour, 4 colour+alpha or CMYK
    int bitDepth = 8;        // bits per channel
    bool cmyk = false;       // CMYK/YCCK JPEG or separated TIFF
    int exifOrientation = 1; // 1..8 as in EXIF; 1 = as stored

    std::int64_t pixels() const { return std::int64_t(width) * height; }
};

// The format from the first bytes (magic numbers); the file extension plays no part.
ImageFormat sniffFormat(const std::uint8_t *data, std::size_t size);

// Parses the header of an image held in memory. Throws EngineError with the reason
// ("not an image", "truncated header", ...); the caller adds the file name.
ImageHeader readImageHeader(const std::uint8_t *data, std::size_t size);

} // namespace lathe::engine
