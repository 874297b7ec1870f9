#include "engine/formats/tfrecord_writer.h"

#include "engine/base/crc32c.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/sha256.h"

#include <cstdio>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

namespace lathe::engine {
namespace {

constexpr std::size_t kBufferSize = std::size_t(1) << 20;

void storeU32(std::uint8_t *out, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out[i] = std::uint8_t(v >> (8 * i));
}

void storeU64(std::uint8_t *out, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out[i] = std::uint8_t(v >> (8 * i));
}

int openNew(const std::string &path, const std::string &shard)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw EngineError(writeErrorMessage(shard, "create " + path));
    return fd;
}

void syncAndClose(int &fd, const std::string &shard)
{
    if (::fsync(fd) != 0)
        throw EngineError(writeErrorMessage(shard, "fsync"));
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0)
        throw EngineError(writeErrorMessage(shard, "close"));
}

} // namespace

struct TFRecordWriter::Impl
{
    std::string path;
    std::string tempPath;
    std::string indexTempPath;
    int fd = -1;
    bool finished = false;
    std::vector<std::uint8_t> buffer;
    std::uint64_t bytes = 0;
    std::vector<TFRecordIndexEntry> index;
    Sha256 sha;

    void append(const std::uint8_t *data, std::size_t size)
    {
        sha.update(data, size);
        bytes += size;
        if (buffer.size() + size > kBufferSize) {
            flush();
            // Large records skip the buffer: copying them first would only cost time.
            if (size >= kBufferSize) {
                writeAll(fd, data, size, path);
                return;
            }
        }
        buffer.insert(buffer.end(), data, data + size);
    }

    void flush()
    {
        writeAll(fd, buffer.data(), buffer.size(), path);
        buffer.clear();
    }

    void removeTemps()
    {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
        ::unlink(tempPath.c_str());
        if (!indexTempPath.empty())
            ::unlink(indexTempPath.c_str());
    }
};

TFRecordWriter::TFRecordWriter(const std::string &path)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->path = path;
    // A unique temporary name, so two writers (or a leftover from a killed run) never share one.
    m_impl->tempPath = temporaryPathFor(path);
    m_impl->fd = openNew(m_impl->tempPath, path);
    m_impl->buffer.reserve(kBufferSize);
}

TFRecordWriter::~TFRecordWriter()
{
    if (!m_impl->finished)
        m_impl->removeTemps();
}

void TFRecordWriter::write(const void *data, std::size_t size)
{
    if (m_impl->finished)
        throw EngineError(m_impl->path + ": write after finish()");
    if (m_impl->fd < 0)
        throw EngineError(m_impl->path + ": write after an earlier failure of this writer");
    std::uint8_t header[12];
    storeU64(header, size);
    storeU32(header + 8, maskCrc32c(crc32c(header, 8)));
    std::uint8_t footer[4];
    storeU32(footer, maskCrc32c(crc32c(data, size)));

    const std::uint64_t offset = m_impl->bytes;
    try {
        m_impl->append(header, sizeof header);
        m_impl->append(static_cast<const std::uint8_t *>(data), size);
        m_impl->append(footer, sizeof footer);
    } catch (...) {
        // A partly written record cannot be taken back: the shard is lost, not left half valid.
        m_impl->removeTemps();
        throw;
    }
    m_impl->index.push_back({offset, m_impl->bytes - offset});
}

std::uint64_t TFRecordWriter::records() const
{
    return m_impl->index.size();
}

std::uint64_t TFRecordWriter::bytes() const
{
    return m_impl->bytes;
}

TFRecordShard TFRecordWriter::finish()
{
    Impl &d = *m_impl;
    if (d.finished)
        throw EngineError(d.path + ": finish() called twice");
    if (d.fd < 0)
        throw EngineError(d.path + ": finish() after an earlier failure of this writer");
    TFRecordShard shard;
    shard.path = d.path;
    shard.indexPath = d.path + ".idx";
    try {
        d.flush();
        syncAndClose(d.fd, d.path);

        std::string text;
        text.reserve(d.index.size() * 24);
        for (const TFRecordIndexEntry &e : d.index)
            text += std::to_string(e.offset) + ' ' + std::to_string(e.size) + '\n';
        d.indexTempPath = temporaryPathFor(shard.indexPath);
        int indexFd = openNew(d.indexTempPath, shard.indexPath);
        try {
            writeAll(indexFd, text.data(), text.size(), shard.indexPath);
            syncAndClose(indexFd, shard.indexPath);
        } catch (...) {
            if (indexFd >= 0)
                ::close(indexFd);
            throw;
        }

        if (std::rename(d.tempPath.c_str(), d.path.c_str()) != 0)
            throw EngineError(writeErrorMessage(d.path, "rename " + d.tempPath + " to it"));
        if (std::rename(d.indexTempPath.c_str(), shard.indexPath.c_str()) != 0) {
            const std::string message = writeErrorMessage(shard.indexPath, "rename " + d.indexTempPath + " to it");
            ::unlink(d.path.c_str());
            throw EngineError(message);
        }
    } catch (...) {
        d.removeTemps();
        throw;
    }
    d.finished = true;

    // The renames are only durable once the folder itself is synced. Best effort: some file
    // systems refuse fsync on a directory, and the data is already safe under both names.
    syncFolder(std::filesystem::path(d.path).parent_path());

    shard.sha256 = d.sha.hexDigest();
    shard.bytes = d.bytes;
    shard.records = d.index.size();
    shard.index = std::move(d.index);
    return shard;
}

} // namespace lathe::engine
