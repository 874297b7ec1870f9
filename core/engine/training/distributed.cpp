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

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace lathe::engine {
namespace {

constexpr auto kHeartbeatInterval = std::chrono::seconds(1);
constexpr auto kHeartbeatTimeout = std::chrono::seconds(5);
constexpr auto kLostRankWatch = std::chrono::seconds(3);
const std::string kAbortKey = "abort";

struct HostPort
{
    std::string host;
    int port = 0;
};

HostPort parseMaster(const std::string &master)
{
    const std::size_t colon = master.rfind(':');
    if (master.empty() || colon == std::string::npos || colon == 0 || colon + 1 == master.size())
        throw EngineError("distributed.master: expected HOST:PORT (got \"" + master + "\")");
    HostPort hp;
    hp.host = master.substr(0, colon);
    if (hp.host.size() > 2 && hp.host.front() == '[' && hp.host.back() == ']')
        hp.host = hp.host.substr(1, hp.host.size() - 2);
    try {
        std::size_t used = 0;
        hp.port = std::stoi(master.substr(colon + 1), &used);
        if (used != master.size() - colon - 1)
            hp.port = -1;
    } catch (const std::exception &) {
        hp.port = -1;
    }
    if (hp.port <= 0 || hp.port > 65535)
        throw EngineError("distributed.master: invalid port in \"" + master + "\"");
    return hp;
}

c10::intrusive_ptr<c10d::Store> connectStore(const HostPort &hp, bool isServer, std::chrono::milliseconds timeout)
{
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(hp.port);
    options.isServer = isServer;
    options.numWorkers = c10::nullopt;
    options.waitWorkers = false;
    options.timeout = timeout;
    return c10::make_intrusive<c10d::TCPStore>(hp.host, options);
}

// Runs work on a thread of its own and waits at most limit for it; false when the time ran out
// (the thread is then left to the process's end). A TCPStore client has no receive timeout, so a
// store that accepted the connection but never answers would otherwise block its caller for ever.
// The work's exception is rethrown here.
bool finishesWithin(std::function<void()> work, std::chrono::milliseconds limit)
{
    auto task = std::make_shared<std::packaged_task<void()>>(std::move(work));
    std::future<void> done = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (done.wait_for(limit) == std::future_status::timeout)
        return false;
    done.get();
    return true;
}

// An exception's message without c10's backtrace (c10::Error::what() appends one).
std::string messageOf(const std::exception &e)
{
    if (const auto *c10Error = dynamic_cast<const c10::Error *>(&e))
        return c10Error->what_without_backtrace();
    return e.what();
}

// This machine's address on the route to host: the interface other processes reach us on. A
// host name resolving to 127.0.1.1 (Debian's /etc/hosts) or the same name on every machine
// would otherwise give the peers an address they cannot use.
std::string localAddressTowards(const std::string &host)
{
    addrinfo hints{};
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo *found = nullptr;
    if (getaddrinfo(host.c_str(), "9", &hints, &found) != 0 || !found)
        return {};
    std::string address;
    const int fd = ::socket(found->ai_family, SOCK_DGRAM, 0);
    if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
        sockaddr_storage local{};
        socklen_t length = sizeof local;
        char text[INET6_ADDRSTRLEN] = {};
        if (::getsockname(fd, reinterpret_cast<sockaddr *>(&local), &length) == 0) {
            const void *raw = local.ss_family == AF_INET6
                                  ? static_cast<const void *>(&reinterpret_cast<sockaddr_in6 *>(&local)->sin6_addr)
                                  : static_cast<const void *>(&reinterpret_cast<sockaddr_in *>(&local)->sin_addr);
            if (inet_ntop(local.ss_family, raw, text, sizeof text))
                address = text;
        }
    }
    if (fd >= 0)
        ::close(fd);
    freeaddrinfo(found);
    return address;
}

} // namespace

// The heartbeat's state, shared with its thread. A store call on a connection whose peer is cut
// off blocks in recv() for as long as TCP retries (TCPStore sets no receive timeout), so nobody
// waits on the thread unbounded: callers wait on this state with a timeout, and a thread stuck
// in the store is left behind when the process ends.
struct Heartbeat
{
    std::mutex mutex;
    std::condition_variable cv;
    bool stop = false;
    bool exited = false;
    bool wantSnapshot = false;
    int snapshotWorld = 0;
    std::uint64_t snapshots = 0;
    std::vector<std::int64_t> snapshot; // every rank's counter, when asked
    c10::intrusive_ptr<c10d::Store> store;
    std::vector<int> ranks;

