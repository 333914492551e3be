// Times on the wire are RFC 3339 UTC strings (docs/http.md#conventions).
#pragma once

#include "protocol/model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace belay::protocol {

// UTC with millisecond precision, e.g. "2026-11-29T18:20:15.123Z". Sub-millisecond
// digits are cut off (rounded towards the past), so a rendered time is never later
// than the instant it stands for.
std::string rfc3339(belay::micros t);

// Reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" (RFC 3339; 't' and 'z' as well, up to
// microseconds), through date's parser; nullopt for anything else, local times without
// an offset included.
std::optional<belay::micros> parse_rfc3339(std::string_view text);

} // namespace belay::protocol
