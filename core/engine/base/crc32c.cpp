#include "engine/base/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LATHE_CRC32C_X86 1
#include <nmmintrin.h>
#endif

namespace lathe::engine {
namespace {

constexpr std::uint32_t kPolynomial = 0x82f63b78u; // Castagnoli, bit-reversed

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

// Slicing-by-8: table k gives the CRC contribution of a byte followed by k zero bytes, so
// eight bytes are folded per step with eight independent lookups.
constexpr Tables makeTables()
{
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int bit = 0; bit < 8; ++bit)
            c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
        t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
        for (std::size_t k = 1; k < 8; ++k)
            t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    return t;
}

constexpr Tables kTables = makeTables();

std::uint32_t extendPortable(std::uint32_t crc, const std::uint8_t *p, std::size_t n)
{
    while (n > 0 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0) {
        crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
        --n;
    }
    while (n >= 8) {
        std::uint32_t lo;
        std::uint32_t hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= crc;
        crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff]
            ^ kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff]
            ^ kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n-- > 0)
        crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
    return crc;
}

#ifdef LATHE_CRC32C_X86
// Compiled for SSE4.2 on its own, so the rest of the build keeps the baseline ISA and the
// instruction only runs after the CPU check below.
__attribute__((target("sse4.2"))) std::uint32_t extendHardware(std::uint32_t crc, const std::uint8_t *p, std::size_t n)
{
    while (n > 0 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0) {
        crc = _mm_crc32_u8(crc, *p++);
        --n;
    }
    std::uint64_t c = crc;
    while (n >= 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    crc = static_cast<std::uint32_t>(c);
    while (n-- > 0)
        crc = _mm_crc32_u8(crc, *p++);
    return crc;
}

bool cpuHasSse42()
{
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

std::uint32_t crc32cPortable(const void *data, std::size_t size, std::uint32_t crc)
{
    return ~extendPortable(~crc, static_cast<const std::uint8_t *>(data), size);
}

std::uint32_t crc32c(const void *data, std::size_t size, std::uint32_t crc)
{
#ifdef LATHE_CRC32C_X86
    if (cpuHasSse42())
        return ~extendHardware(~crc, static_cast<const std::uint8_t *>(data), size);
#endif
    return crc32cPortable(data, size, crc);
}

} // namespace lathe::engine
