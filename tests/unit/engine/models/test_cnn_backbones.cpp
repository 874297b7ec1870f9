// ResNet, MobileNetV3 and EfficientNet: torchvision's state-dict layout, head and stem options,
// forward/backward. Numerical parity with torchvision itself is checked by the parity test at the
// end when LATHE_PARITY_DIR points at files a torchvision script wrote (skipped otherwise).

#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/networks/classifier.h"

#include <gtest/gtest.h>

#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/dropout.h>
#include <torch/serialize.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace lathe::engine {
namespace {

using models::Classifier;
using models::createClassifier;

// Facts about torchvision 0.14's model(num_classes=1000).state_dict(): number of entries and an
// FNV-1a 64 digest of its sorted "name:d0xd1x...\n" lines (a scalar has no dimensions).
struct StateDictFacts
{
    std::string arch;
    std::size_t entries;
    std::uint64_t digest;
};

const std::vector<StateDictFacts> &torchvisionFacts()
{
    static const std::vector<StateDictFacts> facts{
        {"resnet18", 122, 0x638f858cd6bad136ull},           {"resnet34", 218, 0xbfd729d9b1117d98ull},
        {"resnet50", 320, 0xd4b454eeb821b1f8ull},           {"resnet101", 626, 0xd5b0909a43aac2b3ull},
        {"mobilenet_v3_small", 244, 0x4e148bd6187b1d5bull}, {"mobilenet_v3_large", 312, 0x01348cb79ff8d353ull},
        {"efficientnet_b0", 360, 0x4e083280956d6a91ull},    {"efficientnet_b1", 508, 0x27cfba4e4eb018a3ull},
        {"efficientnet_b2", 508, 0xc644d46aa23b0eccull},    {"efficientnet_b3", 574, 0xe935ec300616d069ull},
        {"efficientnet_b4", 706, 0x251da3d0e7b34a68ull},
    };
    return facts;
}

std::map<std::string, torch::Tensor> stateDict(torch::nn::Module &model)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto &p : model.named_parameters())
        out[p.key()] = p.value();
    for (const auto &b : model.named_buffers())
        out[b.key()] = b.value();
    return out;
}

std::uint64_t digest(const std::map<std::string, torch::Tensor> &state)
{
    std::string text; // std::map iterates in sorted order, as Python's sorted() over the same strings
    for (const auto &[name, tensor] : state) {
        text += name + ":";
        for (std::int64_t d = 0; d < tensor.dim(); ++d)
            text += (d ? "x" : "") + std::to_string(tensor.size(d));
        text += "\n";
    }
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

double expectedDropout(const std::string &arch)
{
    if (arch == "efficientnet_b2" || arch == "efficientnet_b3")
        return 0.3;
    if (arch == "efficientnet_b4")
        return 0.4;
    return arch.rfind("resnet", 0) == 0 ? 0.0 : 0.2;
}

// The nn.Dropout in front of the final Linear; none for ResNet.
const torch::nn::DropoutImpl *headDropoutModule(torch::nn::Module &model)
{
    for (const auto &m : model.named_modules())
        if (m.key().rfind("classifier.", 0) == 0 && m.value()->as<torch::nn::Dropout>())
            return m.value()->as<torch::nn::Dropout>();
    return nullptr;
}

class CnnBackbone : public ::testing::TestWithParam<std::string>
{
};

TEST_P(CnnBackbone, MatchesTorchvisionLayoutWithImageNetHead)
{
    const BackboneInfo &info = backboneInfo(GetParam());
    std::shared_ptr<Classifier> model = createClassifier(info.name, 3, HeadOptions{});

    std::int64_t parameters = 0;
    for (const torch::Tensor &p : model->parameters())
        parameters += p.numel();
    EXPECT_EQ(parameters, info.parameters);

    const auto state = stateDict(*model);
    const auto facts = std::find_if(torchvisionFacts().begin(), torchvisionFacts().end(),
                                    [&](const StateDictFacts &f) { return f.arch == info.name; });
    ASSERT_NE(facts, torchvisionFacts().end());
    EXPECT_EQ(state.size(), facts->entries);
    EXPECT_EQ(digest(state), facts->digest) << "names or shapes differ from torchvision's state_dict";

    for (const auto &[name, tensor] : state)
        EXPECT_GE(info.stageOf(name), 0) << name << " belongs to no stage";

    ASSERT_EQ(info.headParameters.size(), 2u);
    ASSERT_TRUE(state.count(info.headParameters[0]));
    ASSERT_TRUE(state.count(info.headParameters[1]));
    EXPECT_EQ(state.at(info.headParameters[0]).sizes(), (std::vector<std::int64_t>{1000, model->embeddingSize()}));
    EXPECT_EQ(state.at(info.headParameters[1]).sizes(), (std::vector<std::int64_t>{1000}));
    ASSERT_TRUE(state.count(info.stemParameter));
    EXPECT_EQ(state.at(info.stemParameter).size(1), 3);

    // torchvision's own dropout before the classifier.
    const torch::nn::DropoutImpl *dropout = headDropoutModule(*model);
    if (expectedDropout(info.name) > 0) {
        ASSERT_NE(dropout, nullptr);
        EXPECT_DOUBLE_EQ(dropout->options.p(), expectedDropout(info.name));
    }

    // torchvision's initialisation: BatchNorm at identity, running statistics at rest.
    const torch::Tensor stem = state.at(info.stemParameter);
    const std::string stemBn = info.family == "ResNet" ? "bn1." : "features.0.1.";
    EXPECT_TRUE(torch::equal(state.at(stemBn + "weight"), torch::ones({stem.size(0)})));
    EXPECT_TRUE(torch::equal(state.at(stemBn + "running_var"), torch::ones({stem.size(0)})));
    const double fanOut = double(stem.size(0) * stem.size(2) * stem.size(3));
    EXPECT_NEAR(stem.std().item<double>(), std::sqrt(2.0 / fanOut), 0.1 * std::sqrt(2.0 / fanOut));
}

TEST_P(CnnBackbone, OneChannelStemAndHiddenLayerHead)
{
    const BackboneInfo &info = backboneInfo(GetParam());
    torch::NoGradGuard noGrad;

    HeadOptions head;
    head.numClasses = 7;
    head.hiddenUnits = 32;
    std::shared_ptr<Classifier> model = createClassifier(info.name, 1, head);
    model->eval();
    const auto state = stateDict(*model);
    EXPECT_EQ(state.at(info.stemParameter).size(1), 1);
    ASSERT_TRUE(state.count("head_hidden.weight"));
    EXPECT_EQ(state.at("head_hidden.weight").sizes(), (std::vector<std::int64_t>{32, model->embeddingSize()}));
    EXPECT_EQ(state.at(info.headParameters[0]).sizes(), (std::vector<std::int64_t>{7, 32}));

    const torch::Tensor x = torch::randn({2, 1, 64, 64});
    const torch::Tensor features = model->featureMap(x);
    ASSERT_EQ(features.dim(), 4);
    EXPECT_EQ(features.size(0), 2);
    const torch::Tensor embedding = model->pool(features);
    EXPECT_EQ(embedding.sizes(), (std::vector<std::int64_t>{2, model->embeddingSize()}));
    const torch::Tensor out = model->forward(x);
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 7}));
    EXPECT_TRUE(torch::equal(out, model->head(embedding)));
    EXPECT_TRUE(torch::equal(out, model->forward(x))) << "eval mode must be deterministic";
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
}

