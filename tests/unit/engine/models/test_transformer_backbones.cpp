// ConvNeXt-Tiny, ViT-B/16 and ViT-B/32: torchvision's names, shapes, counts and semantics.
// With LATHE_PARITY_DIR set, also compares against tensors torchvision wrote (see Parity).

#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/networks/classifier.h"

#include <gtest/gtest.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace lathe::engine;

namespace {

const std::vector<std::string> kArchs = {"convnext_tiny", "vit_b_16", "vit_b_32"};

HeadOptions head(int classes, int hidden = 0, double dropout = -1)
{
    HeadOptions h;
    h.numClasses = classes;
    h.hiddenUnits = hidden;
    h.dropout = dropout;
    return h;
}

std::map<std::string, torch::Tensor> parameters(torch::nn::Module &model)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto &item : model.named_parameters())
        out[item.key()] = item.value();
    return out;
}

std::vector<std::int64_t> shape(const torch::Tensor &t) { return t.sizes().vec(); }

// Runs on LibTorch's default single intra-op thread: on a busy machine more threads spin
// and cost several times the CPU time.
class TransformerBackbones : public ::testing::Test
{
protected:
    static void TearDownTestSuite() { s_models.clear(); }

    // ImageNet-headed (1000 classes) models, built once: ViT-B takes a while to initialise.
    // Tests that change a model build their own.
    static models::Classifier &imagenetModel(const std::string &arch)
    {
        auto &model = s_models[arch];
        if (!model) {
            torch::manual_seed(1);
            model = models::createClassifier(arch, 3, head(1000));
            model->eval();
        }
        return *model;
    }

private:
    static std::map<std::string, std::shared_ptr<models::Classifier>> s_models;
};

std::map<std::string, std::shared_ptr<models::Classifier>> TransformerBackbones::s_models;

TEST_F(TransformerBackbones, ParameterCountsMatchTorchvision)
{
    for (const std::string &arch : kArchs) {
        models::Classifier &model = imagenetModel(arch);
        std::int64_t total = 0;
        for (const torch::Tensor &p : model.parameters())
            total += p.numel();
        EXPECT_EQ(total, backboneInfo(arch).parameters) << arch;
        EXPECT_TRUE(model.buffers().empty()) << arch; // LayerNorm only: no running statistics
    }
}

TEST_F(TransformerBackbones, EveryParameterBelongsToAStage)
{
    for (const std::string &arch : kArchs) {
        const BackboneInfo &info = backboneInfo(arch);
        std::vector<int> perStage(info.stages.size(), 0);
        for (const auto &item : imagenetModel(arch).named_parameters()) {
            const int s = info.stageOf(item.key());
            ASSERT_GE(s, 0) << arch << ": " << item.key();
            ++perStage[std::size_t(s)];
        }
        for (std::size_t s = 0; s < perStage.size(); ++s)
            EXPECT_GT(perStage[s], 0) << arch << " stage " << info.stages[s].name << " is empty";
    }
}

