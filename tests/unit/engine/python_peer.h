#pragma once

// The Python peers of engine tests: scripts under tests/parity run with the project venv's
// Python (scripts/install-python.sh: torch 2.11, torchvision 0.26, safetensors, tensorboard...).

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lathe::test {

// The project venv's python: $LATHE_PYTHON (ctest sets it), else the one CMake was configured with.
inline std::string python()
{
    if (const char *env = std::getenv("LATHE_PYTHON"); env && *env)
        return env;
#ifdef LATHE_PYTHON
    return LATHE_PYTHON;
#else
    return "python3";
#endif
}

// Runs a shell command: its stdout, and *status the pclose() status (-1: it did not start).
inline std::string runCommand(const std::string &command, int *status)
{
    std::string out;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) {
        *status = -1;
        return out;
    }
    char buffer[65536];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
        out.append(buffer, n);
    *status = pclose(pipe);
    return out;
}

// tests/parity/<name> of the source tree this test was built from (LATHE_SOURCE_DIR when set).
inline std::filesystem::path parityScript(const std::string &name)
{
    const std::filesystem::path relative = std::filesystem::path("tests") / "parity" / name;
    if (const char *source = std::getenv("LATHE_SOURCE_DIR"))
        return std::filesystem::path(source) / relative;
    return std::filesystem::path(LATHE_SOURCE_ROOT) / relative;
}

struct PeerRun
{
    int status = -1;        // the script's exit status; -1 when it is missing or did not run
    std::string output;     // its stdout, or what went wrong
};

// Runs the venv's python on tests/parity/<name>.
inline PeerRun runParityScript(const std::string &name)
{
    PeerRun run;
    const std::filesystem::path script = parityScript(name);
    if (!std::filesystem::exists(script)) {
        run.output = "missing " + script.string();
        return run;
    }
    run.output = runCommand("'" + python() + "' '" + script.string() + "'", &run.status);
    return run;
}

} // namespace lathe::test
