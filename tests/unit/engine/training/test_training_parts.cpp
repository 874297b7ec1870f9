#include "engine/base/engine_error.h"
#include "engine/formats/safetensors.h"
#include "engine/models/freezing.h"
#include "engine/training/early_stopping.h"
#include "engine/training/grad_scaler.h"
#include "engine/training/loss_functions.h"
#include "engine/training/optimizer_factory.h"
#include "engine/training/weight_ema.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace lathe::engine;
using lathe::test::errorOf;

namespace {

// ---- the Python reference (tests/parity/optimizer_reference.py), run once per process ----

struct Reference
{
    bool available = false;
    std::string failure; // why the reference is not there (the venv always has torch)
    nlohmann::json json;
};

const Reference &reference()
{
    static const Reference ref = [] {
        Reference r;
        const lathe::test::PeerRun peer = lathe::test::runParityScript("optimizer_reference.py");
        if (peer.status != 0) {
            r.failure = "reference script failed: " + peer.output;
            return r;
        }
        r.json = nlohmann::json::parse(peer.output);
        r.available = true;
        return r;
    }();
    return ref;
}

// ---- the optimizers' tiny problem, as in optimizer_reference.py ----

struct Problem
{
    torch::Tensor w1 = torch::tensor({0.5f, -1.2f, 0.3f, 0.8f, 0.1f, -0.7f}).reshape({2, 3}).requires_grad_();
    torch::Tensor b1 = torch::tensor({0.2f, -0.4f}).requires_grad_();
    torch::Tensor w2 = torch::tensor({1.5f, -0.25f, 0.75f, -1.0f}).requires_grad_();

    std::vector<ParameterGroup> groups() const
    {
        ParameterGroup body;
        body.stage = "body";
        body.parameters = {w1, w2};
        body.names = {"body.w1", "body.w2"};
        ParameterGroup head;
        head.stage = "head";
        head.lrMultiplier = 0.5;
        head.weightDecay = false;
        head.parameters = {b1};
        head.names = {"head.b1"};
        return {body, head};
    }

    torch::Tensor loss() const
    {
        const auto a1 = torch::tensor({1.0f, 2.0f, 0.5f, 3.0f, 1.5f, 0.25f}).reshape({2, 3});
        const auto t1 = torch::tensor({0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f}).reshape({2, 3});
        const auto tb = torch::tensor({-0.3f, 0.9f});
        const auto a2 = torch::tensor({0.7f, 1.3f, 2.1f, 0.4f});
        const auto t2 = torch::tensor({0.0f, 1.0f, -1.0f, 0.5f});
        const auto cross = (w1.sum(1) * b1).sum();
        return 0.5 * (a1 * (w1 - t1).pow(2)).sum() + 0.5 * (b1 - tb).pow(2).sum() + 0.5 * (a2 * (w2 - t2).pow(2)).sum() +
               0.3 * cross;
    }

    // A copy with the same current values, as a resumed run would rebuild it.
    Problem copy() const
    {
        Problem p;
        torch::NoGradGuard noGrad;
        p.w1.copy_(w1);
        p.b1.copy_(b1);
        p.w2.copy_(w2);
        return p;
    }
};

void step(torch::optim::Optimizer &optimizer, const Problem &problem)
{
    optimizer.zero_grad();
    problem.loss().backward();
    optimizer.step();
}

OptimizerConfig optimizerConfig(const nlohmann::json &c)
{
    OptimizerConfig config;
    config.name = c.at("name");
    config.lr = c.at("lr");
    config.weightDecay = c.at("weight_decay");
    config.momentum = c.value("momentum", 0.0);
    config.nesterov = c.value("nesterov", false);
    if (c.contains("betas"))
        config.betas = {c["betas"][0].get<double>(), c["betas"][1].get<double>()};
    config.eps = c.value("eps", config.eps);
    config.alpha = c.value("alpha", config.alpha);
    return config;
}

std::vector<float> values(const torch::Tensor &t)
{
    const auto flat = t.detach().flatten().contiguous();
    return {flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel()};
}

} // namespace

// ---------------------------------------------------------------- optimizers

