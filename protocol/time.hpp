// Times on the wire are RFC 3339 UTC strings (DESIGN.md section 5).
#pragma once

#include "protocol/model.hpp"

#include <string>

namespace belay::protocol {

// UTC with millisecond precision, e.g. "2026-11-29T18:20:15.123Z". Sub-millisecond
// digits are cut off (rounded towards the past), so a rendered time is never later
// than the instant it stands for.
std::string rfc3339(belay::micros t);

} // namespace belay::protocol
