// SyncBatchNorm across data-parallel ranks: two CPU ranks over Gloo (threads of this process)
// against one BatchNorm2d on the whole batch; the conversion of a backbone; eval mode.

#include "engine/base/torch_compat.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/freezing.h"
#include "engine/models/networks/blocks.h"
#include "engine/models/networks/classifier.h"
#include "engine/training/distributed.h"
#include "engine/training/sync_batch_norm.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <functional>
#include <thread>
#include <vector>

using namespace lathe::engine;

namespace {

constexpr double kTol = 1e-5;

::testing::AssertionResult near(const torch::Tensor &a, const torch::Tensor &b, double tol = kTol)
{
    if (a.sizes() != b.sizes())
        return ::testing::AssertionFailure() << "shapes differ: " << a.sizes() << " vs " << b.sizes();
    const double diff = (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
    const double scale = std::max(1.0, b.to(torch::kDouble).abs().max().item<double>());
    if (diff <= tol * scale)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "max difference " << diff << " (tolerance " << tol * scale << ")";
}

// What one rank (or the whole-batch reference) ends with after its steps.
struct Outcome
{
    torch::Tensor output, inputGrad, weightGrad, biasGrad, runningMean, runningVar;
    std::int64_t batchesTracked = 0;
};

struct Case
{
    torch::nn::BatchNorm2dOptions options{5};
    torch::Tensor input, upstream; // the whole batch, and the gradient of the loss wrt the output
    torch::Tensor weight, bias;
};

Case makeCase(torch::nn::BatchNorm2dOptions options, bool channelsLast)
{
    torch::manual_seed(11);
    Case c;
    c.options = options;
    const std::int64_t channels = options.num_features();
    // Means far from 0 and different spreads per channel, as after a convolution.
    c.input = torch::randn({8, channels, 5, 4}) * torch::linspace(0.5, 3, channels).view({1, channels, 1, 1}) +
              torch::linspace(-4, 6, channels).view({1, channels, 1, 1});
    if (channelsLast)
        c.input = c.input.contiguous(torch::MemoryFormat::ChannelsLast);
    c.upstream = torch::randn({8, channels, 5, 4});
    c.weight = torch::rand({channels}) + 0.5;
    c.bias = torch::randn({channels});
    return c;
}

torch::nn::BatchNorm2d makeBatchNorm(const Case &c)
{
    torch::nn::BatchNorm2d bn(c.options);
    torch::NoGradGuard noGrad;
    if (c.options.affine()) {
        bn->weight.copy_(c.weight);
        bn->bias.copy_(c.bias);
    }
    return bn;
}

// `steps` training steps on rows [begin, end) of the batch; the last step's gradients.
Outcome runSteps(const Case &c, std::int64_t begin, std::int64_t end, int steps,
                 const std::function<torch::Tensor(torch::nn::BatchNorm2dImpl &, const torch::Tensor &)> &forward)
{
    torch::nn::BatchNorm2d bn = makeBatchNorm(c);
    bn->train();
    Outcome out;
    for (int step = 0; step < steps; ++step) {
        torch::Tensor x = c.input.narrow(0, begin, end - begin).detach().clone(at::MemoryFormat::Preserve);
        // Each step a shifted batch, so that the running statistics move.
        x = (x + step).requires_grad_(true);
        x.retain_grad();
        bn->zero_grad();
        out.output = forward(*bn, x);
        (out.output * c.upstream.narrow(0, begin, end - begin)).sum().backward();
        out.inputGrad = x.grad();
    }
    if (c.options.affine()) {
        out.weightGrad = bn->weight.grad();
        out.biasGrad = bn->bias.grad();
    }
    if (c.options.track_running_stats()) {
        out.runningMean = bn->running_mean.clone();
        out.runningVar = bn->running_var.clone();
        out.batchesTracked = bn->num_batches_tracked.item<std::int64_t>();
    }
    return out;
}

// body(rank, group) on two ranks of a Gloo group in one process, each in its own thread; the
// first exception either throws is rethrown.
void onTwoRanks(const std::function<void(int, RankGroup &)> &body)
{
    auto rendezvous = RankRendezvous::inProcess();
    std::vector<std::exception_ptr> errors(2);
    std::vector<std::thread> threads;
    for (int rank = 0; rank < 2; ++rank) {
        threads.emplace_back([&, rank] {
            try {
                RankGroup group(rendezvous, rank, 2, torch::kCPU, std::string(), std::chrono::seconds(60));
                body(rank, group);
            } catch (...) {
                errors[std::size_t(rank)] = std::current_exception();
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    for (const std::exception_ptr &e : errors)
        if (e)
            std::rethrow_exception(e);
}

// Two ranks, rank 0 with rows [0, split) and rank 1 with the rest.
std::vector<Outcome> runTwoRanks(const Case &c, std::int64_t split, int steps)
{
    std::vector<Outcome> outcomes(2);
    onTwoRanks([&](int rank, RankGroup &group) {
        const AllReduceSum allReduce = [&group](torch::Tensor &t) { group.allReduceSum(t); };
        outcomes[std::size_t(rank)] = runSteps(c, rank == 0 ? 0 : split, rank == 0 ? split : c.input.size(0), steps,
                                               [&](torch::nn::BatchNorm2dImpl &bn, const torch::Tensor &x) {
                                                   return syncBatchNorm(bn, x, allReduce);
                                               });
    });
    return outcomes;
}

void expectSameAsWholeBatch(const Case &c, std::int64_t split, int steps)
{
    const Outcome ref = runSteps(c, 0, c.input.size(0), steps,
                                 [](torch::nn::BatchNorm2dImpl &bn, const torch::Tensor &x) { return bn.forward(x); });
    const std::vector<Outcome> ranks = runTwoRanks(c, split, steps);
    EXPECT_TRUE(near(torch::cat({ranks[0].output, ranks[1].output}), ref.output));
    EXPECT_TRUE(near(torch::cat({ranks[0].inputGrad, ranks[1].inputGrad}), ref.inputGrad));
    if (c.options.affine()) {
        EXPECT_TRUE(near(ranks[0].weightGrad + ranks[1].weightGrad, ref.weightGrad));
        EXPECT_TRUE(near(ranks[0].biasGrad + ranks[1].biasGrad, ref.biasGrad));
    }
    for (const Outcome &r : ranks) {
        if (c.options.track_running_stats()) {
            EXPECT_TRUE(near(r.runningMean, ref.runningMean));
            EXPECT_TRUE(near(r.runningVar, ref.runningVar));
            EXPECT_EQ(r.batchesTracked, ref.batchesTracked);
        }
        if (c.input.is_contiguous(torch::MemoryFormat::ChannelsLast)) {
            EXPECT_TRUE(r.output.is_contiguous(torch::MemoryFormat::ChannelsLast));
            EXPECT_TRUE(r.inputGrad.is_contiguous(torch::MemoryFormat::ChannelsLast));
        }
    }
}

std::shared_ptr<models::Classifier> resnet18()
{
    torch::manual_seed(7);
    HeadOptions head;
    head.numClasses = 10;
    return models::createClassifier("resnet18", 3, head);
}

} // namespace

// ---- two ranks against one BatchNorm2d on the whole batch ----------------------------------

TEST(SyncBatchNorm, TwoRanksEqualBatchNorm2dOnTheWholeBatch)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(5), false), 4, 3);
}

TEST(SyncBatchNorm, UnevenShares)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(5), false), 3, 2);
}

