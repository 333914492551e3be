// A schedule's final shifts as an iCalendar feed (RFC 5545), for
// GET /api/v1/schedules/{name}/calendar.ics (docs/http.md#on-call-api).
#pragma once

#include "protocol/model.hpp"
#include "protocol/oncall.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

inline constexpr const char* calendar_content_type = "text/calendar; charset=utf-8";

// A VCALENDAR (VERSION, PRODID) with one VEVENT per shift: SUMMARY "On call: <user>
// (<schedule>)", DTSTART and DTEND in UTC (whole seconds, the start rounded down and
// the end up, so no event is empty), DTSTAMP `now`, and a UID derived from the
// schedule, the user and the start, so that a calendar client refreshing the feed
// updates an event instead of adding a copy. CRLF line ends, lines folded at 75
// octets without splitting a UTF-8 character, TEXT values escaped.
//
// A shift clipped at a moving `from` would get a new UID on every refresh: start the
// span at the current shift's start (on_call_at) rather than at now.
std::string render_calendar(std::string_view schedule_name,
                            const std::vector<shift>& shifts, belay::micros now);

// RFC 5545 TEXT: backslash, semicolon, comma and newline escaped, other control
// characters but tab dropped.
std::string ical_text(std::string_view text);

} // namespace belay::protocol
