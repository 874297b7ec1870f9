#include "engine/base/runtime_info.h"

#include <gtest/gtest.h>

using namespace lathe;

TEST(RuntimeInfo, ReportsTheLibrariesItWasBuiltWith)
{
    const engine::RuntimeInfo info = engine::runtimeInfo();
    EXPECT_EQ(info.lathe, LATHE_VERSION);
    // The LibTorch this tree was configured with (LATHE_LIBTORCH): 2.11 with CUDA 13.0 from the
    // wheel, or Debian's 1.13 without CUDA.
    EXPECT_EQ(info.libtorch, LATHE_EXPECT_LIBTORCH);
    EXPECT_EQ(info.libtorchCuda, LATHE_EXPECT_LIBTORCH_CUDA);
    EXPECT_EQ(info.opencv.rfind("4.", 0), 0u) << info.opencv;
    EXPECT_EQ(info.libjpegTurbo.rfind("2.", 0), 0u) << info.libjpegTurbo;
    EXPECT_GE(info.cudaDevices, 0);
    EXPECT_FALSE(info.parallel.empty());
}

TEST(RuntimeInfo, ThreadsFollowTheRequest)
{
    EXPECT_EQ(engine::configureTorchThreads(1), 1);
    EXPECT_EQ(engine::runtimeInfo().torchThreads, 1);
    EXPECT_GE(engine::configureTorchThreads(0), 1);
}

TEST(RuntimeInfo, DevicesStartWithTheCpu)
{
    const engine::ComputeDevices found = engine::computeDevices();
    ASSERT_FALSE(found.devices.empty());
    EXPECT_EQ(found.devices.front().id, "cpu");
    EXPECT_FALSE(found.devices.front().name.empty());
    EXPECT_EQ(found.devices.front().totalMemory, engine::physicalMemory());
    EXPECT_GT(engine::physicalMemory(), std::uint64_t(64) << 20);
    const int cuda = engine::runtimeInfo().cudaDevices;
    EXPECT_EQ(int(found.devices.size()), 1 + cuda);
    for (int i = 0; i < cuda; ++i)
        EXPECT_EQ(found.devices[std::size_t(i) + 1].id, "cuda:" + std::to_string(i));
    EXPECT_GE(found.driverGpus, cuda);
}
