#include "engine/inference/grad_cam.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/dataset/image_decoder.h"
#include "engine/inference/run_model.h"
#include "engine/pipeline/augment_ops.h"
#include "engine/run/run_layout.h"

#include <torch/torch.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string_view>

namespace lathe::engine {
namespace {

GradCamResult explain(const RunModel &m, const std::vector<std::uint8_t> &bytes, const std::string &name,
                      std::optional<int> classIndex, int topK)
{
    if (!m.info.convolutional)
        throw EngineError("Grad-CAM is not available for transformer backbones (" + m.spec.arch +
                          "): they have no spatial feature map");
    const int k = int(m.classes.size());
    if (classIndex && (*classIndex < 0 || *classIndex >= k))
        throw EngineError("Grad-CAM: class index " + std::to_string(*classIndex) + " is outside the model's " +
                          std::to_string(k) + " classes");

    GradCamResult r;
    const TransformOptions &t = m.transform;
    torch::Tensor x = torch::empty({1, t.channels, t.imageSize, t.imageSize});
    ImageHeader header;
    try {
        header = readCheckedHeader(bytes.data(), bytes.size());
        std::mt19937_64 rng(0);
        SampleTransform(t).apply(bytes.data(), bytes.size(), rng, x.data_ptr());
    } catch (const EngineError &e) {
        throw EngineError(name + ": " + e.what());
    }
    const bool swapped = header.exifOrientation >= 5 && header.exifOrientation <= 8;
    r.width = swapped ? header.height : header.width;
    r.height = swapped ? header.width : header.height;

    // The crop the evaluation transform takes, in image pixels (as SampleTransform computes it).
    const cv::Size scaled = ops::resizedShortSide(r.width, r.height, t.resizeSize);
    const cv::Point origin = ops::centerCropOrigin(scaled.width, scaled.height, t.imageSize, t.imageSize);
    const double sx = double(r.width) / scaled.width;
    const double sy = double(r.height) / scaled.height;
    const cv::Rect2d box(origin.x * sx, origin.y * sy, t.imageSize * sx, t.imageSize * sy);

    torch::AutoGradMode grad(true);
    x = x.to(m.device).requires_grad_(true); // a graph to the feature map even if every weight is frozen
    const torch::Tensor features = m.classifier->featureMap(x);
    if (features.dim() != 4)
        throw EngineError("Grad-CAM is not available for " + m.spec.arch + ": its feature map is not spatial");
    const torch::Tensor logits = m.classifier->head(m.classifier->pool(features)).to(torch::kFloat32);
    const torch::Tensor probs = torch::softmax(logits.detach(), 1).to(torch::kCPU).contiguous();
    topClasses(probs[0].data_ptr<float>(), k, std::min(topK, k), r.topClasses, r.topProbs);
    for (int c : r.topClasses)
        r.topNames.push_back(m.classes[std::size_t(c)]);
    std::vector<int> best;
    std::vector<float> bestProb;
    topClasses(probs[0].data_ptr<float>(), k, 1, best, bestProb);
    r.classIndex = classIndex ? *classIndex : best.front();
    r.className = m.classes[std::size_t(r.classIndex)];
    r.classProbability = probs[0][r.classIndex].item<float>();

    const torch::Tensor gradients = torch::autograd::grad({logits[0][r.classIndex]}, {features})[0];
    const torch::Tensor weights = gradients.mean({2, 3}, true);
    const torch::Tensor cam =
        torch::relu((weights * features.detach()).sum(1)).squeeze(0).to(torch::kCPU, torch::kFloat32).contiguous();
    r.mapHeight = int(cam.size(0));
    r.mapWidth = int(cam.size(1));

    // Bilinear upsampling onto the crop (half-pixel centres, as align_corners=False), pasted into
    // an image-sized map.
    const cv::Mat small(r.mapHeight, r.mapWidth, CV_32F, const_cast<float *>(cam.data_ptr<float>()));
    const int x0 = int(std::lround(box.x)), y0 = int(std::lround(box.y));
    const int w = std::max(1, int(std::lround(box.width))), h = std::max(1, int(std::lround(box.height)));
    cv::Mat up;
    cv::resize(small, up, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
    cv::Mat full = cv::Mat::zeros(r.height, r.width, CV_32F);
    const cv::Rect target = cv::Rect(x0, y0, w, h) & cv::Rect(0, 0, r.width, r.height);
    if (!target.empty())
        up(cv::Rect(target.x - x0, target.y - y0, target.width, target.height)).copyTo(full(target));
    // Shifted to 0 at its minimum over the crop and scaled to 1 at its maximum (as
    // pytorch-grad-cam's scale_cam_image), so a uniform share of evidence does not wash out
    // where it differs; a flat map becomes all 0.
    if (!target.empty()) {
        cv::Mat inside = full(target);
        double minValue = 0, maxValue = 0;
        cv::minMaxLoc(inside, &minValue, &maxValue);
        if (maxValue > minValue) {
            inside -= minValue;
            inside /= maxValue - minValue;
        } else {
            inside.setTo(0);
        }
    }
    r.cropX = target.x;
    r.cropY = target.y;
    r.cropWidth = target.width;
    r.cropHeight = target.height;
    r.heatmap.assign(full.ptr<float>(), full.ptr<float>() + std::size_t(r.width) * std::size_t(r.height));
    return r;
}

// Transformer backbones are refused from the config alone, before any weights are read.
void requireConvolutional(const std::string &runDir)
{
    const RunConfig config = readRunConfig(run_layout::configPath(runDir));
    if (config.model.arch != "torchscript" && !backboneInfo(config.model.arch).convolutional)
        throw EngineError("Grad-CAM is not available for transformer backbones (" + config.model.arch +
                          "): they have no spatial feature map");
}

} // namespace

GradCamResult gradCam(const std::string &runDir, const std::string &checkpoint, const std::vector<std::uint8_t> &image,
                      std::optional<int> classIndex, int topK, const std::string &name)
{
    requireConvolutional(runDir);
    const std::shared_ptr<const RunModel> m = cachedRunModel(runDir, checkpoint);
    return explain(*m, image, name, classIndex, topK);
}

GradCamResult gradCam(const std::string &runDir, const std::string &checkpoint, const std::string &imagePath,
                      std::optional<int> classIndex, int topK)
{
    const std::vector<std::uint8_t> bytes = readInputFile(imagePath);
    return gradCam(runDir, checkpoint, bytes, classIndex, topK, imagePath);
}

GradCamResult gradCamForClass(const std::string &runDir, const std::string &checkpoint, const std::string &imagePath,
                              const std::string &className, int topK)
{
    requireConvolutional(runDir);
    const std::vector<std::uint8_t> bytes = readInputFile(imagePath);
    const std::shared_ptr<const RunModel> m = cachedRunModel(runDir, checkpoint);
    const auto it = std::find(m->classes.begin(), m->classes.end(), className);
    if (it == m->classes.end()) {
        std::string known;
        for (const std::string &c : m->classes)
            known += (known.empty() ? "" : ", ") + c;
        throw EngineError("Grad-CAM: no class \"" + className + "\" (classes: " + known + ")");
    }
    return explain(*m, bytes, imagePath, int(it - m->classes.begin()), topK);
}

void writeGradCamOverlay(const std::vector<std::uint8_t> &image, const GradCamResult &result, const std::string &pngPath,
                         double alpha)
{
    const cv::Mat rgb = decodeImage(image.data(), image.size(), 3);
    if (rgb.cols != result.width || rgb.rows != result.height ||
        result.heatmap.size() != std::size_t(result.width) * std::size_t(result.height))
        throw EngineError(pngPath + ": the heat map (" + std::to_string(result.width) + "x" +
                          std::to_string(result.height) + ") does not belong to this image (" +
                          std::to_string(rgb.cols) + "x" + std::to_string(rgb.rows) + ")");
    alpha = std::clamp(alpha, 0.0, 1.0);
    const cv::Mat heat(result.height, result.width, CV_32F, const_cast<float *>(result.heatmap.data()));
    cv::Mat heat8, colored, bgr, blended;
    heat.convertTo(heat8, CV_8U, 255.0);
    cv::applyColorMap(heat8, colored, cv::COLORMAP_JET); // BGR
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    cv::addWeighted(bgr, 1.0 - alpha, colored, alpha, 0.0, blended);
    std::vector<std::uint8_t> png;
    if (!cv::imencode(".png", blended, png))
        throw EngineError(pngPath + ": PNG encoding failed");
    writeFileAtomically(pngPath, std::string_view(reinterpret_cast<const char *>(png.data()), png.size()));
}

} // namespace lathe::engine
