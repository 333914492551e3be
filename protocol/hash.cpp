#include "protocol/hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

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
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
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
