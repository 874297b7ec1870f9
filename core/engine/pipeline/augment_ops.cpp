#include "engine/pipeline/augment_ops.h"

#include "engine/base/engine_error.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace lathe::engine::ops {
namespace {

constexpr double kPi = 3.14159265358979323846;

inline std::uint8_t truncU8(float v)
{
    // torch's float -> uint8 cast after clamp(0, 255): truncation.
    return static_cast<std::uint8_t>(std::min(255.0f, std::max(0.0f, v)));
}

void requireU8(const cv::Mat &img, const char *what)
{
    if (img.depth() != CV_8U || (img.channels() != 1 && img.channels() != 3))
        throw EngineError(std::string(what) + ": expected an 8-bit grey or RGB image");
}

// Applies f to every channel value of every pixel.
template <typename F>
void forEachValue(cv::Mat &img, F f)
{
    const int n = img.cols * img.channels();
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int i = 0; i < n; ++i)
            p[i] = f(p[i]);
    }
}

// _blend(img, other, ratio) where other is one grey value per pixel (grey image or a constant).
void blendWithGrey(cv::Mat &img, const cv::Mat *grey, float constant, double ratio)
{
    const float r = static_cast<float>(ratio);
    const float q = static_cast<float>(1.0 - ratio);
    const int c = img.channels();
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *p = img.ptr<std::uint8_t>(y);
        const std::uint8_t *g = grey ? grey->ptr<std::uint8_t>(y) : nullptr;
        for (int x = 0; x < img.cols; ++x) {
            const float other = q * (g ? float(g[x]) : constant);
            for (int k = 0; k < c; ++k)
                p[x * c + k] = truncU8(r * float(p[x * c + k]) + other);
        }
    }
}

cv::Mat greyOf(const cv::Mat &img)
{
    cv::Mat grey;
    rgbToGrayscale(img, grey, 1);
    return grey;
}

// One axis of PIL's resampling: per output index the first tap and the tap weights.
struct Coefficients
{
    std::vector<int> first;
    std::vector<int> count;
    std::vector<float> weights; // out * kmax
    int kmax = 0;
    int maxCount = 0; // the most taps any output index has (<= kmax)
};

void bilinearCoefficients(int inSize, double in0, double in1, int outSize, Coefficients &c)
{
    const double scale = (in1 - in0) / outSize;
    const double filterscale = std::max(scale, 1.0);
    const double support = 1.0 * filterscale;
    c.kmax = static_cast<int>(std::ceil(support)) * 2 + 1;
    c.first.assign(std::size_t(outSize), 0);
    c.count.assign(std::size_t(outSize), 0);
    c.weights.assign(std::size_t(outSize) * std::size_t(c.kmax), 0.0f);
    c.maxCount = 0;
    double k[64];
    const int kcap = static_cast<int>(sizeof(k) / sizeof(k[0]));
    const double ss = 1.0 / filterscale;
    for (int xx = 0; xx < outSize; ++xx) {
        const double center = in0 + (xx + 0.5) * scale;
        int xmin = static_cast<int>(center - support + 0.5);
        xmin = std::max(xmin, 0);
        int xmax = static_cast<int>(center + support + 0.5);
        xmax = std::min(xmax, inSize) - xmin;
        xmax = std::clamp(xmax, 0, std::min(c.kmax, kcap));
        double ww = 0;
        for (int x = 0; x < xmax; ++x) {
            const double t = std::abs((x + xmin - center + 0.5) * ss);
            k[x] = t < 1.0 ? 1.0 - t : 0.0;
            ww += k[x];
        }
        if (ww == 0.0 && inSize > 0) { // a box outside the bounds: nearest edge pixel
            xmin = std::clamp(static_cast<int>(center), 0, inSize - 1);
            xmax = 1;
            k[0] = ww = 1.0;
        }
        for (int x = 0; x < xmax; ++x)
            c.weights[std::size_t(xx) * std::size_t(c.kmax) + std::size_t(x)] = static_cast<float>(k[x] / ww);
        c.first[std::size_t(xx)] = xmin;
        c.count[std::size_t(xx)] = xmax;
        c.maxCount = std::max(c.maxCount, xmax);
    }
}

// The inverse affine matrix of torchvision's _get_inverse_affine_matrix (output -> input,
// centred coordinates).
std::array<double, 6> inverseAffine(double cx, double cy, double angle, double tx, double ty, double scale, double shx,
                                    double shy)
{
    const double rot = angle * kPi / 180.0;
    const double sx = shx * kPi / 180.0;
    const double sy = shy * kPi / 180.0;
    const double a = std::cos(rot - sy) / std::cos(sy);
    const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
    const double c = std::sin(rot - sy) / std::cos(sy);
    const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
    std::array<double, 6> m{d, -b, 0.0, -c, a, 0.0};
    for (double &v : m)
        v /= scale;
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
    m[2] += cx;
    m[5] += cy;
    return m;
}

