#include "engine/formats/tfrecord_reader.h"

#include "engine/base/crc32c.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lathe::engine {
namespace {

constexpr std::size_t kBufferSize = std::size_t(256) << 10;
constexpr std::uint64_t kHeaderSize = 12; // u64 length + masked CRC of the length
constexpr std::uint64_t kFooterSize = 4;  // masked CRC of the data

std::uint32_t loadU32(const std::uint8_t *p)
{
    return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) | (std::uint32_t(p[3]) << 24);
}

std::uint64_t loadU64(const std::uint8_t *p)
{
    return std::uint64_t(loadU32(p)) | (std::uint64_t(loadU32(p + 4)) << 32);
}

std::string hex32(std::uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

} // namespace

struct TFRecordReader::Impl
{
    std::string path;
    std::uint64_t maxRecordBytes = 0;
    int fd = -1;
    std::uint64_t fileSize = 0;
    std::vector<std::uint8_t> buffer;
    std::size_t pos = 0; // next unread byte in buffer
    std::size_t end = 0; // valid bytes in buffer
    std::uint64_t offset = 0; // file offset of buffer[pos]
    std::uint64_t lastOffset = 0;

    [[noreturn]] void fail(std::uint64_t at, const std::string &reason) const
    {
        throw EngineError(path + ": corrupt record at byte offset " + std::to_string(at) + ": " + reason);
    }

    std::size_t readFile(std::uint8_t *out, std::size_t size)
    {
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = ::read(fd, out + done, size - done);
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throw EngineError(path + ": cannot read at byte offset " + std::to_string(offset) + " ("
                                  + errnoText() + ")");
            }
            if (n == 0)
                break;
            done += static_cast<std::size_t>(n);
        }
        return done;
    }

    // Copies up to size bytes at the current offset; fewer only at the end of the file.
    std::size_t read(std::uint8_t *out, std::size_t size)
    {
        std::size_t done = 0;
        while (done < size) {
            if (pos == end) {
                // Big reads go straight into the destination instead of through the buffer.
                if (size - done >= buffer.size()) {
                    const std::size_t n = readFile(out + done, size - done);
                    done += n;
                    offset += n;
                    break;
                }
                pos = 0;
                end = readFile(buffer.data(), buffer.size());
                if (end == 0)
                    break;
            }
            const std::size_t n = std::min(size - done, end - pos);
            std::memcpy(out + done, buffer.data() + pos, n);
            pos += n;
            done += n;
            offset += n;
        }
        return done;
    }

    void seek(std::uint64_t to)
    {
        if (to > fileSize)
            throw EngineError(path + ": offset " + std::to_string(to) + " is past the end of the file ("
                              + std::to_string(fileSize) + " bytes)");
        if (::lseek(fd, static_cast<off_t>(to), SEEK_SET) < 0)
            throw EngineError(path + ": cannot seek to byte offset " + std::to_string(to) + " (" + errnoText()
                              + ")");
        pos = end = 0;
        offset = to;
    }

    bool next(std::string &record)
    {
        const std::uint64_t start = offset;
        std::uint8_t header[kHeaderSize];
        const std::size_t got = read(header, sizeof header);
        if (got == 0)
            return false;
        if (got < sizeof header)
            fail(start, "truncated record (the file ends " + std::to_string(got) + " bytes into the "
                            + std::to_string(kHeaderSize) + "-byte record header)");
        const std::uint32_t storedLengthCrc = loadU32(header + 8);
        const std::uint32_t lengthCrc = maskCrc32c(crc32c(header, 8));
        if (storedLengthCrc != lengthCrc)
            fail(start, "bad length CRC (stored " + hex32(storedLengthCrc) + ", computed " + hex32(lengthCrc) + ")");
        const std::uint64_t length = loadU64(header);
        if (length > maxRecordBytes)
            fail(start, "record of " + limitReason(length, parse_limits::kTfrecordRecordBytes, maxRecordBytes));
        const std::uint64_t left = offset < fileSize ? fileSize - offset : 0;
        if (length + kFooterSize > left)
            fail(start, "truncated record (header declares " + std::to_string(length) + " data bytes plus a "
                            + std::to_string(kFooterSize) + "-byte CRC, the file holds " + std::to_string(left)
                            + " more)");

        record.resize(length);
        std::uint8_t footer[kFooterSize];
        if (read(reinterpret_cast<std::uint8_t *>(record.data()), length) != length
            || read(footer, sizeof footer) != sizeof footer)
            fail(start, "truncated record (the file ended while reading it)");
        const std::uint32_t storedCrc = loadU32(footer);
        const std::uint32_t crc = maskCrc32c(crc32c(record.data(), record.size()));
        if (storedCrc != crc)
            fail(start, "bad data CRC (stored " + hex32(storedCrc) + ", computed " + hex32(crc) + ")");
        lastOffset = start;
        return true;
    }
};

