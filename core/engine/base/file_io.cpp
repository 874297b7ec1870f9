#include "engine/base/file_io.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <fstream>
#include <cstdio>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace lathe::engine {

std::string readFileWithin(const std::string &path, const ParseLimit &limit, std::uint64_t value)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw EngineError(path + ": cannot open");
    const std::streamoff size = in.tellg();
    if (size < 0)
        throw EngineError(path + ": cannot read its size");
    checkLimit(path, std::uint64_t(size), limit, value);
    std::string bytes(std::size_t(size), '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), size))
        throw EngineError(path + ": read failed");
    return bytes;
}
namespace {

// Linux writes at most 0x7ffff000 bytes per call; smaller chunks keep every call complete.
constexpr std::size_t kMaxChunk = std::size_t(1) << 30;

fs::path folderOf(const fs::path &file)
{
    const fs::path folder = file.parent_path();
    return folder.empty() ? fs::path(".") : folder;
}

void syncFile(int fd, const std::string &path)
{
    if (::fsync(fd) != 0)
        throw EngineError(writeErrorMessage(path, "fsync"));
}

// Copies source to target (a new file), fsynced; target is removed again on failure.
void copyToNewFile(const std::string &source, const std::string &target)
{
    FileDescriptor in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (!in.valid())
        throw EngineError(source + ": cannot open (" + errnoText() + ")");
    FileDescriptor out(::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!out.valid())
        throw EngineError(writeErrorMessage(target, "create"));
    try {
        std::vector<char> buffer(std::size_t(1) << 20);
        for (;;) {
            const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw EngineError(source + ": cannot read (" + errnoText() + ")");
            if (n == 0)
                break;
            writeAll(out.get(), buffer.data(), std::size_t(n), target);
        }
        syncFile(out.get(), target);
        if (::close(out.release()) != 0)
            throw EngineError(writeErrorMessage(target, "close"));
    } catch (...) {
        out.reset();
        ::unlink(target.c_str());
        throw;
    }
}

} // namespace

std::string errnoText(int error)
{
    return std::strerror(error);
}

bool isDiskFull(int error)
{
    return error == ENOSPC || error == EDQUOT || error == EFBIG;
}

std::string writeErrorMessage(const std::string &path, const std::string &action, int error)
{
    if (isDiskFull(error))
        return path + ": the disk is full (" + errnoText(error) + ")";
    return path + ": cannot " + action + " (" + errnoText(error) + ")";
}

FileDescriptor::FileDescriptor(int fd)
    : m_fd(fd)
{
}

FileDescriptor::~FileDescriptor()
{
    reset();
}

FileDescriptor::FileDescriptor(FileDescriptor &&other) noexcept
    : m_fd(other.release())
{
}

FileDescriptor &FileDescriptor::operator=(FileDescriptor &&other) noexcept
{
    if (this != &other) {
        reset();
        m_fd = other.release();
    }
    return *this;
}

int FileDescriptor::release()
{
    const int fd = m_fd;
    m_fd = -1;
    return fd;
}

void FileDescriptor::reset()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

void writeAll(int fd, const void *data, std::size_t size, const std::string &pathForErrors)
{
    const char *p = static_cast<const char *>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, std::min(size, kMaxChunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw EngineError(writeErrorMessage(pathForErrors, "write"));
        if (n == 0) // not seen for regular files; looping on it would never end
            throw EngineError(pathForErrors + ": cannot write (the system wrote nothing)");
        p += n;
        size -= std::size_t(n);
    }
}

void syncFolder(const fs::path &folder)
{
    FileDescriptor fd(::open((folder.empty() ? fs::path(".") : folder).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.valid())
        ::fsync(fd.get());
}

std::string temporaryPathFor(const fs::path &target)
{
    std::random_device rd;
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, ".tmp-%ld-%08x", static_cast<long>(::getpid()), unsigned(rd()));
    return (folderOf(target) / ("." + target.filename().string() + suffix)).string();
}

bool isTemporaryName(const std::string &fileName)
{
    return fileName.find(".tmp-") != std::string::npos;
}

void writeFileAtomically(const std::string &path, std::string_view bytes)
{
    writeFileAtomically(path, std::vector<std::string_view>{bytes});
}

void writeFileAtomically(const std::string &path, const std::vector<std::string_view> &pieces)
{
    if (path.empty())
        throw EngineError("cannot write a file with an empty path");
    const std::string temp = temporaryPathFor(path);
    FileDescriptor fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd.valid())
        throw EngineError(writeErrorMessage(path, "create " + temp));
    try {
        for (const std::string_view piece : pieces)
            writeAll(fd.get(), piece.data(), piece.size(), path);
        if (::fsync(fd.get()) != 0)
            throw EngineError(writeErrorMessage(path, "fsync " + temp));
        // close() reports late write errors (NFS, quota): checked, so they are not lost.
        if (::close(fd.release()) != 0)
            throw EngineError(writeErrorMessage(path, "close " + temp));
        if (std::rename(temp.c_str(), path.c_str()) != 0)
            throw EngineError(writeErrorMessage(path, "rename " + temp + " to it"));
    } catch (...) {
        fd.reset();
        ::unlink(temp.c_str());
        throw;
    }
    syncFolder(folderOf(path));
}

void commitTemporaryFile(const std::string &temporary, const std::string &path)
{
    try {
        // fsync through a read-only descriptor flushes the file's data as well.
        FileDescriptor fd(::open(temporary.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd.valid())
            throw EngineError(path + ": cannot open " + temporary + " (" + errnoText() + ")");
        if (::fsync(fd.get()) != 0)
            throw EngineError(writeErrorMessage(path, "fsync " + temporary));
        fd.reset();
        if (std::rename(temporary.c_str(), path.c_str()) != 0)
            throw EngineError(writeErrorMessage(path, "rename " + temporary + " to it"));
    } catch (...) {
        ::unlink(temporary.c_str());
        throw;
    }
    syncFolder(folderOf(path));
}

void replaceWithLink(const std::string &source, const std::string &target)
{
    const std::string temp = temporaryPathFor(target);
    if (::link(source.c_str(), temp.c_str()) != 0)
        copyToNewFile(source, temp);
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        const std::string message = writeErrorMessage(target, "replace it with " + source);
        ::unlink(temp.c_str());
        throw EngineError(message);
    }
}

} // namespace lathe::engine