// torchvision's _apply_grid_transform with an inverse matrix in centred coordinates: pixel
// centres sit at j - (w - 1) / 2, so in pixel indices src = A (dst - c) + c.
void warpCentred(cv::Mat &img, const std::array<double, 6> &a, const std::array<double, 3> &fill, bool bilinear)
{
    const double cx = (img.cols - 1) * 0.5;
    const double cy = (img.rows - 1) * 0.5;
    cv::Matx23d m(a[0], a[1], a[2] - a[0] * cx - a[1] * cy + cx, a[3], a[4], a[5] - a[3] * cx - a[4] * cy + cy);
    cv::Mat out;
    cv::warpAffine(img, out, m, img.size(), (bilinear ? cv::INTER_LINEAR : cv::INTER_NEAREST) | cv::WARP_INVERSE_MAP,
                   cv::BORDER_CONSTANT, cv::Scalar(fill[0], fill[1], fill[2]));
    img = out;
}

// One output pixel of the horizontal pass over RGB floats: K taps from s (stride 3), the
// weights pre-broadcast (4 copies each). Writes 4 bytes: the 4th is the next pixel's R,
// which that pixel overwrites (the caller writes a row's last pixel with 3 bytes).
template <int K>
inline std::uint32_t horizontalPixel(const float *s, const float *w4)
{
#ifdef __SSE2__
    // One 4-wide vector per pixel: R, G, B and the next pixel's R (ignored). Two partial sums
    // shorten the chain of dependent additions.
    __m128 even = _mm_mul_ps(_mm_loadu_ps(w4), _mm_loadu_ps(s));
    __m128 odd = _mm_setzero_ps();
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (int k = 1; k < K; ++k) {
        const __m128 term = _mm_mul_ps(_mm_loadu_ps(w4 + 4 * k), _mm_loadu_ps(s + 3 * k));
        if (k % 2)
            odd = _mm_add_ps(odd, term);
        else
            even = _mm_add_ps(even, term);
    }
    const __m128i v = _mm_cvttps_epi32(_mm_add_ps(_mm_add_ps(even, odd), _mm_set1_ps(0.5f)));
    const __m128i b = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(b));
#else
    float r = 0, g = 0, b = 0;
    for (int k = 0; k < K; ++k) {
        r += w4[4 * k] * s[3 * k];
        g += w4[4 * k] * s[3 * k + 1];
        b += w4[4 * k] * s[3 * k + 2];
    }
    auto u8 = [](float v) { return std::uint32_t(std::clamp(v + 0.5f, 0.0f, 255.0f)); };
    return u8(r) | u8(g) << 8 | u8(b) << 16;
#endif
}

template <int K>
void horizontalRgb(const float *row, const int *offsets, const float *w4, int width, std::uint8_t *d)
{
    for (int xx = 0; xx + 1 < width; ++xx) {
        const std::uint32_t px = horizontalPixel<K>(row + offsets[xx], w4 + std::size_t(xx) * 4 * K);
        std::memcpy(d + 3 * xx, &px, 4);
    }
    const std::uint32_t px = horizontalPixel<K>(row + offsets[width - 1], w4 + std::size_t(width - 1) * 4 * K);
    d[3 * (width - 1)] = std::uint8_t(px);
    d[3 * (width - 1) + 1] = std::uint8_t(px >> 8);
    d[3 * (width - 1) + 2] = std::uint8_t(px >> 16);
}

void horizontalRgbAny(const float *row, const int *offsets, const float *weights, int taps, int width, std::uint8_t *d)
{
    for (int xx = 0; xx < width; ++xx) {
        const float *s = row + offsets[xx];
        const float *w = weights + std::size_t(xx) * std::size_t(taps);
        float r = 0, g = 0, b = 0;
        for (int k = 0; k < taps; ++k) {
            r += w[k] * s[3 * k];
            g += w[k] * s[3 * k + 1];
            b += w[k] * s[3 * k + 2];
        }
        d[3 * xx] = static_cast<std::uint8_t>(std::clamp(r + 0.5f, 0.0f, 255.0f));
        d[3 * xx + 1] = static_cast<std::uint8_t>(std::clamp(g + 0.5f, 0.0f, 255.0f));
        d[3 * xx + 2] = static_cast<std::uint8_t>(std::clamp(b + 0.5f, 0.0f, 255.0f));
    }
}

