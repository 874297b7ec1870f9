#pragma once

// The engine's one home for writing files (DESIGN.md §1, §5): errno text, write-all, folder
// fsync and atomic replacement; and for reading a whole file within a size limit. Torch-free; every subsystem uses these instead of its own copy,
// so every file the engine writes atomically gets the same guarantee.

#include "engine/base/parse_limits.h"

#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace lathe::engine {

// The whole file, refused before anything is allocated when it is larger than value (the
// limit in force, default the stated one). EngineError "<path>: cannot open", "<path>: N bytes,
// over the limit NAME = VALUE", "<path>: read failed".
std::string readFileWithin(const std::string &path, const ParseLimit &limit, std::uint64_t value);
inline std::string readFileWithin(const std::string &path, const ParseLimit &limit)
{
    return readFileWithin(path, limit, limit.value);
}

// The text of an errno value ("No such file or directory"). Read errno before any other call
// that may change it.
std::string errnoText(int error = errno);

// Whether an errno value means there is no room left to write: ENOSPC (the file system is
// full), EDQUOT (a disk quota) or EFBIG (the file size limit, RLIMIT_FSIZE).
bool isDiskFull(int error);
// The one message for a failed write, fsync, close, create or rename of path: "<path>: the disk
// is full (<reason>)" when isDiskFull(error), so every writer says it the same way, else
// "<path>: cannot <action> (<reason>)". Read errno before any other call that may change it.
std::string writeErrorMessage(const std::string &path, const std::string &action, int error = errno);

// A POSIX file descriptor closed on scope exit (-1: none). Movable, not copyable.
class FileDescriptor
{
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd);
    ~FileDescriptor();
    FileDescriptor(FileDescriptor &&other) noexcept;
    FileDescriptor &operator=(FileDescriptor &&other) noexcept;
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    // Hands the descriptor over (for a close() whose result matters); this object then holds none.
    int release();
    // Closes now, ignoring close()'s result (cleanup after a failure).
    void reset();

private:
    int m_fd = -1;
};

// Writes all size bytes to fd: retried on EINTR and short writes, in chunks of at most 1 GiB
// (Linux writes at most ~2 GiB per call). Throws EngineError with writeErrorMessage(pathForErrors).
void writeAll(int fd, const void *data, std::size_t size, const std::string &pathForErrors);

// fsync of a folder, which makes renames and new names in it durable. Best effort: some file
// systems refuse fsync on a folder, and the files' data is already safe then. An empty path
// means the current folder.
void syncFolder(const std::filesystem::path &folder);

// A unique hidden name beside target for writing it first: ".<name>.tmp-<pid>-<random>". Two
// writers, or a leftover of a killed one, never share it.
std::string temporaryPathFor(const std::filesystem::path &target);
// Whether a file name is one temporaryPathFor() makes (or an older Lathe made): it holds
// ".tmp-". Folders the engine owns (checkpoints/) delete such leftovers.
bool isTemporaryName(const std::string &fileName);

// Replaces path's content atomically: the bytes go to a temporaryPathFor(path) created with
// O_EXCL, are fsynced, the file closed (its result checked), renamed over path, and the folder
// fsynced. Readers see the old file or the new one, never a mix; after a crash or power loss
// the same holds. On any failure the temporary file is removed and path keeps its old content.
// Throws EngineError naming path and the reason.
void writeFileAtomically(const std::string &path, std::string_view bytes);
// The same for bytes given as several pieces, written in order (a header and tensor buffers
// without copying them into one string).
void writeFileAtomically(const std::string &path, const std::vector<std::string_view> &pieces);

// For a file another library writes itself (a TorchScript archive): write it to
// temporaryPathFor(path), then this fsyncs it, renames it over path and fsyncs the folder, as
// writeFileAtomically does. The temporary is removed on failure. Throws EngineError naming path.
void commitTemporaryFile(const std::string &temporary, const std::string &path);

// Makes target name source's data, replacing target atomically: a hard link under a temporary
// name (an fsynced copy where the file system has no hard links), renamed over target. Source
// must then never be modified in place. Throws EngineError naming the file and the reason.
void replaceWithLink(const std::string &source, const std::string &target);

} // namespace lathe::engine
