#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace lathe::engine {

// Lower-case hex SHA-256 of a buffer.
std::string sha256Hex(const void *data, std::size_t size);

// SHA-256 fed in pieces (a shard as it is written, a file as it is read).
class Sha256
{
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;

    void update(const void *data, std::size_t size);
    std::string hexDigest(); // ends the hash

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