// out[i] = sum_k w[k] * rows[k][i] for i < n. The weights are fixed point (Q14, summing to
// exactly 1 << 14, so flat areas stay exact); SSE2 multiplies two taps at once (pmaddwd) and
// keeps the sums in registers across the taps.
constexpr int kWeightBits = 14;

void verticalTaps(const std::uint8_t *const *rows, const std::int16_t *w, int taps, int n, float *out)
{
    const float unit = 1.0f / float(1 << kWeightBits);
    int i = 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    const __m128 scale = _mm_set1_ps(unit);
    for (; i + 16 <= n; i += 16) {
        __m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (int k = 0; k < taps; k += 2) {
            const bool pair = k + 1 < taps;
            const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[k] + i));
            const __m128i v = pair ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(rows[k + 1] + i)) : zero;
            const __m128i wk = _mm_set1_epi32(int(std::uint16_t(w[k])) | int(std::uint32_t(std::uint16_t(pair ? w[k + 1] : 0)) << 16));
            const __m128i ulo = _mm_unpacklo_epi8(u, zero), uhi = _mm_unpackhi_epi8(u, zero);
            const __m128i vlo = _mm_unpacklo_epi8(v, zero), vhi = _mm_unpackhi_epi8(v, zero);
            a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi16(ulo, vlo), wk));
            a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi16(ulo, vlo), wk));
            a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi16(uhi, vhi), wk));
            a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi16(uhi, vhi), wk));
        }
        _mm_storeu_ps(out + i, _mm_mul_ps(_mm_cvtepi32_ps(a0), scale));
        _mm_storeu_ps(out + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(a1), scale));
        _mm_storeu_ps(out + i + 8, _mm_mul_ps(_mm_cvtepi32_ps(a2), scale));
        _mm_storeu_ps(out + i + 12, _mm_mul_ps(_mm_cvtepi32_ps(a3), scale));
    }
#endif
    for (; i < n; ++i) {
        std::int32_t a = 0;
        for (int k = 0; k < taps; ++k)
            a += std::int32_t(w[k]) * std::int32_t(rows[k][i]);
        out[i] = float(a) * unit;
    }
}

// Q14 weights of one output row/column, summing to exactly 1 << 14.
void quantizeWeights(const float *w, int taps, std::int16_t *q)
{
    int sum = 0, largest = 0;
    for (int k = 0; k < taps; ++k) {
        q[k] = static_cast<std::int16_t>(std::lround(w[k] * float(1 << kWeightBits)));
        sum += q[k];
        if (q[k] > q[largest])
            largest = k;
    }
    if (taps > 0)
        q[largest] = static_cast<std::int16_t>(q[largest] + ((1 << kWeightBits) - sum));
}

double linspace(double lo, double hi, int n, int i) { return n <= 1 ? lo : lo + (hi - lo) * i / (n - 1); }

} // namespace

double uniform01(std::mt19937_64 &rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double uniform(std::mt19937_64 &rng, double lo, double hi) { return lo + (hi - lo) * uniform01(rng); }

std::int64_t randint(std::mt19937_64 &rng, std::int64_t n)
{
    if (n <= 1)
        return 0;
    // Rejection keeps it unbiased for any n.
    const std::uint64_t un = static_cast<std::uint64_t>(n);
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % un;
    std::uint64_t v;
    do
        v = rng();
    while (v >= limit);
    return static_cast<std::int64_t>(v % un);
}

double normal(std::mt19937_64 &rng)
{
    // Box-Muller; u1 in (0, 1] so the log is finite.
    const double u1 = 1.0 - uniform01(rng);
    const double u2 = uniform01(rng);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

namespace {
double gammaSample(std::mt19937_64 &rng, double a)
{
    if (a < 1.0) { // Gamma(a) = Gamma(a + 1) * U^(1/a)
        const double u = 1.0 - uniform01(rng);
        return gammaSample(rng, a + 1.0) * std::pow(u, 1.0 / a);
    }
    // Marsaglia and Tsang.
    const double d = a - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal(rng);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = 1.0 - uniform01(rng);
        if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v))
            return d * v;
    }
}
} // namespace

double beta(std::mt19937_64 &rng, double a, double b)
{
    const double x = gammaSample(rng, a);
    const double y = gammaSample(rng, b);
    return x + y > 0 ? x / (x + y) : 0.5;
}

double roundHalfEven(double v) { return std::nearbyint(v); }

