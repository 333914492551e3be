#include "protocol/answer_token.hpp"

#include "protocol/encoding.hpp"
#include "protocol/hash.hpp"

#include <openssl/rand.h>
#include <stdexcept>

namespace belay::protocol {

namespace {

constexpr std::size_t field_bytes = 8;
constexpr std::size_t mac_bytes = 32;
constexpr std::size_t token_bytes = 2 * field_bytes + mac_bytes;

// Signed ahead of the fields so that a MAC made with the same secret for some other
// purpose (a future link kind, say) can never pass as an answer token.
constexpr std::string_view mac_label = "belay answer token v1:";

void append_big_endian(std::string& out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8)
    out += static_cast<char>((value >> shift) & 0xff);
}

uint64_t read_big_endian(std::string_view bytes) {
  uint64_t value = 0;
  for (char byte : bytes.substr(0, field_bytes))
    value = (value << 8) | static_cast<unsigned char>(byte);
  return value;
}

std::string mac_of(std::string_view secret, std::string_view fields) {
  std::string signed_text{mac_label};
  signed_text += fields;
  return hmac_sha256(secret, signed_text);
}

} // namespace

std::string make_answer_token(std::string_view secret, int64_t delivery_id,
                              micros expires_at) {
  if (secret.empty())
    throw std::invalid_argument("answer tokens need a non-empty signing secret");
  std::string bytes;
  bytes.reserve(token_bytes);
  append_big_endian(bytes, static_cast<uint64_t>(delivery_id));
  append_big_endian(bytes, static_cast<uint64_t>(expires_at));
  bytes += mac_of(secret, bytes);
  return base64url_encode(bytes);
}

std::optional<int64_t> verify_answer_token(std::string_view secret,
                                           std::string_view token, micros now) {
  if (secret.empty())
    return std::nullopt;
  const auto bytes = base64url_decode(token);
  if (!bytes || bytes->size() != token_bytes)
    return std::nullopt;
  const std::string_view all{*bytes};
  const std::string_view fields = all.substr(0, 2 * field_bytes);
  if (!constant_time_equal(mac_of(secret, fields), all.substr(2 * field_bytes)))
    return std::nullopt;
  // Only a token belay signed gets this far, so the fields are what belay wrote.
  const auto delivery_id = static_cast<int64_t>(read_big_endian(fields));
  const auto expires_at =
      static_cast<micros>(read_big_endian(fields.substr(field_bytes)));
  if (now >= expires_at)
    return std::nullopt;
  return delivery_id;
}

std::string generate_signing_secret() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    throw std::runtime_error(
        "the random number generator failed to make a signing secret");
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof bytes);
  for (unsigned char byte : bytes) {
    out += digits[byte >> 4];
    out += digits[byte & 0x0f];
  }
  return out;
}

} // namespace belay::protocol
