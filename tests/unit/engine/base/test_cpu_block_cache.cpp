// The programs' cache of large CPU blocks (base/cpu_block_cache.h), installed in this test's own
// process: freed blocks come back to the next allocation of their class, the cap holds, the
// profiler's memory reports (the memory estimate) still see every byte, and training gives the
// same numbers as with LibTorch's allocator.
#include "engine/base/cpu_block_cache.h"
#include "engine/run/run_config.h"
#include "engine/training/memory_estimate.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace lathe::engine;

namespace {

constexpr std::size_t kCap = std::size_t(64) << 20;

// The same small training run before and after the cache is installed.
std::vector<float> trainFewSteps()
{
    torch::manual_seed(5);
    torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).padding(1)), torch::nn::ReLU(),
                              torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 8, 3).padding(1)));
    torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    const torch::Tensor x = torch::randn({8, 3, 48, 48});
    std::vector<float> losses;
    for (int i = 0; i < 4; ++i) {
        sgd.zero_grad();
        torch::Tensor loss = net->forward(x).pow(2).mean();
        loss.backward();
        sgd.step();
        losses.push_back(loss.item<float>());
    }
    return losses;
}

} // namespace

TEST(CpuBlockCache, ReusesBlocksWithinItsCapAndKeepsResults)
{
    const std::vector<float> before = trainFewSteps();
    RunConfig config;
    config.model.arch = "resnet18";
    config.data.imageSize = 32;
    config.optimizer.batchSize = 4;
    const std::int64_t activationsBefore = estimateTrainingMemory(config, 10).activationsPerImage;

    ASSERT_TRUE(installCpuBlockCache(kCap));
    EXPECT_TRUE(installCpuBlockCache(kCap)); // once is enough
    EXPECT_EQ(cpuBlockCacheStats().capBytes, kCap);

    // A freed large block is the next one of its class; a small one is not cached.
    void *first = nullptr;
    {
        torch::Tensor big = torch::empty({1 << 20}); // 4 MiB
        first = big.data_ptr();
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u); // c10's alignment
    }
    EXPECT_GE(cpuBlockCacheStats().cachedBytes, std::size_t(4) << 20);
    const std::uint64_t hits = cpuBlockCacheStats().hits;
    {
        torch::Tensor again = torch::empty({(1 << 20) - 1000}); // a little smaller: the same class
        EXPECT_EQ(again.data_ptr(), first);
        EXPECT_EQ(cpuBlockCacheStats().hits, hits + 1);
        again.fill_(1.5f);
        EXPECT_FLOAT_EQ(again.sum().item<float>(), 1.5f * float((1 << 20) - 1000));
    }
    {
        torch::Tensor small = torch::ones({100});
        EXPECT_FLOAT_EQ(small.sum().item<float>(), 100.0f);
    }

    // The cap: blocks freed beyond it go back to the system.
    {
        std::vector<torch::Tensor> many;
        for (int i = 0; i < 24; ++i)
            many.push_back(torch::empty({std::int64_t(1) << 20})); // 24 x 4 MiB = 96 MiB
    }
    EXPECT_LE(cpuBlockCacheStats().cachedBytes, kCap);

    // Training and the profiler's memory counts see no difference.
    const std::vector<float> after = trainFewSteps();
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < after.size(); ++i)
        EXPECT_FLOAT_EQ(after[i], before[i]) << i;
    EXPECT_EQ(estimateTrainingMemory(config, 10).activationsPerImage, activationsBefore);
    EXPECT_GT(cpuBlockCacheStats().hits, hits + 1);

    releaseCpuBlockCache();
    EXPECT_EQ(cpuBlockCacheStats().cachedBytes, 0u);
    torch::Tensor afterRelease = torch::full({std::int64_t(1) << 20}, 2.0f);
    EXPECT_FLOAT_EQ(afterRelease.mean().item<float>(), 2.0f);
}

TEST(CpuBlockCache, DefaultCapFollowsTheEnvironment)
{
    setenv("LATHE_CPU_BLOCK_CACHE_MB", "0", 1);
    EXPECT_EQ(defaultCpuBlockCacheBytes(), 0u); // off
    setenv("LATHE_CPU_BLOCK_CACHE_MB", "12.5", 1);
    EXPECT_EQ(defaultCpuBlockCacheBytes(), std::size_t(12.5 * 1024 * 1024));
    unsetenv("LATHE_CPU_BLOCK_CACHE_MB");
    EXPECT_GT(defaultCpuBlockCacheBytes(), 0u);
    EXPECT_LE(defaultCpuBlockCacheBytes(), std::size_t(4) << 30);
}
