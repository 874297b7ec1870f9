#include "engine/dataset/image_header.h"

#include "engine/base/engine_error.h"

#include <turbojpeg.h>

#include <cstring>
#include <memory>
#include <string>

namespace lathe::engine {
namespace {

// Bounds-checked reads of little- and big-endian integers from a byte buffer.
class Bytes
{
public:
    Bytes(const std::uint8_t *data, std::size_t size, bool bigEndian = true)
        : m_data(data)
        , m_size(size)
        , m_big(bigEndian)
    {
    }

    bool has(std::size_t offset, std::size_t n) const { return offset <= m_size && n <= m_size - offset; }

    std::uint32_t u8(std::size_t o) const { return at(o, 1)[0]; }
    std::uint32_t u16(std::size_t o) const
    {
        const std::uint8_t *p = at(o, 2);
        return m_big ? (p[0] << 8 | p[1]) : (p[1] << 8 | p[0]);
    }
    std::uint32_t u32(std::size_t o) const
    {
        const std::uint8_t *p = at(o, 4);
        return m_big ? (std::uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3])
                     : (std::uint32_t(p[3]) << 24 | p[2] << 16 | p[1] << 8 | p[0]);
    }
    bool matches(std::size_t o, const char *text) const
    {
        const std::size_t n = std::strlen(text);
        return has(o, n) && std::memcmp(m_data + o, text, n) == 0;
    }
    void setBigEndian(bool big) { m_big = big; }
    std::size_t size() const { return m_size; }

private:
    const std::uint8_t *at(std::size_t o, std::size_t n) const
    {
        if (!has(o, n))
            throw EngineError("truncated header");
        return m_data + o;
    }