TEST(OptimizerFactory, MatchesPyTorchOptimizers)
{
    const Reference &ref = reference();
    ASSERT_TRUE(ref.available) << ref.failure;
    const int steps = ref.json.at("steps");
    double worst = 0;
    int compared = 0;
    for (const auto &c : ref.json.at("optimizers")) {
        Problem p;
        const auto groups = p.groups();
        const OptimizerConfig config = optimizerConfig(c);
        auto optimizer = makeOptimizer(config, groups);
        for (int k = 0; k < steps; ++k) {
            setLearningRate(*optimizer, config.lr * (1 - k / 50.0), groups);
            step(*optimizer, p);
        }
        const auto &expected = c.at("parameters");
        for (const auto &[name, tensor] : {std::pair<std::string, torch::Tensor>{"w1", p.w1}, {"b1", p.b1}, {"w2", p.w2}}) {
            const auto got = values(tensor);
            const auto &want = expected.at(name);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                const double w = want[i].get<double>();
                EXPECT_NEAR(got[i], w, 1e-6 * std::max(1.0, std::abs(w))) << c.at("id") << " " << name << "[" << i << "]";
                worst = std::max(worst, std::abs(double(got[i]) - w));
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 7 * 12);
    std::printf("optimizers: %d parameter values after %d steps vs torch %s, max |difference| %.3g\n", compared, steps,
                ref.json.at("torch").get<std::string>().c_str(), worst);
}

// makeOptimizer's fused steps (LibTorch >= 2.4) follow torch::optim's per-tensor ones, also on
// channels-last convolution weights and with a parameter that has no gradient in one step.
TEST(OptimizerFactory, FusedStepsMatchTorchOptim)
{
    for (const std::string name : {"sgd", "adamw"}) {
        SCOPED_TRACE(name);
        torch::manual_seed(3);
        const torch::Tensor start = torch::randn({8, 4, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast);
        const torch::Tensor bias = torch::randn({8});
        std::vector<torch::Tensor> fused{start.clone().requires_grad_(), bias.clone().requires_grad_()};
        std::vector<torch::Tensor> plain{start.clone().requires_grad_(), bias.clone().requires_grad_()};
        ASSERT_TRUE(fused[0].is_contiguous(at::MemoryFormat::ChannelsLast));
        OptimizerConfig config;
        config.name = name;
        config.lr = 0.05;
        config.nesterov = name == "sgd";
        config.weightDecay = 0.01;
        ParameterGroup group;
        group.stage = "all";
        group.parameters = fused;
        group.names = {"w", "b"};
        auto optimizer = makeOptimizer(config, {group});
        std::unique_ptr<torch::optim::Optimizer> reference;
        if (name == "sgd")
            reference = std::make_unique<torch::optim::SGD>(
                plain, torch::optim::SGDOptions(0.05).momentum(0.9).nesterov(true).weight_decay(0.01));
        else
            reference = std::make_unique<torch::optim::AdamW>(plain, torch::optim::AdamWOptions(0.05).weight_decay(0.01));
        const torch::Tensor x = torch::randn({2, 4, 6, 6});
        for (int k = 0; k < 5; ++k)
            for (auto *side : {&fused, &plain}) {
                torch::optim::Optimizer &o = side == &fused ? *optimizer : *reference;
                for (torch::Tensor &p : *side)
                    p.mutable_grad().reset();
                torch::Tensor y = torch::conv2d(x, (*side)[0]);
                if (k != 2) // the bias sits one step out
                    y = y + (*side)[1].view({1, 8, 1, 1});
                y.pow(2).mean().backward();
                o.step();
            }
        for (int i = 0; i < 2; ++i)
            EXPECT_TRUE(torch::allclose(fused[i], plain[i], 1e-5, 1e-6))
                << (fused[i] - plain[i]).abs().max().item<double>();
        EXPECT_FALSE(torch::equal(fused[0], start)); // it moved
    }
}

TEST(OptimizerFactory, GroupsGetTheirLearningRateAndDecay)
{
    Problem p;
    const auto groups = p.groups();
    OptimizerConfig config;
    config.name = "adamw";
    config.lr = 0.02;
    config.weightDecay = 0.05;
    auto optimizer = makeOptimizer(config, groups);
    ASSERT_EQ(optimizer->param_groups().size(), 2u);
    const auto &body = static_cast<const torch::optim::AdamWOptions &>(optimizer->param_groups()[0].options());
    const auto &head = static_cast<const torch::optim::AdamWOptions &>(optimizer->param_groups()[1].options());
    EXPECT_DOUBLE_EQ(body.lr(), 0.02);
    EXPECT_DOUBLE_EQ(head.lr(), 0.01);
    EXPECT_DOUBLE_EQ(body.weight_decay(), 0.05);
    EXPECT_DOUBLE_EQ(head.weight_decay(), 0.0);
    setLearningRate(*optimizer, 0.4, groups);
    EXPECT_DOUBLE_EQ(optimizer->param_groups()[0].options().get_lr(), 0.4);
    EXPECT_DOUBLE_EQ(optimizer->param_groups()[1].options().get_lr(), 0.2);
}

TEST(OptimizerFactory, InvalidSettingsNameTheField)
{
    Problem p;
    OptimizerConfig config;
    config.name = "lamb";
    EXPECT_NE(errorOf([&] { makeOptimizer(config, p.groups()); }).find("optimizer.name"), std::string::npos);
    config.name = "sgd";
    config.momentum = 0;
    config.nesterov = true;
    EXPECT_NE(errorOf([&] { makeOptimizer(config, p.groups()); }).find("optimizer.nesterov"), std::string::npos);
    config.nesterov = false;
    config.lr = -1;
    EXPECT_NE(errorOf([&] { makeOptimizer(config, p.groups()); }).find("optimizer.lr"), std::string::npos);
    config.lr = 0.1;
    EXPECT_NE(errorOf([&] { makeOptimizer(config, {}); }).find("no trainable parameters"), std::string::npos);
    auto groups = p.groups();
    auto optimizer = makeOptimizer(config, groups);
    groups.pop_back();
    EXPECT_FALSE(errorOf([&] { setLearningRate(*optimizer, 0.1, groups); }).empty());
}

TEST(OptimizerFactory, SavedStateResumesBitExactly)
{
    lathe::test::TempDir dir;
    struct Case
    {
        const char *name;
        double momentum;
        std::vector<std::string> keys; // state keys of one parameter
    };
    const std::vector<Case> cases{{"sgd", 0.9, {"momentum_buffer"}},
                                  {"adamw", 0.9, {"step", "exp_avg", "exp_avg_sq"}},
                                  {"rmsprop", 0.9, {"step", "square_avg", "momentum_buffer"}},
                                  {"rmsprop", 0.0, {"step", "square_avg"}}};
    for (const Case &c : cases) {
        SCOPED_TRACE(std::string(c.name) + " momentum " + std::to_string(c.momentum));
        OptimizerConfig config;
        config.name = c.name;
        config.lr = 0.03;
        config.momentum = c.momentum;
        config.nesterov = c.name == std::string("sgd");
        Problem original;
        auto optimizer = makeOptimizer(config, original.groups());
        for (int k = 0; k < 7; ++k)
            step(*optimizer, original);

        const NamedTensors state = optimizerState(*optimizer, original.groups());
        ASSERT_EQ(state.size(), 3 * c.keys.size());
        for (const std::string &key : c.keys) {
            bool found = false;
            for (const auto &[name, tensor] : state)
                found = found || name == "optimizer.head.b1." + key;
            EXPECT_TRUE(found) << key;
        }
        for (const auto &[name, tensor] : state)
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".step") == 0) {
                EXPECT_EQ(tensor.scalar_type(), torch::kLong);
                EXPECT_EQ(tensor.item<std::int64_t>(), 7);
            }
        const std::string file = dir.file(std::string(c.name) + std::to_string(c.momentum) + ".safetensors");
        writeSafetensors(file, state);

        Problem resumed = original.copy();
        auto resumedOptimizer = makeOptimizer(config, resumed.groups());
        loadOptimizerState(*resumedOptimizer, resumed.groups(), readSafetensors(file));
        Problem fresh = original.copy();
        auto freshOptimizer = makeOptimizer(config, fresh.groups());

        for (int k = 0; k < 3; ++k) {
            step(*optimizer, original);
            step(*resumedOptimizer, resumed);
            step(*freshOptimizer, fresh);
        }
        EXPECT_TRUE(torch::equal(original.w1, resumed.w1));
        EXPECT_TRUE(torch::equal(original.b1, resumed.b1));
        EXPECT_TRUE(torch::equal(original.w2, resumed.w2));
        EXPECT_FALSE(torch::equal(original.w1, fresh.w1)); // the state matters: the test can fail
    }
}

