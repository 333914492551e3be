// The words of a bundle (docs/architecture.md#storms), shared by every channel's
// renderer: how many incidents, how many critical, and which.
#pragma once

#include "protocol/page.hpp"

#include <cstddef>
#include <string>

namespace belay::protocol {

// "14 incidents need you (3 critical)"; "(…critical)" left out when none is.
std::string bundle_headline(const page& p);

// "#123 Disk full on db-1; #124 …", titles clipped to `title_chars`, as many incidents as
// fit in `max_chars`, then "...and N more" (GSM characters only, as every SMS text).
std::string bundle_list(const page& p, std::size_t max_chars, std::size_t title_chars);

// A bundle of status updates: "[belay] 3 incidents acknowledged by alice via sms: #1 …;
// #2 …", one clause per (what happened, by whom, how) when they differ.
std::string bundle_update_text(const page& p, std::size_t max_chars);

} // namespace belay::protocol
