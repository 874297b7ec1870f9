#include "engine/training/launch.h"

#include "engine/base/engine_error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using lathe::engine::DistributedConfig;
using lathe::engine::DistributedLaunch;
using lathe::engine::EngineError;
using lathe::engine::LaunchEnvironment;
namespace engine = lathe::engine;

namespace {

// What torchrun --nnodes 2 --nproc-per-node 2 gives the worker of global rank 3.
LaunchEnvironment torchrunRank3()
{
    return {{"RANK", "3"},          {"WORLD_SIZE", "4"},           {"LOCAL_RANK", "1"},
            {"LOCAL_WORLD_SIZE", "2"}, {"GROUP_RANK", "1"},         {"GROUP_WORLD_SIZE", "2"},
            {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29400"},  {"TORCHELASTIC_RUN_ID", "job7"},
            {"TORCHELASTIC_RESTART_COUNT", "2"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}};
}

LaunchEnvironment slurmTask(int procid)
{
    return {{"SLURM_PROCID", std::to_string(procid)},
            {"SLURM_NTASKS", "4"},
            {"SLURM_NNODES", "2"},
            {"SLURM_NODEID", std::to_string(procid / 2)},
            {"SLURM_LOCALID", std::to_string(procid % 2)},
            {"SLURM_JOB_NODELIST", "gpu[07-08]"},
            {"SLURM_JOB_ID", "123"}};
}

std::string errorOf(const DistributedConfig &c, const LaunchEnvironment &env)
{
    try {
        engine::resolveLaunch(c, env);
    } catch (const EngineError &e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST(Launch, ConfigAloneIsOneProcessPerMachine)
{
    DistributedConfig c;
    c.nnodes = 3;
    c.nodeRank = 2;
    c.master = "head:29500";
    const DistributedLaunch l = engine::resolveLaunch(c, {});
    EXPECT_EQ(l.source, "config");
    EXPECT_EQ(l.processes, 3);
    EXPECT_EQ(l.processIndex, 2);
    EXPECT_EQ(l.master, "head:29500");
    EXPECT_FALSE(l.hostsStore);
    EXPECT_TRUE(engine::resolveLaunch(DistributedConfig{}, {}).hostsStore);
    EXPECT_FALSE(engine::resolveLaunch(DistributedConfig{}, {}).multiProcess());
}

TEST(Launch, TorchrunOneProcessPerDevice)
{
    const DistributedLaunch l = engine::resolveLaunch(DistributedConfig{}, torchrunRank3());
    EXPECT_EQ(l.source, "torchrun");
    EXPECT_EQ(l.processes, 4);
    EXPECT_EQ(l.processIndex, 3);
    EXPECT_EQ(l.nnodes, 2);
    EXPECT_EQ(l.nodeRank, 1);
    EXPECT_EQ(l.localProcess, 1);
    EXPECT_EQ(l.localProcesses, 2);
    EXPECT_EQ(l.master, "10.0.0.1:29400");
    EXPECT_FALSE(l.hostsStore) << "torchrun's agent serves the store";
    EXPECT_EQ(l.storePrefix, "lathe/job7/attempt-2/");
    // Each process takes the device of its local rank.
    EXPECT_EQ(engine::launchDevices(l, {"cuda"}), std::vector<std::string>{"cuda:1"});
    EXPECT_EQ(engine::launchDevices(l, {"cuda:4", "cuda:6"}), std::vector<std::string>{"cuda:6"});
    EXPECT_EQ(engine::launchDevices(l, {"cpu"}), std::vector<std::string>{"cpu"});
    EXPECT_THROW(engine::launchDevices(l, {"cuda:0", "cuda:1", "cuda:2"}), EngineError);
}

TEST(Launch, PlainEnvLauncherHostsItsOwnStore)
{
    // RANK/WORLD_SIZE set by hand or by another launcher, one process per machine.
    const LaunchEnvironment env{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h0"}, {"MASTER_PORT", "1234"}};
    const DistributedLaunch l = engine::resolveLaunch(DistributedConfig{}, env);
    EXPECT_EQ(l.source, "env");
    EXPECT_EQ(l.nnodes, 2);
    EXPECT_TRUE(l.hostsStore);
    EXPECT_EQ(l.localProcess, -1);
    EXPECT_EQ(engine::launchDevices(l, {"cpu", "cpu"}), (std::vector<std::string>{"cpu", "cpu"}));
}

TEST(Launch, SlurmTasks)
{
    const DistributedLaunch l = engine::resolveLaunch(DistributedConfig{}, slurmTask(2));
    EXPECT_EQ(l.source, "slurm");
    EXPECT_EQ(l.processes, 4);
    EXPECT_EQ(l.processIndex, 2);
    EXPECT_EQ(l.nodeRank, 1);
    EXPECT_EQ(l.localProcess, 0);
    EXPECT_EQ(l.master, "gpu07:29500");
    EXPECT_FALSE(l.hostsStore);
    EXPECT_TRUE(engine::resolveLaunch(DistributedConfig{}, slurmTask(0)).hostsStore);
    LaunchEnvironment withPort = slurmTask(1);
    withPort["MASTER_PORT"] = "4000";
    EXPECT_EQ(engine::resolveLaunch(DistributedConfig{}, withPort).master, "gpu07:4000");
}

TEST(Launch, TorchrunInsideSlurmFollowsTorchrun)
{
    LaunchEnvironment env = slurmTask(1);
    for (const auto &e : torchrunRank3())
        env[e.first] = e.second;
    EXPECT_EQ(engine::resolveLaunch(DistributedConfig{}, env).source, "torchrun");
}

TEST(Launch, ConflictsNameBothValues)
{
    DistributedConfig c;
    c.nnodes = 3;
    std::string e = errorOf(c, torchrunRank3());
    EXPECT_NE(e.find("distributed.nnodes is 3"), std::string::npos) << e;
    EXPECT_NE(e.find("2 machines"), std::string::npos) << e;

    c = DistributedConfig{};
    c.nnodes = 2;
    c.nodeRank = 0;
    c.master = "10.0.0.9:29400";
    e = errorOf(c, torchrunRank3());
    EXPECT_NE(e.find("distributed.master is \"10.0.0.9:29400\""), std::string::npos) << e;
    EXPECT_NE(e.find("\"10.0.0.1:29400\""), std::string::npos) << e;

    c = DistributedConfig{};
    c.nnodes = 2;
    c.nodeRank = 1;
    e = errorOf(c, slurmTask(0));
    EXPECT_NE(e.find("distributed.node_rank is 1"), std::string::npos) << e;

    // Agreeing values are fine.
    c = DistributedConfig{};
    c.nnodes = 2;
    c.nodeRank = 1;
    c.master = "10.0.0.1:29400";
    EXPECT_EQ(errorOf(c, torchrunRank3()), "");
}

TEST(Launch, BadVariablesAreNamed)
{
    LaunchEnvironment env = torchrunRank3();
    env["RANK"] = "4";
    EXPECT_NE(errorOf({}, env).find("RANK=4"), std::string::npos);
    env = torchrunRank3();
    env["WORLD_SIZE"] = "four";
    EXPECT_NE(errorOf({}, env).find("WORLD_SIZE=four"), std::string::npos);
    env = torchrunRank3();
    env.erase("MASTER_PORT");
    EXPECT_NE(errorOf({}, env).find("MASTER_PORT"), std::string::npos);
    LaunchEnvironment slurm = slurmTask(0);
    slurm["SLURM_NTASKS"] = "3";
    EXPECT_NE(errorOf({}, slurm).find("SLURM_NTASKS=3"), std::string::npos);
}

TEST(Launch, FirstSlurmHost)
{
    EXPECT_EQ(engine::firstSlurmHost("gpu[07-09,12],cpu01"), "gpu07");
    EXPECT_EQ(engine::firstSlurmHost("node1,node2"), "node1");
    EXPECT_EQ(engine::firstSlurmHost("a[3]"), "a3");
    EXPECT_EQ(engine::firstSlurmHost("solo"), "solo");
}