TEST(OptimizerFactory, MalformedStateIsRefusedNamingTheTensor)
{
    Problem p;
    OptimizerConfig config;
    config.name = "adamw";
    auto optimizer = makeOptimizer(config, p.groups());
    step(*optimizer, p);
    const NamedTensors good = optimizerState(*optimizer, p.groups());

    NamedTensors wrongShape = good;
    for (auto &[name, tensor] : wrongShape)
        if (name == "optimizer.body.w1.exp_avg")
            tensor = torch::zeros({3, 2});
    auto message = errorOf([&] { loadOptimizerState(*optimizer, p.groups(), wrongShape); });
    EXPECT_NE(message.find("optimizer.body.w1.exp_avg"), std::string::npos) << message;
    EXPECT_NE(message.find("shape"), std::string::npos) << message;

    NamedTensors missing;
    for (const auto &entry : good)
        if (entry.first != "optimizer.body.w2.exp_avg_sq")
            missing.push_back(entry);
    message = errorOf([&] { loadOptimizerState(*optimizer, p.groups(), missing); });
    EXPECT_NE(message.find("optimizer.body.w2.exp_avg_sq"), std::string::npos) << message;

    NamedTensors unknown = good;
    unknown.emplace_back("optimizer.body.w2.momentum_buffer", torch::zeros({4}));
    message = errorOf([&] { loadOptimizerState(*optimizer, p.groups(), unknown); });
    EXPECT_NE(message.find("unknown state key"), std::string::npos) << message;

    NamedTensors badStep = good;
    for (auto &[name, tensor] : badStep)
        if (name == "optimizer.head.b1.step")
            tensor = torch::tensor({1.5f});
    message = errorOf([&] { loadOptimizerState(*optimizer, p.groups(), badStep); });
    EXPECT_NE(message.find("optimizer.head.b1.step"), std::string::npos) << message;

    // A refused state leaves the optimizer as it was; other prefixes and frozen parameters are ignored.
    NamedTensors extra = good;
    extra.emplace_back("model.body.w1", torch::zeros({2, 3}));
    extra.emplace_back("optimizer.frozen.w0.exp_avg", torch::zeros({7}));
    EXPECT_NO_THROW(loadOptimizerState(*optimizer, p.groups(), extra));
    const NamedTensors again = optimizerState(*optimizer, p.groups());
    ASSERT_EQ(again.size(), good.size());
    for (std::size_t i = 0; i < good.size(); ++i)
        EXPECT_TRUE(torch::equal(again[i].second, good[i].second)) << good[i].first;
}

