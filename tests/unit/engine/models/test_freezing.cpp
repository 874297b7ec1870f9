// Freezing policies, BatchNorm freezing, gradual unfreezing, parameter groups and summaries.

#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/freezing.h"
#include "engine/models/model_summary.h"
#include "engine/models/networks/classifier.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <map>

using namespace lathe::engine;

namespace {

std::shared_ptr<models::Classifier> resnet18(int hidden = 0)
{
    torch::manual_seed(7);
    HeadOptions head;
    head.numClasses = 10;
    head.hiddenUnits = hidden;
    return models::createClassifier("resnet18", 3, head);
}

std::map<std::string, torch::Tensor> snapshot(torch::nn::Module &model)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto &item : model.named_parameters())
        out[item.key()] = item.value().detach().clone();
    for (const auto &item : model.named_buffers())
        out[item.key()] = item.value().detach().clone();
    return out;
}

// One SGD step (lr 0.1) on a small random batch, in train mode with BatchNorm freezing applied.
void trainStep(models::Classifier &model, const BackboneInfo &info, const FreezeOptions &freeze)
{
    model.train();
    applyBatchNormFreezing(model, info, freeze);
    torch::optim::SGD sgd(model.parameters(), torch::optim::SGDOptions(0.1));
    sgd.zero_grad();
    const torch::Tensor x = torch::randn({2, 3, 64, 64});
    torch::nn::functional::cross_entropy(model.forward(x), torch::tensor({3, 8})).backward();
    sgd.step();
}

bool startsWith(const std::string &s, const std::string &prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool startsWithAny(const std::string &s, const std::vector<std::string> &prefixes)
{
    for (const std::string &p : prefixes)
        if (startsWith(s, p))
            return true;
    return false;
}

// Checks that exactly the parameters under the given prefixes changed in one step.
void expectOnlyTrained(torch::nn::Module &model, const std::map<std::string, torch::Tensor> &before,
                       const std::vector<std::string> &trainablePrefixes)
{
    for (const auto &item : model.named_parameters()) {
        const bool trainable = startsWithAny(item.key(), trainablePrefixes);
        EXPECT_EQ(item.value().requires_grad(), trainable) << item.key();
        if (trainable)
            EXPECT_FALSE(torch::equal(item.value(), before.at(item.key()))) << item.key() << " did not train";
        else
            EXPECT_TRUE(torch::equal(item.value(), before.at(item.key()))) << item.key() << " changed while frozen";
    }
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const EngineError &e) {
        return e.what();
    }
    return "";
}

TEST(Freezing, TrainAllTrainsEverything)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    applyFreezing(*model, info, freeze, 0);
    const auto before = snapshot(*model);
    trainStep(*model, info, freeze);
    expectOnlyTrained(*model, before, {""});
}

TEST(Freezing, HeadOnlyTrainsOnlyTheFinalLinear)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::HeadOnly;
    applyFreezing(*model, info, freeze, 0);
    const auto before = snapshot(*model);
    trainStep(*model, info, freeze);
    expectOnlyTrained(*model, before, {"fc."});
    // Frozen stages keep their BatchNorm statistics too.
    EXPECT_TRUE(torch::equal(model->named_buffers()["layer2.0.bn1.running_mean"], before.at("layer2.0.bn1.running_mean")));
}

TEST(Freezing, HeadOnlyIncludesTheHiddenLayer)
{
    auto model = resnet18(16);
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::HeadOnly;
    applyFreezing(*model, info, freeze, 0);
    const auto before = snapshot(*model);
    trainStep(*model, info, freeze);
    expectOnlyTrained(*model, before, {"fc.", "head_hidden."});
}

