// Linked on purpose into Lathe's two programs (lathe and lathe-cli; app/CMakeLists.txt), and
// only there: a process-wide side effect belongs to the program, not to a library that tests
// and other programs link. Tests get the same policy from ctest's environment (LatheCommon).
//
// LibTorch's intra-op threads (GNU OpenMP here) wait for the next parallel region after each
// one. How long they spin before they sleep is a trade-off, measured on 2 cores
// (tests/bench/bench_train.sh, README "Benchmarks"):
//   - GNU OpenMP's default (300000 spins, ~3 ms) burns the cores the input pipeline's workers,
//     other ranks and other programs need: on a loaded machine a CPU training step took 12x longer,
//     90% of it in the spin loop;
//   - sleeping at once (OMP_WAIT_POLICY=PASSIVE) pays a futex wake-up for every region: a model
//     of many small layers (MobileNetV3-Small at 64 px) trained at 0.68x PyTorch's speed;
//   - a short spin (GOMP_SPINCOUNT=3000, ~30 us) catches the regions that follow each other
//     within a step and still sleeps between steps: 1.0-1.35x PyTorch in every row, and beside a
//     second training on the same cores 16-42% slower than sleeping at once, not 12x.
// OpenMP reads its environment once, in its library constructor, and C library initialisation
// resets the environment after .preinit_array runs, so each of Lathe's programs starts itself
// again with OMP_WAIT_POLICY=PASSIVE and GOMP_SPINCOUNT=3000 from .preinit_array: before any
// library's constructor (LibTorch's operator registration) has run, the restart costs only the
// dynamic loading (~0.1 s of CPU for lathe-cli). An OMP_WAIT_POLICY in the environment is kept
// as it is (no restart), and so is a GOMP_SPINCOUNT (GOMP_SPINCOUNT=0: sleep at once, for a
// machine shared with other work); where the restart fails the program goes on as it is. Plain
// C only: nothing is initialised yet.
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#if defined(__linux__) && defined(__GLIBC__)
namespace {

void passiveOpenMpWaits(int, char **argv, char **envp)
{
    std::size_t n = 0;
    bool spinCount = false;
    for (; envp[n]; ++n) {
        if (std::strncmp(envp[n], "OMP_WAIT_POLICY=", 16) == 0)
            return;
        spinCount = spinCount || std::strncmp(envp[n], "GOMP_SPINCOUNT=", 15) == 0;
    }
    auto **env = static_cast<char **>(std::malloc((n + 3) * sizeof(char *)));
    if (!env)
        return;
    std::memcpy(env, envp, n * sizeof(char *));
    env[n++] = const_cast<char *>("OMP_WAIT_POLICY=PASSIVE");
    if (!spinCount)
        env[n++] = const_cast<char *>("GOMP_SPINCOUNT=3000");
    env[n] = nullptr;
    execve("/proc/self/exe", argv, env);
    std::free(env);
}
} // namespace

[[gnu::used, gnu::section(".preinit_array")]] void (*passiveOpenMpWaitsEntry)(int, char **, char **) = passiveOpenMpWaits;
#endif