    const std::uint8_t *m_data;
    std::size_t m_size;
    bool m_big;
};

// Orientation (tag 0x0112) from a TIFF structure: EXIF's payload or a TIFF file's IFD0.
// Also returns the other baseline tags a TIFF header needs.
struct TiffTags
{
    std::uint32_t width = 0, height = 0, bitsPerSample = 8, samplesPerPixel = 1, photometric = 1, orientation = 1;
};

TiffTags readTiffIfd0(const std::uint8_t *data, std::size_t size)
{
    Bytes b(data, size);
    if (b.matches(0, "II"))
        b.setBigEndian(false);
    else if (!b.matches(0, "MM"))
        throw EngineError("corrupt TIFF header (no byte-order mark)");
    if (b.u16(2) != 42)
        throw EngineError("corrupt TIFF header (bad magic)");
    const std::uint32_t ifd = b.u32(4);
    const std::uint32_t entries = b.u16(ifd);
    TiffTags tags;
    for (std::uint32_t i = 0; i < entries; ++i) {
        const std::size_t e = ifd + 2 + std::size_t(i) * 12;
        const std::uint32_t tag = b.u16(e);
        const std::uint32_t type = b.u16(e + 2);
        const std::uint32_t count = b.u32(e + 4);
        // SHORT values sit in the first two bytes of the value field; LONG in all four.
        // Several SHORTs that do not fit are stored elsewhere: the first is enough here.
        auto value = [&]() -> std::uint32_t {
            if (type == 3)
                return count * 2 <= 4 ? b.u16(e + 8) : b.u16(b.u32(e + 8));
            return b.u32(e + 8);
        };
        switch (tag) {
        case 256: tags.width = value(); break;
        case 257: tags.height = value(); break;
        case 258: tags.bitsPerSample = value(); break;
        case 262: tags.photometric = value(); break;
        case 274: tags.orientation = value(); break;
        case 277: tags.samplesPerPixel = value(); break;
        default: break;
        }
    }
    return tags;
}

int jpegExifOrientation(const std::uint8_t *data, std::size_t size)
{
    Bytes b(data, size);
    std::size_t pos = 2;
    while (b.has(pos, 4)) {
        if (b.u8(pos) != 0xFF)
            return 1;
        const std::uint32_t marker = b.u8(pos + 1);
        if (marker == 0xDA || marker == 0xD9) // start of scan / end: no more metadata
            return 1;
        const std::uint32_t length = b.u16(pos + 2);
        if (marker == 0xE1 && b.matches(pos + 4, "Exif") && length > 8 && b.has(pos + 10, length - 8)) {
            try {
                const std::uint32_t o = readTiffIfd0(data + pos + 10, length - 8).orientation;
                return o >= 1 && o <= 8 ? static_cast<int>(o) : 1;
            } catch (const EngineError &) {
                return 1; // broken EXIF does not make a broken image
            }
        }
        pos += 2 + length;
    }
    return 1;
}

struct TjDeleter
{
    void operator()(void *h) const { tjDestroy(h); }
};

ImageHeader jpegHeader(const std::uint8_t *data, std::size_t size)
{
    thread_local std::unique_ptr<void, TjDeleter> handle(tjInitDecompress());
    int width = 0, height = 0, subsamp = 0, colorspace = 0;
    if (tjDecompressHeader3(handle.get(), data, static_cast<unsigned long>(size), &width, &height, &subsamp,
                            &colorspace) != 0) {
        const std::string reason = tjGetErrorStr2(handle.get());
        handle.reset(tjInitDecompress()); // libjpeg-turbo 2.1 leaves a handle unusable after an error
        throw EngineError("corrupt or truncated JPEG header (" + reason + ")");
    }
    if (width <= 0 || height <= 0) { // libjpeg ran out of data before the frame header
        handle.reset(tjInitDecompress());
        throw EngineError("truncated JPEG header (no frame header)");
    }
    ImageHeader h;
    h.format = ImageFormat::Jpeg;
    h.width = width;
    h.height = height;
    h.cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    h.channels = colorspace == TJCS_GRAY ? 1 : (h.cmyk ? 4 : 3);
    h.exifOrientation = jpegExifOrientation(data, size);
    return h;
}

ImageHeader pngHeader(const Bytes &b)
{
    if (!b.matches(12, "IHDR"))
        throw EngineError("corrupt PNG (no IHDR chunk)");
    ImageHeader h;
    h.format = ImageFormat::Png;
    h.width = static_cast<int>(b.u32(16));
    h.height = static_cast<int>(b.u32(20));
    h.bitDepth = static_cast<int>(b.u8(24));
    switch (b.u8(25)) {
    case 0: h.channels = 1; break;
    case 2: h.channels = 3; break;
    case 3: h.channels = 3; h.bitDepth = 8; break; // palette
    case 4: h.channels = 2; break;
    case 6: h.channels = 4; break;
    default: throw EngineError("corrupt PNG (unknown colour type " + std::to_string(b.u8(25)) + ")");
    }
    return h;
}

ImageHeader bmpHeader(const std::uint8_t *data, std::size_t size)
{
    const Bytes b(data, size, false); // BMP is little-endian
    ImageHeader h;
    h.format = ImageFormat::Bmp;
    const std::uint32_t dib = b.u32(14);
    std::int64_t width = 0, height = 0;
    std::uint32_t bpp = 0, compression = 0;
    if (dib == 12) {
        width = b.u16(18);
        height = b.u16(20);
        bpp = b.u16(24);
    } else if (dib >= 40) {
        width = static_cast<std::int32_t>(b.u32(18));
        height = static_cast<std::int32_t>(b.u32(22));
        bpp = b.u16(28);
        compression = b.u32(30);
    } else {
        throw EngineError("corrupt BMP (unknown header size " + std::to_string(dib) + ")");
    }
    if (height < 0)
        height = -height; // top-down rows
    h.width = static_cast<int>(width);
    h.height = static_cast<int>(height);
    h.channels = bpp == 32 ? 4 : 3;
    if (compression == 0 && width > 0 && height > 0) { // uncompressed: the size is known exactly
        const std::uint64_t row = ((std::uint64_t(bpp) * std::uint64_t(width) + 31) / 32) * 4;
        const std::uint64_t needed = std::uint64_t(b.u32(10)) + row * std::uint64_t(height);
        if (needed > b.size())
            throw EngineError("truncated BMP (" + std::to_string(b.size()) + " bytes, the header needs "
                              + std::to_string(needed) + ")");
    }
    return h;
}

ImageHeader tiffHeader(const std::uint8_t *data, std::size_t size)
{
    const TiffTags t = readTiffIfd0(data, size);
    ImageHeader h;
    h.format = ImageFormat::Tiff;
    h.width = static_cast<int>(t.width);
    h.height = static_cast<int>(t.height);
    h.bitDepth = static_cast<int>(t.bitsPerSample);
    h.channels = static_cast<int>(t.samplesPerPixel);
    h.cmyk = t.photometric == 5;
    h.exifOrientation = t.orientation >= 1 && t.orientation <= 8 ? static_cast<int>(t.orientation) : 1;
    return h;
}

ImageHeader webpHeader(const Bytes &b)
{
    ImageHeader h;
    h.format = ImageFormat::Webp;
    if (b.matches(12, "VP8X")) {
        h.channels = (b.u8(20) & 0x10) ? 4 : 3;
        h.width = static_cast<int>((b.u8(24) | b.u8(25) << 8 | b.u8(26) << 16) + 1);
        h.height = static_cast<int>((b.u8(27) | b.u8(28) << 8 | b.u8(29) << 16) + 1);
    } else if (b.matches(12, "VP8L")) {
        if (b.u8(20) != 0x2f)
            throw EngineError("corrupt WebP (bad lossless signature)");
        const std::uint32_t bits = b.u8(21) | b.u8(22) << 8 | b.u8(23) << 16 | b.u8(24) << 24;
        h.width = static_cast<int>((bits & 0x3FFF) + 1);
        h.height = static_cast<int>(((bits >> 14) & 0x3FFF) + 1);
        h.channels = (bits >> 28) & 1 ? 4 : 3;
    } else if (b.matches(12, "VP8 ")) {
        if (b.u8(23) != 0x9d || b.u8(24) != 0x01 || b.u8(25) != 0x2a)
            throw EngineError("corrupt WebP (bad frame start code)");
        h.width = static_cast<int>((b.u8(26) | b.u8(27) << 8) & 0x3FFF);
        h.height = static_cast<int>((b.u8(28) | b.u8(29) << 8) & 0x3FFF);
        h.channels = 3;
    } else {
        throw EngineError("corrupt WebP (unknown chunk)");
    }
    return h;
}

} // namespace