TEST(Freezing, UpToStageFreezesFromTheInput)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::UpToStage;
    freeze.frozenStages = 3; // stem, layer1, layer2
    applyFreezing(*model, info, freeze, 0);
    const auto before = snapshot(*model);
    trainStep(*model, info, freeze);
    expectOnlyTrained(*model, before, {"layer3.", "layer4.", "fc."});

    auto buffers = model->named_buffers();
    // BatchNorm inside frozen stages: statistics fixed; in training stages: updated.
    EXPECT_TRUE(torch::equal(buffers["bn1.running_mean"], before.at("bn1.running_mean")));
    EXPECT_TRUE(torch::equal(buffers["layer2.1.bn2.running_var"], before.at("layer2.1.bn2.running_var")));
    EXPECT_FALSE(torch::equal(buffers["layer3.0.bn1.running_mean"], before.at("layer3.0.bn1.running_mean")));
    EXPECT_FALSE(torch::equal(buffers["layer4.1.bn2.running_mean"], before.at("layer4.1.bn2.running_mean")));
}

TEST(Freezing, FreezeBatchNormKeepsRunningStatistics)
{
    const BackboneInfo &info = backboneInfo("resnet18");
    for (bool freezeBn : {false, true}) {
        auto model = resnet18();
        FreezeOptions freeze;
        freeze.freezeBatchNorm = freezeBn;
        applyFreezing(*model, info, freeze, 0);
        const auto before = snapshot(*model);
        trainStep(*model, info, freeze);
        auto buffers = model->named_buffers();
        for (const char *name : {"bn1.running_mean", "layer1.0.bn2.running_var", "layer4.1.bn2.running_mean"})
            EXPECT_EQ(torch::equal(buffers[name], before.at(name)), freezeBn) << name;
        // Frozen statistics do not freeze the affine parameters.
        EXPECT_FALSE(torch::equal(model->named_parameters()["layer1.0.bn2.weight"], before.at("layer1.0.bn2.weight")));
        // Only BatchNorm modules leave training mode.
        EXPECT_TRUE(model->is_training());
        EXPECT_TRUE(model->named_children()["layer1"]->is_training());
    }
}

TEST(Freezing, GradualUnfreezingFromTheHeadDown)
{
    const BackboneInfo &info = backboneInfo("resnet18"); // stem, layer1-4, head
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::UpToStage;
    freeze.frozenStages = 4;
    freeze.unfreezeEveryEpochs = 2;
    auto model = resnet18();
    auto requiresGrad = [&](const std::string &name) { return model->named_parameters()[name].requires_grad(); };

    const std::vector<std::pair<int, int>> expected = {{0, 4}, {1, 4}, {2, 3}, {3, 3}, {4, 2}, {6, 1}, {8, 0}, {50, 0}};
    for (const auto &[epoch, frozen] : expected) {
        EXPECT_EQ(frozenStageCount(info, freeze, epoch), frozen) << "epoch " << epoch;
        applyFreezing(*model, info, freeze, epoch);
        EXPECT_EQ(requiresGrad("conv1.weight"), frozen == 0) << "epoch " << epoch;
        EXPECT_EQ(requiresGrad("layer1.0.conv1.weight"), frozen <= 1) << "epoch " << epoch;
        EXPECT_EQ(requiresGrad("layer2.0.conv1.weight"), frozen <= 2) << "epoch " << epoch;
        EXPECT_EQ(requiresGrad("layer3.0.conv1.weight"), frozen <= 3) << "epoch " << epoch;
        EXPECT_TRUE(requiresGrad("layer4.0.conv1.weight")) << "epoch " << epoch;
        EXPECT_TRUE(requiresGrad("fc.weight")) << "epoch " << epoch;
    }

    // HeadOnly unfreezes the same way, starting with every stage but the head frozen.
    freeze.policy = FreezePolicy::HeadOnly;
    freeze.unfreezeEveryEpochs = 1;
    EXPECT_EQ(frozenStageCount(info, freeze, 0), 5);
    EXPECT_EQ(frozenStageCount(info, freeze, 1), 4);
    EXPECT_EQ(frozenStageCount(info, freeze, 5), 0);
    applyFreezing(*model, info, freeze, 1);
    EXPECT_TRUE(requiresGrad("layer4.1.bn2.weight"));
    EXPECT_FALSE(requiresGrad("layer3.1.bn2.weight"));

    // Without gradual unfreezing the epoch does not matter.
    freeze.unfreezeEveryEpochs = 0;
    EXPECT_EQ(frozenStageCount(info, freeze, 100), 5);
}