TEST_P(CnnBackbone, FourChannelTrainStepGivesFiniteGradientsEverywhere)
{
    const BackboneInfo &info = backboneInfo(GetParam());
    HeadOptions head;
    head.numClasses = 5;
    std::shared_ptr<Classifier> model = createClassifier(info.name, 4, head);
    const auto state = stateDict(*model);
    EXPECT_EQ(state.at(info.stemParameter).size(1), 4);
    EXPECT_FALSE(state.count("head_hidden.weight"));
    EXPECT_EQ(state.at(info.headParameters[0]).sizes(), (std::vector<std::int64_t>{5, model->embeddingSize()}));

    model->train();
    const torch::Tensor out = model->forward(torch::randn({2, 4, 64, 64}));
    ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 5}));
    torch::nn::functional::cross_entropy(out, torch::tensor({1, 3}, torch::kLong)).backward();
    for (const auto &p : model->named_parameters()) {
        ASSERT_TRUE(p.value().grad().defined()) << p.key() << " got no gradient";
        EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
    }
    // The forward updated the BatchNorm statistics in place, as torchvision's BatchNorm2d does.
    const std::string stemBn = info.family == "ResNet" ? "bn1." : "features.0.1.";
    EXPECT_EQ(state.at(stemBn + "num_batches_tracked").item<std::int64_t>(), 1);
    EXPECT_FALSE(torch::equal(state.at(stemBn + "running_mean"), torch::zeros_like(state.at(stemBn + "running_mean"))));
}

std::vector<std::string> cnnNames()
{
    std::vector<std::string> names;
    for (const BackboneInfo &b : backboneRegistry())
        if (b.family == "ResNet" || b.family == "MobileNetV3" || b.family == "EfficientNet")
            names.push_back(b.name);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, CnnBackbone, ::testing::ValuesIn(cnnNames()),
                         [](const ::testing::TestParamInfo<std::string> &p) { return p.param; });

TEST(CnnBackbones, CoversEveryRegistryCnn)
{
    EXPECT_EQ(cnnNames().size(), torchvisionFacts().size());
}