TEST_F(TransformerBackbones, TorchvisionNamesAndShapes)
{
    auto c = parameters(imagenetModel("convnext_tiny"));
    const std::map<std::string, std::vector<std::int64_t>> convnextShapes = {
        {"features.0.0.weight", {96, 3, 4, 4}},
        {"features.0.1.weight", {96}},
        {"features.1.0.block.0.weight", {96, 1, 7, 7}},
        {"features.1.0.block.2.weight", {96}},
        {"features.1.0.block.3.weight", {384, 96}},
        {"features.1.0.block.5.weight", {96, 384}},
        {"features.1.0.layer_scale", {96, 1, 1}},
        {"features.2.0.weight", {96}},
        {"features.2.1.weight", {192, 96, 2, 2}},
        {"features.5.8.layer_scale", {384, 1, 1}},
        {"features.7.2.block.5.bias", {768}},
        {"classifier.0.weight", {768}},
        {"classifier.2.weight", {1000, 768}},
        {"classifier.2.bias", {1000}},
    };
    for (const auto &[name, expected] : convnextShapes) {
        ASSERT_TRUE(c.count(name)) << name;
        EXPECT_EQ(shape(c[name]), expected) << name;
    }
    EXPECT_EQ(c.size(), 182u); // torchvision's convnext_tiny state dict has 182 entries

    for (const auto &[arch, tokens] : std::vector<std::pair<std::string, std::int64_t>>{{"vit_b_16", 197}, {"vit_b_32", 50}}) {
        auto v = parameters(imagenetModel(arch));
        const std::int64_t patch = arch == "vit_b_16" ? 16 : 32;
        const std::map<std::string, std::vector<std::int64_t>> vitShapes = {
            {"class_token", {1, 1, 768}},
            {"conv_proj.weight", {768, 3, patch, patch}},
            {"conv_proj.bias", {768}},
            {"encoder.pos_embedding", {1, tokens, 768}},
            {"encoder.layers.encoder_layer_0.ln_1.weight", {768}},
            {"encoder.layers.encoder_layer_0.self_attention.in_proj_weight", {2304, 768}},
            {"encoder.layers.encoder_layer_0.self_attention.in_proj_bias", {2304}},
            {"encoder.layers.encoder_layer_0.self_attention.out_proj.weight", {768, 768}},
            {"encoder.layers.encoder_layer_11.self_attention.out_proj.bias", {768}},
            {"encoder.layers.encoder_layer_11.ln_2.bias", {768}},
            {"encoder.layers.encoder_layer_11.mlp.0.weight", {3072, 768}},
            {"encoder.layers.encoder_layer_11.mlp.3.weight", {768, 3072}},
            {"encoder.ln.weight", {768}},
            {"heads.head.weight", {1000, 768}},
            {"heads.head.bias", {1000}},
        };
        for (const auto &[name, expected] : vitShapes) {
            ASSERT_TRUE(v.count(name)) << arch << ": " << name;
            EXPECT_EQ(shape(v[name]), expected) << arch << ": " << name;
        }
        EXPECT_EQ(v.size(), 152u) << arch; // 4 + 12 x 12 + 2 + 2
    }
}

TEST_F(TransformerBackbones, StemAndHeadFollowTheRegistry)
{
    for (const std::string &arch : kArchs) {
        const BackboneInfo &info = backboneInfo(arch);
        auto p = parameters(imagenetModel(arch));
        ASSERT_TRUE(p.count(info.stemParameter)) << arch;
        EXPECT_EQ(p[info.stemParameter].size(1), 3) << arch;
        ASSERT_EQ(info.headParameters.size(), 2u);
        EXPECT_EQ(shape(p[info.headParameters[0]]), (std::vector<std::int64_t>{1000, 768})) << arch;
        EXPECT_EQ(shape(p[info.headParameters[1]]), (std::vector<std::int64_t>{1000})) << arch;
    }
}