TEST(Freezing, ParameterGroupsByMultiplierAndDecay)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.lrMultipliers = {{"stem", 0.1}, {"layer1", 0.1}, {"head", 10}};
    applyFreezing(*model, info, freeze, 0);

    std::vector<ParameterGroup> groups = parameterGroups(*model, info, freeze, true);
    ASSERT_EQ(groups.size(), 6u);
    std::map<std::string, const ParameterGroup *> byName;
    std::int64_t grouped = 0;
    for (const ParameterGroup &g : groups) {
        ASSERT_EQ(g.parameters.size(), g.names.size());
        ASSERT_FALSE(g.parameters.empty());
        for (std::size_t i = 0; i < g.names.size(); ++i) {
            byName[g.names[i]] = &g;
            grouped += g.parameters[i].numel();
            EXPECT_TRUE(g.parameters[i].is_same(model->named_parameters()[g.names[i]])) << g.names[i];
        }
    }
    std::int64_t total = 0;
    for (const torch::Tensor &p : model->parameters())
        total += p.numel();
    EXPECT_EQ(grouped, total);
    EXPECT_EQ(byName.size(), model->parameters().size());

    auto expectGroup = [&](const std::string &name, double multiplier, bool decay, const std::string &stages) {
        ASSERT_TRUE(byName.count(name)) << name;
        EXPECT_DOUBLE_EQ(byName[name]->lrMultiplier, multiplier) << name;
        EXPECT_EQ(byName[name]->weightDecay, decay) << name;
        EXPECT_EQ(byName[name]->stage, stages) << name;
    };
    expectGroup("conv1.weight", 0.1, true, "stem+layer1");
    expectGroup("layer1.1.conv2.weight", 0.1, true, "stem+layer1");
    expectGroup("bn1.weight", 0.1, false, "stem+layer1");
    expectGroup("layer1.0.bn1.bias", 0.1, false, "stem+layer1");
    expectGroup("layer2.0.conv1.weight", 1, true, "layer2+layer3+layer4");
    expectGroup("layer4.0.downsample.1.weight", 1, false, "layer2+layer3+layer4");
    expectGroup("fc.weight", 10, true, "head");
    expectGroup("fc.bias", 10, false, "head");

    // Without the no-decay split: one group per multiplier.
    groups = parameterGroups(*model, info, freeze, false);
    ASSERT_EQ(groups.size(), 3u);
    for (const ParameterGroup &g : groups)
        EXPECT_TRUE(g.weightDecay);

    // Only trainable parameters are grouped.
    freeze.policy = FreezePolicy::HeadOnly;
    applyFreezing(*model, info, freeze, 0);
    groups = parameterGroups(*model, info, freeze, true);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].names, std::vector<std::string>{"fc.weight"});
    EXPECT_EQ(groups[1].names, std::vector<std::string>{"fc.bias"});
    EXPECT_DOUBLE_EQ(groups[0].lrMultiplier, 10);
}

