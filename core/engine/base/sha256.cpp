#include "engine/base/sha256.h"

#include "engine/base/engine_error.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

namespace lathe::engine {
namespace {

std::string toHex(const unsigned char *bytes, std::size_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string out(n * 2, '0');
    for (std::size_t i = 0; i < n; ++i) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    return out;
}

} // namespace

std::string sha256Hex(const void *data, std::size_t size)
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(static_cast<const unsigned char *>(data), size, digest);
    return toHex(digest, sizeof digest);
}

struct Sha256::Impl
{
    EVP_MD_CTX *ctx = nullptr;
};

Sha256::Sha256()
    : m_impl(std::make_unique<Impl>())
{
    m_impl->ctx = EVP_MD_CTX_new();
    if (!m_impl->ctx || EVP_DigestInit_ex(m_impl->ctx, EVP_sha256(), nullptr) != 1)
        throw EngineError("SHA-256: OpenSSL could not start a digest");
}

Sha256::~Sha256()
{
    EVP_MD_CTX_free(m_impl->ctx);
}

void Sha256::update(const void *data, std::size_t size)
{
    EVP_DigestUpdate(m_impl->ctx, data, size);
}

std::string Sha256::hexDigest()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(m_impl->ctx, digest, &length);
    return toHex(digest, length);
}

} // namespace lathe::engine
