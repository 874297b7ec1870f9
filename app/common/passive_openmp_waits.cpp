// Linked on purpose into Lathe's two programs (lathe and lathe-cli; app/CMakeLists.txt), and
// only there: a process-wide side effect belongs to the program, not to a library that tests
// and other programs link. Tests get the same policy from ctest's environment (LatheCommon).
//
// LibTorch's intra-op threads (GNU OpenMP here) spin after every parallel region by default,
// burning the cores that the input pipeline's workers, other ranks and other programs need: on
// a loaded machine a CPU training step took 12x longer, 90% of it in OpenMP's spin loop
// (tests/bench/bench_train.sh). OpenMP reads OMP_WAIT_POLICY once, in its library constructor,
// and C library initialisation resets the environment after .preinit_array runs, so each of
// Lathe's programs starts itself again with OMP_WAIT_POLICY=PASSIVE from .preinit_array:
// before any library's constructor (LibTorch's operator registration) has run, the restart
// costs only the dynamic loading (~0.1 s of CPU for lathe-cli). An OMP_WAIT_POLICY in the
// environment is kept; where the restart fails the program goes on as it is. Plain C only:
// nothing is initialised yet.
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#if defined(__linux__) && defined(__GLIBC__)
namespace {

void passiveOpenMpWaits(int, char **argv, char **envp)
{
    std::size_t n = 0;
    for (; envp[n]; ++n)
        if (std::strncmp(envp[n], "OMP_WAIT_POLICY=", 16) == 0)
            return;
    auto **env = static_cast<char **>(std::malloc((n + 2) * sizeof(char *)));
    if (!env)
        return;
    std::memcpy(env, envp, n * sizeof(char *));
    env[n] = const_cast<char *>("OMP_WAIT_POLICY=PASSIVE");
    env[n + 1] = nullptr;
    execve("/proc/self/exe", argv, env);
    std::free(env);
}
} // namespace

[[gnu::used, gnu::section(".preinit_array")]] void (*passiveOpenMpWaitsEntry)(int, char **, char **) = passiveOpenMpWaits;
#endif