TEST(OptimizerFactory, ClipGradNormScalesToTheMaximum)
{
    ParameterGroup g;
    g.parameters = {torch::zeros({2}, torch::requires_grad()), torch::zeros({1}, torch::requires_grad())};
    g.names = {"a", "b"};
    g.parameters[0].mutable_grad() = torch::tensor({3.0f, 0.0f});
    g.parameters[1].mutable_grad() = torch::tensor({4.0f});
    EXPECT_NEAR(clipGradNorm({g}, 1.0).item<double>(), 5.0, 1e-6);
    EXPECT_NEAR(g.parameters[0].grad()[0].item<float>(), 0.6f, 1e-6);
    EXPECT_NEAR(g.parameters[1].grad()[0].item<float>(), 0.8f, 1e-6);
    EXPECT_NEAR(clipGradNorm({g}, 10.0).item<double>(), 1.0, 1e-5); // below the maximum: unchanged
    EXPECT_NEAR(g.parameters[1].grad()[0].item<float>(), 0.8f, 1e-6);
}

// ---------------------------------------------------------------- GradScaler

namespace {

struct Scaled
{
    torch::Tensor w = torch::tensor({1.0f, -2.0f, 3.0f}).requires_grad_();
    std::unique_ptr<torch::optim::SGD> sgd = std::make_unique<torch::optim::SGD>(std::vector<torch::Tensor>{w},
                                                                                 torch::optim::SGDOptions(0.5));

    // loss = sum(c * w): gradient c, scaled by the scaler.
    void backward(GradScaler &scaler, const torch::Tensor &c)
    {
        sgd->zero_grad();
        scaler.scale((c * w).sum()).backward();
    }
};

} // namespace

TEST(GradScaler, UnscaleDividesGradientsExactly)
{
    GradScaler scaler(1024);
    Scaled s;
    const auto c = torch::tensor({0.1f, -3.3f, 1e-3f});
    s.backward(scaler, c);
    EXPECT_TRUE(torch::equal(s.w.grad(), c * 1024));
    EXPECT_TRUE(scaler.unscale(*s.sgd));
    EXPECT_TRUE(torch::equal(s.w.grad(), c)); // power-of-two scale: exact
    EXPECT_NE(errorOf([&] { scaler.unscale(*s.sgd); }).find("already"), std::string::npos);
    EXPECT_TRUE(scaler.step(*s.sgd)); // does not unscale again
    EXPECT_TRUE(torch::allclose(s.w, torch::tensor({1.0f, -2.0f, 3.0f}) - 0.5 * c));
    scaler.update();
    EXPECT_EQ(scaler.scaleValue(), 1024);
    EXPECT_EQ(scaler.skippedSteps(), 0);
}

