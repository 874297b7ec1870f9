#include "engine/models/backbone_registry.h"

#include "engine/base/engine_error.h"
#include "engine/pipeline/sample_transform.h"

#include <algorithm>
#include <cmath>

namespace lathe::engine {
namespace {

std::vector<std::string> blockPrefixes(const std::string &parent, int first, int last)
{
    std::vector<std::string> out;
    for (int i = first; i <= last; ++i)
        out.push_back(parent + std::to_string(i) + ".");
    return out;
}

BackboneInfo resnet(const std::string &name, std::int64_t parameters, double gflops)
{
    BackboneInfo b;
    b.name = name;
    b.family = "ResNet";
    b.parameters = parameters;
    b.gflops = gflops;
    b.stages = {{"stem", {"conv1.", "bn1."}}, {"layer1", {"layer1."}}, {"layer2", {"layer2."}},
                {"layer3", {"layer3."}},      {"layer4", {"layer4."}}, {"head", {"fc."}}};
    b.stemParameter = "conv1.weight";
    b.headParameters = {"fc.weight", "fc.bias"};
    return b;
}

BackboneInfo mobilenetV3(const std::string &name, std::int64_t parameters, double gflops,
                         const std::vector<std::pair<int, int>> &stageBlocks)
{
    BackboneInfo b;
    b.name = name;
    b.family = "MobileNetV3";
    b.parameters = parameters;
    b.gflops = gflops;
    b.stages.push_back({"stem", {"features.0."}});
    for (std::size_t s = 0; s < stageBlocks.size(); ++s)
        b.stages.push_back({"stage" + std::to_string(s + 1),
                            blockPrefixes("features.", stageBlocks[s].first, stageBlocks[s].second)});
    b.stages.push_back({"head", {"classifier."}});
    b.stemParameter = "features.0.0.weight";
    b.headParameters = {"classifier.3.weight", "classifier.3.bias"};
    return b;
}

BackboneInfo efficientNet(int variant, int inputSize, int resizeSize, std::int64_t parameters, double gflops)
{
    BackboneInfo b;
    b.name = "efficientnet_b" + std::to_string(variant);
    b.family = "EfficientNet";
    b.inputSize = inputSize;
    b.resizeSize = resizeSize;
    b.interpolation = "bicubic";
    b.parameters = parameters;
    b.gflops = gflops;
    b.stages.push_back({"stem", {"features.0."}});
    for (int s = 1; s <= 7; ++s)
        b.stages.push_back({"stage" + std::to_string(s), {"features." + std::to_string(s) + "."}});
    b.stages.push_back({"top", {"features.8."}});
    b.stages.push_back({"head", {"classifier."}});
    b.stemParameter = "features.0.0.weight";
    b.headParameters = {"classifier.1.weight", "classifier.1.bias"};
    return b;
}

BackboneInfo convnextTiny()
{
    BackboneInfo b;
    b.name = "convnext_tiny";
    b.family = "ConvNeXt";
    b.resizeSize = 236;
    b.parameters = 28589128;
    b.gflops = 4.46;
    b.stages = {{"stem", {"features.0."}},
                {"stage1", {"features.1."}},
                {"stage2", {"features.2.", "features.3."}},
                {"stage3", {"features.4.", "features.5."}},
                {"stage4", {"features.6.", "features.7."}},
                {"head", {"classifier."}}};
    b.stemParameter = "features.0.0.weight";
    b.headParameters = {"classifier.2.weight", "classifier.2.bias"};
    return b;
}

BackboneInfo vit(const std::string &name, std::int64_t parameters, double gflops)
{
    BackboneInfo b;
    b.name = name;
    b.family = "ViT";
    b.parameters = parameters;
    b.gflops = gflops;
    b.stages.push_back({"stem", {"conv_proj.", "class_token", "encoder.pos_embedding"}});
    for (int s = 0; s < 4; ++s)
        b.stages.push_back({"blocks" + std::to_string(3 * s + 1) + "-" + std::to_string(3 * s + 3),
                            blockPrefixes("encoder.layers.encoder_layer_", 3 * s, 3 * s + 2)});
    b.stages.push_back({"head", {"encoder.ln.", "heads."}});
    b.stemParameter = "conv_proj.weight";
    b.headParameters = {"heads.head.weight", "heads.head.bias"};
    b.convolutional = false;
    return b;
}

std::vector<BackboneInfo> makeRegistry()
{
    // Parameter counts and GFLOPs are torchvision's published figures for the ImageNet models;
    // test_engine_backbones checks the counts against the networks Lathe builds.
    return {
        resnet("resnet18", 11689512, 1.81),
        resnet("resnet34", 21797672, 3.66),
        resnet("resnet50", 25557032, 4.09),
        resnet("resnet101", 44549160, 7.80),
        mobilenetV3("mobilenet_v3_small", 2542856, 0.06, {{1, 1}, {2, 3}, {4, 8}, {9, 12}}),
        mobilenetV3("mobilenet_v3_large", 5483032, 0.22, {{1, 1}, {2, 3}, {4, 6}, {7, 12}, {13, 16}}),
        efficientNet(0, 224, 256, 5288548, 0.39),
        efficientNet(1, 240, 256, 7794184, 0.69),
        efficientNet(2, 288, 288, 9109994, 1.09),
        efficientNet(3, 300, 320, 12233232, 1.83),
        efficientNet(4, 380, 384, 19341616, 4.39),
        convnextTiny(),
        vit("vit_b_16", 86567656, 17.56),
        vit("vit_b_32", 88224232, 4.41),
    };
}

} // namespace

int BackboneInfo::stageOf(const std::string &parameterName) const
{
    for (std::size_t s = 0; s < stages.size(); ++s)
        for (const std::string &prefix : stages[s].prefixes) {
            const bool module = !prefix.empty() && prefix.back() == '.';
            if (module ? parameterName.compare(0, prefix.size(), prefix) == 0 : parameterName == prefix)
                return int(s);
        }
    return -1;
}

const std::vector<BackboneInfo> &backboneRegistry()
{
    static const std::vector<BackboneInfo> registry = makeRegistry();
    return registry;
}

const BackboneInfo &backboneInfo(const std::string &name)
{
    for (const BackboneInfo &b : backboneRegistry())
        if (b.name == name)
            return b;
    std::string known;
    for (const BackboneInfo &b : backboneRegistry())
        known += (known.empty() ? "" : ", ") + b.name;
    throw EngineError("unknown backbone '" + name + "' (known: " + known + ")");
}

TransformOptions evaluationTransform(const BackboneInfo &info, int imageSize, int channels)
{
    TransformOptions t;
    t.train = false;
    t.imageSize = imageSize > 0 ? imageSize : info.inputSize;
    // The backbone's resize/crop ratio carried to the crop size in use (as the trainer does).
    t.resizeSize = std::max(t.imageSize, int(std::lround(double(t.imageSize) * info.resizeSize /
                                                         std::max(1, info.inputSize))));
    t.channels = channels;
    t.mean = info.mean;
    t.std = info.std;
    return t;
}

} // namespace lathe::engine