    static std::string key(int rank) { return "alive/" + std::to_string(rank); }

    void run()
    {
        std::unique_lock<std::mutex> lock(mutex);
        while (!stop) {
            const bool snap = wantSnapshot;
            const int world = snapshotWorld;
            lock.unlock();
            std::vector<std::int64_t> values;
            bool ok = true;
            try {
                for (int rank : ranks)
                    store->add(key(rank), 1);
                for (int r = 0; snap && r < world; ++r)
                    values.push_back(store->add(key(r), 0));
            } catch (const std::exception &) {
                ok = false; // out of reach: the snapshot does not come, and lostRanks() says so
            }
            lock.lock();
            if (ok && snap) {
                snapshot = std::move(values);
                ++snapshots;
                wantSnapshot = false;
                cv.notify_all();
            }
            cv.wait_for(lock, kHeartbeatInterval, [this] { return stop || wantSnapshot; });
        }
        exited = true;
        cv.notify_all();
    }

    // Every rank's counter, read by the heartbeat's thread; false when the store does not answer
    // within kHeartbeatTimeout.
    bool read(int world, std::vector<std::int64_t> &out)
    {
        std::unique_lock<std::mutex> lock(mutex);
        const std::uint64_t before = snapshots;
        wantSnapshot = true;
        snapshotWorld = world;
        cv.notify_all();
        if (!cv.wait_for(lock, kHeartbeatTimeout, [&] { return snapshots > before; }))
            return false;
        out = snapshot;
        return true;
    }
};

struct RankRendezvous::Impl
{
    c10::intrusive_ptr<c10d::Store> store; // the run's keys, under the launch's prefix
    std::string master;
    std::chrono::milliseconds timeout{0};
    HostPort address;
    std::string prefix;
    std::string hint; // appended to store failures: what they usually mean under torchrun
    std::shared_ptr<Heartbeat> heartbeat;

    // The store for one rank's process group. Over TCP each rank has a connection of its own: a
    // TCPStore client serves one request at a time, so ranks of one process sharing it would
    // queue behind each other's blocking waits and never post their own keys.
    c10::intrusive_ptr<c10d::Store> rankStore(const std::string &backend) const
    {
        if (master.empty())
            return c10::make_intrusive<c10d::PrefixStore>(backend, store);
        auto own = c10::make_intrusive<c10d::PrefixStore>(prefix, connectStore(address, false, timeout));
        return c10::make_intrusive<c10d::PrefixStore>(backend, own);
    }

    ~Impl()
    {
        if (!heartbeat)
            return;
        std::unique_lock<std::mutex> lock(heartbeat->mutex);
        heartbeat->stop = true;
        heartbeat->cv.notify_all();
        // A round takes milliseconds; a thread blocked in the store (a cut network) is left to the
        // process's end.
        heartbeat->cv.wait_for(lock, std::chrono::seconds(2), [this] { return heartbeat->exited; });
    }
};

RankRendezvous::~RankRendezvous() = default;

std::shared_ptr<RankRendezvous> RankRendezvous::inProcess()
{
    auto r = std::make_shared<RankRendezvous>();
    r->m_impl = std::make_unique<Impl>();
    r->m_impl->store = c10::make_intrusive<c10d::HashStore>();
    r->m_impl->timeout = std::chrono::minutes(10);
    return r;
}

