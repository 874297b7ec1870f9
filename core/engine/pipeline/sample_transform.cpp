#include "engine/pipeline/sample_transform.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/image_decoder.h"
#include "engine/pipeline/augment_ops.h"

#include <ATen/ATen.h>
#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace lathe::engine {

namespace {

enum class Kind {
    HorizontalFlip,
    VerticalFlip,
    Rotation,
    Affine,
    ColorJitter,
    Grayscale,
    GaussianBlur,
    Sharpness,
    Posterize,
    Solarize,
    AutoContrast,
    Equalize,
    Invert,
    RandAugment,
    TrivialAugment,
    GaussianNoise,
    RandomErasing
};

std::array<double, 2> pair(const nlohmann::json &v) { return {v.at(0).get<double>(), v.at(1).get<double>()}; }
std::array<double, 3> triple(const nlohmann::json &v)
{
    return {v.at(0).get<double>(), v.at(1).get<double>(), v.at(2).get<double>()};
}

// One sample-level step with its parameters read out of the canonical JSON once.
struct Step
{
    Kind kind = Kind::HorizontalFlip;
    double p = 1;
    std::array<double, 2> a{}, b{}, c{}, d{}; // ranges (meaning per kind)
    std::array<double, 4> shear{};
    std::array<double, 3> fill{};
    std::array<double, 3> value{};
    bool bilinear = false;
    bool flag = false; // gaussian_noise: clip; random_erasing: random values
    int i0 = 0, i1 = 0, i2 = 0;
};

bool draw(std::mt19937_64 &rng, double p)
{
    if (p >= 1)
        return true;
    if (p <= 0)
        return false;
    return ops::uniform01(rng) < p;
}

// Where a sample comes from: the box of the displayed full-resolution image that is resized
// to the output, and the rectangle its filter taps may read (the crop itself for
// crop-then-resize, the whole image for resize-then-crop).
struct Geometry
{
    cv::Rect2d box;
    cv::Rect bounds;
    cv::Rect region; // what must be decoded
    double minScale = 1;
};

struct Work
{
    std::vector<std::uint8_t> scratch; // decoder output
    cv::Mat sample;                    // imageSize x imageSize RGB
    cv::Mat grey;
    std::vector<float> values;         // HWC floats for tensor-level steps
};

Work &work()
{
    thread_local Work w;
    return w;
}

} // namespace

struct SampleTransform::Plan
{
    bool randomResizedCrop = false;
    double cropProbability = 1;
    std::array<double, 2> cropScale{0.08, 1.0};
    std::array<double, 2> cropRatio{3.0 / 4.0, 4.0 / 3.0};
    int fixedResize = 256; // resize short side, then center crop (evaluation, or resize/center_crop)
    std::vector<Step> pixelSteps;
    std::vector<Step> noiseSteps;   // on [0, 1] values, before normalization
    std::vector<Step> erasingSteps; // after normalization
    std::array<std::array<float, 256>, 3> lut{}; // uint8 -> normalized float per channel
};

