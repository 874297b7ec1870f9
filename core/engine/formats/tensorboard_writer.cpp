#include "engine/formats/tensorboard_writer.h"

#include "engine/base/clock.h"
#include "engine/base/crc32c.h"
#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "event.pb.h"

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <mutex>

#include <fcntl.h>
#include <unistd.h>

namespace lathe::engine {
namespace {

std::string hostName()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
        return "localhost";
    std::string name(buf);
    // A file name component: nothing that would make another folder.
    for (char &c : name) {
        if (c == '/')
            c = '_';
    }
    return name;
}

void storeLe(std::string &out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(char(std::uint8_t(v >> (8 * i))));
}

// One TFRecord: u64 LE length, masked CRC32C of it, the data, masked CRC32C of the data.
std::string frame(const std::string &data)
{
    std::string out;
    out.reserve(data.size() + 16);
    storeLe(out, data.size(), 8);
    storeLe(out, maskCrc32c(crc32c(out.data(), 8)), 4);
    out += data;
    storeLe(out, maskCrc32c(crc32c(data.data(), data.size())), 4);
    return out;
}

} // namespace

struct TensorBoardWriter::Impl
{
    std::string path;
    int fd = -1;
    std::mutex mutex;

    void writeRecord(const tensorflow::Event &event)
    {
        std::string bytes;
        if (!event.SerializeToString(&bytes))
            throw EngineError(path + ": cannot serialise an event");
        const std::string record = frame(bytes);
        writeAll(fd, record.data(), record.size(), path);
    }
};

TensorBoardWriter::TensorBoardWriter(const std::string &runDir)
    : m_impl(std::make_unique<Impl>())
{
    const double now = unixSeconds();
    const std::string base = (std::filesystem::path(runDir)
                              / (kTensorBoardFilePrefix + std::to_string(static_cast<long long>(now)) + "." + hostName()))
                                 .string();
    // O_EXCL: never append to (or truncate) another writer's file.
    for (int n = 0; n < 1000 && m_impl->fd < 0; ++n) {
        m_impl->path = n == 0 ? base : base + "." + std::to_string(n);
        m_impl->fd = ::open(m_impl->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (m_impl->fd < 0 && errno != EEXIST)
            throw EngineError(m_impl->path + ": cannot create the TensorBoard event file (" + errnoText() + ")");
    }
    if (m_impl->fd < 0)
        throw EngineError(base + ": cannot create the TensorBoard event file (1000 names taken)");

    tensorflow::Event event;
    event.set_wall_time(now);
    event.set_step(0);
    event.set_file_version("brain.Event:2");
    try {
        m_impl->writeRecord(event);
    } catch (...) {
        ::close(m_impl->fd);
        ::unlink(m_impl->path.c_str());
        throw;
    }
}

TensorBoardWriter::~TensorBoardWriter()
{
    if (m_impl && m_impl->fd >= 0) {
        ::fsync(m_impl->fd);
        ::close(m_impl->fd);
    }
}

void TensorBoardWriter::addScalar(const std::string &tag, double value, std::int64_t step, double wallTime)
{
    if (tag.empty())
        throw EngineError(m_impl->path + ": a scalar needs a tag");
    tensorflow::Event event;
    event.set_wall_time(wallTime > 0 ? wallTime : unixSeconds());
    event.set_step(step);
    tensorflow::Summary::Value *v = event.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(value));
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    m_impl->writeRecord(event);
}

void TensorBoardWriter::flush()
{
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    if (::fsync(m_impl->fd) != 0 && errno != EINVAL)
        throw EngineError(m_impl->path + ": cannot fsync (" + errnoText() + ")");
}

const std::string &TensorBoardWriter::path() const
{
    return m_impl->path;
}

} // namespace lathe::engine