TEST_F(TransformerBackbones, InitialisationFollowsTorchvision)
{
    auto c = parameters(imagenetModel("convnext_tiny"));
    EXPECT_TRUE(torch::allclose(c["features.3.1.layer_scale"], torch::full({192, 1, 1}, 1e-6)));
    EXPECT_TRUE(torch::equal(c["features.1.0.block.3.bias"], torch::zeros({384})));
    EXPECT_TRUE(torch::equal(c["features.0.1.weight"], torch::ones({96})));
    EXPECT_NEAR(c["features.5.0.block.3.weight"].std().item<double>(), 0.02, 0.001); // trunc_normal(std=0.02)
    EXPECT_NEAR(c["classifier.2.weight"].std().item<double>(), 0.02, 0.001);
    EXPECT_TRUE(torch::equal(c["classifier.2.bias"], torch::zeros({1000})));

    auto v = parameters(imagenetModel("vit_b_32"));
    EXPECT_TRUE(torch::equal(v["heads.head.weight"], torch::zeros({1000, 768})));
    EXPECT_TRUE(torch::equal(v["class_token"], torch::zeros({1, 1, 768})));
    EXPECT_NEAR(v["encoder.pos_embedding"].std().item<double>(), 0.02, 0.001);
    EXPECT_NEAR(v["conv_proj.weight"].std().item<double>(), std::sqrt(1.0 / (3 * 32 * 32)), 0.001);
    // xavier_uniform on the stacked [3D, D] projection: bound sqrt(6 / (D + 3D))
    const double bound = std::sqrt(6.0 / (768 + 2304));
    const torch::Tensor inProj = v["encoder.layers.encoder_layer_3.self_attention.in_proj_weight"];
    EXPECT_LE(inProj.abs().max().item<double>(), bound);
    EXPECT_GT(inProj.abs().max().item<double>(), 0.99 * bound);
    EXPECT_TRUE(torch::equal(v["encoder.layers.encoder_layer_3.self_attention.in_proj_bias"], torch::zeros({2304})));
    EXPECT_TRUE(torch::equal(v["encoder.layers.encoder_layer_3.self_attention.out_proj.bias"], torch::zeros({768})));
    EXPECT_LT(v["encoder.layers.encoder_layer_3.mlp.0.bias"].abs().max().item<double>(), 1e-4);
    EXPECT_GT(v["encoder.layers.encoder_layer_3.mlp.0.bias"].abs().max().item<double>(), 0);
}

TEST_F(TransformerBackbones, ForwardShapes)
{
    torch::NoGradGuard noGrad;
    models::Classifier &convnext = imagenetModel("convnext_tiny");
    const torch::Tensor x = torch::randn({2, 3, 64, 64});
    const torch::Tensor map = convnext.featureMap(x);
    EXPECT_EQ(shape(map), (std::vector<std::int64_t>{2, 768, 2, 2}));
    EXPECT_EQ(shape(convnext.pool(map)), (std::vector<std::int64_t>{2, 768}));
    EXPECT_EQ(shape(convnext.forward(x)), (std::vector<std::int64_t>{2, 1000}));
    EXPECT_TRUE(torch::allclose(convnext.forward(x), convnext.head(convnext.pool(map))));
    EXPECT_EQ(convnext.embeddingSize(), 768);

    models::Classifier &vit = imagenetModel("vit_b_16");
    const torch::Tensor tokens = vit.featureMap(torch::randn({1, 3, 224, 224}));
    EXPECT_EQ(shape(tokens), (std::vector<std::int64_t>{1, 197, 768}));
    EXPECT_EQ(shape(vit.pool(tokens)), (std::vector<std::int64_t>{1, 768}));
    EXPECT_EQ(shape(vit.head(vit.pool(tokens))), (std::vector<std::int64_t>{1, 1000}));
    EXPECT_EQ(vit.embeddingSize(), 768);
    // pool takes the class token, after the final LayerNorm (mean 0 over the features)
    EXPECT_TRUE(torch::equal(vit.pool(tokens), tokens.select(1, 0)));
    EXPECT_NEAR(tokens[0][0].mean().item<double>(), 0.0, 1e-4);
}

TEST_F(TransformerBackbones, OtherChannelCountsAndHiddenHead)
{
    torch::NoGradGuard noGrad;
    for (const std::string &arch : {std::string("convnext_tiny"), std::string("vit_b_32")}) {
        const BackboneInfo &info = backboneInfo(arch);
        const int size = arch == "vit_b_32" ? 224 : 32;
        for (int channels : {1, 4}) {
            const int hidden = channels == 4 ? 128 : 0;
            auto model = models::createClassifier(arch, channels, head(5, hidden));
            model->eval();
            auto p = parameters(*model);
            EXPECT_EQ(shape(p[info.stemParameter]).at(1), channels) << arch;
            EXPECT_EQ(p.count("head_hidden.weight"), hidden ? 1u : 0u) << arch;
            if (hidden) {
                EXPECT_EQ(shape(p["head_hidden.weight"]), (std::vector<std::int64_t>{128, 768})) << arch;
            }
            EXPECT_EQ(shape(p[info.headParameters[0]]), (std::vector<std::int64_t>{5, hidden ? 128 : 768})) << arch;
            EXPECT_EQ(shape(model->forward(torch::randn({1, channels, size, size}))), (std::vector<std::int64_t>{1, 5}))
                << arch;
        }
    }
}