CropRect randomResizedCropParams(int width, int height, const std::array<double, 2> &scale,
                                 const std::array<double, 2> &ratio, std::mt19937_64 &rng)
{
    const double area = double(width) * double(height);
    const double logLo = std::log(ratio[0]);
    const double logHi = std::log(ratio[1]);
    for (int attempt = 0; attempt < 10; ++attempt) {
        const double targetArea = area * uniform(rng, scale[0], scale[1]);
        const double aspect = std::exp(uniform(rng, logLo, logHi));
        const int w = static_cast<int>(roundHalfEven(std::sqrt(targetArea * aspect)));
        const int h = static_cast<int>(roundHalfEven(std::sqrt(targetArea / aspect)));
        if (0 < w && w <= width && 0 < h && h <= height) {
            CropRect r;
            r.height = h;
            r.width = w;
            r.top = static_cast<int>(randint(rng, height - h + 1));
            r.left = static_cast<int>(randint(rng, width - w + 1));
            return r;
        }
    }
    const double inRatio = double(width) / double(height);
    CropRect r;
    if (inRatio < ratio[0]) {
        r.width = width;
        r.height = static_cast<int>(roundHalfEven(r.width / ratio[0]));
    } else if (inRatio > ratio[1]) {
        r.height = height;
        r.width = static_cast<int>(roundHalfEven(r.height * ratio[1]));
    } else {
        r.width = width;
        r.height = height;
    }
    r.height = std::clamp(r.height, 1, height);
    r.width = std::clamp(r.width, 1, width);
    r.top = (height - r.height) / 2;
    r.left = (width - r.width) / 2;
    return r;
}

cv::Size resizedShortSide(int width, int height, int size)
{
    const bool wide = width >= height;
    const int shortSide = wide ? height : width;
    const int longSide = wide ? width : height;
    const int newLong = static_cast<int>(double(size) * longSide / shortSide);
    return wide ? cv::Size(newLong, size) : cv::Size(size, newLong);
}

cv::Point centerCropOrigin(int width, int height, int cropWidth, int cropHeight)
{
    return {static_cast<int>(roundHalfEven((width - cropWidth) / 2.0)),
            static_cast<int>(roundHalfEven((height - cropHeight) / 2.0))};
}

void resampleBilinear(const cv::Mat &src, const cv::Rect &boundsIn, const cv::Rect2d &box, cv::Size out, cv::Mat &dst,
                      bool mirror)
{
    requireU8(src, "resample");
    const cv::Rect bounds = boundsIn & cv::Rect(0, 0, src.cols, src.rows);
    if (bounds.empty() || out.width <= 0 || out.height <= 0)
        throw EngineError("resample: empty source or output");
    const int ch = src.channels();
    thread_local Coefficients cx, cy;
    bilinearCoefficients(bounds.width, box.x - bounds.x, box.x + box.width - bounds.x, out.width, cx);
    bilinearCoefficients(bounds.height, box.y - bounds.y, box.y + box.height - bounds.y, out.height, cy);

    // Columns the horizontal pass reads.
    int xFirst = bounds.width, xLast = 0;
    for (int i = 0; i < out.width; ++i) {
        xFirst = std::min(xFirst, cx.first[std::size_t(i)]);
        xLast = std::max(xLast, cx.first[std::size_t(i)] + cx.count[std::size_t(i)]);
    }
    const int span = std::max(0, xLast - xFirst);
    const int spanValues = span * ch;

    // Vertical pass: out.height rows of span pixels, float.
    thread_local std::vector<float> tmp;
    tmp.resize(std::size_t(out.height) * std::size_t(spanValues) + 4); // +4: the 4-wide loads below
    const std::uint8_t *rows[64];
    std::int16_t q[64];
    for (int yy = 0; yy < out.height; ++yy) {
        const int y0 = cy.first[std::size_t(yy)];
        const int taps = std::min(cy.count[std::size_t(yy)], 64);
        for (int k = 0; k < taps; ++k)
            rows[k] = src.ptr<std::uint8_t>(bounds.y + y0 + k) + std::size_t(bounds.x + xFirst) * std::size_t(ch);
        quantizeWeights(cy.weights.data() + std::size_t(yy) * std::size_t(cy.kmax), taps, q);
        verticalTaps(rows, q, taps, spanValues, tmp.data() + std::size_t(yy) * std::size_t(spanValues));
    }

    // Horizontal pass with rounding (+0.5, truncated: PIL's clip8). Every pixel runs the same
    // number of taps, the most any pixel has (the weights past its own count are 0), so the
    // loop has a fixed length; the reads past a row's span stay inside tmp thanks to the
    // padding. Mirrored, output pixel xx takes the taps of xx's mirror image.
    dst.create(out.height, out.width, CV_MAKETYPE(CV_8U, ch));
    const int taps = cx.maxCount;
    tmp.resize(tmp.size() + std::size_t(taps) * 3 + 4);
    thread_local std::vector<int> offsets;
    thread_local std::vector<float> weights, w4; // out.width * taps, and each weight 4 times
    offsets.resize(std::size_t(out.width));
    weights.resize(std::size_t(out.width) * std::size_t(taps));
    w4.resize(weights.size() * 4);
    for (int xx = 0; xx < out.width; ++xx) {
        const std::size_t from = std::size_t(mirror ? out.width - 1 - xx : xx);
        offsets[std::size_t(xx)] = (cx.first[from] - xFirst) * ch;
        std::copy_n(cx.weights.begin() + std::ptrdiff_t(from * std::size_t(cx.kmax)), taps,
                    weights.begin() + std::ptrdiff_t(std::size_t(xx) * std::size_t(taps)));
    }
    for (std::size_t i = 0; i < weights.size(); ++i)
        std::fill_n(w4.begin() + std::ptrdiff_t(4 * i), 4, weights[i]);
    for (int yy = 0; yy < out.height; ++yy) {
        const float *row = tmp.data() + std::size_t(yy) * std::size_t(spanValues);
        std::uint8_t *d = dst.ptr<std::uint8_t>(yy);
        if (ch == 3) {
            switch (taps) {
            case 2: horizontalRgb<2>(row, offsets.data(), w4.data(), out.width, d); break;
            case 3: horizontalRgb<3>(row, offsets.data(), w4.data(), out.width, d); break;
            case 4: horizontalRgb<4>(row, offsets.data(), w4.data(), out.width, d); break;
            case 5: horizontalRgb<5>(row, offsets.data(), w4.data(), out.width, d); break;
            case 6: horizontalRgb<6>(row, offsets.data(), w4.data(), out.width, d); break;
            case 7: horizontalRgb<7>(row, offsets.data(), w4.data(), out.width, d); break;
            default: horizontalRgbAny(row, offsets.data(), weights.data(), taps, out.width, d); break;
            }
            continue;
        }
        for (int xx = 0; xx < out.width; ++xx) {
            const float *w = weights.data() + std::size_t(xx) * std::size_t(taps);
            const float *s = row + offsets[std::size_t(xx)];
            float v = 0;
            for (int k = 0; k < taps; ++k)
                v += w[k] * s[k];
            d[xx] = static_cast<std::uint8_t>(std::clamp(v + 0.5f, 0.0f, 255.0f));
        }
    }
}