TFRecordReader::TFRecordReader(const std::string &path, std::uint64_t maxRecordBytes)
    : m_impl(std::make_unique<Impl>())
{
    Impl &d = *m_impl;
    d.path = path;
    d.maxRecordBytes = maxRecordBytes;
    d.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (d.fd < 0)
        throw EngineError(path + ": cannot open (" + errnoText() + ")");
    struct stat st {};
    if (::fstat(d.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(d.fd);
        throw EngineError(path + ": not a regular file");
    }
    d.fileSize = static_cast<std::uint64_t>(st.st_size);
    ::posix_fadvise(d.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    d.buffer.resize(kBufferSize);
}

TFRecordReader::~TFRecordReader()
{
    ::close(m_impl->fd);
}

bool TFRecordReader::next(std::string &record)
{
    return m_impl->next(record);
}

void TFRecordReader::seek(std::uint64_t offset)
{
    m_impl->seek(offset);
}

std::string TFRecordReader::readAt(std::uint64_t offset)
{
    m_impl->seek(offset);
    std::string record;
    if (!m_impl->next(record))
        throw EngineError(m_impl->path + ": no record at byte offset " + std::to_string(offset) + " (end of file)");
    return record;
}

std::string TFRecordReader::readAt(const TFRecordIndexEntry &entry)
{
    std::string record = readAt(entry.offset);
    const std::uint64_t size = kHeaderSize + record.size() + kFooterSize;
    if (size != entry.size)
        throw EngineError(m_impl->path + ": the index says the record at byte offset " + std::to_string(entry.offset)
                          + " is " + std::to_string(entry.size) + " bytes, the shard holds " + std::to_string(size)
                          + " (stale or foreign index)");
    return record;
}

const std::string &TFRecordReader::path() const
{
    return m_impl->path;
}

std::uint64_t TFRecordReader::fileSize() const
{
    return m_impl->fileSize;
}

std::uint64_t TFRecordReader::lastOffset() const
{
    return m_impl->lastOffset;
}

std::uint64_t TFRecordReader::offset() const
{
    return m_impl->offset;
}

std::vector<TFRecordIndexEntry> TFRecordReader::readIndex(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open index (" + errnoText() + ")");
    std::vector<TFRecordIndexEntry> entries;
    // A fixed line buffer: a hostile file with one endless line is refused, not slurped.
    char line[parse_limits::kTfrecordIndexLineBytes.value + 1];
    for (std::uint64_t number = 1;; ++number) {
        in.getline(line, sizeof line);
        if (in.eof() && in.gcount() == 0)
            break;
        if (in.fail() && !in.eof())
            throw EngineError(path + ": line " + std::to_string(number) + ": more than "
                              + std::to_string(parse_limits::kTfrecordIndexLineBytes.value) + " bytes, "
                              + overLimit(parse_limits::kTfrecordIndexLineBytes));
        const auto bad = [&](const std::string &reason) {
            return EngineError(path + ": line " + std::to_string(number) + ": " + reason);
        };
        std::string text(line);
        if (!text.empty() && text.back() == '\r')
            text.pop_back();
        if (text.empty() || text.find_first_not_of("0123456789 \t") != std::string::npos)
            throw bad("expected \"offset size\" (two unsigned integers), got \"" + text + "\"");
        std::istringstream fields(text);
        TFRecordIndexEntry e;
        std::string extra;
        if (!(fields >> e.offset >> e.size) || (fields >> extra))
            throw bad("expected \"offset size\" (two unsigned integers), got \"" + text + "\"");
        if (e.size < kHeaderSize + kFooterSize)
            throw bad("record size " + std::to_string(e.size) + " is smaller than an empty record (16 bytes)");
        if (!entries.empty() && e.offset < entries.back().offset + entries.back().size)
            throw bad("record at offset " + std::to_string(e.offset) + " overlaps or precedes the one before it (offset "
                      + std::to_string(entries.back().offset) + ", size " + std::to_string(entries.back().size) + ")");
        entries.push_back(e);
        if (in.eof())
            break;
    }
    return entries;
}

} // namespace lathe::engine
