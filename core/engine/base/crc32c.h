#pragma once

#include <cstddef>
#include <cstdint>

namespace lathe::engine {

// CRC32C (Castagnoli, reflected polynomial 0x82f63b78), the checksum of TFRecord framing.
// crc32c(data, n) is the CRC of the bytes; pass a previous result as crc to extend it over
// more bytes. Uses the SSE4.2 crc32 instruction when the CPU has it, a slicing-by-8 table
// otherwise.
std::uint32_t crc32c(const void *data, std::size_t size, std::uint32_t crc = 0);

// The table implementation alone, so tests can check both paths agree on every machine.
std::uint32_t crc32cPortable(const void *data, std::size_t size, std::uint32_t crc = 0);

// TFRecord stores CRCs masked: a CRC of data that itself contains CRCs is weak, so the
// stored value is rotated and offset (same constant as TensorFlow's crc32c::Mask).
constexpr std::uint32_t maskCrc32c(std::uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

constexpr std::uint32_t unmaskCrc32c(std::uint32_t masked)
{
    const std::uint32_t rot = masked - 0xa282ead8u;
    return (rot >> 17) | (rot << 15);
}

} // namespace lathe::engine