std::shared_ptr<RankRendezvous> RankRendezvous::tcp(const DistributedLaunch &launch)
{
    const HostPort hp = parseMaster(launch.master);
    const std::chrono::milliseconds timeout = std::chrono::seconds(launch.timeoutSeconds);
    auto r = std::make_shared<RankRendezvous>();
    r->m_impl = std::make_unique<Impl>();
    Impl &d = *r->m_impl;
    d.master = launch.master;
    d.timeout = timeout;
    d.address = hp;
    d.prefix = launch.storePrefix;
    if (launch.source == "torchrun")
        d.hint = ". Under torchrun the store is its agent's: when torchrun comes from another PyTorch version than "
                 "this lathe-cli's LibTorch " TORCH_VERSION ", their store protocols differ; build lathe-cli "
                 "against torchrun's PyTorch";
    // The first contact, connection and one question, is bounded: a store that accepts but never
    // answers is one speaking another protocol (torchrun's agent from another PyTorch version) or
    // a network cut after the handshake.
    std::shared_ptr<c10::intrusive_ptr<c10d::Store>> connected = std::make_shared<c10::intrusive_ptr<c10d::Store>>();
    bool answered = false;
    try {
        answered = finishesWithin(
            [connected, hp, launch, timeout] {
                auto store = c10::make_intrusive<c10d::PrefixStore>(launch.storePrefix,
                                                                    connectStore(hp, launch.hostsStore, timeout));
                store->check({kAbortKey});
                *connected = store;
            },
            timeout + std::chrono::seconds(5));
    } catch (const std::exception &e) {
        throw EngineError("distributed.master: " + launch.describe() + " cannot " +
                          (launch.hostsStore ? "serve" : "reach") + " the rendezvous store at " + launch.master +
                          " within " + std::to_string(launch.timeoutSeconds) + " s: " + messageOf(e) + d.hint);
    }
    if (!answered)
        throw EngineError("distributed.master: " + launch.describe() + " reached the rendezvous store at " +
                          launch.master + " but it did not answer within " + std::to_string(launch.timeoutSeconds) +
                          " s" + d.hint);
    d.store = *connected;
    return r;
}

void RankRendezvous::set(const std::string &key, const std::string &value)
{
    const Impl &d = *m_impl;
    try {
        d.store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
    } catch (const std::exception &e) {
        throw EngineError("distributed: the rendezvous store" + (d.master.empty() ? "" : " at " + d.master) +
                          " failed while writing \"" + key + "\": " + messageOf(e) + d.hint);
    }
}

