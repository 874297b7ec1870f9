#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

struct TransformOptions; // engine/pipeline/sample_transform.h

// A group of parameters that freezing addresses as one unit ("stem", "layer1", ..., "head").
// A parameter belongs to the stage whose prefix it starts with; prefixes either end in '.'
// (a module) or are a whole parameter name (e.g. ViT's "class_token").
struct BackboneStage
{
    std::string name;
    std::vector<std::string> prefixes;
};

// What Lathe knows about one architecture, without building it.
struct BackboneInfo
{
    std::string name;        // torchvision's builder name: "resnet50", "vit_b_16", ...
    std::string family;      // "ResNet", "MobileNetV3", "EfficientNet", "ConvNeXt", "ViT"
    int inputSize = 224;     // default training/eval crop
    int resizeSize = 256;    // evaluation: resize the short side to this, then center-crop inputSize
    std::string interpolation = "bilinear"; // evaluation resize, as torchvision's weights transforms
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
    std::int64_t parameters = 0; // with the 1000-class ImageNet head
    double gflops = 0;           // multiply-adds x1e-9 at inputSize, as torchvision reports them
    std::vector<BackboneStage> stages; // input to output; the last is always "head"
    std::string stemParameter;          // first convolution's weight, adapted for other channel counts
    std::vector<std::string> headParameters; // the final Linear's weight and bias
    bool convolutional = true;          // has a spatial feature map (Grad-CAM)

    // Index into stages of the stage owning a parameter name; -1 when none does.
    int stageOf(const std::string &parameterName) const;
};

// Every built-in backbone, in the order the UI lists them.
const std::vector<BackboneInfo> &backboneRegistry();

// Throws EngineError listing the known names when name is not one of them.
const BackboneInfo &backboneInfo(const std::string &name);

// The evaluation transform of a model: resize the short side, center-crop imageSize (0: the
// backbone's input size), normalise with the backbone's mean/std. Same rule as the trainer's
// validation, so evaluation reproduces its numbers.
TransformOptions evaluationTransform(const BackboneInfo &info, int imageSize, int channels);

} // namespace lathe::engine
