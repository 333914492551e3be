#include "protocol/inbound_signatures.hpp"

#include "protocol/encoding.hpp"
#include "protocol/hash.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace belay::protocol {

namespace {

// Ten digits cover every Unix time until the year 2286; the cap keeps the sum far
// from overflowing, whatever a client sends.
constexpr std::size_t max_timestamp_digits = 12;

std::optional<int64_t> unix_seconds(std::string_view text) {
  if (text.empty() || text.size() > max_timestamp_digits)
    return std::nullopt;
  int64_t seconds = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  return seconds;
}

} // namespace

std::string twilio_signature(std::string_view auth_token, std::string_view url,
                             const form_fields& fields) {
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(fields.size());
  for (const auto& field : fields)
    sorted.push_back(&field);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return *a < *b; });
  std::string signed_text{url};
  for (const auto* field : sorted)
    signed_text += field->first + field->second;
  return base64_encode(hmac_sha1(auth_token, signed_text));
}

bool twilio_signature_valid(std::string_view auth_token, std::string_view url,
                            const form_fields& fields,
                            std::string_view signature_header) {
  if (auth_token.empty())
    return false;
  return constant_time_equal(twilio_signature(auth_token, url, fields), signature_header);
}

std::string slack_signature(std::string_view signing_secret,
                            std::string_view timestamp_header,
                            std::string_view raw_body) {
  std::string signed_text = "v0:";
  signed_text += timestamp_header;
  signed_text += ':';
  signed_text += raw_body;
  return "v0=" + hmac_sha256_hex(signing_secret, signed_text);
}

bool slack_signature_valid(std::string_view signing_secret,
                           std::string_view timestamp_header, std::string_view raw_body,
                           std::string_view signature_header, micros now) {
  if (signing_secret.empty())
    return false;
  const auto sent_at = unix_seconds(timestamp_header);
  if (!sent_at)
    return false;
  const int64_t now_seconds = now / 1'000'000;
  const int64_t skew =
      *sent_at > now_seconds ? *sent_at - now_seconds : now_seconds - *sent_at;
  if (skew > slack_timestamp_tolerance_seconds)
    return false;
  return constant_time_equal(slack_signature(signing_secret, timestamp_header, raw_body),
                             signature_header);
}

} // namespace belay::protocol