TEST(GradScaler, OverflowSkipsTheStepAndHalvesTheScale)
{
    GradScaler scaler; // 65536, x2 every 2000, /2 on overflow
    Scaled s;
    const auto before = s.w.detach().clone();
    s.backward(scaler, torch::tensor({1.0f, 1.0f, 1.0f}));
    s.w.mutable_grad()[1] = std::numeric_limits<float>::infinity(); // an fp16 overflow
    EXPECT_FALSE(scaler.step(*s.sgd));
    EXPECT_TRUE(torch::equal(s.w, before));
    scaler.update();
    EXPECT_EQ(scaler.skippedSteps(), 1);
    EXPECT_EQ(scaler.scaleValue(), 32768);

    s.backward(scaler, torch::tensor({1.0f, 1.0f, 1.0f}));
    s.w.mutable_grad()[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(scaler.unscale(*s.sgd));
    EXPECT_FALSE(scaler.step(*s.sgd));
    scaler.update();
    EXPECT_EQ(scaler.skippedSteps(), 2);
    EXPECT_EQ(scaler.scaleValue(), 16384);
    EXPECT_TRUE(torch::equal(s.w, before));

    s.backward(scaler, torch::tensor({1.0f, 1.0f, 1.0f}));
    EXPECT_TRUE(scaler.step(*s.sgd));
    scaler.update();
    EXPECT_EQ(scaler.skippedSteps(), 2);
    EXPECT_TRUE(torch::allclose(s.w, before - 0.5));
}

TEST(GradScaler, GrowsAfterGrowthIntervalCleanSteps)
{
    GradScaler scaler(8, 2, 0.5, 3);
    Scaled s;
    auto cleanStep = [&] {
        s.backward(scaler, torch::ones({3}));
        EXPECT_TRUE(scaler.step(*s.sgd));
        scaler.update();
    };
    cleanStep();
    cleanStep();
    EXPECT_EQ(scaler.scaleValue(), 8);
    cleanStep();
    EXPECT_EQ(scaler.scaleValue(), 16);
    cleanStep();
    cleanStep();
    // An overflow resets the count of clean steps.
    s.backward(scaler, torch::ones({3}));
    s.w.mutable_grad()[2] = -std::numeric_limits<float>::infinity();
    EXPECT_FALSE(scaler.step(*s.sgd));
    scaler.update();
    EXPECT_EQ(scaler.scaleValue(), 8);
    cleanStep();
    cleanStep();
    EXPECT_EQ(scaler.scaleValue(), 8);
    cleanStep();
    EXPECT_EQ(scaler.scaleValue(), 16);
    EXPECT_NE(errorOf([&] { scaler.update(); }).find("update()"), std::string::npos);
}

TEST(GradScaler, StateRoundTripsAndDisabledIsAPassThrough)
{
    GradScaler scaler(8, 2, 0.5, 3);
    Scaled s;
    for (int k = 0; k < 2; ++k) {
        s.backward(scaler, torch::ones({3}));
        scaler.step(*s.sgd);
        scaler.update();
    }
    s.backward(scaler, torch::ones({3}));
    s.w.mutable_grad()[0] = std::numeric_limits<float>::infinity();
    scaler.step(*s.sgd);
    scaler.update();
    s.backward(scaler, torch::ones({3}));
    scaler.step(*s.sgd);
    scaler.update(); // scale 4, tracker 1, 1 skipped
    const NamedTensors state = scaler.state();
    ASSERT_EQ(state.size(), 3u);

    GradScaler resumed(8, 2, 0.5, 3);
    resumed.loadState(state);
    EXPECT_EQ(resumed.scaleValue(), 4);
    EXPECT_EQ(resumed.skippedSteps(), 1);
    for (int k = 0; k < 2; ++k) {
        s.backward(resumed, torch::ones({3}));
        EXPECT_TRUE(torch::equal(s.w.grad(), torch::full({3}, 4.0f)));
        resumed.step(*s.sgd);
        resumed.update();
    }
    EXPECT_EQ(resumed.scaleValue(), 8); // grew after the third clean step counting the saved one

    NamedTensors bad = state;
    bad[0].second = torch::tensor({-1.0f});
    EXPECT_NE(errorOf([&] { resumed.loadState(bad); }).find("grad_scaler.scale"), std::string::npos);

    GradScaler off(65536, 2, 0.5, 2000, false);
    const auto loss = torch::tensor(3.0f);
    EXPECT_TRUE(off.scale(loss).equal(loss));
    EXPECT_EQ(off.scaleValue(), 1);
    s.backward(off, torch::ones({3}));
    s.w.mutable_grad()[0] = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(off.unscale(*s.sgd));
    EXPECT_TRUE(off.state().empty());
    EXPECT_EQ(scaler.scale(loss).dim(), 0);
    EXPECT_FALSE(errorOf([] { GradScaler(0); }).empty());
}

// ---------------------------------------------------------------- losses

namespace {

const std::vector<std::vector<double>> kLogits{{2.0, -1.0, 0.5, 0.0}, {0.1, 0.2, 0.3, -0.4}, {-1.5, 3.0, 0.0, 1.0},
                                               {0.0, 0.0, 0.0, 0.0}, {5.0, -2.0, 1.0, -3.0}};
const std::vector<std::int64_t> kTargets{0, 2, 1, 3, 3};
const std::vector<std::vector<double>> kSoft{{0.7, 0.3, 0.0, 0.0}, {0.0, 0.5, 0.5, 0.0}, {0.1, 0.2, 0.3, 0.4},
                                             {0.0, 0.0, 0.0, 1.0}, {0.25, 0.25, 0.25, 0.25}};
const std::vector<double> kWeights{1.0, 2.0, 0.5, 1.5};

torch::Tensor tensor2d(const std::vector<std::vector<double>> &rows)
{
    std::vector<float> flat;
    for (const auto &row : rows)
        flat.insert(flat.end(), row.begin(), row.end());
    return torch::tensor(flat).reshape({std::int64_t(rows.size()), std::int64_t(rows[0].size())});
}

LossConfig lossConfig(const std::string &name, double smoothing, double gamma = 2)
{
    LossConfig c;
    c.name = name;
    c.labelSmoothing = smoothing;
    c.focalGamma = gamma;
    return c;
}

// Cross entropy worked out in double from its definition (hard targets, PyTorch's weighting).
double handCrossEntropy(double smoothing, bool weighted)
{
    const std::size_t k = 4;
    double main = 0, smooth = 0, weightSum = 0;
    for (std::size_t i = 0; i < kLogits.size(); ++i) {
        double m = -1e300, z = 0;
        for (double v : kLogits[i])
            m = std::max(m, v);
        for (double v : kLogits[i])
            z += std::exp(v - m);
        const double lse = m + std::log(z);
        const double wt = weighted ? kWeights[kTargets[i]] : 1;
        main += wt * (lse - kLogits[i][kTargets[i]]);
        weightSum += wt;
        for (std::size_t c = 0; c < k; ++c)
            smooth += (weighted ? kWeights[c] : 1) * (lse - kLogits[i][c]);
    }
    return (1 - smoothing) * main / weightSum + smoothing / k * smooth / weightSum;
}

} // namespace

TEST(Losses, CrossEntropyMatchesItsDefinition)
{
    const auto logits = tensor2d(kLogits);
    const auto targets = torch::tensor(kTargets);
    const auto weights = torch::tensor(std::vector<float>(kWeights.begin(), kWeights.end()));
    for (double smoothing : {0.0, 0.1, 0.3}) {
        for (bool weighted : {false, true}) {
            const double got = classificationLoss(lossConfig("cross_entropy", smoothing), logits, targets,
                                                  weighted ? weights : torch::Tensor())
                                   .item<double>();
            EXPECT_NEAR(got, handCrossEntropy(smoothing, weighted), 1e-6) << smoothing << " " << weighted;
        }
    }
    // Hand-computed: logits {0, ln 3} and target 1 -> -log(3/4).
    const auto two = torch::tensor({0.0f, float(std::log(3.0))}).reshape({1, 2});
    EXPECT_NEAR(classificationLoss(lossConfig("cross_entropy", 0), two, torch::tensor({std::int64_t(1)})).item<double>(),
                -std::log(0.75), 1e-7);
}

TEST(Losses, MatchPyTorchCrossEntropyAndTheDocumentedFocalLoss)
{
    const Reference &ref = reference();
    ASSERT_TRUE(ref.available) << ref.failure;
    const auto logits = tensor2d(kLogits);
    const auto targets = torch::tensor(kTargets);
    const auto soft = tensor2d(kSoft);
    const auto weights = torch::tensor(std::vector<float>(kWeights.begin(), kWeights.end()));
    ASSERT_EQ(ref.json.at("targets").get<std::vector<std::int64_t>>(), kTargets);
    ASSERT_EQ(ref.json.at("class_weights").get<std::vector<double>>(), kWeights);
    double worst = 0;
    int compared = 0;
    for (const auto &c : ref.json.at("losses")) {
        const LossConfig config = lossConfig(c.at("loss"), c.at("label_smoothing"), c.value("gamma", 0.0));
        const bool hard = c.at("kind") == "hard";
        const double got = classificationLoss(config, logits, hard ? targets : soft,
                                              c.at("weighted").get<bool>() ? weights : torch::Tensor())
                               .item<double>();
        const double want = c.at("value");
        EXPECT_NEAR(got, want, 2e-6 * std::max(1.0, std::abs(want))) << c.dump();
        worst = std::max(worst, std::abs(got - want));
        ++compared;
    }
    EXPECT_EQ(compared, 48);
    std::printf("losses: %d values vs torch %s, max |difference| %.3g\n", compared,
                ref.json.at("torch").get<std::string>().c_str(), worst);
}

TEST(Losses, SoftOneHotTargetsEqualHardTargetsAndFocalGammaZeroIsCrossEntropy)
{
    const auto logits = tensor2d(kLogits);
    const auto targets = torch::tensor(kTargets);
    const auto oneHot = torch::one_hot(targets, 4).to(torch::kFloat);
    const auto weights = torch::tensor(std::vector<float>(kWeights.begin(), kWeights.end()));
    for (double smoothing : {0.0, 0.2}) {
        const auto hard = classificationLoss(lossConfig("cross_entropy", smoothing), logits, targets);
        const auto soft = classificationLoss(lossConfig("cross_entropy", smoothing), logits, oneHot);
        EXPECT_NEAR(hard.item<double>(), soft.item<double>(), 1e-6);
        for (bool weighted : {false, true}) {
            const torch::Tensor w = weighted ? weights : torch::Tensor();
            for (const torch::Tensor &t : {targets, oneHot}) {
                const double ce = classificationLoss(lossConfig("cross_entropy", smoothing), logits, t, w).item<double>();
                const double focal = classificationLoss(lossConfig("focal", smoothing, 0.0), logits, t, w).item<double>();
                EXPECT_NEAR(focal, ce, 1e-6);
            }
        }
    }
    // gamma > 0 lowers the loss of well-classified examples more than the others'.
    const double ce = classificationLoss(lossConfig("cross_entropy", 0), logits, targets).item<double>();
    const double focal = classificationLoss(lossConfig("focal", 0, 2.0), logits, targets).item<double>();
    EXPECT_LT(focal, ce);
    // Mixed precision logits are computed in float32.
    const auto half = classificationLoss(lossConfig("cross_entropy", 0.1), logits.to(torch::kBFloat16), targets);
    EXPECT_EQ(half.scalar_type(), torch::kFloat);
}

TEST(Losses, BadInputsNameTheProblem)
{
    const auto logits = tensor2d(kLogits);
    EXPECT_NE(errorOf([&] { classificationLoss(lossConfig("cross_entropy", 0), logits, torch::tensor({0, 1, 2, 3, 4})); })
                  .find("outside [0, 4)"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { classificationLoss(lossConfig("cross_entropy", 0), logits, torch::tensor({0, 1})); })
                  .find("targets"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { classificationLoss(lossConfig("cross_entropy", 0), logits.flatten(), torch::tensor({0})); })
                  .find("logits"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { classificationLoss(lossConfig("hinge", 0), logits, torch::tensor(kTargets)); })
                  .find("loss.name"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  classificationLoss(lossConfig("cross_entropy", 0), logits, torch::tensor(kTargets), torch::ones({3}));
              }).find("class weights"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { classificationLoss(lossConfig("focal", 0, -1), logits, torch::tensor(kTargets)); })
                  .find("loss.focal_gamma"),
              std::string::npos);
}