void horizontalFlip(cv::Mat &img) { cv::flip(img, img, 1); }

void verticalFlip(cv::Mat &img) { cv::flip(img, img, 0); }

void adjustBrightness(cv::Mat &img, double factor)
{
    requireU8(img, "adjust_brightness");
    const float f = static_cast<float>(factor);
    std::uint8_t lut[256];
    for (int v = 0; v < 256; ++v)
        lut[v] = truncU8(f * float(v));
    forEachValue(img, [&](std::uint8_t v) { return lut[v]; });
}

void adjustContrast(cv::Mat &img, double factor)
{
    requireU8(img, "adjust_contrast");
    const cv::Mat grey = img.channels() == 3 ? greyOf(img) : img;
    double sum = 0;
    for (int y = 0; y < grey.rows; ++y) {
        const std::uint8_t *g = grey.ptr<std::uint8_t>(y);
        for (int x = 0; x < grey.cols; ++x)
            sum += g[x];
    }
    const float mean = static_cast<float>(sum / (double(grey.rows) * grey.cols));
    const float other = static_cast<float>(1.0 - factor) * mean;
    const float f = static_cast<float>(factor);
    std::uint8_t lut[256];
    for (int v = 0; v < 256; ++v)
        lut[v] = truncU8(f * float(v) + other);
    forEachValue(img, [&](std::uint8_t v) { return lut[v]; });
}

void adjustSaturation(cv::Mat &img, double factor)
{
    requireU8(img, "adjust_saturation");
    if (img.channels() == 1)
        return; // as torchvision (and PIL): nothing to saturate
    const cv::Mat grey = greyOf(img);
    blendWithGrey(img, &grey, 0, factor);
}