namespace {

Step readStep(const AugmentationSpec &spec)
{
    const nlohmann::json &q = spec.params;
    Step s;
    s.p = spec.probability;
    const std::string &t = spec.type;
    if (t == "horizontal_flip") {
        s.kind = Kind::HorizontalFlip;
    } else if (t == "vertical_flip") {
        s.kind = Kind::VerticalFlip;
    } else if (t == "rotation") {
        s.kind = Kind::Rotation;
        s.a = pair(q.at("degrees"));
        s.fill = triple(q.at("fill"));
        s.bilinear = q.at("interpolation") == "bilinear";
    } else if (t == "affine") {
        s.kind = Kind::Affine;
        s.a = pair(q.at("degrees"));
        s.b = pair(q.at("translate"));
        s.c = pair(q.at("scale"));
        for (int i = 0; i < 4; ++i)
            s.shear[std::size_t(i)] = q.at("shear").at(std::size_t(i)).get<double>();
        s.fill = triple(q.at("fill"));
        s.bilinear = q.at("interpolation") == "bilinear";
    } else if (t == "color_jitter") {
        s.kind = Kind::ColorJitter;
        s.a = pair(q.at("brightness"));
        s.b = pair(q.at("contrast"));
        s.c = pair(q.at("saturation"));
        s.d = pair(q.at("hue"));
    } else if (t == "grayscale") {
        s.kind = Kind::Grayscale;
    } else if (t == "gaussian_blur") {
        s.kind = Kind::GaussianBlur;
        s.i0 = q.at("kernel_size").at(0).get<int>();
        s.i1 = q.at("kernel_size").at(1).get<int>();
        s.a = pair(q.at("sigma"));
    } else if (t == "sharpness") {
        s.kind = Kind::Sharpness;
        s.a = {q.at("sharpness_factor").get<double>(), 0};
    } else if (t == "posterize") {
        s.kind = Kind::Posterize;
        s.i0 = q.at("bits").get<int>();
    } else if (t == "solarize") {
        s.kind = Kind::Solarize;
        s.a = {q.at("threshold").get<double>(), 0};
    } else if (t == "autocontrast") {
        s.kind = Kind::AutoContrast;
    } else if (t == "equalize") {
        s.kind = Kind::Equalize;
    } else if (t == "invert") {
        s.kind = Kind::Invert;
    } else if (t == "rand_augment") {
        s.kind = Kind::RandAugment;
        s.i0 = q.at("num_ops").get<int>();
        s.i1 = q.at("magnitude").get<int>();
        s.i2 = q.at("num_magnitude_bins").get<int>();
        s.fill = triple(q.at("fill"));
        s.bilinear = q.at("interpolation") == "bilinear";
    } else if (t == "trivial_augment_wide") {
        s.kind = Kind::TrivialAugment;
        s.i2 = q.at("num_magnitude_bins").get<int>();
        s.fill = triple(q.at("fill"));
        s.bilinear = q.at("interpolation") == "bilinear";
    } else if (t == "gaussian_noise") {
        s.kind = Kind::GaussianNoise;
        s.a = {q.at("mean").get<double>(), q.at("sigma").get<double>()};
        s.flag = q.at("clip").get<bool>();
    } else if (t == "random_erasing") {
        s.kind = Kind::RandomErasing;
        s.a = pair(q.at("scale"));
        s.b = pair(q.at("ratio"));
        s.flag = q.at("value").is_string();
        if (!s.flag)
            s.value = triple(q.at("value"));
    }
    return s;
}

void colorJitter(cv::Mat &img, const Step &s, std::mt19937_64 &rng)
{
    // torchvision ColorJitter.get_params: a random order of the four, then the factors.
    int order[4] = {0, 1, 2, 3};
    for (int i = 3; i > 0; --i)
        std::swap(order[i], order[ops::randint(rng, i + 1)]);
    auto factor = [&](const std::array<double, 2> &r, double center, double &out) {
        if (r[0] == center && r[1] == center)
            return false;
        out = ops::uniform(rng, r[0], r[1]);
        return true;
    };
    double f[4] = {1, 1, 1, 0};
    const bool on[4] = {factor(s.a, 1, f[0]), factor(s.b, 1, f[1]), factor(s.c, 1, f[2]), factor(s.d, 0, f[3])};
    for (int id : order) {
        if (!on[id])
            continue;
        switch (id) {
        case 0: ops::adjustBrightness(img, f[0]); break;
        case 1: ops::adjustContrast(img, f[1]); break;
        case 2: ops::adjustSaturation(img, f[2]); break;
        default: ops::adjustHue(img, f[3]); break;
        }
    }
}

void applyPixelStep(cv::Mat &img, const Step &s, std::mt19937_64 &rng)
{
    if (!draw(rng, s.p))
        return;
    switch (s.kind) {
    case Kind::HorizontalFlip: ops::horizontalFlip(img); break;
    case Kind::VerticalFlip: ops::verticalFlip(img); break;
    case Kind::Rotation: ops::rotate(img, ops::uniform(rng, s.a[0], s.a[1]), s.fill, s.bilinear); break;
    case Kind::Affine: {
        // torchvision RandomAffine.get_params
        ops::AffineParams a;
        a.angle = ops::uniform(rng, s.a[0], s.a[1]);
        const double maxDx = s.b[0] * img.cols;
        const double maxDy = s.b[1] * img.rows;
        a.translateX = ops::roundHalfEven(ops::uniform(rng, -maxDx, maxDx));
        a.translateY = ops::roundHalfEven(ops::uniform(rng, -maxDy, maxDy));
        a.scale = ops::uniform(rng, s.c[0], s.c[1]);
        a.shearX = ops::uniform(rng, s.shear[0], s.shear[1]);
        a.shearY = ops::uniform(rng, s.shear[2], s.shear[3]);
        ops::affine(img, a, s.fill, s.bilinear);
        break;
    }
    case Kind::ColorJitter: colorJitter(img, s, rng); break;
    case Kind::Grayscale: ops::rgbToGrayscale(img, img, img.channels()); break;
    case Kind::GaussianBlur: {
        const double sigma = ops::uniform(rng, s.a[0], s.a[1]);
        ops::gaussianBlur(img, s.i0, s.i1, sigma, sigma);
        break;
    }
    case Kind::Sharpness: ops::adjustSharpness(img, s.a[0]); break;
    case Kind::Posterize: ops::posterize(img, s.i0); break;
    case Kind::Solarize: ops::solarize(img, s.a[0]); break;
    case Kind::AutoContrast: ops::autocontrast(img); break;
    case Kind::Equalize: ops::equalize(img); break;
    case Kind::Invert: ops::invert(img); break;
    case Kind::RandAugment:
        for (int i = 0; i < s.i0; ++i) {
            const auto op = static_cast<ops::AutoOp>(ops::randint(rng, ops::kAutoOpCount));
            double m = ops::autoOpHasMagnitude(op) ? ops::randAugmentMagnitude(op, s.i1, s.i2, img.cols, img.rows) : 0.0;
            if (ops::autoOpSigned(op) && ops::randint(rng, 2))
                m = -m;
            ops::applyAutoOp(img, op, m, s.fill, s.bilinear);
        }
        break;
    case Kind::TrivialAugment: {
        const auto op = static_cast<ops::AutoOp>(ops::randint(rng, ops::kAutoOpCount));
        double m = ops::autoOpHasMagnitude(op)
                       ? ops::trivialAugmentMagnitude(op, static_cast<int>(ops::randint(rng, s.i2)), s.i2)
                       : 0.0;
        if (ops::autoOpSigned(op) && ops::randint(rng, 2))
            m = -m;
        ops::applyAutoOp(img, op, m, s.fill, s.bilinear);
        break;
    }
    case Kind::GaussianNoise:
    case Kind::RandomErasing: break; // tensor-level, applied later
    }
}

// torchvision RandomErasing.get_params; false when ten tries found no box (image unchanged).
bool erasingBox(int height, int width, const Step &s, std::mt19937_64 &rng, cv::Rect &box)
{
    const double area = double(height) * width;
    const double logLo = std::log(s.b[0]), logHi = std::log(s.b[1]);
    for (int attempt = 0; attempt < 10; ++attempt) {
        const double eraseArea = area * ops::uniform(rng, s.a[0], s.a[1]);
        const double aspect = std::exp(ops::uniform(rng, logLo, logHi));
        const int h = static_cast<int>(ops::roundHalfEven(std::sqrt(eraseArea * aspect)));
        const int w = static_cast<int>(ops::roundHalfEven(std::sqrt(eraseArea / aspect)));
        if (!(h < height && w < width))
            continue;
        const int top = static_cast<int>(ops::randint(rng, height - h + 1));
        const int left = static_cast<int>(ops::randint(rng, width - w + 1));
        box = cv::Rect(left, top, w, h);
        return true;
    }
    return false;
}

} // namespace

