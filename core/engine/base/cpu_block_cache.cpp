#include "engine/base/cpu_block_cache.h"

#include "engine/base/torch_compat.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/impl/alloc_cpu.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include <unistd.h>

namespace lathe::engine {
namespace {

constexpr std::size_t kHeader = 64;                 // before each block: keeps c10's 64-byte alignment
constexpr std::size_t kSmallest = std::size_t(256) << 10; // smaller blocks glibc reuses from its bins

struct Header
{
    std::size_t blockClass; // the rounded size of a cacheable block; 0: not cacheable
    std::size_t requested;  // the bytes asked for, as the profiler was told
};

// Up to eighths of the next power of two: at most 12.5% more than asked, and blocks of nearly
// the same size (a last, smaller batch) share a class.
std::size_t blockClassOf(std::size_t n)
{
    std::size_t power = 1;
    while (power < n)
        power <<= 1;
    const std::size_t step = std::max<std::size_t>(power / 8, 4096);
    return (n + step - 1) / step * step;
}

struct State
{
    std::mutex mutex;
    std::map<std::size_t, std::vector<void *>> free; // by class: blocks with their header
    std::size_t cap = 0;
    std::size_t cached = 0;
    std::size_t allocated = 0; // bytes handed out and not freed, as requested
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    bool installed = false;
};

State &state()
{
    static State *s = new State; // never destroyed: tensors may be freed during exit
    return *s;
}

void report(void *data, std::int64_t bytes, std::size_t allocated)
{
    if (c10::memoryProfilingEnabled())
        c10::reportMemoryUsageToProfiler(data, bytes, allocated, 0, c10::Device(c10::DeviceType::CPU));
}

void releaseBlock(void *data)
{
    if (!data)
        return;
    void *base = static_cast<char *>(data) - kHeader;
    const Header header = *static_cast<Header *>(base);
    State &s = state();
    std::size_t allocated = 0;
    bool kept = false;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.allocated -= header.requested;
        allocated = s.allocated;
        if (header.blockClass && s.cached + header.blockClass <= s.cap) {
            s.free[header.blockClass].push_back(base);
            s.cached += header.blockClass;
            kept = true;
        }
    }
    report(data, -std::int64_t(header.requested), allocated);
    if (!kept)
        c10::free_cpu(base);
}

class BlockCacheAllocator final : public c10::Allocator
{
public:
    c10::DataPtr allocate(std::size_t n) LATHE_ALLOCATOR_ALLOCATE_CONST override
    {
        const c10::Device cpu(c10::DeviceType::CPU);
        if (n == 0)
            return {nullptr, nullptr, &releaseBlock, cpu};
        const std::size_t blockClass = n >= kSmallest ? blockClassOf(n) : 0;
        State &s = state();
        void *base = nullptr;
        if (blockClass) {
            std::lock_guard<std::mutex> lock(s.mutex);
            auto it = s.free.find(blockClass);
            if (it != s.free.end() && !it->second.empty()) {
                base = it->second.back();
                it->second.pop_back();
                s.cached -= blockClass;
                ++s.hits;
            } else {
                ++s.misses;
            }
        }
        if (!base)
            base = c10::alloc_cpu(kHeader + (blockClass ? blockClass : n)); // throws when out of memory
        *static_cast<Header *>(base) = Header{blockClass, n};
        void *data = static_cast<char *>(base) + kHeader;
        std::size_t allocated = 0;
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            s.allocated += n;
            allocated = s.allocated;
        }
        report(data, std::int64_t(n), allocated);
        return {data, data, &releaseBlock, cpu};
    }

    c10::DeleterFnPtr raw_deleter() const override { return &releaseBlock; }

    LATHE_ALLOCATOR_COPY_DATA
};

} // namespace

bool installCpuBlockCache(std::size_t capBytes)
{
    State &s = state();
    if (capBytes == 0 || s.installed)
        return s.installed;
    s.cap = capBytes;
    s.installed = true;
    static BlockCacheAllocator *allocator = new BlockCacheAllocator; // never destroyed, as the state
    c10::SetCPUAllocator(allocator, /*priority=*/1); // above LibTorch's own (0)
    return true;
}

void releaseCpuBlockCache()
{
    State &s = state();
    std::map<std::size_t, std::vector<void *>> blocks;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        blocks.swap(s.free);
        s.cached = 0;
    }
    for (auto &[blockClass, list] : blocks)
        for (void *base : list)
            c10::free_cpu(base);
}

CpuBlockCacheStats cpuBlockCacheStats()
{
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return {s.installed, s.cap, s.cached, s.hits, s.misses};
}

std::size_t defaultCpuBlockCacheBytes()
{
    if (const char *mb = std::getenv("LATHE_CPU_BLOCK_CACHE_MB")) {
        char *end = nullptr;
        const double value = std::strtod(mb, &end);
        if (end != mb && value >= 0)
            return std::size_t(value * 1024 * 1024);
    }
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    const std::size_t ram = pages > 0 && pageSize > 0 ? std::size_t(pages) * std::size_t(pageSize) : 0;
    return std::min<std::size_t>(ram / 8, std::size_t(4) << 30);
}

} // namespace lathe::engine