TEST(SyncBatchNorm, ChannelsLastStaysChannelsLast)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(5), true), 4, 2);
}

TEST(SyncBatchNorm, MomentumAndEpsOfTheModule)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(4).eps(1e-3).momentum(0.01), false), 4, 2);
}

TEST(SyncBatchNorm, CumulativeAverageWithoutMomentum)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(4).momentum(c10::optional<double>()), false), 4, 3);
}

TEST(SyncBatchNorm, WithoutAffineOrRunningStatistics)
{
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(3).affine(false), false), 4, 1);
    expectSameAsWholeBatch(makeCase(torch::nn::BatchNorm2dOptions(3).track_running_stats(false), false), 4, 1);
}

// ---- dtypes ----------------------------------------------------------------------------------

TEST(SyncBatchNorm, Bfloat16InputUnderAutocastComputesInFloat32)
{
    Case c = makeCase(torch::nn::BatchNorm2dOptions(5), false);
    const torch::Tensor x16 = c.input.to(torch::kBFloat16);
    torch::nn::BatchNorm2d ref = makeBatchNorm(c), bn = makeBatchNorm(c);
    const torch::Tensor expected = ref->forward(x16.to(torch::kFloat));

    int calls = 0;
    const AllReduceSum alone = [&calls](torch::Tensor &) { ++calls; };
    torch::Tensor x = x16.clone().requires_grad_(true);
    torch::Tensor y;
    {
        compat::AutocastScope autocast(true, torch::kCPU, torch::kBFloat16);
        y = syncBatchNorm(*bn, x, alone);
    }
    EXPECT_EQ(y.scalar_type(), torch::kBFloat16);
    // Only the output's rounding to bfloat16 (8 bits of mantissa) differs.
    EXPECT_TRUE(near(y.to(torch::kFloat), expected, 1e-2));
    EXPECT_TRUE(near(bn->running_mean, ref->running_mean));
    EXPECT_TRUE(near(bn->running_var, ref->running_var));
    y.to(torch::kFloat).sum().backward();
    EXPECT_EQ(x.grad().scalar_type(), torch::kBFloat16);
    EXPECT_EQ(bn->weight.grad().scalar_type(), torch::kFloat);
    EXPECT_EQ(calls, 2); // the statistics, then the backward sums
}

