#include "protocol/credentials.hpp"

#include "protocol/encoding.hpp"
#include "protocol/hash.hpp"

#include <argon2.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdexcept>
#include <vector>

namespace belay::protocol {

namespace {

constexpr uint32_t passes = 2;
constexpr uint32_t memory_kib = 19 * 1024;
constexpr uint32_t lanes = 1;
constexpr size_t salt_bytes = 16;
constexpr size_t hash_bytes = 32;

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw std::runtime_error("the random number generator failed");
  return out;
}

// A check's cost against a hash of the same parameters.
const std::string& dummy_hash() {
  static const std::string hash = hash_password("belay: no such login");
  return hash;
}

} // namespace

std::string random_token(std::string_view prefix, size_t bytes) {
  return std::string{prefix} + base64url_encode(random_bytes(bytes));
}

std::string hash_password(std::string_view password) {
  auto salt = random_bytes(salt_bytes);
  std::vector<char> encoded(
      argon2_encodedlen(passes, memory_kib, lanes, salt_bytes, hash_bytes, Argon2_id));
  int rc = argon2id_hash_encoded(passes, memory_kib, lanes, password.data(),
                                 password.size(), salt.data(), salt.size(), hash_bytes,
                                 encoded.data(), encoded.size());
  if (rc != ARGON2_OK)
    throw std::runtime_error(std::string{"argon2id: "} + argon2_error_message(rc));
  return encoded.data();
}

bool password_matches(std::string_view encoded, std::string_view password) {
  if (encoded.rfind("$argon2id$", 0) != 0)
    return false;
  const std::string text{encoded}; // argon2 reads a NUL-terminated string
  return argon2id_verify(text.c_str(), password.data(), password.size()) == ARGON2_OK;
}

void spend_a_password_check(std::string_view password) {
  (void)password_matches(dummy_hash(), password);
}

std::optional<std::string> weak_password(std::string_view password) {
  if (password.size() < 8)
    return "a password needs at least 8 characters";
  if (password.size() > 1024)
    return "a password may have at most 1,024 bytes";
  return std::nullopt;
}

std::string csrf_token_of(std::string_view session_token) {
  return base64url_encode(hmac_sha256(session_token, "belay csrf v1"));
}

std::string pkce_verifier(std::string_view login_cookie, std::string_view state) {
  return base64url_encode(
      hmac_sha256(login_cookie, "belay pkce v1:" + std::string{state}));
}

std::string pkce_challenge(std::string_view verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(),
         digest);
  return base64url_encode(
      std::string_view{reinterpret_cast<const char*>(digest), sizeof digest});
}

std::string oidc_nonce(std::string_view login_cookie, std::string_view state) {
  return base64url_encode(
      hmac_sha256(login_cookie, "belay nonce v1:" + std::string{state}));
}

} // namespace belay::protocol
