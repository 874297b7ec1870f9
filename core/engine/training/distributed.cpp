#include "engine/training/distributed.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef LATHE_HAVE_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <exception>

namespace lathe::engine {

struct RankRendezvous::Impl
{
    c10::intrusive_ptr<c10d::Store> store;
};

RankRendezvous::~RankRendezvous() = default;

std::shared_ptr<RankRendezvous> RankRendezvous::inProcess()
{
    auto r = std::make_shared<RankRendezvous>();
    r->m_impl = std::make_unique<Impl>();
    r->m_impl->store = c10::make_intrusive<c10d::HashStore>();
    return r;
}

std::shared_ptr<RankRendezvous> RankRendezvous::tcp(const std::string &master, bool isServer, int worldSize,
                                                    std::chrono::milliseconds timeout)
{
    const std::size_t colon = master.rfind(':');
    if (master.empty() || colon == std::string::npos || colon == 0 || colon + 1 == master.size())
        throw EngineError("distributed.master: expected HOST:PORT (got \"" + master + "\")");
    const std::string host = master.substr(0, colon);
    int port = 0;
    try {
        std::size_t used = 0;
        port = std::stoi(master.substr(colon + 1), &used);
        if (used != master.size() - colon - 1)
            port = -1;
    } catch (const std::exception &) {
        port = -1;
    }
    if (port <= 0 || port > 65535)
        throw EngineError("distributed.master: invalid port in \"" + master + "\"");
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(port);
    options.isServer = isServer;
    options.numWorkers = c10::nullopt;
    options.waitWorkers = false;
    options.timeout = timeout;
    auto r = std::make_shared<RankRendezvous>();
    r->m_impl = std::make_unique<Impl>();
    try {
        r->m_impl->store = c10::make_intrusive<c10d::TCPStore>(host, options);
    } catch (const std::exception &e) {
        throw EngineError("distributed.master: cannot reach the rendezvous store at " + master + ": " + e.what());
    }
    (void)worldSize;
    return r;
}

struct RankGroup::Impl
{
    c10::intrusive_ptr<compat::CollectiveGroup> group;
};

RankGroup::RankGroup(const std::shared_ptr<RankRendezvous> &rendezvous, int rank, int worldSize,
                     const torch::Device &device, bool multiNode, std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>())
    , m_rank(rank)
    , m_worldSize(worldSize)
{
    // A prefix per backend keeps the keys of a Gloo and an NCCL group apart in one store.
    try {
        if (device.is_cuda()) {
#ifdef LATHE_HAVE_NCCL
            auto store = c10::make_intrusive<c10d::PrefixStore>("lathe/nccl", rendezvous->m_impl->store);
            auto options = c10d::ProcessGroupNCCL::Options::create();
            options->timeout = timeout;
            m_impl->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, worldSize, options);
#else
            (void)timeout;
            throw EngineError("devices: this build of Lathe has no NCCL, so several CUDA ranks cannot train together");
#endif
        } else {
            auto store = c10::make_intrusive<c10d::PrefixStore>("lathe/gloo", rendezvous->m_impl->store);
            auto options = c10d::ProcessGroupGloo::Options::create(timeout);
            // One process: loopback, whatever the host name resolves to (or fails to).
            options->devices.push_back(multiNode ? c10d::ProcessGroupGloo::createDefaultDevice()
                                                 : c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
            options->threads = 1;
            m_impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
        }
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        throw EngineError("distributed: rank " + std::to_string(rank) + " of " + std::to_string(worldSize) +
                          " could not join the process group: " + e.what());
    }
}

RankGroup::~RankGroup() = default;

void RankGroup::allReduceSum(torch::Tensor &tensor)
{
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    m_impl->group->allreduce(tensors, options)->wait();
}

void RankGroup::broadcast(torch::Tensor &tensor, int root)
{
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    m_impl->group->broadcast(tensors, options)->wait();
}

} // namespace lathe::engine
