#include "protocol/hash.hpp"

#include <memory>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdexcept>

namespace belay {

namespace {

std::string to_hex(const unsigned char* bytes, unsigned int len) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0x0f];
  }
  return out;
}

std::string hmac(const EVP_MD* md, std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(md, key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &len);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

} // namespace

std::string sha256_hex(std::string_view data) {
  // Every request's key is hashed here. EVP_Digest with EVP_sha256() looks the
  // algorithm up among OpenSSL 3's providers and makes a context each time: fetched once
  // and with a context per thread, that work is not repeated (callgrind).
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  thread_local const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context{
      EVP_MD_CTX_new(), EVP_MD_CTX_free};
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!sha256 || !context || !EVP_DigestInit_ex2(context.get(), sha256, nullptr) ||
      !EVP_DigestUpdate(context.get(), data.data(), data.size()) ||
      !EVP_DigestFinal_ex(context.get(), digest, &len))
    throw std::runtime_error("SHA-256 failed in OpenSSL");
  return to_hex(digest, len);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  const std::string digest = hmac_sha256(key, data);
  return to_hex(reinterpret_cast<const unsigned char*>(digest.data()),
                static_cast<unsigned int>(digest.size()));
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  return hmac(EVP_sha256(), key, data);
}

std::string hmac_sha1(std::string_view key, std::string_view data) {
  return hmac(EVP_sha1(), key, data);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace belay
