#pragma once

// Torch-free: the Evaluate page's "why this prediction" view and lathe-cli gradcam call it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

// Grad-CAM (Selvaraju et al. 2017) of one image for one class.
struct GradCamResult
{
    int width = 0;  // the image as displayed (EXIF orientation applied)
    int height = 0;
    // height x width, row-major, in [0, 1]: over the crop the model saw (the evaluation center
    // crop) shifted to 0 at its minimum and scaled to 1 at its maximum (all 0 when it is flat,
    // e.g. when no location speaks for the class); outside the crop 0.
    std::vector<float> heatmap;
    int cropX = 0, cropY = 0, cropWidth = 0, cropHeight = 0; // that crop, in image pixels
    int mapWidth = 0, mapHeight = 0;                         // the feature map's resolution
    int classIndex = -1; // the class explained
    std::string className;
    float classProbability = 0;
    std::vector<int> topClasses; // the model's prediction, most probable first
    std::vector<std::string> topNames;
    std::vector<float> topProbs;
};

// Explains classIndex (default: the predicted class) for the image at imagePath with a run's
// checkpoint: gradients of the class logit with respect to the last convolutional feature map,
// channel weights = the gradients averaged over space, ReLU of the weighted channel sum,
// upsampled bilinearly onto the image's crop and scaled to [0, 1]. The loaded model is kept
// for the next call with the same run and checkpoint (an unchanged weights file). Throws EngineError
// for transformer backbones ("not available"), a class index out of range, and unreadable
// images (naming the file and the reason).
GradCamResult gradCam(const std::string &runDir, const std::string &checkpoint, const std::string &imagePath,
                      std::optional<int> classIndex = std::nullopt, int topK = 5);
// The same for an image held in memory; name is used in error messages.
GradCamResult gradCam(const std::string &runDir, const std::string &checkpoint, const std::vector<std::uint8_t> &image,
                      std::optional<int> classIndex = std::nullopt, int topK = 5, const std::string &name = "image");
// As gradCam(path) for the class named className (EngineError listing the classes when no
// class has that name).
GradCamResult gradCamForClass(const std::string &runDir, const std::string &checkpoint, const std::string &imagePath,
                              const std::string &className, int topK = 5);

// Writes the heat map as a jet colormap blended over the image (alpha: the heat map's weight)
// to pngPath, atomically. image: the bytes gradCam explained. Throws EngineError.
void writeGradCamOverlay(const std::vector<std::uint8_t> &image, const GradCamResult &result, const std::string &pngPath,
                         double alpha = 0.5);

} // namespace lathe::engine