const char *formatName(ImageFormat format)
{
    switch (format) {
    case ImageFormat::Jpeg: return "jpeg";
    case ImageFormat::Png: return "png";
    case ImageFormat::Bmp: return "bmp";
    case ImageFormat::Tiff: return "tiff";
    case ImageFormat::Webp: return "webp";
    case ImageFormat::Unknown: break;
    }
    return "unknown";
}

ImageFormat sniffFormat(const std::uint8_t *data, std::size_t size)
{
    const Bytes b(data, size);
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
        return ImageFormat::Jpeg;
    if (b.matches(0, "\x89PNG\r\n\x1a\n"))
        return ImageFormat::Png;
    if (b.matches(0, "BM") && size >= 26)
        return ImageFormat::Bmp;
    if (size >= 8 && (std::memcmp(data, "II*\0", 4) == 0 || std::memcmp(data, "MM\0*", 4) == 0))
        return ImageFormat::Tiff;
    if (b.matches(0, "RIFF") && b.matches(8, "WEBP"))
        return ImageFormat::Webp;
    return ImageFormat::Unknown;
}

ImageHeader readImageHeader(const std::uint8_t *data, std::size_t size)
{
    const Bytes b(data, size);
    ImageHeader h;
    switch (sniffFormat(data, size)) {
    case ImageFormat::Jpeg: h = jpegHeader(data, size); break;
    case ImageFormat::Png: h = pngHeader(b); break;
    case ImageFormat::Bmp: h = bmpHeader(data, size); break;
    case ImageFormat::Tiff: h = tiffHeader(data, size); break;
    case ImageFormat::Webp: h = webpHeader(b); break;
    case ImageFormat::Unknown: throw EngineError("not an image (content is not JPEG, PNG, BMP, TIFF or WebP)");
    }
    if (h.width <= 0 || h.height <= 0)
        throw EngineError("invalid dimensions " + std::to_string(h.width) + "x" + std::to_string(h.height));
    if (h.channels <= 0 || h.channels > 4)
        throw EngineError("unsupported channel count " + std::to_string(h.channels));
    return h;
}

} // namespace lathe::engine
