#pragma once

// A cache of large CPU memory blocks under LibTorch's CPU allocator, for Lathe's programs.
//
// glibc returns freed blocks above its mmap threshold (up to 32 MiB) to the kernel, so every
// training step maps its activation and gradient blocks again and the kernel zeroes each page
// on first touch: ResNet-18 at 64 px, batch 32, faulted in ~17,700 fresh pages a step, and
// keeping freed blocks for reuse made the step 8% faster (README: the training step).
// Installed once, by the programs only (lathe, lathe-cli), before any tensor exists; libraries
// and tests keep LibTorch's allocator.

#include <cstddef>
#include <cstdint>

namespace lathe::engine {

struct CpuBlockCacheStats
{
    bool installed = false;
    std::size_t capBytes = 0;    // most bytes kept in the cache
    std::size_t cachedBytes = 0; // free blocks kept now
    std::uint64_t hits = 0;      // allocations served from the cache
    std::uint64_t misses = 0;    // cacheable allocations that asked the system
};

// Makes LibTorch's CPU allocations go through the cache: blocks of 256 KiB or more, rounded up
// to eighths of a power of two, are kept when freed (up to capBytes in all) and handed out again
// to the next allocation of the same class; smaller ones pass straight to LibTorch's own
// allocator (c10::alloc_cpu). The profiler's memory reports (the memory estimate's counter) see
// every allocation as before. Call once, before any CPU tensor is made; a second call and
// capBytes 0 do nothing. Returns whether the cache is installed.
bool installCpuBlockCache(std::size_t capBytes);

// Gives every kept block back to the system (a run has ended; the cache fills again as needed).
void releaseCpuBlockCache();

CpuBlockCacheStats cpuBlockCacheStats();

// The cap Lathe's programs use: LATHE_CPU_BLOCK_CACHE_MB from the environment when set (0 turns
// the cache off), otherwise an eighth of the machine's memory, at most 4 GiB.
std::size_t defaultCpuBlockCacheBytes();

} // namespace lathe::engine
