#include "engine/base/engine_error.h"
#include "engine/training/multilabel_loss.h"
#include "python_peer.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace lathe::engine;
using lathe::test::errorOf;

namespace {

// ---- PyTorch's answers (tests/parity/multilabel_reference.py loss), run once ----

const nlohmann::json &reference()
{
    static const nlohmann::json ref = [] {
        int status = -1;
        const std::string out = lathe::test::runCommand(
            "'" + lathe::test::python() + "' '" + lathe::test::parityScript("multilabel_reference.py").string() +
                "' loss",
            &status);
        if (status != 0)
            return nlohmann::json{{"failure", "reference script failed (" + std::to_string(status) + "): " + out}};
        return nlohmann::json::parse(out);
    }();
    return ref;
}

torch::Tensor matrix(const nlohmann::json &rows)
{
    std::vector<float> values;
    std::int64_t n = 0;
    for (const auto &row : rows) {
        for (const auto &v : row)
            values.push_back(float(v.get<double>())); // printed from float32: exact
        ++n;
    }
    return torch::tensor(values, torch::kFloat).reshape({n, std::int64_t(values.size()) / n});
}

torch::Tensor floats(const nlohmann::json &values)
{
    std::vector<float> v;
    for (const auto &x : values)
        v.push_back(float(x.get<double>()));
    return torch::tensor(v, torch::kFloat);
}

MultiLabelLossOptions optionsOf(const nlohmann::json &c)
{
    MultiLabelLossOptions o;
    o.name = c.at("name");
    o.labelSmoothing = c.at("label_smoothing");
    o.gammaNeg = c.at("gamma_neg");
    o.gammaPos = c.at("gamma_pos");
    o.clip = c.at("clip");
    o.eps = c.at("eps");
    o.detachFocusingWeights = c.at("detach");
    return o;
}

// The loss and d loss / d logits of one case.
struct Evaluated
{
    double loss = 0;
    torch::Tensor grad;
};

Evaluated evaluate(const MultiLabelLossOptions &o, const torch::Tensor &logits, const torch::Tensor &targets,
                   const torch::Tensor &weights = {})
{
    torch::Tensor x = logits.detach().clone().requires_grad_();
    torch::Tensor loss = multiLabelLoss(o, x, targets, weights);
    EXPECT_EQ(loss.scalar_type(), torch::kFloat);
    EXPECT_EQ(loss.dim(), 0);
    loss.backward();
    return {loss.item<double>(), x.grad()};
}

double maxDifference(const torch::Tensor &a, const torch::Tensor &b)
{
    return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

constexpr double kTolerance = 1e-6;

} // namespace

TEST(MultiLabelLoss, MatchesPyTorch)
{
    const nlohmann::json &ref = reference();
    ASSERT_FALSE(ref.contains("failure")) << ref.at("failure").get<std::string>();
    int cases = 0, againstAuthors = 0;
    double worstLoss = 0, worstGrad = 0;
    for (const auto &c : ref.at("cases")) {
        const std::string id = c.at("id");
        SCOPED_TRACE(id);
        const torch::Tensor logits = matrix(c.at("logits"));
        const torch::Tensor targets = matrix(c.at("targets"));
        const torch::Tensor weights = c.at("positive_weights").is_null() ? torch::Tensor()
                                                                           : floats(c.at("positive_weights"));
        const Evaluated e = evaluate(optionsOf(c), logits, targets, weights);
        const double expected = c.at("loss");
        EXPECT_NEAR(e.loss, expected, kTolerance);
        const torch::Tensor grad = matrix(c.at("grad"));
        const double gradDiff = maxDifference(e.grad, grad);
        EXPECT_LE(gradDiff, kTolerance);
        EXPECT_TRUE(torch::isfinite(e.grad).all().item<bool>());
        worstLoss = std::max(worstLoss, std::abs(e.loss - expected));
        worstGrad = std::max(worstGrad, gradDiff);
        if (c.contains("loss_one_weight")) {
            // The authors' formulation for 0/1 targets: the same loss and gradient.
            EXPECT_NEAR(e.loss, c.at("loss_one_weight").get<double>(), kTolerance);
            EXPECT_LE(maxDifference(e.grad, matrix(c.at("grad_one_weight"))), kTolerance);
            ++againstAuthors;
        }
        ++cases;
    }
    EXPECT_GE(cases, 11);
    EXPECT_GE(againstAuthors, 3);
    std::printf("compared %d cases with torch %s: worst loss difference %.3g, worst gradient difference %.3g\n",
                cases, ref.at("torch").get<std::string>().c_str(), worstLoss, worstGrad);
}

TEST(MultiLabelLoss, SmallCasesByHand)
{
    MultiLabelLossOptions bce;
    // Logit 0 is p = 1/2 whatever the target: log 2 per element.
    EXPECT_NEAR(multiLabelLoss(bce, torch::zeros({2, 3}), torch::tensor({1.f, 0.f, 1.f, 0.f, 0.f, 1.f}).reshape({2, 3}))
                    .item<double>(),
                std::log(2.0), 1e-7);
    // One element, logit 2, target 1: -log sigmoid(2) = log(1 + e^-2); with positive weight 3,
    // three times that; with smoothing 0.2 the target is 0.9: 0.9 * 3 * log(1 + e^-2) + 0.1 * log(1 + e^2).
    const torch::Tensor x = torch::tensor({{2.f}});
    const torch::Tensor one = torch::tensor({{1.f}});
    const double lp = std::log1p(std::exp(-2.0));
    const double ln = std::log1p(std::exp(2.0));
    EXPECT_NEAR(multiLabelLoss(bce, x, one).item<double>(), lp, 1e-7);
    EXPECT_NEAR(multiLabelLoss(bce, x, one, torch::tensor({3.f})).item<double>(), 3 * lp, 1e-6);
    bce.labelSmoothing = 0.2;
    EXPECT_NEAR(multiLabelLoss(bce, x, one, torch::tensor({3.f})).item<double>(), 0.9 * 3 * lp + 0.1 * ln, 1e-6);

    // ASL, logit 0 (p = 1/2), default settings (gamma_neg 4, gamma_pos 0, clip 0.05).
    MultiLabelLossOptions asl;
    asl.name = "asymmetric";
    // A negative: p_m = 0.45, loss = 0.45^4 * -log(0.55).
    EXPECT_NEAR(multiLabelLoss(asl, torch::zeros({1, 1}), torch::zeros({1, 1})).item<double>(),
                std::pow(0.45, 4) * -std::log(0.55), 1e-7);
    // A positive: no focusing (gamma_pos 0), loss = -log(1/2).
    EXPECT_NEAR(multiLabelLoss(asl, torch::zeros({1, 1}), torch::ones({1, 1})).item<double>(), std::log(2.0), 1e-7);
    // A negative whose probability is below the clip margin costs nothing, and has no gradient.
    const Evaluated easy = evaluate(asl, torch::tensor({{-4.f}}), torch::zeros({1, 1}));
    EXPECT_EQ(easy.loss, 0.0);
    EXPECT_EQ(easy.grad.item<float>(), 0.0f);
    // gamma_pos 1, a positive at logit 0: (1 - 1/2) * log 2; the mean over the two elements of a
    // [1, 2] batch whose second element is that negative again.
    asl.gammaPos = 1;
    EXPECT_NEAR(multiLabelLoss(asl, torch::zeros({1, 2}), torch::tensor({{1.f, 0.f}})).item<double>(),
                (0.5 * std::log(2.0) + std::pow(0.45, 4) * -std::log(0.55)) / 2, 1e-7);
}

TEST(MultiLabelLoss, AsymmetricWithoutFocusingOrShiftIsBce)
{
    torch::manual_seed(3);
    const torch::Tensor logits = torch::randn({16, 7}) * 2;
    const torch::Tensor targets = torch::rand({16, 7});
    const torch::Tensor weights = torch::rand({7}) * 3;
    MultiLabelLossOptions bce;
    bce.labelSmoothing = 0.1;
    MultiLabelLossOptions asl = bce;
    asl.name = "asymmetric";
    asl.gammaNeg = 0;
    asl.gammaPos = 0;
    asl.clip = 0;
    const Evaluated a = evaluate(bce, logits, targets, weights);
    const Evaluated b = evaluate(asl, logits, targets, weights);
    EXPECT_NEAR(a.loss, b.loss, 1e-6);
    EXPECT_LE(maxDifference(a.grad, b.grad), 1e-7);
}

TEST(MultiLabelLoss, AsymmetricIsLinearInSoftTargets)
{
    // Mixup of two label sets: the loss of the mixed targets is the mix of the two losses.
    torch::manual_seed(4);
    const torch::Tensor logits = torch::randn({8, 5}) * 3;
    const torch::Tensor a = (torch::rand({8, 5}) < 0.4).to(torch::kFloat);
    const torch::Tensor b = (torch::rand({8, 5}) < 0.4).to(torch::kFloat);
    MultiLabelLossOptions asl;
    asl.name = "asymmetric";
    asl.gammaPos = 1;
    const double lambda = 0.3;
    const double mixed = multiLabelLoss(asl, logits, a * lambda + b * (1 - lambda)).item<double>();
    const double separate = lambda * multiLabelLoss(asl, logits, a).item<double>() +
                            (1 - lambda) * multiLabelLoss(asl, logits, b).item<double>();
    EXPECT_NEAR(mixed, separate, 1e-6);
}

TEST(MultiLabelLoss, ComputesInFloat32WhateverTheLogitsDtype)
{
    torch::manual_seed(5);
    const torch::Tensor logits = torch::randn({6, 4});
    const torch::Tensor targets = (torch::rand({6, 4}) < 0.5).to(torch::kFloat);
    for (const std::string name : {"bce", "asymmetric"}) {
        MultiLabelLossOptions o;
        o.name = name;
        const torch::Tensor reference = multiLabelLoss(o, logits, targets);
        const torch::Tensor fromDouble = multiLabelLoss(o, logits.to(torch::kDouble), targets.to(torch::kDouble));
        EXPECT_EQ(fromDouble.scalar_type(), torch::kFloat) << name;
        EXPECT_EQ(fromDouble.item<float>(), reference.item<float>()) << name;
        const torch::Tensor half = logits.to(torch::kHalf);
        const torch::Tensor fromHalf = multiLabelLoss(o, half, targets);
        EXPECT_EQ(fromHalf.scalar_type(), torch::kFloat) << name;
        EXPECT_EQ(fromHalf.item<float>(), multiLabelLoss(o, half.to(torch::kFloat), targets).item<float>()) << name;
    }
}

TEST(MultiLabelLoss, FullGradientStaysFiniteForFractionalExponents)
{
    // pow's own backward at a zero base with an exponent below 1 is 0 * inf = NaN; many negatives
    // sit below the clip margin (base p_m = 0), and logit 30 saturates p to 1 (base 1 - p = 0).
    MultiLabelLossOptions asl;
    asl.name = "asymmetric";
    asl.gammaNeg = 0.5;
    asl.gammaPos = 0.5;
    asl.detachFocusingWeights = false;
    const torch::Tensor logits = torch::tensor({{-6.f, 30.f, 0.5f}, {-30.f, 1.f, -2.f}});
    const torch::Tensor targets = torch::tensor({{0.f, 1.f, 0.f}, {0.f, 1.f, 1.f}});
    const Evaluated e = evaluate(asl, logits, targets);
    EXPECT_TRUE(std::isfinite(e.loss));
    EXPECT_TRUE(torch::isfinite(e.grad).all().item<bool>()) << e.grad;
    EXPECT_EQ(e.grad[0][0].item<float>(), 0.0f); // below the margin: no gradient
}

TEST(MultiLabelLoss, PositiveWeightsFromCounts)
{
    // 100 images: 20 positives -> 80/20 = 4; 50 -> 1; 1 -> 99; none -> 1; all -> 1.
    const torch::Tensor w = positiveWeightsFromCounts({20, 50, 1, 0, 100}, 100);
    ASSERT_EQ(w.scalar_type(), torch::kFloat);
    const std::vector<float> expected = {4.f, 1.f, 99.f, 1.f, 1.f};
    ASSERT_EQ(w.size(0), 5);
    for (std::int64_t i = 0; i < 5; ++i)
        EXPECT_EQ(w[i].item<float>(), expected[std::size_t(i)]) << i;
    EXPECT_FALSE(errorOf([] { positiveWeightsFromCounts({}, 10); }).empty());
    EXPECT_FALSE(errorOf([] { positiveWeightsFromCounts({1}, 0); }).empty());
    EXPECT_FALSE(errorOf([] { positiveWeightsFromCounts({-1}, 10); }).empty());
    EXPECT_NE(errorOf([] { positiveWeightsFromCounts({11}, 10); }).find("label 0 has 11 positives of 10"),
              std::string::npos);
}

TEST(MultiLabelLoss, RejectsBadInput)
{
    const torch::Tensor x = torch::zeros({2, 3});
    const torch::Tensor t = torch::zeros({2, 3});
    MultiLabelLossOptions o;
    auto error = [&](const MultiLabelLossOptions &options, const torch::Tensor &logits, const torch::Tensor &targets,
                     const torch::Tensor &weights = {}) {
        return errorOf([&] { multiLabelLoss(options, logits, targets, weights); });
    };
    EXPECT_NE(error(o, x, torch::zeros({3, 2})).find("loss: targets"), std::string::npos);
    EXPECT_NE(error(o, x, torch::zeros({2, 3}, torch::kLong)).find("loss: targets"), std::string::npos);
    EXPECT_NE(error(o, torch::zeros({6}), torch::zeros({6})).find("loss: logits"), std::string::npos);
    EXPECT_NE(error(o, torch::zeros({0, 3}), torch::zeros({0, 3})).find("loss: logits"), std::string::npos);
    EXPECT_NE(error(o, x, torch::full({2, 3}, 1.5f)).find("outside [0, 1]"), std::string::npos);
    EXPECT_NE(error(o, x, torch::full({2, 3}, -0.1f)).find("outside [0, 1]"), std::string::npos);
    EXPECT_NE(error(o, x, torch::full({2, 3}, std::nanf(""))).find("outside [0, 1]"), std::string::npos);
    EXPECT_NE(error(o, x, t, torch::ones({2})).find("positive weights"), std::string::npos);
    EXPECT_NE(error(o, x, t, torch::tensor({1.f, -1.f, 1.f})).find("positive weights"), std::string::npos);
    EXPECT_NE(error(o, x, t, torch::tensor({1.f, INFINITY, 1.f})).find("positive weights"), std::string::npos);
    MultiLabelLossOptions bad = o;
    bad.name = "softmax";
    EXPECT_NE(error(bad, x, t).find("loss.name"), std::string::npos);
    bad = o;
    bad.labelSmoothing = 1.5;
    EXPECT_NE(error(bad, x, t).find("loss.label_smoothing"), std::string::npos);
    bad = o;
    bad.name = "asymmetric";
    bad.gammaNeg = -1;
    EXPECT_NE(error(bad, x, t).find("loss.gamma_neg"), std::string::npos);
    bad.gammaNeg = 4;
    bad.clip = 1;
    EXPECT_NE(error(bad, x, t).find("loss.clip"), std::string::npos);
    bad.clip = 0.05;
    bad.eps = std::nan("");
    EXPECT_NE(error(bad, x, t).find("loss.eps"), std::string::npos);
}
