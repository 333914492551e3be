// Hashing helpers over OpenSSL's libcrypto: API keys are stored as SHA-256,
// webhook bodies and answer tokens are signed with HMAC-SHA256, Twilio signs with
// HMAC-SHA1.
#pragma once

#include <string>
#include <string_view>

namespace belay {

std::string sha256_hex(std::string_view data);
std::string hmac_sha256_hex(std::string_view key, std::string_view data);
// The raw digests (32 and 20 bytes), for encodings other than hex.
std::string hmac_sha256(std::string_view key, std::string_view data);
std::string hmac_sha1(std::string_view key, std::string_view data);
// Compares without an early exit, so timing does not leak how much matched.
bool constant_time_equal(std::string_view a, std::string_view b);

} // namespace belay