TEST(SyncBatchNorm, OnCudaAloneEqualsBatchNorm2d)
{
    if (!torch::cuda::is_available())
        GTEST_SKIP() << "no CUDA device";
    const Case c = makeCase(torch::nn::BatchNorm2dOptions(5), true);
    torch::nn::BatchNorm2d ref = makeBatchNorm(c), bn = makeBatchNorm(c);
    ref->to(torch::kCUDA);
    bn->to(torch::kCUDA);
    const torch::Tensor input = c.input.to(torch::kCUDA), upstream = c.upstream.to(torch::kCUDA);
    torch::Tensor xr = input.clone().requires_grad_(true), xs = input.clone().requires_grad_(true);
    const torch::Tensor yr = ref->forward(xr);
    const torch::Tensor ys = syncBatchNorm(*bn, xs, [](torch::Tensor &) {});
    (yr * upstream).sum().backward();
    (ys * upstream).sum().backward();
    EXPECT_TRUE(ys.is_contiguous(torch::MemoryFormat::ChannelsLast));
    EXPECT_TRUE(near(ys.cpu(), yr.cpu(), 1e-4));
    EXPECT_TRUE(near(xs.grad().cpu(), xr.grad().cpu(), 1e-4));
    EXPECT_TRUE(near(bn->weight.grad().cpu(), ref->weight.grad().cpu(), 1e-4));
    EXPECT_TRUE(near(bn->running_var.cpu(), ref->running_var.cpu(), 1e-4));
    {
        compat::AutocastScope autocast(true, torch::kCUDA, torch::kBFloat16);
        EXPECT_EQ(syncBatchNorm(*bn, input.to(torch::kBFloat16), [](torch::Tensor &) {}).scalar_type(),
                  torch::kBFloat16);
    }
}

// ---- the conversion ----------------------------------------------------------------------------

