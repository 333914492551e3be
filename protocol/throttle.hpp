// Throttles and bundles per contact (docs/guarantees.md#storms): the defaults by channel
// type, which carriers taught (GoAlert's), and where bundling is possible at all.
#pragma once

#include "protocol/model.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// Pages: sms 1/60 s, 5/900 s, 11/3,600 s; voice 1/60 s, 3/900 s, 7/3,600 s; email
// 1/60 s; slack, webhook and log none.
throttle_windows default_page_throttle(std::string_view channel_type);
// Status updates: sms and voice 1/180 s, 3/1,200 s, 8/7,200 s; email 1/180 s; the
// others none.
throttle_windows default_status_throttle(std::string_view channel_type);
// A bundle is one message a person reads: sms, voice, email and slack; a webhook's or a
// log's reader is a program that wants one page per request.
bool can_bundle(std::string_view channel_type);

// Windows as the channel row keeps them: [{"count":1,"seconds":60},…].
std::string throttle_json(const throttle_windows& windows);
// What throttle_json wrote; anything else reads as no windows.
throttle_windows throttle_from_json(std::string_view json);

} // namespace belay::protocol
