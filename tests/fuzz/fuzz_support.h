#pragma once

// Shared by the fuzz targets: libFuzzer's entry point takes bytes; the parsers that read files
// get them as an in-memory file (memfd) named by its /proc path, so no disk is touched.
// A target calls the parser and lets only its documented refusal (EngineError) pass: any other
// exception, a crash, a leak or undefined behaviour is a finding.

#include "engine/base/engine_error.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace lathe::fuzz {

class MemFile
{
public:
    MemFile(const std::uint8_t *data, std::size_t size)
        : m_fd(memfd_create("lathe-fuzz", 0))
    {
        if (m_fd < 0)
            std::abort();
        for (std::size_t done = 0; done < size;) {
            const ssize_t n = ::write(m_fd, data + done, size - done);
            if (n <= 0)
                std::abort();
            done += std::size_t(n);
        }
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }
    ~MemFile() { ::close(m_fd); }
    MemFile(const MemFile &) = delete;
    MemFile &operator=(const MemFile &) = delete;

    const std::string &path() const { return m_path; }

private:
    int m_fd;
    std::string m_path;
};

// Runs f; an EngineError (the parser refusing the input with its reason) is the expected outcome
// for most inputs. Its message must not be empty. LATHE_FUZZ_VERBOSE=1 prints it (triage).
template<typename F>
void refusalAllowed(F &&f)
{
    try {
        f();
    } catch (const engine::EngineError &e) {
        if (!*e.what())
            std::abort();
        static const bool verbose = std::getenv("LATHE_FUZZ_VERBOSE") != nullptr;
        if (verbose)
            std::fprintf(stderr, "refused: %s\n", e.what());
    }
}

} // namespace lathe::fuzz