void adjustHue(cv::Mat &img, double hueFactor)
{
    requireU8(img, "adjust_hue");
    if (img.channels() == 1)
        return;
    const float hf = static_cast<float>(hueFactor);
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int x = 0; x < img.cols; ++x, p += 3) {
            const float r = float(p[0]) / 255.0f, g = float(p[1]) / 255.0f, b = float(p[2]) / 255.0f;
            // _rgb2hsv
            const float maxc = std::max(r, std::max(g, b));
            const float minc = std::min(r, std::min(g, b));
            const bool eqc = maxc == minc;
            const float cr = maxc - minc;
            const float s = cr / (eqc ? 1.0f : maxc);
            const float crd = eqc ? 1.0f : cr;
            const float rc = (maxc - r) / crd, gc = (maxc - g) / crd, bc = (maxc - b) / crd;
            float h;
            if (maxc == r)
                h = bc - gc;
            else if (maxc == g)
                h = 2.0f + rc - bc;
            else
                h = 4.0f + gc - rc;
            h = std::fmod(h / 6.0f + 1.0f, 1.0f);
            // shift (Python's % : non-negative)
            h = std::fmod(h + hf, 1.0f);
            if (h < 0)
                h += 1.0f;
            // _hsv2rgb
            const float v = maxc;
            const float fi = std::floor(h * 6.0f);
            const float f = h * 6.0f - fi;
            const int i = ((static_cast<int>(fi) % 6) + 6) % 6;
            const float pp = std::clamp(v * (1.0f - s), 0.0f, 1.0f);
            const float q = std::clamp(v * (1.0f - s * f), 0.0f, 1.0f);
            const float t = std::clamp(v * (1.0f - s * (1.0f - f)), 0.0f, 1.0f);
            float o[3];
            switch (i) {
            case 0: o[0] = v, o[1] = t, o[2] = pp; break;
            case 1: o[0] = q, o[1] = v, o[2] = pp; break;
            case 2: o[0] = pp, o[1] = v, o[2] = t; break;
            case 3: o[0] = pp, o[1] = q, o[2] = v; break;
            case 4: o[0] = t, o[1] = pp, o[2] = v; break;
            default: o[0] = v, o[1] = pp, o[2] = q; break;
            }
            for (int k = 0; k < 3; ++k)
                p[k] = truncU8(o[k] * 255.999f); // convert_image_dtype: x * (255 + 1 - 1e-3), truncated
        }
    }
}

void adjustSharpness(cv::Mat &img, double factor)
{
    requireU8(img, "adjust_sharpness");
    if (img.cols <= 2 || img.rows <= 2)
        return;
    // _blurred_degenerate_image: 3x3 kernel (1 1 1 / 1 5 1 / 1 1 1) / 13 on the interior,
    // rounded; the border keeps its pixels.
    const int c = img.channels();
    cv::Mat blurred = img.clone();
    const float k = 1.0f / 13.0f;
    for (int y = 1; y < img.rows - 1; ++y) {
        const std::uint8_t *a = img.ptr<std::uint8_t>(y - 1);
        const std::uint8_t *m = img.ptr<std::uint8_t>(y);
        const std::uint8_t *b = img.ptr<std::uint8_t>(y + 1);
        std::uint8_t *o = blurred.ptr<std::uint8_t>(y);
        for (int x = c; x < (img.cols - 1) * c; ++x) {
            const float s = k * (float(a[x - c]) + a[x] + a[x + c] + m[x - c] + 5.0f * m[x] + m[x + c] + b[x - c] + b[x] + b[x + c]);
            o[x] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(s), 0.0f, 255.0f));
        }
    }
    const float r = static_cast<float>(factor);
    const float q = static_cast<float>(1.0 - factor);
    const int n = img.cols * c;
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *p = img.ptr<std::uint8_t>(y);
        const std::uint8_t *o = blurred.ptr<std::uint8_t>(y);
        for (int i = 0; i < n; ++i)
            p[i] = truncU8(r * float(p[i]) + q * float(o[i]));
    }
}

void rgbToGrayscale(const cv::Mat &src, cv::Mat &dst, int outChannels)
{
    requireU8(src, "rgb_to_grayscale");
    cv::Mat grey(src.rows, src.cols, CV_8UC1);
    if (src.channels() == 1) {
        src.copyTo(grey);
    } else {
        for (int y = 0; y < src.rows; ++y) {
            const std::uint8_t *s = src.ptr<std::uint8_t>(y);
            std::uint8_t *g = grey.ptr<std::uint8_t>(y);
            for (int x = 0; x < src.cols; ++x, s += 3)
                g[x] = truncU8(0.2989f * float(s[0]) + 0.587f * float(s[1]) + 0.114f * float(s[2]));
        }
    }
    if (outChannels == 3)
        cv::cvtColor(grey, dst, cv::COLOR_GRAY2RGB);
    else
        dst = grey;
}

void posterize(cv::Mat &img, int bits)
{
    requireU8(img, "posterize");
    const auto mask = static_cast<std::uint8_t>(-(1 << (8 - std::clamp(bits, 0, 8))));
    forEachValue(img, [mask](std::uint8_t v) { return static_cast<std::uint8_t>(v & mask); });
}

