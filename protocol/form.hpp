// application/x-www-form-urlencoded bodies: what Twilio's webhooks, Slack's
// interactivity requests and the answer page's buttons send.
#pragma once

#include "protocol/error.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace belay::protocol {

// In the order sent, duplicates kept: Twilio signs every field, in whatever number.
using form_fields = std::vector<std::pair<std::string, std::string>>;

// Twilio sends a few dozen fields, Slack one; this bounds the allocations a hostile
// body of "a&a&a&…" could cause, whatever the body size limit.
inline constexpr std::size_t max_form_fields = 1000;

// Fields are separated by '&', name from value by the first '='; '+' is a space and
// %XX a byte. Empty segments ("a=1&&b=2") are skipped and a field without '=' has an
// empty value, as browsers do. Refused with a 400 invalid_form error: a '%' without two
// hex digits after it (browsers keep it as it is, but a signature check must not guess
// which bytes were meant), a decoded NUL or invalid UTF-8 (PostgreSQL stores neither),
// and more than max_form_fields fields.
parsed<form_fields> parse_form(std::string_view body);

// The value of the first field named `name`.
std::optional<std::string> form_value(const form_fields& fields, std::string_view name);

} // namespace belay::protocol