TEST(Losses, ClassWeightsFromCountsAreInverseFrequencyWithMeanOne)
{
    const auto w = classWeightsFromCounts({100, 50, 0, 25});
    ASSERT_EQ(w.numel(), 4);
    // 1/c = 0.01, 0.02, -, 0.04 (sum 0.07, 3 classes present): w = 3 * (1/c) / 0.07.
    EXPECT_NEAR(w[0].item<float>(), 3 * 0.01 / 0.07, 1e-6);
    EXPECT_NEAR(w[1].item<float>(), 3 * 0.02 / 0.07, 1e-6);
    EXPECT_EQ(w[2].item<float>(), 0.0f);
    EXPECT_NEAR(w[3].item<float>(), 3 * 0.04 / 0.07, 1e-6);
    EXPECT_NEAR((w[0] + w[1] + w[3]).item<float>() / 3, 1.0, 1e-6);
    EXPECT_NEAR(w[1].item<float>() / w[0].item<float>(), 2.0, 1e-6);
    EXPECT_TRUE(torch::allclose(classWeightsFromCounts({7, 7, 7}), torch::ones({3})));
    EXPECT_FALSE(errorOf([] { classWeightsFromCounts({}); }).empty());
    EXPECT_FALSE(errorOf([] { classWeightsFromCounts({0, 0}); }).empty());
    EXPECT_FALSE(errorOf([] { classWeightsFromCounts({3, -1}); }).empty());
}

