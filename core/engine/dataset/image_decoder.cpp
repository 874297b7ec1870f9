#include "engine/dataset/image_decoder.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef LATHE_HAVE_JPEGLIB
#include <csetjmp>
#include <cstdio> // jpeglib.h needs FILE
#include <jpeglib.h>
#endif

namespace lathe::engine {
namespace {

struct TjDeleter
{
    void operator()(void *h) const { tjDestroy(h); }
};

// What the decoder needs from a JPEG's markers beyond libjpeg's header: whether an Adobe
// APP14 segment is there (its CMYK is stored inverted) and whether the data ends with an
// EOI after the first scan. The end is checked up front because a partial decode stops
// early and would otherwise accept a truncated file for some crops and not for others.
struct JpegMarkers
{
    bool adobe = false;
    bool complete = false;
};

JpegMarkers scanJpegMarkers(const std::uint8_t *data, std::size_t size)
{
    JpegMarkers m;
    std::size_t pos = 2;
    std::size_t scan = 0;
    while (pos + 4 <= size) {
        if (data[pos] != 0xFF)
            return m; // not a marker where one must be: libjpeg reports the details
        const std::uint8_t marker = data[pos + 1];
        if (marker == 0xFF) { // fill byte
            ++pos;
            continue;
        }
        const std::size_t length = std::size_t(data[pos + 2]) << 8 | data[pos + 3];
        if (marker == 0xEE && length >= 7 && pos + 9 <= size && std::memcmp(data + pos + 4, "Adobe", 5) == 0)
            m.adobe = true;
        if (marker == 0xDA) {
            scan = pos;
            break;
        }
        pos += 2 + length;
    }
    if (scan == 0)
        return m;
    for (std::size_t i = size - 1; i > scan + 1; --i)
        if (data[i] == 0xD9 && data[i - 1] == 0xFF) {
            m.complete = true;
            break;
        }
    return m;
}

// PIL's CMYK -> RGB (Convert.c cmyk2rgb); Adobe files store the inks inverted ("CMYK;I").
void cmykToRgb(const std::uint8_t *cmyk, std::uint8_t *rgb, std::size_t pixels, bool inverted)
{
    auto muldiv255 = [](int a, int b) {
        const int t = a * b + 128;
        return ((t >> 8) + t) >> 8;
    };
    for (std::size_t i = 0; i < pixels; ++i) {
        const std::uint8_t *p = cmyk + 4 * i;
        const int c = inverted ? 255 - p[0] : p[0];
        const int m = inverted ? 255 - p[1] : p[1];
        const int y = inverted ? 255 - p[2] : p[2];
        const int k = inverted ? 255 - p[3] : p[3];
        const int nk = 255 - k;
        rgb[3 * i + 0] = static_cast<std::uint8_t>(std::clamp(nk - muldiv255(c, nk), 0, 255));
        rgb[3 * i + 1] = static_cast<std::uint8_t>(std::clamp(nk - muldiv255(m, nk), 0, 255));
        rgb[3 * i + 2] = static_cast<std::uint8_t>(std::clamp(nk - muldiv255(y, nk), 0, 255));
    }
}

// PIL's RGB -> L: ITU-R 601-2 luma with rounding.
cv::Mat rgbToGrey(const cv::Mat &rgb)
{
    cv::Mat grey(rgb.rows, rgb.cols, CV_8UC1);
    for (int y = 0; y < rgb.rows; ++y) {
        const std::uint8_t *s = rgb.ptr<std::uint8_t>(y);
        std::uint8_t *d = grey.ptr<std::uint8_t>(y);
        for (int x = 0; x < rgb.cols; ++x, s += 3)
            d[x] = static_cast<std::uint8_t>((s[0] * 19595 + s[1] * 38470 + s[2] * 7471 + 0x8000) >> 16);
    }
    return grey;
}

// Finishes the pixels of a JPEG decode: CMYK to RGB, then the channel count asked for.
cv::Mat finishJpegPixels(cv::Mat pixels, bool cmyk, bool adobe, int channels)
{
    if (cmyk) {
        cv::Mat rgb(pixels.rows, pixels.cols, CV_8UC3);
        for (int y = 0; y < pixels.rows; ++y)
            cmykToRgb(pixels.ptr<std::uint8_t>(y), rgb.ptr<std::uint8_t>(y), std::size_t(pixels.cols), adobe);
        pixels = rgb;
    }
    if (channels == 1 && pixels.channels() == 3)
        return rgbToGrey(pixels);
    return pixels;
}

std::string tjError(void *handle) { return tjGetErrorStr2(handle); }

// Parses a JPEG header with a handle of this file's own, replaced after a failure. Needed
// because libjpeg-turbo 2.1's tjDecompressHeader3 returns from an error without aborting the
// decompressor: the handle stays mid-parse and later header reads on it fail too ("Bogus
// marker length"). readImageHeader keeps such a thread_local handle, so it is only given
// headers that parsed here.
void checkJpegHeader(const std::uint8_t *data, std::size_t size)
{
    thread_local std::unique_ptr<void, TjDeleter> handle(tjInitDecompress());
    if (!handle)
        throw EngineError("cannot start the JPEG decoder");
    int width = 0, height = 0, subsamp = 0, colorspace = 0;
    if (tjDecompressHeader3(handle.get(), data, static_cast<unsigned long>(size), &width, &height, &subsamp, &colorspace) != 0) {
        const std::string reason = tjError(handle.get());
        handle.reset(tjInitDecompress());
        throw EngineError("corrupt or truncated JPEG header (" + reason + ")");
    }
    if (width <= 0 || height <= 0) {
        handle.reset(tjInitDecompress());
        throw EngineError("truncated JPEG header (no frame header)");
    }
}

// Full decode through TurboJPEG at 1/denom scale, warnings (such as a premature end) treated
// as errors. Returns stored-orientation pixels: RGB, grey or CMYK (4 channels).
cv::Mat turboDecode(const std::uint8_t *data, std::size_t size, const ImageHeader &header, int denom, int channels,
                    std::vector<std::uint8_t> *scratch, bool fast)
{
    thread_local std::unique_ptr<void, TjDeleter> handle(tjInitDecompress());
    if (!handle)
        throw EngineError("cannot start the JPEG decoder");
    const tjscalingfactor factor{1, denom};
    const int w = TJSCALED(header.width, factor);
    const int h = TJSCALED(header.height, factor);
    const int pf = header.cmyk ? TJPF_CMYK : (channels == 1 ? TJPF_GRAY : TJPF_RGB);
    const int type = header.cmyk ? CV_8UC4 : (channels == 1 ? CV_8UC1 : CV_8UC3);
    cv::Mat out;
    if (scratch) {
        scratch->resize(std::size_t(w) * std::size_t(h) * CV_ELEM_SIZE(type));
        out = cv::Mat(h, w, type, scratch->data());
    } else {
        out.create(h, w, type);
    }
    if (tjDecompress2(handle.get(), data, static_cast<unsigned long>(size), out.data, w, static_cast<int>(out.step[0]), h,
                      pf, TJFLAG_STOPONWARNING | (fast ? TJFLAG_FASTDCT | TJFLAG_FASTUPSAMPLE : 0))
        != 0)
        throw EngineError("corrupt or truncated JPEG data (" + tjError(handle.get()) + ")");
    return out;
}

#ifdef LATHE_HAVE_JPEGLIB

// libjpeg reports errors through a callback that must not return: it jumps back to the
// setjmp in readJpegRows. Warnings (corrupt data that libjpeg would paper over) are errors too.
struct JpegErrorManager
{
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

extern "C" void latheJpegErrorExit(j_common_ptr cinfo)
{
    auto *err = reinterpret_cast<JpegErrorManager *>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

extern "C" void latheJpegEmitMessage(j_common_ptr cinfo, int level)
{
    if (level < 0)
        latheJpegErrorExit(cinfo);
}

// One libjpeg decompressor per thread, reused: creating one allocates its memory pools.
struct JpegDecompressor
{
    jpeg_decompress_struct cinfo{};
    JpegErrorManager err{};
    bool ok = false;

    JpegDecompressor()
    {
        cinfo.err = jpeg_std_error(&err.mgr);
        err.mgr.error_exit = latheJpegErrorExit;
        err.mgr.emit_message = latheJpegEmitMessage;
        if (setjmp(err.jump) == 0) {
            jpeg_create_decompress(&cinfo);
            ok = true;
        }
    }
    ~JpegDecompressor()
    {
        if (ok)
            jpeg_destroy_decompress(&cinfo);
    }
};

// The columns and rows a partial decode delivered, in scaled stored coordinates.
struct JpegRows
{
    int x = 0, width = 0, components = 0;
    bool adobe = false;
};

// Decodes rows [y0, y1) and at least columns [x0, x0 + width) of the image scaled by 1/denom
// into buffer (which holds scaledWidth * (y1 - y0) * 4 bytes). No C++ object with a destructor
// lives in this frame, so the longjmp from libjpeg's error callback is safe.
bool readJpegRows(JpegDecompressor &d, const std::uint8_t *data, std::size_t size, int denom, bool grey, bool fast, int x0,
                  int width, int y0, int y1, std::uint8_t *buffer, JpegRows *rows)
{
    jpeg_decompress_struct *c = &d.cinfo;
    if (setjmp(d.err.jump) != 0) {
        jpeg_abort_decompress(c);
        return false;
    }
    jpeg_mem_src(c, data, static_cast<unsigned long>(size));
    jpeg_read_header(c, TRUE);
    c->scale_num = 1;
    c->scale_denom = static_cast<unsigned int>(denom);
    // Accurate: TurboJPEG's and PIL's default, the same pixels as theirs. Fast: the integer
    // IDCT and chroma replicated instead of interpolated (see DecodeOptions in the header).
    c->dct_method = fast ? JDCT_IFAST : JDCT_ISLOW;
    c->do_fancy_upsampling = fast ? FALSE : TRUE;
    if (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK)
        c->out_color_space = JCS_CMYK;
    else
        c->out_color_space = grey ? JCS_GRAYSCALE : JCS_EXT_RGB;
    jpeg_start_decompress(c);
    JDIMENSION xoff = static_cast<JDIMENSION>(x0);
    JDIMENSION cw = static_cast<JDIMENSION>(width);
    if (cw < c->output_width)
        jpeg_crop_scanline(c, &xoff, &cw);
    const std::size_t rowBytes = std::size_t(c->output_width) * std::size_t(c->output_components);
    if (y0 > 0 && jpeg_skip_scanlines(c, static_cast<JDIMENSION>(y0)) != static_cast<JDIMENSION>(y0)) {
        jpeg_abort_decompress(c);
        return false;
    }
    JSAMPROW pointers[16];
    while (c->output_scanline < static_cast<JDIMENSION>(y1)) {
        const int n = std::min(16, y1 - static_cast<int>(c->output_scanline));
        for (int i = 0; i < n; ++i)
            pointers[i] = buffer + (std::size_t(c->output_scanline) - std::size_t(y0) + std::size_t(i)) * rowBytes;
        jpeg_read_scanlines(c, pointers, static_cast<JDIMENSION>(n));
    }
    rows->x = static_cast<int>(xoff);
    rows->width = static_cast<int>(c->output_width);
    rows->components = c->output_components;
    rows->adobe = c->saw_Adobe_marker;
    jpeg_abort_decompress(c);
    return true;
}

#endif // LATHE_HAVE_JPEGLIB

cv::Mat toRgbOrGrey(cv::Mat raw, int channels, const char *format)
{
    // Depth first: 16-bit scaled by 1/257 (65535 -> 255), float taken as 0..1.
    switch (raw.depth()) {
    case CV_8U: break;
    case CV_16U: raw.convertTo(raw, CV_8U, 1.0 / 257.0); break;
    case CV_32F: raw.convertTo(raw, CV_8U, 255.0); break;
    default: throw EngineError(std::string("unsupported ") + format + " sample format (OpenCV depth " + std::to_string(raw.depth()) + ")");
    }
    cv::Mat out;
    switch (raw.channels()) {
    case 1: out = raw; break;
    case 2: cv::extractChannel(raw, out, 0); break; // grey + alpha: the alpha is dropped, as PIL's convert("RGB")
    case 3: cv::cvtColor(raw, out, cv::COLOR_BGR2RGB); break;
    case 4: cv::cvtColor(raw, out, cv::COLOR_BGRA2RGB); break; // alpha dropped
    default: throw EngineError(std::string("unsupported ") + format + " channel count " + std::to_string(raw.channels()));
    }
    if (channels == 3 && out.channels() == 1)
        cv::cvtColor(out, out, cv::COLOR_GRAY2RGB);
    else if (channels == 1 && out.channels() == 3)
        out = rgbToGrey(out);
    return out;
}

// PNG, BMP, TIFF, WebP (and JPEG as a last resort) through OpenCV, stored orientation.
cv::Mat opencvDecode(const std::uint8_t *data, std::size_t size, const ImageHeader &header, int channels)
{
    cv::Mat raw;
    try {
        const cv::Mat buffer(1, static_cast<int>(std::min<std::size_t>(size, INT32_MAX)), CV_8UC1, const_cast<std::uint8_t *>(data));
        raw = cv::imdecode(buffer, cv::IMREAD_UNCHANGED | cv::IMREAD_IGNORE_ORIENTATION);
    } catch (const cv::Exception &e) {
        throw EngineError(std::string("corrupt or unsupported ") + formatName(header.format) + " data (" + e.err + ")");
    }
    if (raw.empty())
        throw EngineError(std::string("corrupt, truncated or unsupported ") + formatName(header.format) + " data");
    return toRgbOrGrey(raw, channels, formatName(header.format));
}

bool swapsAxes(int orientation) { return orientation >= 5 && orientation <= 8; }

// Maps a point of the stored image (width w, height h) to the displayed one, and back.
cv::Point2d storedToDisplay(cv::Point2d p, double w, double h, int orientation)
{
    switch (orientation) {
    case 2: return {w - p.x, p.y};
    case 3: return {w - p.x, h - p.y};
    case 4: return {p.x, h - p.y};
    case 5: return {p.y, p.x};
    case 6: return {h - p.y, p.x};
    case 7: return {h - p.y, w - p.x};
    case 8: return {p.y, w - p.x};
    default: return p;
    }
}

cv::Point2d displayToStored(cv::Point2d p, double w, double h, int orientation)
{
    switch (orientation) {
    case 2: return {w - p.x, p.y};
    case 3: return {w - p.x, h - p.y};
    case 4: return {p.x, h - p.y};
    case 5: return {p.y, p.x};
    case 6: return {p.y, h - p.x};
    case 7: return {w - p.y, h - p.x};
    case 8: return {w - p.y, p.x};
    default: return p;
    }
}

cv::Rect2d mapRect(const cv::Rect2d &r, double w, double h, int orientation, bool toDisplay)
{
    const cv::Point2d a = toDisplay ? storedToDisplay(r.tl(), w, h, orientation) : displayToStored(r.tl(), w, h, orientation);
    const cv::Point2d b = toDisplay ? storedToDisplay(r.br(), w, h, orientation) : displayToStored(r.br(), w, h, orientation);
    return {std::min(a.x, b.x), std::min(a.y, b.y), std::abs(a.x - b.x), std::abs(a.y - b.y)};
}

// Fills scale/offset of a decode that covers the stored, 1/denom-scaled rectangle `covered`
// of an image stored as header.width x header.height.
void placeDecoded(DecodedImage &out, const ImageHeader &header, int denom, const cv::Rect &covered)
{
    const int o = header.exifOrientation;
    const double sw = std::ceil(double(header.width) / denom); // the scaled stored image
    const double sh = std::ceil(double(header.height) / denom);
    const cv::Rect2d shown = mapRect(cv::Rect2d(covered), sw, sh, o, true);
    // Where the displayed full-resolution origin lands in the scaled displayed image: the
    // maps are affine per axis, so one point gives the offset.
    const cv::Point2d s = displayToStored({0, 0}, header.width, header.height, o);
    const cv::Point2d origin = storedToDisplay({s.x / denom, s.y / denom}, sw, sh, o);
    out.scale = 1.0 / denom;
    out.offsetX = shown.x - origin.x;
    out.offsetY = shown.y - origin.y;
    out.fullWidth = swapsAxes(o) ? header.height : header.width;
    out.fullHeight = swapsAxes(o) ? header.width : header.height;
}

} // namespace

ImageHeader readCheckedHeader(const std::uint8_t *data, std::size_t size)
{
    if (data == nullptr || size == 0)
        throw EngineError("empty image data (0 bytes)");
    if (sniffFormat(data, size) == ImageFormat::Jpeg)
        checkJpegHeader(data, size);
    const ImageHeader header = readImageHeader(data, size);
    const std::string dims = std::to_string(header.width) + "x" + std::to_string(header.height);
    if (std::uint64_t(header.pixels()) > parse_limits::kImagePixels.value)
        throw EngineError("image of " + dims + " = " + std::to_string(header.pixels()) + " pixels, "
                          + overLimit(parse_limits::kImagePixels) + " (possible decompression bomb)");
    if (std::uint64_t(std::max(header.width, header.height)) > parse_limits::kImageSide.value)
        throw EngineError("image of " + dims + " pixels, " + overLimit(parse_limits::kImageSide)
                          + " for its longer side (possible decompression bomb)");
    return header;
}

double jpegDecodeScale(double minScale)
{
    for (int denom : {8, 4, 2})
        if (1.0 / denom >= minScale - 1e-9)
            return 1.0 / denom;
    return 1.0;
}

bool partialJpegDecodeAvailable()
{
#ifdef LATHE_HAVE_JPEGLIB
    return true;
#else
    return false;
#endif
}

cv::Mat applyOrientation(const cv::Mat &stored, int orientation)
{
    cv::Mat out;
    switch (orientation) {
    case 2: cv::flip(stored, out, 1); break;
    case 3: cv::flip(stored, out, -1); break;
    case 4: cv::flip(stored, out, 0); break;
    case 5: cv::transpose(stored, out); break;
    case 6: cv::rotate(stored, out, cv::ROTATE_90_CLOCKWISE); break;
    case 7:
        cv::transpose(stored, out);
        cv::flip(out, out, -1);
        break;
    case 8: cv::rotate(stored, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
    default: out = stored; break;
    }
    return out;
}

DecodedImage decodeRegion(const std::uint8_t *data, std::size_t size, const ImageHeader &header, const cv::Rect &region,
                          double minScale, int channels, bool allowPartial, std::vector<std::uint8_t> *scratch,
                          bool fastDecode)
{
    if (channels != 1 && channels != 3)
        throw EngineError("decoder: channels must be 1 or 3, not " + std::to_string(channels));
    DecodedImage out;
    if (header.format != ImageFormat::Jpeg) {
        const cv::Mat pixels = applyOrientation(opencvDecode(data, size, header, channels), header.exifOrientation);
        out.pixels = pixels;
        out.fullWidth = pixels.cols;
        out.fullHeight = pixels.rows;
        return out;
    }
    const JpegMarkers markers = scanJpegMarkers(data, size);
    if (!markers.complete)
        throw EngineError("truncated JPEG data (no end-of-image marker after the image data)");
    const int denom = static_cast<int>(std::lround(1.0 / jpegDecodeScale(minScale)));
    const int sw = (header.width + denom - 1) / denom;
    const int sh = (header.height + denom - 1) / denom;
    const bool swap = swapsAxes(header.exifOrientation);
    const cv::Rect display = region & cv::Rect(0, 0, swap ? header.height : header.width, swap ? header.width : header.height);
    if (display.empty())
        throw EngineError("decoder: empty region asked for");

    // The region in scaled stored coordinates, rounded outwards.
    const cv::Rect2d stored = mapRect(cv::Rect2d(display), header.width, header.height, header.exifOrientation, false);
    const int x0 = std::clamp(static_cast<int>(std::floor(stored.x / denom)), 0, sw - 1);
    const int y0 = std::clamp(static_cast<int>(std::floor(stored.y / denom)), 0, sh - 1);
    const int x1 = std::clamp(static_cast<int>(std::ceil((stored.x + stored.width) / denom)), x0 + 1, sw);
    const int y1 = std::clamp(static_cast<int>(std::ceil((stored.y + stored.height) / denom)), y0 + 1, sh);

    cv::Mat pixels;
    cv::Rect covered(0, 0, sw, sh);
#ifdef LATHE_HAVE_JPEGLIB
    if (allowPartial) {
        thread_local JpegDecompressor decompressor;
        if (!decompressor.ok)
            throw EngineError("cannot start the JPEG decoder");
        const bool grey = channels == 1;
        std::vector<std::uint8_t> owned;
        std::vector<std::uint8_t> &buffer = scratch ? *scratch : owned;
        buffer.resize(std::size_t(sw) * std::size_t(y1 - y0) * 4);
        // A cropped decode upsamples chroma at its left and right edges without the
        // neighbours outside, so those columns differ from a full decode: ask for one more
        // column on each side and drop the edge columns that are not the image's own.
        const int cx0 = std::max(0, x0 - 1), cx1 = std::min(sw, x1 + 1);
        JpegRows rows;
        if (!readJpegRows(decompressor, data, size, denom, grey, fastDecode, cx0, cx1 - cx0, y0, y1, buffer.data(), &rows))
            throw EngineError(std::string("corrupt or truncated JPEG data (") + decompressor.err.message + ")");
        const int left = rows.x > 0 ? 1 : 0;
        const int right = rows.x + rows.width < sw ? 1 : 0;
        const cv::Mat all(y1 - y0, rows.width, CV_MAKETYPE(CV_8U, rows.components), buffer.data());
        const cv::Mat inner = all.colRange(left, rows.width - right);
        pixels = finishJpegPixels(scratch ? inner : inner.clone(), rows.components == 4, rows.adobe, channels);
        covered = cv::Rect(rows.x + left, y0, rows.width - left - right, y1 - y0);
    }
#endif
    if (pixels.empty()) {
        const cv::Mat whole = turboDecode(data, size, header, denom, channels, scratch, fastDecode);
        // Keep only the rows and columns asked for: orientation and the caller touch less.
        pixels = finishJpegPixels(whole(cv::Rect(x0, y0, x1 - x0, y1 - y0)), header.cmyk, markers.adobe, channels);
        covered = cv::Rect(x0, y0, x1 - x0, y1 - y0);
    }
    out.pixels = applyOrientation(pixels, header.exifOrientation);
    placeDecoded(out, header, denom, covered);
    return out;
}

cv::Mat decodeImage(const std::uint8_t *data, std::size_t size, int channels)
{
    const ImageHeader header = readCheckedHeader(data, size);
    const bool swap = swapsAxes(header.exifOrientation);
    const cv::Rect all(0, 0, swap ? header.height : header.width, swap ? header.width : header.height);
    DecodedImage d = decodeRegion(data, size, header, all, 1.0, channels, false, nullptr);
    if (!d.pixels.isContinuous())
        d.pixels = d.pixels.clone();
    return d.pixels;
}

} // namespace lathe::engine