void solarize(cv::Mat &img, double threshold)
{
    requireU8(img, "solarize");
    forEachValue(img, [threshold](std::uint8_t v) { return v >= threshold ? static_cast<std::uint8_t>(255 - v) : v; });
}

void autocontrast(cv::Mat &img)
{
    requireU8(img, "autocontrast");
    const int c = img.channels();
    std::array<int, 3> lo{255, 255, 255}, hi{0, 0, 0};
    for (int y = 0; y < img.rows; ++y) {
        const std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int x = 0; x < img.cols; ++x)
            for (int k = 0; k < c; ++k) {
                lo[std::size_t(k)] = std::min<int>(lo[std::size_t(k)], p[x * c + k]);
                hi[std::size_t(k)] = std::max<int>(hi[std::size_t(k)], p[x * c + k]);
            }
    }
    std::array<std::array<std::uint8_t, 256>, 3> lut{};
    for (int k = 0; k < c; ++k) {
        float minimum = float(lo[std::size_t(k)]);
        float scale = 255.0f / float(hi[std::size_t(k)] - lo[std::size_t(k)]);
        if (!std::isfinite(scale)) {
            minimum = 0;
            scale = 1;
        }
        for (int v = 0; v < 256; ++v)
            lut[std::size_t(k)][std::size_t(v)] = truncU8((float(v) - minimum) * scale);
    }
    for (int y = 0; y < img.rows; ++y) {
        std::uint8_t *p = img.ptr<std::uint8_t>(y);
        for (int x = 0; x < img.cols; ++x)
            for (int k = 0; k < c; ++k)
                p[x * c + k] = lut[std::size_t(k)][p[x * c + k]];
    }
}

void equalize(cv::Mat &img)
{
    requireU8(img, "equalize");
    const int c = img.channels();
    for (int k = 0; k < c; ++k) {
        std::array<std::int64_t, 256> hist{};
        for (int y = 0; y < img.rows; ++y) {
            const std::uint8_t *p = img.ptr<std::uint8_t>(y);
            for (int x = 0; x < img.cols; ++x)
                ++hist[p[x * c + k]];
        }
        // _scale_channel: step from all non-zero bins but the last.
        std::int64_t nonzeroSum = 0, lastNonzero = 0;
        for (std::int64_t h : hist)
            if (h != 0) {
                nonzeroSum += h;
                lastNonzero = h;
            }
        const std::int64_t step = (nonzeroSum - lastNonzero) / 255;
        if (step == 0)
            continue;
        std::array<std::uint8_t, 256> lut{};
        std::int64_t cumsum = 0;
        for (int v = 0; v < 256; ++v) {
            // lut[v] = (cumsum of bins < v + step // 2) // step, clamped
            lut[std::size_t(v)] = static_cast<std::uint8_t>(std::clamp<std::int64_t>((cumsum + step / 2) / step, 0, 255));
            cumsum += hist[std::size_t(v)];
        }
        for (int y = 0; y < img.rows; ++y) {
            std::uint8_t *p = img.ptr<std::uint8_t>(y);
            for (int x = 0; x < img.cols; ++x)
                p[x * c + k] = lut[p[x * c + k]];
        }
    }
}

void invert(cv::Mat &img)
{
    requireU8(img, "invert");
    forEachValue(img, [](std::uint8_t v) { return static_cast<std::uint8_t>(255 - v); });
}

void gaussianBlur(cv::Mat &img, int kernelX, int kernelY, double sigmaX, double sigmaY)
{
    requireU8(img, "gaussian_blur");
    auto kernel = [](int size, double sigma) {
        cv::Mat k(size, 1, CV_32F);
        const float half = (size - 1) * 0.5f;
        float sum = 0;
        for (int i = 0; i < size; ++i) {
            const float x = size == 1 ? 0.0f : -half + (2.0f * half) * float(i) / float(size - 1);
            const float v = std::exp(-0.5f * (x / float(sigma)) * (x / float(sigma)));
            k.at<float>(i) = v;
            sum += v;
        }
        k /= sum;
        return k;
    };
    cv::Mat f, out;
    img.convertTo(f, CV_32F);
    cv::sepFilter2D(f, out, CV_32F, kernel(kernelX, sigmaX), kernel(kernelY, sigmaY), cv::Point(-1, -1), 0,
                    cv::BORDER_REFLECT_101);
    out.convertTo(img, CV_8U); // rounds, as torchvision's round before the cast
}

void affine(cv::Mat &img, const AffineParams &p, const std::array<double, 3> &fill, bool bilinear)
{
    requireU8(img, "affine");
    const double cx = p.centerAtOrigin ? -img.cols * 0.5 : 0.0;
    const double cy = p.centerAtOrigin ? -img.rows * 0.5 : 0.0;
    warpCentred(img, inverseAffine(cx, cy, p.angle, p.translateX, p.translateY, p.scale, p.shearX, p.shearY), fill, bilinear);
}