// ---------------------------------------------------------------- EMA

namespace {

struct Tiny : torch::nn::Module
{
    Tiny()
    {
        weight = register_parameter("weight", torch::tensor({1.0f, -1.0f}));
        running = register_buffer("running", torch::tensor({0.0f}));
        count = register_buffer("count", torch::tensor(std::int64_t(0)));
    }
    torch::Tensor weight, running, count;
};

} // namespace

TEST(WeightEma, AveragesParametersAndCopiesBuffers)
{
    Tiny model;
    WeightEma ema(model, 0.9, /*warmup=*/true);
    EXPECT_DOUBLE_EQ(ema.decayAt(0), 0.1);
    EXPECT_DOUBLE_EQ(ema.decayAt(5), 6.0 / 15.0);
    EXPECT_DOUBLE_EQ(ema.decayAt(1000), 0.9);

    // A known sequence of weights: the expected average in double precision.
    double expected[2] = {1.0, -1.0};
    for (int n = 0; n < 30; ++n) {
        const double v0 = std::sin(n * 0.7) * 3, v1 = n * 0.1;
        {
            torch::NoGradGuard noGrad;
            model.weight.copy_(torch::tensor({float(v0), float(v1)}));
            model.running.fill_(float(n));
            model.count.fill_(n);
        }
        ema.update(model);
        const double d = std::min(0.9, (1.0 + n) / (10.0 + n));
        expected[0] = d * expected[0] + (1 - d) * double(float(v0));
        expected[1] = d * expected[1] + (1 - d) * double(float(v1));
    }
    EXPECT_EQ(ema.updates(), 30);
    const NamedTensors state = ema.state();
    ASSERT_EQ(state.size(), 4u);
    EXPECT_EQ(state[0].first, "ema.weight");
    EXPECT_NEAR(state[0].second[0].item<double>(), expected[0], 1e-5);
    EXPECT_NEAR(state[0].second[1].item<double>(), expected[1], 1e-5);
    EXPECT_EQ(state[1].first, "ema.running");
    EXPECT_EQ(state[1].second.item<float>(), 29.0f); // copied, not averaged
    EXPECT_EQ(state[2].second.item<std::int64_t>(), 29);
    EXPECT_EQ(state[3].first, "ema_updates");

    // Without warm-up the decay is constant: one update from 0 towards 1 gives 1 - d.
    Tiny fresh;
    WeightEma plain(fresh, 0.75, false);
    {
        torch::NoGradGuard noGrad;
        fresh.weight.fill_(2.0f);
    }
    plain.update(fresh);
    EXPECT_NEAR(plain.state()[0].second[0].item<float>(), 0.75 * 1.0 + 0.25 * 2.0, 1e-6);
}

