// Answer tokens (GET and POST /a/<token>, Slack's buttons, the voice callback's ?t=): the
// only credential an answer needs, read before anything else is. Any text decodes as
// base64url only in its one canonical spelling, and verifies only as the exact token
// belay makes for the delivery it names, before its expiry. Tokens made from the input
// verify until their expiry and never after it, and never with one bit flipped, cut
// short, or under another secret.
#include "checks.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/encoding.hpp"

#include <limits>
#include <stdexcept>

using namespace belay;
using namespace belay::fuzz;

namespace {

// The seeds' tokens are signed with this secret and expire after `now`.
const std::string seed_secret = "belay-fuzz-signing-secret";
constexpr micros now = 1'796'115'600'000'000; // 2026-12-01T09:00:00Z
constexpr micros earliest = std::numeric_limits<micros>::min();

constexpr std::string_view url_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Whether some bytes encode to `text` (RFC 4648 section 5, no padding): decided from the
// alphabet, the length and the bits the last character leaves over, without decoding.
bool is_canonical_base64url(std::string_view text) {
  if (text.find_first_not_of(url_alphabet) != std::string_view::npos)
    return false;
  if (text.size() % 4 == 1)
    return false;
  const auto last = text.empty() ? 0 : url_alphabet.find(text.back());
  if (text.size() % 4 == 2)
    return (last & 0x0F) == 0; // 12 bits carry one byte
  if (text.size() % 4 == 3)
    return (last & 0x03) == 0; // 18 bits carry two bytes
  return true;
}

uint64_t big_endian(std::string_view bytes) {
  uint64_t value = 0;
  for (char c : bytes.substr(0, 8))
    value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

void check_decode(std::string_view text) {
  auto decoded = protocol::base64url_decode(text);
  FUZZ_CHECK(decoded.has_value() == is_canonical_base64url(text));
  if (decoded) {
    FUZZ_CHECK(decoded->size() == text.size() * 3 / 4);
    FUZZ_CHECK(protocol::base64url_encode(*decoded) == text);
  }
}

void check_encode(std::string_view bytes) {
  const std::string text = protocol::base64url_encode(bytes);
  FUZZ_CHECK(is_canonical_base64url(text));
  FUZZ_CHECK(protocol::base64url_decode(text) == std::string{bytes});
}

// Whatever the text, it verifies only as the token belay would make for the delivery
// and expiry it names.
void check_verify(std::string_view text) {
  auto id = protocol::verify_answer_token(seed_secret, text, now);
  if (!id)
    return;
  auto bytes = protocol::base64url_decode(text);
  FUZZ_CHECK(bytes && bytes->size() == 48);
  const auto expires_at = static_cast<micros>(big_endian(bytes->substr(8)));
  FUZZ_CHECK(now < expires_at);
  FUZZ_CHECK(static_cast<int64_t>(big_endian(*bytes)) == *id);
  FUZZ_CHECK(protocol::make_answer_token(seed_secret, *id, expires_at) == text);
}

// A token made from the input's first 16 bytes (delivery id, expiry), checked at the
// time its next 8 bytes name; bytes 24-25 pick the bit to flip and the length to cut to,
// and the rest, if any, is the secret.
void check_made(std::string_view input) {
  if (input.size() < 26)
    return;
  const auto id = static_cast<int64_t>(big_endian(input));
  const auto expires_at = static_cast<micros>(big_endian(input.substr(8)));
  const auto at = static_cast<micros>(big_endian(input.substr(16)));
  const unsigned pick =
      static_cast<unsigned char>(input[24]) << 8 | static_cast<unsigned char>(input[25]);
  const std::string secret =
      input.size() > 26 ? std::string{input.substr(26)} : seed_secret;

  const std::string token = protocol::make_answer_token(secret, id, expires_at);
  FUZZ_CHECK(token.size() == 64 && is_canonical_base64url(token));
  auto verified = protocol::verify_answer_token(secret, token, at);
  FUZZ_CHECK(verified == (at < expires_at ? std::optional<int64_t>{id} : std::nullopt));
  FUZZ_CHECK(!protocol::verify_answer_token(secret, token, expires_at));
  if (expires_at != earliest)
    FUZZ_CHECK(protocol::verify_answer_token(secret, token, expires_at - 1) == id);

  std::string bytes = *protocol::base64url_decode(token);
  const unsigned bit = pick % (8 * bytes.size());
  bytes[bit / 8] = static_cast<char>(bytes[bit / 8] ^ (1u << (bit % 8)));
  const std::string flipped = protocol::base64url_encode(bytes);
  FUZZ_CHECK(!protocol::verify_answer_token(secret, flipped, earliest));
  FUZZ_CHECK(
      !protocol::verify_answer_token(secret, token.substr(0, pick % 64), earliest));
  FUZZ_CHECK(!protocol::verify_answer_token(secret + "x", token, earliest));
  FUZZ_CHECK(!protocol::verify_answer_token("", token, earliest));
}

void check_empty_secret_refused() {
  bool refused = false;
  try {
    (void)protocol::make_answer_token("", 1, now);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  FUZZ_CHECK(refused);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = bytes(data, size);
  check_decode(input);
  check_encode(input);
  check_verify(input);
  check_made(input);
  if (size == 0)
    check_empty_secret_refused();
  return 0;
}
