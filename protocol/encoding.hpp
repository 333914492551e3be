// Byte-to-text encodings of RFC 4648 for signatures and tokens. Base64 is not crypto;
// it is written here (rather than taken from OpenSSL's EVP_EncodeBlock) because the
// decoder must be strict: a token has to have exactly one spelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

// RFC 4648 section 4, padded: what Twilio's X-Twilio-Signature carries.
std::string base64_encode(std::string_view bytes);
// RFC 4648 section 5 without padding: safe as it is in a URL path, a query string and
// a form value.
std::string base64url_encode(std::string_view bytes);
// The inverse of base64url_encode and nothing else: only the URL-safe alphabet, no
// padding, no whitespace, no impossible length, and the unused low bits of the last
// character must be zero, so that no two spellings decode to the same bytes.
std::optional<std::string> base64url_decode(std::string_view text);

} // namespace belay::protocol