SampleTransform::SampleTransform(TransformOptions options)
    : m_options(std::move(options))
{
    const TransformOptions &o = m_options;
    if (o.imageSize < 1 || o.imageSize > 4096)
        throw EngineError("transform: imageSize must be 1..4096, not " + std::to_string(o.imageSize));
    if (o.resizeSize < o.imageSize || o.resizeSize > 16384)
        throw EngineError("transform: resizeSize (" + std::to_string(o.resizeSize) + ") must be at least imageSize ("
                          + std::to_string(o.imageSize) + ") and at most 16384");
    if (o.channels != 1 && o.channels != 3)
        throw EngineError("transform: channels must be 1 or 3, not " + std::to_string(o.channels));
    for (int c = 0; c < 3; ++c)
        if (!(std::isfinite(o.std[std::size_t(c)]) && o.std[std::size_t(c)] > 0) || !std::isfinite(o.mean[std::size_t(c)]))
            throw EngineError("transform: std must be > 0 and mean finite (channel " + std::to_string(c) + ")");
    // Validate and canonicalize (specs made in code get the same checks as a config's).
    const std::vector<AugmentationSpec> specs = parseAugmentations(augmentationsToJson(o.augmentations));

    auto plan = std::make_shared<Plan>();
    plan->fixedResize = o.resizeSize;
    for (const AugmentationSpec &spec : specs) {
        if (spec.type == "mixup" || spec.type == "cutmix" || spec.type == "center_crop")
            continue;
        if (spec.type == "random_resized_crop") {
            plan->randomResizedCrop = true;
            plan->cropProbability = spec.probability;
            plan->cropScale = pair(spec.params.at("scale"));
            plan->cropRatio = pair(spec.params.at("ratio"));
            continue;
        }
        if (spec.type == "resize") {
            if (spec.params.contains("size"))
                plan->fixedResize = spec.params.at("size").get<int>();
            if (plan->fixedResize < o.imageSize)
                throw EngineError("data.augment: resize size " + std::to_string(plan->fixedResize)
                                  + " is smaller than the image size " + std::to_string(o.imageSize)
                                  + " that the center crop takes");
            continue;
        }
        const Step step = readStep(spec);
        if (step.kind == Kind::GaussianNoise)
            plan->noiseSteps.push_back(step);
        else if (step.kind == Kind::RandomErasing)
            plan->erasingSteps.push_back(step);
        else
            plan->pixelSteps.push_back(step);
    }
    for (int c = 0; c < 3; ++c) {
        // Exactly torchvision's to_tensor + normalize in float32.
        const float mean = o.mean[std::size_t(c)], sd = o.std[std::size_t(c)];
        for (int v = 0; v < 256; ++v)
            plan->lut[std::size_t(c)][std::size_t(v)] = (float(v) / 255.0f - mean) / sd;
    }
    m_plan = plan;
}

