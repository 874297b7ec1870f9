#include "engine/formats/idx_file.h"

#include "engine/base/engine_error.h"
#include "engine/base/file_io.h"
#include "engine/base/parse_limits.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <memory>

namespace lathe::engine {
namespace {

constexpr std::uint32_t kLabelsMagic = 0x00000801; // unsigned byte, 1 dimension
constexpr std::uint32_t kImagesMagic = 0x00000803; // unsigned byte, 3 dimensions

struct GzCloser
{
    void operator()(gzFile_s *f) const { gzclose(f); }
};

class GzReader
{
public:
    explicit GzReader(const std::string &path)
        : m_path(path)
    {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec))
            throw EngineError(path + ": file not found");
        if (std::filesystem::is_directory(path, ec))
            throw EngineError(path + ": is a folder, not an IDX file");
        m_file.reset(gzopen(path.c_str(), "rb"));
        if (!m_file)
            throw EngineError(path + ": cannot open (" + errnoText() + ")");
    }

    // Reads up to size bytes; returns how many were read.
    std::size_t read(std::uint8_t *out, std::size_t size)
    {
        std::size_t done = 0;
        while (done < size) {
            const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(size - done, 1u << 30));
            const int n = gzread(m_file.get(), out + done, chunk);
            if (n < 0) {
                int code = 0;
                const char *message = gzerror(m_file.get(), &code);
                throw EngineError(m_path + ": corrupt compressed data (" + message + ")");
            }
            if (n == 0)
                break;
            done += static_cast<std::size_t>(n);
        }
        return done;
    }

    std::uint32_t readU32(const char *what)
    {
        std::array<std::uint8_t, 4> b{};
        if (read(b.data(), b.size()) != b.size())
            throw EngineError(m_path + ": truncated header (missing " + what + ")");
        return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | b[3];
    }

    // The declared number of bytes, read in chunks: memory grows with what the file holds, so
    // a few header bytes declaring gigabytes cost nothing before the file runs out.
    std::vector<std::uint8_t> readExactly(std::uint64_t declared, const char *what)
    {
        constexpr std::uint64_t kChunk = std::uint64_t(16) << 20;
        std::vector<std::uint8_t> out;
        while (out.size() < declared) {
            const std::size_t before = out.size();
            const std::size_t want = static_cast<std::size_t>(std::min(kChunk, declared - before));
            out.resize(before + want);
            const std::size_t n = read(out.data() + before, want);
            out.resize(before + n);
            if (n < want)
                throw EngineError(m_path + ": truncated: the header declares " + std::to_string(declared)
                                  + " bytes of " + what + " but the file holds " + std::to_string(out.size()));
        }
        std::uint8_t extra = 0;
        if (read(&extra, 1) != 0)
            throw EngineError(m_path + ": holds more data than its header declares");
        return out;
    }

private:
    std::string m_path;
    std::unique_ptr<gzFile_s, GzCloser> m_file;
};

std::string hex(std::uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

} // namespace

IdxImages readIdxImages(const std::string &path)
{
    GzReader in(path);
    const std::uint32_t magic = in.readU32("magic number");
    if (magic != kImagesMagic)
        throw EngineError(path + ": not an IDX image file (magic " + hex(magic) + ", expected "
                          + hex(kImagesMagic) + ")");
    const std::uint32_t count = in.readU32("image count");
    const std::uint32_t rows = in.readU32("row count");
    const std::uint32_t cols = in.readU32("column count");
    if (count == 0)
        throw EngineError(path + ": implausible image count 0");
    if (count > parse_limits::kIdxCount.value)
        throw EngineError(path + ": declares " + limitReason(count, parse_limits::kIdxCount, parse_limits::kIdxCount.value));
    if (rows == 0 || cols == 0)
        throw EngineError(path + ": implausible image size " + std::to_string(rows) + "x" + std::to_string(cols));
    if (std::max(rows, cols) > parse_limits::kIdxSide.value)
        throw EngineError(path + ": declares images of " + std::to_string(rows) + "x" + std::to_string(cols) + " pixels, "
                          + overLimit(parse_limits::kIdxSide));
    const std::uint64_t payload = std::uint64_t(count) * rows * cols;
    if (payload > parse_limits::kIdxPayloadBytes.value)
        throw EngineError(path + ": declares " + std::to_string(payload) + " bytes of pixels, "
                          + overLimit(parse_limits::kIdxPayloadBytes));

    IdxImages images;
    images.count = static_cast<int>(count);
    images.rows = static_cast<int>(rows);
    images.cols = static_cast<int>(cols);
    images.pixels = in.readExactly(payload, "pixels");
    return images;
}

std::vector<std::uint8_t> readIdxLabels(const std::string &path)
{
    GzReader in(path);
    const std::uint32_t magic = in.readU32("magic number");
    if (magic != kLabelsMagic)
        throw EngineError(path + ": not an IDX label file (magic " + hex(magic) + ", expected "
                          + hex(kLabelsMagic) + ")");
    const std::uint32_t count = in.readU32("label count");
    if (count == 0)
        throw EngineError(path + ": implausible label count 0");
    if (count > parse_limits::kIdxCount.value)
        throw EngineError(path + ": declares " + limitReason(count, parse_limits::kIdxCount, parse_limits::kIdxCount.value));
    return in.readExactly(count, "labels");
}

} // namespace lathe::engine
