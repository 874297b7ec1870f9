#pragma once

// Engine-internal: includes LibTorch. The data-parallel ranks' communication, over PyTorch's
// c10d: ProcessGroupGloo for CPU tensors, ProcessGroupNCCL for CUDA tensors (when the build
// has it). c10d types stay in distributed.cpp, the one file compiled with USE_C10D_GLOO.

#include <torch/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

// Where the ranks of a run meet: an in-memory store shared by the rank threads of one process,
// or a TCP store at "HOST:PORT" (the server lives in the process of node 0) when the run spans
// several machines. One per process, shared by its rank threads.
class RankRendezvous
{
public:
    static std::shared_ptr<RankRendezvous> inProcess();
    // Throws EngineError naming distributed.master for a malformed address or a store that
    // cannot be reached within the timeout.
    static std::shared_ptr<RankRendezvous> tcp(const std::string &master, bool isServer, int worldSize,
                                                std::chrono::milliseconds timeout);
    ~RankRendezvous();

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// One rank's process group. Every call is a collective: all ranks make the same calls in the
// same order with tensors of the same shapes.
class RankGroup
{
public:
    // device "cpu" uses Gloo, "cuda..." NCCL (EngineError when the build lacks it). Blocks until
    // every rank has joined. Gloo over the loopback interface when nnodes is 1.
    RankGroup(const std::shared_ptr<RankRendezvous> &rendezvous, int rank, int worldSize, const torch::Device &device,
              bool multiNode, std::chrono::milliseconds timeout);
    ~RankGroup();

    int rank() const { return m_rank; }
    int worldSize() const { return m_worldSize; }

    void allReduceSum(torch::Tensor &tensor);          // in place
    void broadcast(torch::Tensor &tensor, int root);   // in place

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    int m_rank = 0;
    int m_worldSize = 1;
};

} // namespace lathe::engine