TEST(ConvertToSyncBatchNorm, ResNet18KeepsItsTensorsAndNamesAndAloneEqualsTheUnconvertedModel)
{
    auto model = resnet18();
    auto plain = resnet18();
    std::map<std::string, torch::Tensor> before;
    for (const auto &item : model->named_parameters())
        before[item.key()] = item.value();
    for (const auto &item : model->named_buffers())
        before[item.key()] = item.value();

    int calls = 0;
    // One rank: the sum over the ranks is the tensor itself.
    const int converted = convertToSyncBatchNorm(*model, [&calls](torch::Tensor &) { ++calls; });
    EXPECT_EQ(converted, 20); // the stem, two per basic block (8 blocks), three downsamples

    std::map<std::string, torch::Tensor> after;
    for (const auto &item : model->named_parameters())
        after[item.key()] = item.value();
    for (const auto &item : model->named_buffers())
        after[item.key()] = item.value();
    ASSERT_EQ(after.size(), before.size());
    for (const auto &[name, tensor] : before) {
        ASSERT_TRUE(after.count(name)) << name;
        EXPECT_TRUE(after.at(name).is_same(tensor)) << name;
    }
    EXPECT_TRUE(after.count("layer2.0.downsample.1.running_var"));
    EXPECT_TRUE(after.count("bn1.num_batches_tracked"));

    model->train();
    plain->train();
    torch::manual_seed(3);
    const torch::Tensor x = torch::randn({4, 3, 64, 64});
    const torch::Tensor y = model->forward(x);
    const torch::Tensor expected = plain->forward(x);
    EXPECT_TRUE(near(y, expected));
    EXPECT_EQ(calls, 20);
    y.sum().backward();
    expected.sum().backward();
    EXPECT_EQ(calls, 40);
    const auto planeParams = plain->named_parameters();
    for (const auto &item : model->named_parameters())
        EXPECT_TRUE(near(item.value().grad(), planeParams[item.key()].grad(), 1e-4)) << item.key();
    const auto plainBuffers = plain->named_buffers();
    for (const auto &item : model->named_buffers())
        EXPECT_TRUE(near(item.value(), plainBuffers[item.key()])) << item.key();

    // An empty function gives the layers their own forward back.
    EXPECT_EQ(convertToSyncBatchNorm(*model, nullptr), 20);
    model->forward(x);
    EXPECT_EQ(calls, 40);
}

TEST(ConvertToSyncBatchNorm, TwoRanksOfAConvertedResNet18EqualOneModelOnTheWholeBatch)
{
    torch::manual_seed(4);
    const torch::Tensor x = torch::randn({6, 3, 48, 48});
    const torch::Tensor upstream = torch::randn({6, 10});
    auto whole = resnet18();
    whole->train();
    const torch::Tensor expected = whole->forward(x);
    (expected * upstream).sum().backward();

    std::vector<std::shared_ptr<models::Classifier>> replicas{resnet18(), resnet18()};
    std::vector<torch::Tensor> outputs(2);
    onTwoRanks([&](int rank, RankGroup &group) {
        models::Classifier &model = *replicas[std::size_t(rank)];
        EXPECT_EQ(convertToSyncBatchNorm(model, [&group](torch::Tensor &t) { group.allReduceSum(t); }), 20);
        model.train();
        const torch::Tensor y = model.forward(x.narrow(0, 3 * rank, 3));
        (y * upstream.narrow(0, 3 * rank, 3)).sum().backward();
        outputs[std::size_t(rank)] = y.detach();
    });

    EXPECT_TRUE(near(torch::cat(outputs), expected, 1e-4));
    const auto grads0 = replicas[0]->named_parameters(), grads1 = replicas[1]->named_parameters();
    for (const auto &item : whole->named_parameters())
        EXPECT_TRUE(near(grads0[item.key()].grad() + grads1[item.key()].grad(), item.value().grad(), 1e-4))
            << item.key();
    const auto buffers0 = replicas[0]->named_buffers();
    for (const auto &item : whole->named_buffers())
        EXPECT_TRUE(near(buffers0[item.key()], item.value())) << item.key();
}

