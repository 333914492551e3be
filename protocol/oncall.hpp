// Who is on call (docs/guarantees.md#on-call): a schedule's rotation layers in an IANA
// time zone, overrides above them, and the final shifts they add up to. Pure functions of
// the records and the instants asked about; the time zone database is read through
// date-tz, never through hand-written offsets.
#pragma once

#include "protocol/error.hpp"
#include "protocol/model.hpp"

#include <array>
#include <date/tz.h>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace belay::protocol {

enum class rotation_type { hourly, daily, weekly, monthly };

// Far beyond any real rotation (1,000 weeks is 19 years), and small enough that
// handoff arithmetic stays inside the date library's range.
inline constexpr int max_rotation_length = 1000;

struct rotation {
  rotation_type type = rotation_type::weekly;
  int length = 1; // units of `type` per shift, 1 to max_rotation_length
  // Handoff 0 as a wall-clock time in the schedule's zone. Handoff k is at start +
  // k·length units of wall-clock time, so a 09:00 handoff stays 09:00 across
  // daylight-saving changes.
  date::local_seconds start{};
};

// A weekly window in the schedule's zone: on each of `days`, from `start` to `end`
// (minutes after local midnight). end ≤ start runs into the next day, so 22:00–06:00
// is a night and 00:00–00:00 a whole day.
struct restriction {
  std::array<bool, 7> days{}; // by date::weekday::c_encoding(): 0 is Sunday
  int start = 0;              // 0..1439
  int end = 0;                // 0..1439
};

struct layer {
  std::string name;
  std::vector<std::string> users; // shift k belongs to users[k mod n]
  protocol::rotation rotation;
  std::vector<restriction> restrictions; // empty: the layer counts at all times
};

struct schedule {
  std::string name;
  std::string time_zone; // IANA name as given, e.g. "America/New_York"
  // time_zone resolved once by check_schedule (the parsers call it), so computing
  // shifts never looks a zone up by name.
  const date::time_zone* zone = nullptr;
  std::vector<layer> layers; // where several have someone, the last one listed wins
};

// Created at run time and persisted. Overrides sit above every layer; where two
// overlap, the one created last wins (ties: the higher id).
struct schedule_override {
  int64_t id = 0;
  std::string user;
  // Absent: `user` is the only one on call for the span. Present: `user` stands in for
  // that person only while they would otherwise be on call, through the layers or
  // through an older override.
  std::optional<std::string> replaces;
  belay::micros start = 0;
  belay::micros end = 0; // exclusive
  belay::micros created_at = 0;
};

struct shift {
  std::string user;
  belay::micros start = 0;
  belay::micros end = 0; // exclusive
  std::string source;    // "layer:<name>" or "override:<id>"
};

// The final shifts (layers, restrictions and overrides applied) that overlap [from, to),
// clipped to it, in time order. Contiguous shifts of one user are merged into one,
// which keeps the source of its earliest part. Wall times that do not exist (spring
// forward) move to the first instant after the gap; ambiguous ones (fall back) take
// their first occurrence; a handoff that thereby lands on the next one gives a shift
// of no length, which is left out. Before its rotation's start a layer has nobody.
//
// The cost grows with the number of handoffs in [from, to), not with the time since a
// rotation started: the first handoff is found by arithmetic. Callers bound the span
// (the HTTP API allows 93 days).
//
// Known limit: date-tz 3.0.1 reads only the transitions listed in the system's tz
// files, which end in 2037; later instants keep the last listed offset (no daylight
// saving after 2037).
//
// `s` must have passed check_schedule (so its zone is resolved); `overrides` are
// this schedule's.
std::vector<shift> final_shifts(const schedule& s,
                                const std::vector<schedule_override>& overrides,
                                belay::micros from, belay::micros to);

// How far on_call_at looks either side of its instant for the bounds of a shift.
inline constexpr belay::micros on_call_search_limit = 366LL * 24 * 3600 * 1'000'000;

// Who is on call at `at`, with the bounds of their current final shift (merged as in
// final_shifts); nullopt when nobody is. The semantics above leave at most one person
// on call per schedule at any instant. A bound further than on_call_search_limit from
// `at` is reported at that limit (a one-person rotation has no end).
std::optional<shift> on_call_at(const schedule& s,
                                const std::vector<schedule_override>& overrides,
                                belay::micros at);

// Checks and helpers shared by the provisioning parser, the schedule reader and the
// overrides endpoint.

// nullptr when the system tz database has no zone of that name.
const date::time_zone* find_time_zone(std::string_view iana_name);

std::optional<rotation_type> rotation_type_named(std::string_view name);
const char* rotation_type_name(rotation_type type);
inline constexpr std::array<std::string_view, 4> rotation_type_names = {
    "hourly", "daily", "weekly", "monthly"};

// "mon" … "sun" → date::weekday::c_encoding() (0 is Sunday).
std::optional<unsigned> weekday_named(std::string_view name);
inline constexpr std::array<std::string_view, 7> weekday_names = {
    "sun", "mon", "tue", "wed", "thu", "fri", "sat"};

// "HH:MM", 00:00 to 23:59 → minutes after midnight.
std::optional<int> parse_time_of_day(std::string_view text);
std::string time_of_day_text(int minutes);

// "YYYY-MM-DDTHH:MM" or "YYYY-MM-DDTHH:MM:SS", a local date-time without offset,
// years 1970 to 9999.
std::optional<date::local_seconds> parse_local_date_time(std::string_view text);
// The inverse; seconds only when they are not zero.
std::string local_date_time_text(date::local_seconds t);

// Checks a schedule built in code (from storage, say) the way the parser checks one
// from JSON, and resolves its zone. Fields are named as in the JSON shape
// ("layers[1].rotation.length"). Whether layer users exist is the caller's to check:
// it needs the org.
std::optional<error> check_schedule(schedule& s);

// An override as the overrides endpoint receives it: a user, end after start, and
// `replaces` (when given) someone other than the user. Whether the users exist is the
// caller's to check.
std::optional<error> check_override(const schedule_override& o);

} // namespace belay::protocol