TEST(Freezing, ParameterGroupsDriveAnOptimizer)
{
    // Multiplier 0 for the stem: in an SGD group of lr 0.1 x 0, the stem does not move.
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.lrMultipliers = {{"stem", 0}};
    applyFreezing(*model, info, freeze, 0);
    std::vector<torch::optim::OptimizerParamGroup> optimizerGroups;
    for (const ParameterGroup &g : parameterGroups(*model, info, freeze, true))
        optimizerGroups.emplace_back(g.parameters,
                                     std::make_unique<torch::optim::SGDOptions>(0.1 * g.lrMultiplier));
    torch::optim::SGD sgd(optimizerGroups, torch::optim::SGDOptions(0.1));
    const auto before = snapshot(*model);
    model->train();
    torch::nn::functional::cross_entropy(model->forward(torch::randn({2, 3, 64, 64})), torch::tensor({1, 2})).backward();
    sgd.step();
    EXPECT_TRUE(torch::equal(model->named_parameters()["conv1.weight"], before.at("conv1.weight")));
    EXPECT_FALSE(torch::equal(model->named_parameters()["layer1.0.conv1.weight"], before.at("layer1.0.conv1.weight")));
}

TEST(Freezing, SummaryCountsAddUp)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::UpToStage;
    freeze.frozenStages = 3;
    freeze.lrMultipliers = {{"layer3", 0.5}};
    const ModelSummary s = summarize(*model, info, freeze);
    EXPECT_EQ(s.arch, "resnet18");
    ASSERT_EQ(s.stages.size(), info.stages.size());

    std::int64_t total = 0;
    for (const torch::Tensor &p : model->parameters())
        total += p.numel();
    EXPECT_EQ(s.parameters, total);
    std::int64_t sum = 0, trainable = 0;
    for (std::size_t i = 0; i < s.stages.size(); ++i) {
        EXPECT_EQ(s.stages[i].name, info.stages[i].name);
        EXPECT_GT(s.stages[i].parameters, 0);
        EXPECT_EQ(s.stages[i].trainable, i < 3 ? 0 : s.stages[i].parameters) << s.stages[i].name;
        EXPECT_DOUBLE_EQ(s.stages[i].lrMultiplier, s.stages[i].name == "layer3" ? 0.5 : 1.0);
        sum += s.stages[i].parameters;
        trainable += s.stages[i].trainable;
    }
    EXPECT_EQ(sum, total);
    EXPECT_EQ(trainable, s.trainable);
    EXPECT_EQ(s.stages.back().parameters, 512 * 10 + 10); // fc
    EXPECT_EQ(s.stages[0].parameters, 64 * 3 * 7 * 7 + 2 * 64); // conv1 + bn1

    // The summary describes epoch 0 without touching the model.
    for (const torch::Tensor &p : model->parameters())
        EXPECT_TRUE(p.requires_grad());

    // The public facade builds the registry model itself.
    ModelSpec spec;
    spec.arch = "resnet18";
    spec.head.numClasses = 1000;
    spec.freeze.policy = FreezePolicy::HeadOnly;
    const ModelSummary fromSpec = summarizeModel(spec);
    EXPECT_EQ(fromSpec.parameters, info.parameters);
    EXPECT_EQ(fromSpec.trainable, 512 * 1000 + 1000);
}

TEST(Freezing, InvalidOptionsNameTheField)
{
    auto model = resnet18();
    const BackboneInfo &info = backboneInfo("resnet18");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::UpToStage;
    for (int bad : {6, 7, -1}) {
        freeze.frozenStages = bad;
        const std::string message = errorOf([&] { applyFreezing(*model, info, freeze, 0); });
        EXPECT_NE(message.find("model.freeze.frozen_stages"), std::string::npos) << bad << ": " << message;
    }
    freeze.frozenStages = 5; // every stage but the head: allowed
    EXPECT_NO_THROW(applyFreezing(*model, info, freeze, 0));

    freeze.lrMultipliers = {{"layer9", 2}};
    for (const std::string &message :
         {errorOf([&] { applyFreezing(*model, info, freeze, 0); }),
          errorOf([&] { parameterGroups(*model, info, freeze, true); }),
          errorOf([&] { summarize(*model, info, freeze); })}) {
        EXPECT_NE(message.find("model.freeze.lr_multipliers"), std::string::npos) << message;
        EXPECT_NE(message.find("layer9"), std::string::npos) << message;
        EXPECT_NE(message.find("stem, layer1, layer2, layer3, layer4, head"), std::string::npos) << message;
    }
    freeze.lrMultipliers = {{"head", -1}};
    EXPECT_NE(errorOf([&] { parameterGroups(*model, info, freeze, true); }).find("model.freeze.lr_multipliers"),
              std::string::npos);

    ModelSpec spec;
    spec.arch = "torchscript";
    EXPECT_THROW(summarizeModel(spec), EngineError);
    spec.arch = "resnet7";
    EXPECT_THROW(summarizeModel(spec), EngineError);
}

