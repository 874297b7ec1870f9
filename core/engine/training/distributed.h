#pragma once

// Engine-internal: includes LibTorch. The data-parallel ranks' communication, over PyTorch's
// c10d: ProcessGroupGloo for CPU tensors, ProcessGroupNCCL for CUDA tensors (when the build
// has it). c10d types stay in distributed.cpp, the one file compiled with USE_C10D_GLOO.

#include "engine/training/launch.h"

#include <torch/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

// Where the ranks of a run meet: an in-memory store shared by the rank threads of one process,
// or c10d's TCP store at the launch's master (served by the process with launch.hostsStore, or
// by torchrun's agent) when the run spans several processes. One per process, shared by its
// rank threads. Across processes it is also the run's small message board (manifests, config,
// a resumed checkpoint) and carries each process's heartbeat, so that a failed collective can
// name the rank that went away.
class RankRendezvous
{
public:
    static std::shared_ptr<RankRendezvous> inProcess();
    // Throws EngineError naming distributed.master for a malformed address or a store that
    // cannot be reached within the launch's timeout.
    static std::shared_ptr<RankRendezvous> tcp(const DistributedLaunch &launch);
    ~RankRendezvous();

    void set(const std::string &key, const std::string &value);
    // Waits up to the timeout for the key; EngineError naming it and the master otherwise, or
    // with rank 0's reason as soon as rank 0's process has called abort().
    std::string get(const std::string &key);
    void abort(const std::string &reason);

    // Bumps a counter per rank of this process every second, on a connection of its own.
    void startHeartbeat(const std::vector<int> &ranks);
    // After a collective failed: the ranks whose heartbeat stopped (watched for three seconds),
    // or a sentence saying the store itself is out of reach. Empty when every rank answers.
    std::string lostRanks(int worldSize, int myRank);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// One rank's process group. Every call is a collective: all ranks make the same calls in the
// same order with tensors of the same shapes.
class RankGroup
{
public:
    // device "cpu" uses Gloo, "cuda..." NCCL (EngineError when the build lacks it). Blocks until
    // every rank has joined. Gloo over the loopback interface within one process; across
    // processes over the interface that routes to the master (GLOO_SOCKET_IFNAME overrides).
    // A collective that fails or outlasts the timeout throws EngineError naming the lost rank.
    RankGroup(const std::shared_ptr<RankRendezvous> &rendezvous, int rank, int worldSize, const torch::Device &device,
              const std::string &master, std::chrono::milliseconds timeout);
    ~RankGroup();

    int rank() const { return m_rank; }
    int worldSize() const { return m_worldSize; }

    void allReduceSum(torch::Tensor &tensor);          // in place
    void broadcast(torch::Tensor &tensor, int root);   // in place

    // An all-reduce under way (Gloo works on its own threads, NCCL on its own stream). wait()
    // returns when the sum is in the tensor (on CUDA: when the current stream is ordered after
    // it), or throws EngineError as the blocking calls do. Every pending collective must be
    // waited for before the group is destroyed.
    class Pending
    {
    public:
        void wait();

    private:
        friend class RankGroup;
        RankGroup *m_group = nullptr;
        std::shared_ptr<void> m_work; // the c10d work
        void (*m_wait)(void *) = nullptr;
    };
    Pending allReduceSumAsync(torch::Tensor &tensor); // in place, when waited for

private:
    [[noreturn]] void fail(const std::string &what, const std::exception &e);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
    int m_rank = 0;
    int m_worldSize = 1;
};

} // namespace lathe::engine