void rotate(cv::Mat &img, double angle, const std::array<double, 3> &fill, bool bilinear)
{
    requireU8(img, "rotate");
    // torchvision's rotate passes -angle to the affine matrix (counter-clockwise rotation).
    warpCentred(img, inverseAffine(0, 0, -angle, 0, 0, 1, 0, 0), fill, bilinear);
}

bool autoOpSigned(AutoOp op)
{
    switch (op) {
    case AutoOp::ShearX:
    case AutoOp::ShearY:
    case AutoOp::TranslateX:
    case AutoOp::TranslateY:
    case AutoOp::Rotate:
    case AutoOp::Brightness:
    case AutoOp::Color:
    case AutoOp::Contrast:
    case AutoOp::Sharpness: return true;
    default: return false;
    }
}

bool autoOpHasMagnitude(AutoOp op)
{
    return op != AutoOp::Identity && op != AutoOp::AutoContrast && op != AutoOp::Equalize;
}

double randAugmentMagnitude(AutoOp op, int bin, int n, int width, int height)
{
    switch (op) {
    case AutoOp::ShearX:
    case AutoOp::ShearY: return linspace(0.0, 0.3, n, bin);
    case AutoOp::TranslateX: return linspace(0.0, 150.0 / 331.0 * width, n, bin);
    case AutoOp::TranslateY: return linspace(0.0, 150.0 / 331.0 * height, n, bin);
    case AutoOp::Rotate: return linspace(0.0, 30.0, n, bin);
    case AutoOp::Brightness:
    case AutoOp::Color:
    case AutoOp::Contrast:
    case AutoOp::Sharpness: return linspace(0.0, 0.9, n, bin);
    case AutoOp::Posterize: return 8 - std::nearbyint(float(bin) / float((n - 1) / 4.0));
    case AutoOp::Solarize: return linspace(255.0, 0.0, n, bin);
    default: return 0.0;
    }
}

double trivialAugmentMagnitude(AutoOp op, int bin, int n)
{
    switch (op) {
    case AutoOp::ShearX:
    case AutoOp::ShearY: return linspace(0.0, 0.99, n, bin);
    case AutoOp::TranslateX:
    case AutoOp::TranslateY: return linspace(0.0, 32.0, n, bin);
    case AutoOp::Rotate: return linspace(0.0, 135.0, n, bin);
    case AutoOp::Brightness:
    case AutoOp::Color:
    case AutoOp::Contrast:
    case AutoOp::Sharpness: return linspace(0.0, 0.99, n, bin);
    case AutoOp::Posterize: return 8 - std::nearbyint(float(bin) / float((n - 1) / 6.0));
    case AutoOp::Solarize: return linspace(255.0, 0.0, n, bin);
    default: return 0.0;
    }
}

void applyAutoOp(cv::Mat &img, AutoOp op, double magnitude, const std::array<double, 3> &fill, bool bilinear)
{
    AffineParams a;
    switch (op) {
    case AutoOp::Identity: break;
    case AutoOp::ShearX:
        a.shearX = std::atan(magnitude) * 180.0 / kPi;
        a.centerAtOrigin = true;
        affine(img, a, fill, bilinear);
        break;
    case AutoOp::ShearY:
        a.shearY = std::atan(magnitude) * 180.0 / kPi;
        a.centerAtOrigin = true;
        affine(img, a, fill, bilinear);
        break;
    case AutoOp::TranslateX:
        a.translateX = std::trunc(magnitude);
        affine(img, a, fill, bilinear);
        break;
    case AutoOp::TranslateY:
        a.translateY = std::trunc(magnitude);
        affine(img, a, fill, bilinear);
        break;
    case AutoOp::Rotate: rotate(img, magnitude, fill, bilinear); break;
    case AutoOp::Brightness: adjustBrightness(img, 1.0 + magnitude); break;
    case AutoOp::Color: adjustSaturation(img, 1.0 + magnitude); break;
    case AutoOp::Contrast: adjustContrast(img, 1.0 + magnitude); break;
    case AutoOp::Sharpness: adjustSharpness(img, 1.0 + magnitude); break;
    case AutoOp::Posterize: posterize(img, static_cast<int>(magnitude)); break;
    case AutoOp::Solarize: solarize(img, magnitude); break;
    case AutoOp::AutoContrast: autocontrast(img); break;
    case AutoOp::Equalize: equalize(img); break;
    }
}

} // namespace lathe::engine::ops
