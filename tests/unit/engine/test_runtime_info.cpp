#include "runtime_info.h"

#include <gtest/gtest.h>

using namespace lathe;

TEST(RuntimeInfo, ReportsTheLibrariesItWasBuiltWith)
{
    const engine::RuntimeInfo info = engine::runtimeInfo();
    EXPECT_EQ(info.lathe, LATHE_VERSION);
    EXPECT_EQ(info.libtorch.rfind("1.", 0), 0u) << info.libtorch; // Debian 12 ships LibTorch 1.13
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