std::size_t SampleTransform::sampleBytes() const
{
    return std::size_t(m_options.imageSize) * std::size_t(m_options.imageSize) * std::size_t(m_options.channels)
           * (m_options.uint8Output ? 1 : sizeof(float));
}

int SampleTransform::cacheShortSide() const
{
    return std::max(static_cast<int>(std::ceil(m_options.imageSize * 1.15)), m_options.resizeSize);
}

namespace {

Geometry geometryFor(const SampleTransform::Plan &plan, const TransformOptions &o, int width, int height,
                     std::mt19937_64 &rng)
{
    Geometry g;
    const int size = o.imageSize;
    if (o.train && plan.randomResizedCrop && draw(rng, plan.cropProbability)) {
        const ops::CropRect c = ops::randomResizedCropParams(width, height, plan.cropScale, plan.cropRatio, rng);
        g.bounds = cv::Rect(c.left, c.top, c.width, c.height);
        g.box = cv::Rect2d(g.bounds);
    } else {
        const int resize = o.train ? plan.fixedResize : o.resizeSize;
        const cv::Size scaled = ops::resizedShortSide(width, height, resize);
        const cv::Point origin = ops::centerCropOrigin(scaled.width, scaled.height, size, size);
        const double sx = double(width) / scaled.width;
        const double sy = double(height) / scaled.height;
        g.box = cv::Rect2d(origin.x * sx, origin.y * sy, size * sx, size * sy);
        g.bounds = cv::Rect(0, 0, width, height);
    }
    g.minScale = std::max(size / g.box.width, size / g.box.height);
    // Decode the box plus the reach of the filter (its support grows with the downscale),
    // at the DCT scale a JPEG decode will use.
    const double denom = 1.0 / jpegDecodeScale(g.minScale);
    const double mx = denom * (std::ceil(std::max(1.0, g.box.width / denom / size)) + 2);
    const double my = denom * (std::ceil(std::max(1.0, g.box.height / denom / size)) + 2);
    const int x0 = static_cast<int>(std::floor(g.box.x - mx));
    const int y0 = static_cast<int>(std::floor(g.box.y - my));
    const int x1 = static_cast<int>(std::ceil(g.box.x + g.box.width + mx));
    const int y1 = static_cast<int>(std::ceil(g.box.y + g.box.height + my));
    g.region = cv::Rect(x0, y0, x1 - x0, y1 - y0) & g.bounds;
    return g;
}

// Resamples the geometry's box out of a decode (full-resolution coordinates mapped to its pixels).
void resampleBox(const DecodedImage &d, const Geometry &g, int size, cv::Mat &out, bool mirror)
{
    const double s = d.scale;
    const cv::Rect2d box(g.box.x * s - d.offsetX, g.box.y * s - d.offsetY, g.box.width * s, g.box.height * s);
    const int bx0 = static_cast<int>(std::floor(g.bounds.x * s - d.offsetX + 1e-6));
    const int by0 = static_cast<int>(std::floor(g.bounds.y * s - d.offsetY + 1e-6));
    const int bx1 = static_cast<int>(std::ceil((g.bounds.x + g.bounds.width) * s - d.offsetX - 1e-6));
    const int by1 = static_cast<int>(std::ceil((g.bounds.y + g.bounds.height) * s - d.offsetY - 1e-6));
    const cv::Rect bounds = cv::Rect(bx0, by0, bx1 - bx0, by1 - by0) & cv::Rect(0, 0, d.pixels.cols, d.pixels.rows);
    ops::resampleBilinear(d.pixels, bounds, box, cv::Size(size, size), out, mirror);
}

// A horizontal flip as the first pixel step (the standard recipe's) is folded into the
// resample: its draw is made right after the geometry's, where applyPixelStep would make it,
// and the resample mirrors. Returns whether to mirror; firstStep: the pixel steps left to run.
bool leadingFlip(const SampleTransform::Plan &plan, const TransformOptions &o, std::mt19937_64 &rng,
                 std::size_t &firstStep)
{
    firstStep = 0;
    if (!o.train || plan.pixelSteps.empty() || plan.pixelSteps.front().kind != Kind::HorizontalFlip)
        return false;
    firstStep = 1;
    return draw(rng, plan.pixelSteps.front().p);
}

// Pixel steps, channel conversion, tensor-level steps, normalization and layout.
void finishSample(const SampleTransform::Plan &plan, const TransformOptions &o, Work &w, std::mt19937_64 &rng, void *out,
                  std::size_t firstStep)
{
    cv::Mat *img = &w.sample;
    if (o.train)
        for (std::size_t i = firstStep; i < plan.pixelSteps.size(); ++i)
            applyPixelStep(w.sample, plan.pixelSteps[i], rng);
    if (o.channels == 1) {
        ops::rgbToGrayscale(w.sample, w.grey, 1);
        img = &w.grey;
    }
    const int size = o.imageSize;
    const int c = o.channels;
    const std::size_t plane = std::size_t(size) * std::size_t(size);
    const bool tensorSteps = o.train && (!plan.noiseSteps.empty() || !plan.erasingSteps.empty());

    if (!tensorSteps) {
        if (o.uint8Output) {
            auto *dst = static_cast<std::uint8_t *>(out);
            for (int y = 0; y < size; ++y) {
                const std::uint8_t *p = img->ptr<std::uint8_t>(y);
                if (o.channelsLast) {
                    std::memcpy(dst + std::size_t(y) * std::size_t(size) * std::size_t(c), p, std::size_t(size) * std::size_t(c));
                } else {
                    for (int x = 0; x < size; ++x)
                        for (int k = 0; k < c; ++k)
                            dst[std::size_t(k) * plane + std::size_t(y) * std::size_t(size) + std::size_t(x)] = p[x * c + k];
                }
            }
        } else {
            auto *dst = static_cast<float *>(out);
            for (int y = 0; y < size; ++y) {
                const std::uint8_t *p = img->ptr<std::uint8_t>(y);
                if (o.channelsLast) {
                    float *d = dst + std::size_t(y) * std::size_t(size) * std::size_t(c);
                    for (int x = 0; x < size; ++x)
                        for (int k = 0; k < c; ++k)
                            d[x * c + k] = plan.lut[std::size_t(k)][p[x * c + k]];
                } else if (c == 3) {
                    float *r = dst + std::size_t(y) * std::size_t(size);
                    float *g = r + plane;
                    float *b = g + plane;
                    const auto &lr = plan.lut[0], &lg = plan.lut[1], &lb = plan.lut[2];
                    for (int x = 0; x < size; ++x) {
                        r[x] = lr[p[3 * x]];
                        g[x] = lg[p[3 * x + 1]];
                        b[x] = lb[p[3 * x + 2]];
                    }
                } else {
                    float *d = dst + std::size_t(y) * std::size_t(size);
                    for (int x = 0; x < size; ++x)
                        d[x] = plan.lut[0][p[x]];
                }
            }
        }
        return;
    }

    // Tensor-level steps on HWC floats: noise on [0, 1] values, normalization, erasing.
    std::vector<float> &v = w.values;
    v.resize(plane * std::size_t(c));
    for (int y = 0; y < size; ++y) {
        const std::uint8_t *p = img->ptr<std::uint8_t>(y);
        float *d = v.data() + std::size_t(y) * std::size_t(size) * std::size_t(c);
        for (int i = 0; i < size * c; ++i)
            d[i] = float(p[i]) / 255.0f;
    }
    for (const Step &s : plan.noiseSteps) {
        if (!draw(rng, s.p))
            continue;
        const float mean = static_cast<float>(s.a[0]), sigma = static_cast<float>(s.a[1]);
        for (float &x : v) {
            x += mean + static_cast<float>(ops::normal(rng)) * sigma;
            if (s.flag)
                x = std::clamp(x, 0.0f, 1.0f);
        }
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::size_t k = i % std::size_t(c);
        v[i] = (v[i] - o.mean[k]) / o.std[k];
    }
    for (const Step &s : plan.erasingSteps) {
        if (!draw(rng, s.p))
            continue;
        cv::Rect box;
        if (!erasingBox(size, size, s, rng, box))
            continue;
        // Random values are drawn for the whole box, channel-major as torchvision's [C, h, w].
        for (int k = 0; k < c; ++k)
            for (int y = box.y; y < box.y + box.height; ++y)
                for (int x = box.x; x < box.x + box.width; ++x)
                    v[(std::size_t(y) * std::size_t(size) + std::size_t(x)) * std::size_t(c) + std::size_t(k)] =
                        s.flag ? static_cast<float>(ops::normal(rng)) : static_cast<float>(s.value[std::size_t(k)]);
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::size_t k = i % std::size_t(c);
        const std::size_t pixel = i / std::size_t(c);
        const std::size_t at = o.channelsLast ? i : k * plane + pixel;
        if (o.uint8Output) {
            // Back to pixels: what the consumer's normalization will map to v.
            const float u = (v[i] * o.std[k] + o.mean[k]) * 255.0f;
            static_cast<std::uint8_t *>(out)[at] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(u), 0.0f, 255.0f));
        } else {
            static_cast<float *>(out)[at] = v[i];
        }
    }
}

} // namespace

