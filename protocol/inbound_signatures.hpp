// Checks that an inbound request really comes from Twilio or Slack
// (docs/http.md#answering). Each answers only valid or not: a caller refuses every
// failure with the same 403, so an attacker learns nothing about which part was wrong.
#pragma once

#include "protocol/form.hpp"
#include "protocol/model.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// base64(HMAC-SHA1(auth token, url + every POST field's name and value)), the fields
// sorted by name (bytewise, as Twilio's own libraries do) and equal names by value.
// `url` is the URL exactly as Twilio requested it, query string included: the public
// URL + path (+ "?t=…" for the voice callback).
std::string twilio_signature(std::string_view auth_token, std::string_view url,
                             const form_fields& fields);
// Compared in constant time. An empty auth token never validates: anyone could sign.
bool twilio_signature_valid(std::string_view auth_token, std::string_view url,
                            const form_fields& fields, std::string_view signature_header);

// Slack refuses replays older than this, and so does belay; future timestamps (a
// clock running ahead) are held to the same bound.
inline constexpr int64_t slack_timestamp_tolerance_seconds = 5 * 60;

// "v0=" + hex(HMAC-SHA256(signing secret, "v0:" + timestamp + ":" + raw body)).
std::string slack_signature(std::string_view signing_secret,
                            std::string_view timestamp_header, std::string_view raw_body);
// The signature checked in constant time, and the timestamp (decimal Unix seconds,
// digits only) within slack_timestamp_tolerance_seconds of `now` either way. An empty
// signing secret never validates.
bool slack_signature_valid(std::string_view signing_secret,
                           std::string_view timestamp_header, std::string_view raw_body,
                           std::string_view signature_header, micros now);

} // namespace belay::protocol