TEST(ConvertToSyncBatchNorm, MobileNetV3AndEfficientNetConvertEveryBatchNorm)
{
    HeadOptions head;
    head.numClasses = 4;
    for (const char *arch : {"mobilenet_v3_small", "efficientnet_b0"}) {
        auto model = models::createClassifier(arch, 3, head);
        int batchNorms = 0;
        for (const auto &m : model->modules())
            batchNorms += m->as<torch::nn::BatchNorm2d>() != nullptr;
        EXPECT_GT(batchNorms, 10) << arch;
        EXPECT_EQ(convertToSyncBatchNorm(*model, [](torch::Tensor &) {}), batchNorms) << arch;
    }
}

// models::batchNorm runs the handed-over forward only while the layer trains, and an empty
// function gives the layer its own back.
TEST(ConvertToSyncBatchNorm, HandedOverWhileTrainingAndGivenBack)
{
    torch::nn::BatchNorm2d bn(3);
    torch::nn::Sequential model(bn);
    int calls = 0;
    EXPECT_EQ(convertToSyncBatchNorm(*model, [&calls](torch::Tensor &) { ++calls; }), 1);
    EXPECT_TRUE(models::hasBatchNormForward(*bn));
    const torch::Tensor x = torch::randn({4, 3, 5, 5});
    bn->train();
    models::batchNorm(*bn, x);
    EXPECT_GT(calls, 0);
    EXPECT_EQ(convertToSyncBatchNorm(*model, nullptr), 1);
    EXPECT_FALSE(models::hasBatchNormForward(*bn));
    calls = 0;
    models::batchNorm(*bn, x);
    EXPECT_EQ(calls, 0);
}

// ---- eval mode ---------------------------------------------------------------------------------

TEST(ConvertToSyncBatchNorm, EvalModeUsesRunningStatisticsWithoutCommunication)
{
    torch::manual_seed(5);
    torch::nn::BatchNorm2d bn(4);
    torch::nn::BatchNorm2d ref(4);
    {
        torch::NoGradGuard noGrad;
        for (torch::nn::BatchNorm2dImpl *m : {static_cast<torch::nn::BatchNorm2dImpl *>(bn.get()), ref.get()}) {
            m->weight.copy_(torch::tensor({1.5, 0.5, 2.0, 1.0}));
            m->bias.copy_(torch::tensor({0.1, -0.2, 0.3, 0.0}));
            m->running_mean.copy_(torch::tensor({1.0, -2.0, 0.5, 3.0}));
            m->running_var.copy_(torch::tensor({2.0, 0.25, 1.0, 4.0}));
        }
    }
    int calls = 0;
    torch::nn::Sequential model(bn);
    EXPECT_EQ(convertToSyncBatchNorm(*model, [&calls](torch::Tensor &) { ++calls; }), 1);
    model->eval();
    ref->eval();
    const torch::Tensor x = torch::randn({3, 4, 6, 6}, torch::requires_grad());
    const torch::Tensor y = model->forward(x);
    EXPECT_TRUE(near(y, ref->forward(x)));
    y.sum().backward();
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 0);

    // BatchNorm freezing puts the converted layers of a backbone in eval mode, and they stay
    // silent while the rest trains.
    auto resnet = resnet18();
    EXPECT_EQ(convertToSyncBatchNorm(*resnet, [&calls](torch::Tensor &) { ++calls; }), 20);
    resnet->train();
    FreezeOptions freeze;
    freeze.freezeBatchNorm = true;
    applyBatchNormFreezing(*resnet, backboneInfo("resnet18"), freeze);
    resnet->forward(torch::randn({2, 3, 32, 32})).sum().backward();
    EXPECT_EQ(calls, 0);
}