void SampleTransform::apply(const std::uint8_t *data, std::size_t size, std::mt19937_64 &rng, void *out) const
{
    const ImageHeader header = readCheckedHeader(data, size);
    const bool swap = header.exifOrientation >= 5;
    const int width = swap ? header.height : header.width;
    const int height = swap ? header.width : header.height;
    Work &w = work();
    const Geometry g = geometryFor(*m_plan, m_options, width, height, rng);
    const DecodedImage d = decodeRegion(data, size, header, g.region, g.minScale, 3, true, &w.scratch,
                                         m_options.train && m_options.fastDecode);
    std::size_t firstStep = 0;
    const bool mirror = leadingFlip(*m_plan, m_options, rng, firstStep);
    resampleBox(d, g, m_options.imageSize, w.sample, mirror);
    finishSample(*m_plan, m_options, w, rng, out, firstStep);
}

cv::Mat SampleTransform::decodeForCache(const std::uint8_t *data, std::size_t size) const
{
    const ImageHeader header = readCheckedHeader(data, size);
    const bool swap = header.exifOrientation >= 5;
    const int width = swap ? header.height : header.width;
    const int height = swap ? header.width : header.height;
    const int target = cacheShortSide();
    const int shortSide = std::min(width, height);
    const double minScale = std::min(1.0, double(target) / shortSide);
    const DecodedImage d = decodeRegion(data, size, header, cv::Rect(0, 0, width, height), minScale, 3, true, nullptr,
                                        m_options.train && m_options.fastDecode);
    if (shortSide <= target && d.scale == 1.0 && d.offsetX == 0 && d.offsetY == 0 && d.pixels.cols == width
        && d.pixels.rows == height)
        return d.pixels.isContinuous() ? d.pixels : d.pixels.clone();
    // Resize the whole image so that its short side is `target` (never enlarged).
    const cv::Size scaled = shortSide <= target ? cv::Size(width, height) : ops::resizedShortSide(width, height, target);
    const double s = d.scale;
    const cv::Rect2d box(-d.offsetX, -d.offsetY, width * s, height * s);
    cv::Mat out;
    ops::resampleBilinear(d.pixels, cv::Rect(0, 0, d.pixels.cols, d.pixels.rows), box, scaled, out);
    return out;
}