TEST(CnnBackbones, HeadDropoutOptionAndStochasticDepth)
{
    HeadOptions head;
    head.numClasses = 3;
    head.dropout = 0;
    const torch::Tensor x = torch::randn({2, 3, 64, 64});
    torch::NoGradGuard noGrad;

    // Without dropout MobileNetV3 trains deterministically (batch statistics only)...
    std::shared_ptr<Classifier> model = createClassifier("mobilenet_v3_small", 3, head);
    model->train();
    EXPECT_TRUE(torch::allclose(model->forward(x), model->forward(x)));
    // ...with it, it does not.
    head.dropout = 0.9;
    model = createClassifier("mobilenet_v3_small", 3, head);
    model->train();
    EXPECT_FALSE(torch::allclose(model->forward(x), model->forward(x)));

    // EfficientNet without head dropout still drops residual branches per sample in training.
    // The early blocks drop rarely (stochastic depth grows from 0 to 0.2 with depth), so two
    // samples could draw the same branches twice; sixteen samples and a fixed seed cannot.
    torch::manual_seed(7);
    const torch::Tensor batch = torch::randn({16, 3, 32, 32});
    head.dropout = 0;
    model = createClassifier("efficientnet_b0", 3, head);
    model->train();
    EXPECT_FALSE(torch::allclose(model->forward(batch), model->forward(batch)));
    model->eval();
    EXPECT_TRUE(torch::equal(model->forward(batch), model->forward(batch)));
}

TEST(CnnBackbones, RejectsBadOptions)
{
    HeadOptions head;
    head.numClasses = 0;
    EXPECT_THROW(createClassifier("resnet18", 3, head), EngineError);
    head.numClasses = 2;
    head.dropout = 1.5;
    EXPECT_THROW(createClassifier("mobilenet_v3_small", 3, head), EngineError);
    EXPECT_THROW(createClassifier("resnet19", 3, HeadOptions{}), EngineError);
    EXPECT_THROW(createClassifier("efficientnet_b0", 0, HeadOptions{}), EngineError);
}

// Parity with torchvision: LATHE_PARITY_DIR holds "<arch>_<classes>.pt" files, each a plain dict
// torch.save'd by a torchvision script: "sd.<name>" the state dict, "input", "output" (eval),
// "train_output" (train mode right after torch.manual_seed(7)) and "post.<name>" (the state dict
// after that training forward).
TEST(CnnBackbones, ParityWithTorchvisionFiles)
{
    const char *dir = std::getenv("LATHE_PARITY_DIR");
    if (!dir)
        GTEST_SKIP() << "LATHE_PARITY_DIR not set";
    torch::NoGradGuard noGrad;
    int checked = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        const auto sep = file.rfind('_');
        if (entry.path().extension() != ".pt" || sep == std::string::npos)
            continue;
        const std::string arch = file.substr(0, sep);
        const int classes = std::stoi(file.substr(sep + 1));
        SCOPED_TRACE(file);

        std::ifstream in(entry.path(), std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        std::map<std::string, torch::Tensor> data;
        for (const auto &kv : torch::pickle_load(bytes).toGenericDict())
            data[kv.key().toStringRef()] = kv.value().toTensor();

        HeadOptions head;
        head.numClasses = classes;
        std::shared_ptr<Classifier> model = createClassifier(arch, 3, head);
        auto state = stateDict(*model);
        std::size_t fileEntries = 0;
        for (const auto &[name, tensor] : data)
            if (name.rfind("sd.", 0) == 0) {
                ++fileEntries;
                ASSERT_TRUE(state.count(name.substr(3))) << name << " is not in the model";
                ASSERT_EQ(state.at(name.substr(3)).sizes(), tensor.sizes()) << name;
                state.at(name.substr(3)).copy_(tensor);
            }
        EXPECT_EQ(fileEntries, state.size());

        model->eval();
        const double evalDiff = (model->forward(data.at("input")) - data.at("output")).abs().max().item<double>();
        EXPECT_LE(evalDiff, 1e-4);

        model->train();
        torch::manual_seed(7);
        const double trainDiff =
            (model->forward(data.at("input")) - data.at("train_output")).abs().max().item<double>();
        EXPECT_LE(trainDiff, 1e-4);
        double statsDiff = 0;
        for (const auto &[name, tensor] : state)
            statsDiff = std::max(statsDiff, (tensor.to(torch::kDouble) - data.at("post." + name).to(torch::kDouble))
                                                .abs()
                                                .max()
                                                .item<double>());
        EXPECT_LE(statsDiff, 1e-4);
        std::printf("parity %-22s classes %4d  eval max|diff| %.3g  train %.3g  after-train state %.3g (|out| max %.3g)\n",
                    arch.c_str(), classes, evalDiff, trainDiff, statsDiff,
                    data.at("output").abs().max().item<double>());
        ++checked;
    }
    EXPECT_GT(checked, 0) << "no <arch>_<classes>.pt files in " << dir;
}

} // namespace
} // namespace lathe::engine
