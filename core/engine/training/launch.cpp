#include "engine/training/launch.h"

#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace lathe::engine {
namespace {

const char *const kVariables[] = {
    "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "NODE_RANK",
    "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_USE_AGENT_STORE",
    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NNODES", "SLURM_JOB_NUM_NODES",
    "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_JOB_ID"};

constexpr int kSlurmDefaultPort = 29500;

// Reads the launcher's variables, each checked once, and remembers which one gave a value so
// that a conflict names it.
class Variables
{
public:
    Variables(const LaunchEnvironment &env, std::string launcher)
        : m_env(env)
        , m_launcher(std::move(launcher))
    {
    }

    bool has(const std::string &name) const { return m_env.count(name) && !m_env.at(name).empty(); }
    std::string text(const std::string &name) const { return has(name) ? m_env.at(name) : std::string(); }
    std::string shown(const std::string &name) const { return name + "=" + text(name); }

    int integer(const std::string &name, int lo, int hi) const
    {
        const std::string &v = m_env.at(name);
        std::size_t used = 0;
        long value = -1;
        try {
            value = std::stol(v, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used != v.size() || value < lo || value > hi)
            throw EngineError(m_launcher + "'s environment: " + shown(name) + " is not an integer in [" +
                              std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return int(value);
    }

    std::string master(const std::string &host, const std::string &hostFrom, int port) const
    {
        if (host.empty())
            throw EngineError(m_launcher + "'s environment: " + hostFrom + " is not set; several processes need the "
                                                                           "rendezvous host");
        return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
    }

    const std::string &launcher() const { return m_launcher; }

private:
    const LaunchEnvironment &m_env;
    std::string m_launcher;
};

void refuseConflict(const std::string &field, const std::string &configValue, const std::string &launcherValue,
                    const std::string &launcher)
{
    throw EngineError(field + " is " + configValue + " in the run config (or its flag) but " + launcher +
                      "'s environment says " + launcherValue + "; drop one of them or make them agree");
}

void fromTorchrun(DistributedLaunch &l, const Variables &v)
{
    l.source = v.has("TORCHELASTIC_RUN_ID") ? "torchrun" : "env";
    l.processes = v.integer("WORLD_SIZE", 1, 1 << 20);
    l.processIndex = v.integer("RANK", 0, l.processes - 1);
    l.localProcesses = v.has("LOCAL_WORLD_SIZE") ? v.integer("LOCAL_WORLD_SIZE", 1, l.processes) : 1;
    if (l.processes % l.localProcesses != 0)
        throw EngineError(v.launcher() + "'s environment: " + v.shown("WORLD_SIZE") + " is not a multiple of " +
                          v.shown("LOCAL_WORLD_SIZE"));
    l.localProcess = v.has("LOCAL_RANK") ? v.integer("LOCAL_RANK", 0, l.localProcesses - 1) : -1;
    l.nnodes = v.has("GROUP_WORLD_SIZE") ? v.integer("GROUP_WORLD_SIZE", 1, l.processes) : l.processes / l.localProcesses;
    if (v.has("GROUP_RANK"))
        l.nodeRank = v.integer("GROUP_RANK", 0, l.nnodes - 1);
    else if (v.has("NODE_RANK"))
        l.nodeRank = v.integer("NODE_RANK", 0, l.nnodes - 1);
    else
        l.nodeRank = l.processIndex / l.localProcesses;
    if (l.processes > 1) {
        if (!v.has("MASTER_PORT"))
            throw EngineError(v.launcher() + "'s environment: MASTER_PORT is not set; several processes need the "
                                             "rendezvous port");
        l.master = v.master(v.text("MASTER_ADDR"), "MASTER_ADDR", v.integer("MASTER_PORT", 1, 65535));
    }
    // torchrun's agent on node 0 already serves a TCP store at MASTER_ADDR:MASTER_PORT and
    // says so; every worker is then its client. A run restarted by the agent gets fresh keys.
    const bool agentStore = v.text("TORCHELASTIC_USE_AGENT_STORE") == "True";
    l.hostsStore = !agentStore && l.processIndex == 0;
    l.storePrefix = "lathe/" + v.text("TORCHELASTIC_RUN_ID") + "/attempt-" +
                    (v.has("TORCHELASTIC_RESTART_COUNT") ? v.text("TORCHELASTIC_RESTART_COUNT") : "0") + "/";
}

void fromSlurm(DistributedLaunch &l, const Variables &v)
{
    l.source = "slurm";
    l.processes = v.integer("SLURM_NTASKS", 1, 1 << 20);
    l.processIndex = v.integer("SLURM_PROCID", 0, l.processes - 1);
    if (v.has("SLURM_NNODES"))
        l.nnodes = v.integer("SLURM_NNODES", 1, l.processes);
    else if (v.has("SLURM_JOB_NUM_NODES"))
        l.nnodes = v.integer("SLURM_JOB_NUM_NODES", 1, l.processes);
    else
        l.nnodes = l.processes;
    if (l.processes % l.nnodes != 0)
        throw EngineError("Slurm's environment: " + v.shown("SLURM_NTASKS") + " tasks do not spread evenly over " +
                          std::to_string(l.nnodes) + " nodes (give each node the same --ntasks-per-node)");
    l.localProcesses = l.processes / l.nnodes;
    l.nodeRank = v.has("SLURM_NODEID") ? v.integer("SLURM_NODEID", 0, l.nnodes - 1) : l.processIndex / l.localProcesses;
    if (l.localProcesses > 1)
        l.localProcess = v.has("SLURM_LOCALID") ? v.integer("SLURM_LOCALID", 0, l.localProcesses - 1)
                                                : l.processIndex % l.localProcesses;
    if (l.processes > 1) {
        const std::string nodelist = v.has("SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST" : "SLURM_NODELIST";
        const std::string host = v.has("MASTER_ADDR") ? v.text("MASTER_ADDR") : firstSlurmHost(v.text(nodelist));
        const int port = v.has("MASTER_PORT") ? v.integer("MASTER_PORT", 1, 65535) : kSlurmDefaultPort;
        l.master = v.master(host, v.has("MASTER_ADDR") ? "MASTER_ADDR" : nodelist, port);
    }
    l.hostsStore = l.processIndex == 0;
    l.storePrefix = "lathe/slurm-" + v.text("SLURM_JOB_ID") + "/";
}

} // namespace

std::string DistributedLaunch::describe() const
{
    std::string s = "node " + std::to_string(nodeRank) + " of " + std::to_string(nnodes);
    if (processes != nnodes)
        s += ", process " + std::to_string(processIndex) + " of " + std::to_string(processes);
    return s + " (" + source + ")";
}

LaunchEnvironment processLaunchEnvironment()
{
    LaunchEnvironment env;
    for (const char *name : kVariables)
        if (const char *value = std::getenv(name))
            env[name] = value;
    return env;
}

DistributedLaunch resolveLaunch(const DistributedConfig &config, const LaunchEnvironment &env)
{
    DistributedLaunch l;
    l.timeoutSeconds = config.timeoutSeconds;
    const auto has = [&env](const char *name) { return env.count(name) && !env.at(name).empty(); };
    if (has("RANK") && has("WORLD_SIZE")) {
        fromTorchrun(l, Variables(env, has("TORCHELASTIC_RUN_ID") ? "torchrun" : "the launcher (RANK, WORLD_SIZE)"));
    } else if (has("SLURM_PROCID") && has("SLURM_NTASKS")) {
        fromSlurm(l, Variables(env, "Slurm"));
    } else {
        l.nnodes = config.nnodes;
        l.nodeRank = config.nodeRank;
        l.processes = config.nnodes;
        l.processIndex = config.nodeRank;
        l.master = config.master;
        l.hostsStore = config.nodeRank == 0;
        l.storePrefix = "lathe/";
        return l;
    }
    // The run config's defaults (1 machine, node 0, no master) give way to the launcher; any
    // other value must agree with it.
    const std::string launcher = l.source == "slurm" ? "Slurm" : l.source == "torchrun" ? "torchrun" : "the launcher";
    if (config.nnodes != 1 && config.nnodes != l.nnodes)
        refuseConflict("distributed.nnodes", std::to_string(config.nnodes), std::to_string(l.nnodes) + " machines",
                       launcher);
    if (config.nodeRank != 0 && config.nodeRank != l.nodeRank)
        refuseConflict("distributed.node_rank", std::to_string(config.nodeRank), "node " + std::to_string(l.nodeRank),
                       launcher);
    if (!config.master.empty() && config.master != l.master)
        refuseConflict("distributed.master", "\"" + config.master + "\"", "\"" + l.master + "\"", launcher);
    return l;
}

std::vector<std::string> launchDevices(const DistributedLaunch &launch, const std::vector<std::string> &devices)
{
    if (launch.localProcesses <= 1 || launch.localProcess < 0 || devices.empty())
        return devices;
    std::vector<DeviceName> names;
    for (const std::string &d : devices) {
        const std::optional<DeviceName> n = parseDeviceName(d);
        if (!n)
            throw EngineError("devices: unknown device \"" + d + "\" (cpu, cuda, cuda:N)");
        names.push_back(*n);
    }
    const bool allCpu = std::all_of(names.begin(), names.end(), [](const DeviceName &n) { return !n.cuda; });
    if (allCpu)
        return {"cpu"};
    const std::size_t local = std::size_t(launch.localProcess);
    if (names.size() == std::size_t(launch.localProcesses))
        return {names[local].str()};
    if (names.size() == 1 && names.front().cuda)
        return {DeviceName{true, launch.localProcess}.str()};
    throw EngineError("devices: " + std::to_string(launch.localProcesses) +
                      " processes share this machine, so each takes one device: give \"cuda\" (each takes "
                      "cuda:LOCAL_RANK) or one device per process (got " +
                      std::to_string(devices.size()) + ")");
}

std::string firstSlurmHost(const std::string &nodelist)
{
    // "a[1-3,5],b" -> "a1"; "a01,b" -> "a01". Zero padding is kept: it is the first number as written.
    std::string first;
    int depth = 0;
    for (char ch : nodelist) {
        if (ch == '[')
            ++depth;
        else if (ch == ']')
            --depth;
        if (ch == ',' && depth == 0)
            break;
        first += ch;
    }
    const std::size_t open = first.find('[');
    if (open == std::string::npos)
        return first;
    std::string range = first.substr(open + 1);
    const std::size_t end = range.find_first_of(",-]");
    return first.substr(0, open) + range.substr(0, end);
}

} // namespace lathe::engine