void SampleTransform::applyDecoded(const cv::Mat &decoded, std::mt19937_64 &rng, void *out) const
{
    if (decoded.empty() || decoded.type() != CV_8UC3)
        throw EngineError("transform: a cached image must be 8-bit RGB");
    Work &w = work();
    const Geometry g = geometryFor(*m_plan, m_options, decoded.cols, decoded.rows, rng);
    DecodedImage d;
    d.pixels = decoded;
    d.fullWidth = decoded.cols;
    d.fullHeight = decoded.rows;
    std::size_t firstStep = 0;
    const bool mirror = leadingFlip(*m_plan, m_options, rng, firstStep);
    resampleBox(d, g, m_options.imageSize, w.sample, mirror);
    finishSample(*m_plan, m_options, w, rng, out, firstStep);
}

// --- BatchMixer

BatchMixer::BatchMixer(const std::vector<AugmentationSpec> &augmentations, int numClasses)
    : m_numClasses(numClasses)
{
    for (const AugmentationSpec &spec : parseAugmentations(augmentationsToJson(augmentations)))
        if (spec.type == "mixup" || spec.type == "cutmix")
            m_steps.push_back(spec);
    if (!m_steps.empty() && numClasses < 1)
        throw EngineError("mixup/cutmix: the number of classes must be at least 1");
}