TEST(Freezing, TransformerStagesAndNoDecayEmbeddings)
{
    HeadOptions head;
    head.numClasses = 5;
    head.hiddenUnits = 8;
    auto vit = models::createClassifier("vit_b_32", 3, head);
    const BackboneInfo &info = backboneInfo("vit_b_32");
    FreezeOptions freeze;
    freeze.policy = FreezePolicy::UpToStage;
    freeze.frozenStages = 2; // stem, blocks1-3
    applyFreezing(*vit, info, freeze, 0);
    auto p = vit->named_parameters();
    for (const char *name : {"class_token", "encoder.pos_embedding", "conv_proj.weight",
                                    "encoder.layers.encoder_layer_2.mlp.3.bias"})
        EXPECT_FALSE(p[name].requires_grad()) << name;
    for (const char *name : {"encoder.layers.encoder_layer_3.ln_1.weight", "encoder.ln.weight",
                                    "heads.head.weight", "head_hidden.weight"})
        EXPECT_TRUE(p[name].requires_grad()) << name;

    freeze.policy = FreezePolicy::TrainAll;
    applyFreezing(*vit, info, freeze, 0);
    std::map<std::string, bool> decay;
    for (const ParameterGroup &g : parameterGroups(*vit, info, freeze, true))
        for (const std::string &name : g.names)
            decay[name] = g.weightDecay;
    EXPECT_FALSE(decay.at("class_token"));
    EXPECT_FALSE(decay.at("encoder.pos_embedding"));
    EXPECT_FALSE(decay.at("encoder.layers.encoder_layer_0.self_attention.in_proj_bias"));
    EXPECT_FALSE(decay.at("encoder.layers.encoder_layer_0.ln_2.weight"));
    EXPECT_TRUE(decay.at("encoder.layers.encoder_layer_0.self_attention.in_proj_weight"));
    EXPECT_TRUE(decay.at("conv_proj.weight"));
    EXPECT_TRUE(decay.at("head_hidden.weight"));

    auto convnext = models::createClassifier("convnext_tiny", 3, head);
    const BackboneInfo &cinfo = backboneInfo("convnext_tiny");
    freeze.policy = FreezePolicy::HeadOnly;
    applyFreezing(*convnext, cinfo, freeze, 0);
    std::map<std::string, bool> trainable;
    for (const auto &item : convnext->named_parameters())
        trainable[item.key()] = item.value().requires_grad();
    EXPECT_TRUE(trainable.at("classifier.0.weight")); // the pooling LayerNorm is part of the head
    EXPECT_TRUE(trainable.at("classifier.2.weight"));
    EXPECT_FALSE(trainable.at("features.7.2.layer_scale"));
    freeze.policy = FreezePolicy::TrainAll;
    applyFreezing(*convnext, cinfo, freeze, 0);
    decay.clear();
    for (const ParameterGroup &g : parameterGroups(*convnext, cinfo, freeze, true))
        for (const std::string &name : g.names)
            decay[name] = g.weightDecay;
    EXPECT_FALSE(decay.at("features.1.0.layer_scale"));
    EXPECT_TRUE(decay.at("features.1.0.block.0.weight"));

    const ModelSummary s = summarize(*convnext, cinfo, FreezeOptions{});
    EXPECT_EQ(s.trainable, s.parameters);
    EXPECT_EQ(s.stages.size(), 6u);
}

} // namespace