TEST(WeightEma, SwapTwiceRestoresAndStateResumes)
{
    Tiny model;
    WeightEma ema(model, 0.5, false);
    {
        torch::NoGradGuard noGrad;
        model.weight.copy_(torch::tensor({3.0f, 5.0f}));
    }
    ema.update(model); // ema = {2, 2}
    const auto training = model.weight.detach().clone();
    ema.swap(model);
    EXPECT_TRUE(torch::equal(model.weight, torch::tensor({2.0f, 2.0f})));
    ema.swap(model);
    EXPECT_TRUE(torch::equal(model.weight, training));

    lathe::test::TempDir dir;
    writeSafetensors(dir.file("ema.safetensors"), ema.state());
    Tiny other;
    WeightEma resumed(other, 0.5, false);
    resumed.loadState(readSafetensors(dir.file("ema.safetensors")));
    EXPECT_EQ(resumed.updates(), 1);
    resumed.update(model);
    ema.update(model);
    EXPECT_TRUE(torch::equal(resumed.state()[0].second, ema.state()[0].second));
    resumed.copyTo(other);
    EXPECT_TRUE(torch::equal(other.weight, torch::tensor({2.5f, 3.5f})));

    NamedTensors bad = ema.state();
    bad[0].second = torch::zeros({3});
    EXPECT_NE(errorOf([&] { resumed.loadState(bad); }).find("ema.weight"), std::string::npos);
    NamedTensors missing = ema.state();
    missing.erase(missing.begin() + 1);
    EXPECT_NE(errorOf([&] { resumed.loadState(missing); }).find("ema.running"), std::string::npos);
    EXPECT_FALSE(errorOf([&] { WeightEma(model, 1.5); }).empty());
}

// ---------------------------------------------------------------- early stopping

TEST(EarlyStopping, StopsAfterPatienceEpochsWithoutImprovementByMinDelta)
{
    EarlyStoppingConfig config;
    config.enabled = true;
    config.metric = "val_loss";
    config.patience = 2;
    config.minDelta = 0.1;
    EarlyStopping es(config);
    EXPECT_FALSE(es.observe({{"val_loss", 1.0}})); // the first value is the best
    EXPECT_TRUE(es.hasBest);
    EXPECT_FALSE(es.observe({{"val_loss", 0.95}})); // lower, but not by more than min_delta
    EXPECT_EQ(es.badEpochs, 1);
    EXPECT_DOUBLE_EQ(es.best, 1.0);
    EXPECT_FALSE(es.observe({{"val_loss", 0.8}})); // better: the bad epochs start over
    EXPECT_EQ(es.badEpochs, 0);
    EXPECT_DOUBLE_EQ(es.best, 0.8);
    EXPECT_FALSE(es.observe({{"val_loss", 0.9}}));
    EXPECT_TRUE(es.observe({{"val_loss", 0.75}})); // the second bad epoch in a row
    EXPECT_TRUE(es.stopped);
}

TEST(EarlyStopping, AccuracyMustRise)
{
    EarlyStoppingConfig config;
    config.enabled = true;
    config.metric = "val_top1";
    config.patience = 1;
    EarlyStopping es(config);
    EXPECT_FALSE(es.observe({{"val_top1", 0.5}}));
    EXPECT_FALSE(es.observe({{"val_top1", 0.6}}));
    EXPECT_TRUE(es.observe({{"val_top1", 0.4}}));
}

TEST(EarlyStopping, DisabledOrWithoutTheMetricChangesNothing)
{
    EarlyStoppingConfig config;
    config.patience = 1;
    EarlyStopping off(config); // enabled = false
    EXPECT_FALSE(off.observe({{"val_loss", 1.0}}));
    EXPECT_FALSE(off.observe({{"val_loss", 2.0}}));
    EXPECT_FALSE(off.hasBest);
    config.enabled = true;
    EarlyStopping noMetric(config);
    EXPECT_FALSE(noMetric.observe({{"train_loss", 1.0}}));
    EXPECT_FALSE(noMetric.observe({{"train_loss", 2.0}}));
    EXPECT_FALSE(noMetric.hasBest);
    EXPECT_EQ(noMetric.badEpochs, 0);
}

TEST(EarlyStopping, StateRoundTripsThroughACheckpoint)
{
    EarlyStoppingConfig config;
    config.enabled = true;
    config.patience = 3;
    EarlyStopping a(config);
    a.observe({{"val_loss", 1.0}});
    a.observe({{"val_loss", 1.5}});
    const nlohmann::json state = a.state();
    EXPECT_EQ(state, (nlohmann::json{{"has_best", true}, {"best", 1.0}, {"bad_epochs", 1}}));
    EarlyStopping b(config);
    b.restore(state);
    EXPECT_TRUE(b.hasBest);
    EXPECT_DOUBLE_EQ(b.best, 1.0);
    EXPECT_EQ(b.badEpochs, 1);
    // The resumed rule decides as the unbroken one would.
    EXPECT_EQ(a.observe({{"val_loss", 1.2}}), b.observe({{"val_loss", 1.2}}));
    EXPECT_EQ(a.observe({{"val_loss", 1.2}}), b.observe({{"val_loss", 1.2}}));
    EXPECT_TRUE(b.stopped);
    EarlyStopping fresh(config);
    fresh.restore(nlohmann::json::object()); // a checkpoint without the fields: the start's values
    EXPECT_FALSE(fresh.hasBest);
    EXPECT_EQ(fresh.badEpochs, 0);
}