bool BatchMixer::active() const { return !m_steps.empty(); }

at::Tensor BatchMixer::apply(at::Tensor &images, const at::Tensor &labels, std::mt19937_64 &rng) const
{
    if (labels.dim() != 1 || images.dim() != 4 || images.size(0) != labels.size(0))
        throw EngineError("mixup/cutmix: expected images [N, C, H, W] and labels [N]");
    const at::Tensor l = labels.to(at::kLong);
    if (l.numel() > 0 && (l.min().item<std::int64_t>() < 0 || l.max().item<std::int64_t>() >= std::max(m_numClasses, 1)))
        throw EngineError("mixup/cutmix: a label is outside 0.." + std::to_string(m_numClasses - 1));
    return mix(images, at::one_hot(l, std::max(m_numClasses, 1)).to(at::kFloat), rng);
}

at::Tensor BatchMixer::mix(at::Tensor &images, const at::Tensor &targets, std::mt19937_64 &rng) const
{
    if (targets.dim() != 2 || images.dim() != 4 || images.size(0) != targets.size(0)
        || targets.size(1) != std::max(m_numClasses, 1))
        throw EngineError("mixup/cutmix: expected images [N, C, H, W] and targets [N, " + std::to_string(m_numClasses) + "]");
    if (m_steps.empty())
        return targets;
    const AugmentationSpec &step = m_steps[std::size_t(ops::randint(rng, std::int64_t(m_steps.size())))];
    if (!draw(rng, step.probability))
        return targets;
    const double alpha = step.params.at("alpha").get<double>();
    double lambda = ops::beta(rng, alpha, alpha);
    // Pair each sample with the batch rolled by one.
    const bool integer = !at::isFloatingType(images.scalar_type());
    at::Tensor work = integer ? images.to(at::kFloat) : images;
    const at::Tensor rolled = work.roll(1, 0);
    if (step.type == "mixup") {
        if (integer)
            images.copy_(work.mul(lambda).add_(rolled, 1.0 - lambda).round_());
        else
            images.mul_(lambda).add_(rolled, 1.0 - lambda);
    } else {
        const std::int64_t h = images.size(2), w = images.size(3);
        const std::int64_t rx = ops::randint(rng, w), ry = ops::randint(rng, h);
        const double r = 0.5 * std::sqrt(1.0 - lambda);
        const auto rw = static_cast<std::int64_t>(r * double(w));
        const auto rh = static_cast<std::int64_t>(r * double(h));
        const std::int64_t x1 = std::max<std::int64_t>(rx - rw, 0), y1 = std::max<std::int64_t>(ry - rh, 0);
        const std::int64_t x2 = std::min<std::int64_t>(rx + rw, w), y2 = std::min<std::int64_t>(ry + rh, h);
        if (x2 > x1 && y2 > y1)
            images.slice(2, y1, y2).slice(3, x1, x2).copy_(rolled.slice(2, y1, y2).slice(3, x1, x2));
        lambda = 1.0 - double((x2 - x1) * (y2 - y1)) / double(w * h);
    }
    return targets.mul(lambda).add_(targets.roll(1, 0), 1.0 - lambda);
}

} // namespace lathe::engine
