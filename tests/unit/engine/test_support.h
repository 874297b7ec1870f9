#pragma once

#include "engine/base/engine_error.h"

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace lathe::test {

// The source tree this test was built from (LATHE_SOURCE_DIR when set): tests/parity, docs, ...
inline std::string sourceRoot()
{
    if (const char *dir = std::getenv("LATHE_SOURCE_DIR"))
        return dir;
    return LATHE_SOURCE_ROOT;
}

// A fresh folder under the system temp dir, removed when the test ends.
class TempDir
{
public:
    TempDir()
    {
        std::random_device rd;
        m_path = std::filesystem::temp_directory_path() / ("lathe-test-" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(m_path);
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    const std::filesystem::path &path() const { return m_path; }
    std::string file(const std::string &name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

inline void appendU32(std::vector<std::uint8_t> &out, std::uint32_t v)
{
    out.push_back(std::uint8_t(v >> 24));
    out.push_back(std::uint8_t(v >> 16));
    out.push_back(std::uint8_t(v >> 8));
    out.push_back(std::uint8_t(v));
}

inline void writeGz(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
}

inline void writeRaw(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

inline std::vector<std::uint8_t> readRaw(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// IDX image file bytes: header then count*rows*cols pixels (pixel value = image index).
inline std::vector<std::uint8_t> idxImages(std::uint32_t count, std::uint32_t rows, std::uint32_t cols)
{
    std::vector<std::uint8_t> out;
    appendU32(out, 0x803);
    appendU32(out, count);
    appendU32(out, rows);
    appendU32(out, cols);
    for (std::uint32_t i = 0; i < count; ++i)
        out.insert(out.end(), std::size_t(rows) * cols, std::uint8_t(i));
    return out;
}

inline std::vector<std::uint8_t> idxLabels(const std::vector<std::uint8_t> &labels)
{
    std::vector<std::uint8_t> out;
    appendU32(out, 0x801);
    appendU32(out, static_cast<std::uint32_t>(labels.size()));
    out.insert(out.end(), labels.begin(), labels.end());
    return out;
}

// Runs f and returns the EngineError message (empty if nothing was thrown).
template<typename F>
std::string errorOf(F f)
{
    try {
        f();
    } catch (const engine::EngineError &e) {
        return e.what();
    }
    return {};
}

} // namespace lathe::test