std::string RankRendezvous::get(const std::string &key)
{
    Impl &d = *m_impl;
    const auto deadline = std::chrono::steady_clock::now() + d.timeout;
    try {
        while (true) {
            if (d.store->check({key})) {
                const std::vector<std::uint8_t> v = d.store->get(key);
                return std::string(v.begin(), v.end());
            }
            if (d.store->check({kAbortKey})) {
                const std::vector<std::uint8_t> v = d.store->get(kAbortKey);
                throw EngineError("distributed: rank 0's process stopped the run: " + std::string(v.begin(), v.end()));
            }
            if (std::chrono::steady_clock::now() > deadline)
                throw EngineError("distributed: no \"" + key + "\" in the rendezvous store" +
                                  (d.master.empty() ? "" : " at " + d.master) + " within " +
                                  std::to_string(d.timeout.count() / 1000) + " s (distributed.timeout_seconds)");
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        throw EngineError("distributed: the rendezvous store" + (d.master.empty() ? "" : " at " + d.master) +
                          " failed while waiting for \"" + key + "\": " + messageOf(e) + d.hint);
    }
}

void RankRendezvous::abort(const std::string &reason)
{
    set(kAbortKey, reason);
}

void RankRendezvous::startHeartbeat(const std::vector<int> &ranks)
{
    Impl &d = *m_impl;
    if (d.master.empty() || d.heartbeat)
        return; // one process: its ranks live and die together
    auto h = std::make_shared<Heartbeat>();
    h->store = c10::make_intrusive<c10d::PrefixStore>(d.prefix, connectStore(d.address, false, kHeartbeatTimeout));
    h->ranks = ranks;
    d.heartbeat = h;
    std::thread([h] { h->run(); }).detach();
}

std::string RankRendezvous::lostRanks(int worldSize, int myRank)
{
    Impl &d = *m_impl;
    if (!d.heartbeat)
        return {};
    std::vector<std::int64_t> before;
    std::vector<std::int64_t> after;
    bool answered = d.heartbeat->read(worldSize, before);
    if (answered) {
        std::this_thread::sleep_for(kLostRankWatch);
        answered = d.heartbeat->read(worldSize, after);
    }
    if (!answered)
        return "the rendezvous store at " + d.master + " is out of reach (no answer within " +
               std::to_string(kHeartbeatTimeout.count()) + " s): rank 0's machine or the network to it is gone";
    std::string lost;
    int count = 0;
    for (int r = 0; r < worldSize; ++r)
        if (r != myRank && after[std::size_t(r)] == before[std::size_t(r)])
            lost += (count++ ? ", " : "") + std::to_string(r);
    if (!count)
        return {};
    return std::string(count == 1 ? "lost rank " : "lost ranks ") + lost + " (no heartbeat for " +
           std::to_string(kLostRankWatch.count()) + " s: the process ended or its machine is cut off)";
}

struct RankGroup::Impl
{
    std::shared_ptr<RankRendezvous> rendezvous;
    c10::intrusive_ptr<compat::CollectiveGroup> group;
};

RankGroup::RankGroup(const std::shared_ptr<RankRendezvous> &rendezvous, int rank, int worldSize,
                     const torch::Device &device, const std::string &master, std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>())
    , m_rank(rank)
    , m_worldSize(worldSize)
{
    m_impl->rendezvous = rendezvous;
    // A prefix per backend keeps the keys of a Gloo and an NCCL group apart in one store.
    try {
        if (device.is_cuda()) {
#ifdef LATHE_HAVE_NCCL
            auto store = rendezvous->m_impl->rankStore("nccl");
            auto options = c10d::ProcessGroupNCCL::Options::create();
            options->timeout = timeout;
            m_impl->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, worldSize, options);
#else
            (void)timeout;
            throw EngineError("devices: this build of Lathe has no NCCL, so several CUDA ranks cannot train together");
#endif
        } else {
            auto store = rendezvous->m_impl->rankStore("gloo");
            auto options = c10d::ProcessGroupGloo::Options::create(timeout);
            const char *ifname = std::getenv("GLOO_SOCKET_IFNAME");
            if (master.empty()) {
                // One process: loopback, whatever the host name resolves to (or fails to).
                options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
            } else if (ifname && *ifname) {
                options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
            } else {
                const std::string local = localAddressTowards(parseMaster(master).host);
                options->devices.push_back(local.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                                                         : c10d::ProcessGroupGloo::createDeviceForHostname(local));
            }
            options->threads = 1;
            m_impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
        }
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        fail("joining the process group", e);
    }
}

RankGroup::~RankGroup() = default;

void RankGroup::fail(const std::string &what, const std::exception &e)
{
    const std::string lost = m_impl->rendezvous->lostRanks(m_worldSize, m_rank);
    throw EngineError("distributed: rank " + std::to_string(m_rank) + " of " + std::to_string(m_worldSize) + ": " +
                      what + " failed" + (lost.empty() ? "" : ": " + lost) + " [" + messageOf(e) + "]");
}

void RankGroup::allReduceSum(torch::Tensor &tensor)
{
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    try {
        m_impl->group->allreduce(tensors, options)->wait();
    } catch (const std::exception &e) {
        fail("an all-reduce", e);
    }
}

RankGroup::Pending RankGroup::allReduceSumAsync(torch::Tensor &tensor)
{
    std::vector<at::Tensor> tensors{tensor};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    Pending pending;
    pending.m_group = this;
    try {
        auto work = m_impl->group->allreduce(tensors, options);
        using WorkPtr = decltype(work); // c10d::Work in 2.x, ProcessGroup::Work in 1.13
        pending.m_work = std::make_shared<WorkPtr>(std::move(work));
        pending.m_wait = [](void *w) { (*static_cast<WorkPtr *>(w))->wait(); };
    } catch (const std::exception &e) {
        fail("an all-reduce", e);
    }
    return pending;
}

void RankGroup::Pending::wait()
{
    if (!m_work)
        return;
    const std::shared_ptr<void> work = std::move(m_work);
    try {
        m_wait(work.get());
    } catch (const std::exception &e) {
        m_group->fail("an all-reduce", e);
    }
}

void RankGroup::broadcast(torch::Tensor &tensor, int root)
{
    std::vector<at::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    try {
        m_impl->group->broadcast(tensors, options)->wait();
    } catch (const std::exception &e) {
        fail("a broadcast", e);
    }
}

} // namespace lathe::engine
