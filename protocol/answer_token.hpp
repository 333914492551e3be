// Answer tokens (docs/guarantees.md#answering-the-page): the secret part of every "answer
// the page" link, Slack button and voice callback. A token names one delivery and when it
// stops working, signed with the node-shared signing secret, so that answering a page
// needs no session, no login and no lookup table, and nobody can forge or alter one.
#pragma once

#include "protocol/model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

inline constexpr micros answer_token_validity = int64_t{7} * 24 * 3600 * 1'000'000;

// base64url, no padding, of delivery id (8 bytes, big-endian), expiry (8 bytes,
// big-endian, microseconds since the epoch) and HMAC-SHA256 over both: 64 characters.
// Throws std::invalid_argument for an empty secret, with which anyone could sign.
std::string make_answer_token(std::string_view secret, int64_t delivery_id,
                              micros expires_at);

// The delivery id, or nullopt when the token is malformed, was signed with another
// secret, was altered, or `now` has reached its expiry. Which of these it was is not
// told: a caller answers all of them with the same 404.
std::optional<int64_t> verify_answer_token(std::string_view secret,
                                           std::string_view token, micros now);

// 32 bytes from OpenSSL's CSPRNG as 64 lowercase hex digits, for the signing secret
// stored at first migration. Throws std::runtime_error if the generator fails: a weak
// secret must never be stored in silence.
std::string generate_signing_secret();

} // namespace belay::protocol
