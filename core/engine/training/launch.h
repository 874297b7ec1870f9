#pragma once

// Torch-free: lathe-cli resolves it, the trainer follows it. How this process takes part in a
// run: the run config's distributed fields merged with what a launcher put in the environment.
//
// Where the values come from, first match wins for each:
//   1. torchrun (or any env:// launcher): RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
//      GROUP_RANK or NODE_RANK, MASTER_ADDR, MASTER_PORT (TORCHELASTIC_* when torchrun);
//   2. Slurm (srun): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID, SLURM_NNODES,
//      the first host of SLURM_JOB_NODELIST (MASTER_ADDR and MASTER_PORT when set; port 29500
//      otherwise);
//   3. the run config (lathe-cli's --nnodes, --node-rank, --master).
// torchrun inside an srun allocation is the usual nesting, so torchrun's variables win over
// Slurm's without a conflict. A run-config value that differs from its default and from the
// launcher's is refused, naming both.
//
// Processes and ranks: a process trains one rank per device in its devices list, so
// global rank = processIndex * local ranks + local rank, world = processes * local ranks. A
// launcher that starts several processes on one machine (torchrun --nproc-per-node N, srun
// --ntasks-per-node N) gives each process the one device its local rank picks.

#include "engine/run/run_config.h"

#include <map>
#include <string>
#include <vector>

namespace lathe::engine {

using LaunchEnvironment = std::map<std::string, std::string>;

struct DistributedLaunch
{
    std::string source = "config"; // "config", "torchrun", "env" (RANK/WORLD_SIZE without torchrun), "slurm"
    int nnodes = 1;                // machines
    int nodeRank = 0;              // this machine
    int processes = 1;             // processes in the run
    int processIndex = 0;          // this one among them
    int localProcess = -1;         // this process on its machine when the launcher starts several; else -1
    int localProcesses = 1;        // processes the launcher started on this machine
    std::string master;            // "HOST:PORT" of the rendezvous store
    bool hostsStore = false;       // this process runs the store's server (not under torchrun: its agent does)
    std::string storePrefix;       // the run's keys in the store
    int timeoutSeconds = 300;      // distributed.timeout_seconds

    bool multiProcess() const { return processes > 1; }
    // "node 1 (process 1 of 2, torchrun)": for messages.
    std::string describe() const;
};

// The variables resolveLaunch reads, taken from this process's environment.
LaunchEnvironment processLaunchEnvironment();

// Throws EngineError naming the variable or field, and both values of a conflict.
DistributedLaunch resolveLaunch(const DistributedConfig &config, const LaunchEnvironment &env);

// The devices of this process's ranks: all of `devices` when the process is alone on its machine;
// the one its local rank picks when the launcher started several (the local rank's entry when
// the list names one device per local process, "cuda:LOCAL_RANK" for a single "cuda" entry,
// "cpu" for CPU lists). Throws EngineError when the list cannot be shared that way.
std::vector<std::string> launchDevices(const DistributedLaunch &launch, const std::vector<std::string> &devices);

// The first host of a Slurm node list: "gpu[07-09,12],cpu01" -> "gpu07".
std::string firstSlurmHost(const std::string &nodelist);

} // namespace lathe::engine