TEST_F(TransformerBackbones, VitRejectsOtherImageSizes)
{
    models::Classifier &vit = imagenetModel("vit_b_32");
    for (auto sizes : std::vector<std::vector<std::int64_t>>{{1, 3, 256, 256}, {1, 3, 224, 160}, {3, 224, 224}}) {
        try {
            vit.forward(torch::zeros(sizes));
            FAIL() << "accepted a " << sizes.size() << "-D input";
        } catch (const EngineError &e) {
            EXPECT_NE(std::string(e.what()).find("vit_b_32"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("224x224"), std::string::npos) << e.what();
        }
    }
}

TEST_F(TransformerBackbones, InvalidHeadOptionsAreRejected)
{
    EXPECT_THROW(models::createClassifier("convnext_tiny", 3, head(0)), EngineError);
    EXPECT_THROW(models::createClassifier("convnext_tiny", 3, head(7, -1)), EngineError);
    EXPECT_THROW(models::createClassifier("vit_b_32", 3, head(7, 0, 1.5)), EngineError);
}

TEST_F(TransformerBackbones, BackwardGivesFiniteGradients)
{
    for (const std::string &arch : {std::string("convnext_tiny"), std::string("vit_b_32")}) {
        torch::manual_seed(3);
        auto model = models::createClassifier(arch, 3, head(7));
        model->train();
        {
            // torchvision zero-initialises ViT's head, which would leave every other gradient 0.
            torch::NoGradGuard noGrad;
            for (const std::string &name : backboneInfo(arch).headParameters)
                parameters(*model)[name].normal_(0, 0.02);
        }
        const bool vit = arch == "vit_b_32";
        const torch::Tensor x = vit ? torch::randn({1, 3, 224, 224}) : torch::randn({2, 3, 64, 64});
        const torch::Tensor target = vit ? torch::tensor({4}) : torch::tensor({1, 4});
        torch::nn::functional::cross_entropy(model->forward(x), target).backward();
        for (const auto &item : model->named_parameters()) {
            ASSERT_TRUE(item.value().grad().defined()) << arch << ": " << item.key();
            EXPECT_TRUE(torch::isfinite(item.value().grad()).all().item<bool>()) << arch << ": " << item.key();
        }
        const torch::Tensor stemGrad = parameters(*model)[backboneInfo(arch).stemParameter].grad();
        EXPECT_GT(stemGrad.abs().sum().item<double>(), 0) << arch;
    }
}

TEST_F(TransformerBackbones, TrainModeRandomnessOnlyWhereTorchvisionHasIt)
{
    torch::NoGradGuard noGrad;
    torch::manual_seed(5);
    auto convnext = models::createClassifier("convnext_tiny", 3, head(7));
    for (auto &item : convnext->named_parameters())
        if (item.key().find("layer_scale") != std::string::npos)
            item.value().fill_(1); // make the residual branches visible in the output
    const torch::Tensor x = torch::randn({8, 3, 32, 32});
    convnext->eval();
    EXPECT_TRUE(torch::equal(convnext->forward(x), convnext->forward(x)));
    // Stochastic depth in "row" mode: some samples lose a branch, and only in training.
    convnext->train();
    EXPECT_FALSE(torch::equal(convnext->featureMap(x), convnext->featureMap(x)));
    // No dropout before ConvNeXt's head by default.
    const torch::Tensor embedding = torch::randn({4, 768});
    EXPECT_TRUE(torch::equal(convnext->head(embedding), convnext->head(embedding)));

    // ViT-B has neither dropout nor stochastic depth: its encoder computes the same in training.
    // An explicit head dropout is honoured.
    auto vit = models::createClassifier("vit_b_32", 3, head(7, 0, 0.5));
    for (const std::string &name : backboneInfo("vit_b_32").headParameters)
        parameters(*vit)[name].normal_(0, 0.1);
    const torch::Tensor image = torch::randn({1, 3, 224, 224});
    vit->eval();
    const torch::Tensor reference = vit->featureMap(image);
    const torch::Tensor pooled = vit->pool(reference);
    const torch::Tensor evalOutput = vit->head(pooled);
    EXPECT_TRUE(torch::equal(evalOutput, vit->head(pooled)));
    vit->train();
    EXPECT_TRUE(torch::allclose(vit->featureMap(image), reference, 1e-5, 1e-6));
    EXPECT_FALSE(torch::allclose(vit->head(pooled), evalOutput, 1e-5, 1e-6));
}

// Compares with torchvision. Run a peer script that writes, per case "<arch>-<classes>",
// <case>.weights.pt (torch.save of dict(model.state_dict())) and <case>.io.pt (a dict with
// "input", "features" and "output" from the model in eval mode, optionally "train_output" from
// train mode right after torch.manual_seed(123)), then set LATHE_PARITY_DIR.
TEST_F(TransformerBackbones, ParityWithTorchvision)
{
    const char *dir = std::getenv("LATHE_PARITY_DIR");
    if (!dir)
        GTEST_SKIP() << "LATHE_PARITY_DIR not set";
    auto load = [](const std::filesystem::path &path) {
        std::ifstream in(path, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        return torch::pickle_load(bytes).toGenericDict();
    };
    int cases = 0;
    for (const std::string &arch : kArchs) {
        for (int classes : {1000, 7}) {
            const std::filesystem::path base = std::filesystem::path(dir) / (arch + "-" + std::to_string(classes));
            if (!std::filesystem::exists(base.string() + ".weights.pt"))
                continue;
            ++cases;
            auto weights = load(base.string() + ".weights.pt");
            auto io = load(base.string() + ".io.pt");
            auto model = models::createClassifier(arch, 3, head(classes));
            auto p = parameters(*model);
            EXPECT_EQ(std::size_t(weights.size()), p.size()) << base;
            {
                torch::NoGradGuard noGrad;
                for (const auto &entry : weights) {
                    const std::string name = entry.key().toStringRef();
                    ASSERT_TRUE(p.count(name)) << base << ": torchvision has " << name;
                    ASSERT_EQ(shape(p[name]), shape(entry.value().toTensor())) << name;
                    p[name].copy_(entry.value().toTensor());
                }
            }
            model->eval();
            torch::NoGradGuard noGrad;
            const torch::Tensor input = io.at("input").toTensor();
            const torch::Tensor features = model->featureMap(input);
            const torch::Tensor output = model->head(model->pool(features));
            const double featureDiff = (features - io.at("features").toTensor()).abs().max().item<double>();
            const double outputDiff = (output - io.at("output").toTensor()).abs().max().item<double>();
            std::cout << "[parity] " << arch << " classes " << classes << ": features max |diff| " << featureDiff
                      << ", output max |diff| " << outputDiff << std::endl;
            EXPECT_LE(outputDiff, 1e-4) << base;
            EXPECT_LE(featureDiff, 1e-4) << base;
            if (io.contains("train_output")) {
                // Train mode after torch.manual_seed(123): the same random draws in the same order
                // (stochastic depth, dropout) give the same output.
                model->train();
                torch::manual_seed(123);
                const double trainDiff =
                    (model->forward(input) - io.at("train_output").toTensor()).abs().max().item<double>();
                std::cout << "[parity] " << arch << " classes " << classes << ": train-mode output max |diff| "
                          << trainDiff << std::endl;
                EXPECT_LE(trainDiff, 1e-4) << base;
            }
        }
    }
    EXPECT_GT(cases, 0) << "no <arch>-<classes>.weights.pt in " << dir;
}

} // namespace
