// RFC 3339 times (protocol/time.hpp). The renderer, over the whole int64 microsecond
// range, must name the millisecond the instant falls in, checked against an independent
// calendar, and what it writes for years 0 to 9999 must parse back to that millisecond.
// The parser, which reads every time a client sends (maintenance windows, overrides,
// ?from=&to=, ?at=, change events), must take exactly RFC 3339's date-time to the
// microsecond, for instants in the years the renderer writes, and give the instant that
// same calendar gives.
#include "checks.hpp"
#include "protocol/time.hpp"

#include <cinttypes>
#include <cstring>

using namespace belay;
using namespace belay::fuzz;

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool is_leap(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

unsigned days_in_month(int64_t year, unsigned month) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

// Days since 1970-01-01 by counting, a different method from the renderer's: whole
// 400-year eras (146097 days each), then years, then months.
int64_t days_since_epoch(int64_t year, unsigned month, unsigned day) {
  const int64_t eras = floor_div(year - 1970, 400);
  int64_t days = eras * 146097;
  for (int64_t y = 1970 + eras * 400; y < year; ++y)
    days += is_leap(y) ? 366 : 365;
  for (unsigned m = 1; m < month; ++m)
    days += days_in_month(year, m);
  return days + day - 1;
}

std::optional<int64_t> digits(std::string_view s, std::size_t at, std::size_t count) {
  if (s.size() < at + count)
    return std::nullopt;
  int64_t value = 0;
  for (char c : s.substr(at, count)) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// RFC 3339's date-time (section 5.6), read field by field: "YYYY-MM-DDTHH:MM:SS", a
// fraction of one to six digits (belay keeps microseconds), then Z or ±HH:MM; no leap
// second (sys_time has none).
std::optional<micros> expected_instant(std::string_view s) {
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  const auto year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2),
             hour = digits(s, 11, 2), minute = digits(s, 14, 2),
             second = digits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second)
    return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 ||
      *day > days_in_month(*year, static_cast<unsigned>(*month)) || *hour > 23 ||
      *minute > 59 || *second > 59)
    return std::nullopt;
  std::size_t i = 19;
  int64_t fraction = 0;
  if (s[i] == '.') {
    const std::size_t first = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    if (i == first || i - first > 6)
      return std::nullopt;
    fraction = *digits(s, first, i - first);
    for (std::size_t n = i - first; n < 6; ++n)
      fraction *= 10;
  }
  const std::string_view zone = s.substr(i);
  int64_t offset_minutes = 0;
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    const auto hours = digits(zone, 1, 2), minutes = digits(zone, 4, 2);
    if (!hours || !minutes || *hours > 23 || *minutes > 59)
      return std::nullopt;
    offset_minutes = (zone[0] == '-' ? -1 : 1) * (*hours * 60 + *minutes);
  } else if (zone != "Z" && zone != "z") {
    return std::nullopt;
  }
  const int64_t seconds = days_since_epoch(*year, static_cast<unsigned>(*month),
                                           static_cast<unsigned>(*day)) *
                              86'400 +
                          (*hour * 60 + *minute - offset_minutes) * 60 + *second;
  const micros instant = seconds * 1'000'000 + fraction;
  // Only what rfc3339 writes back as RFC 3339: years 0 to 9999 in UTC.
  if (instant < days_since_epoch(0, 1, 1) * 86'400'000'000 ||
      instant >= days_since_epoch(10000, 1, 1) * 86'400'000'000)
    return std::nullopt;
  return instant;
}

void check_parse(std::string_view text) {
  FUZZ_CHECK(protocol::parse_rfc3339(text) == expected_instant(text));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t raw = 0;
  std::memcpy(&raw, data, size < sizeof raw ? size : sizeof raw);
  const auto t = static_cast<micros>(raw);
  const std::string text = protocol::rfc3339(t);

  int64_t year = 0;
  unsigned month = 0, day = 0, hour = 0, minute = 0, second = 0, milli = 0;
  int consumed = 0;
  const int fields =
      std::sscanf(text.c_str(), "%" SCNd64 "-%2u-%2uT%2u:%2u:%2u.%3uZ%n", &year, &month,
                  &day, &hour, &minute, &second, &milli, &consumed);
  FUZZ_CHECK(fields == 7 && static_cast<std::size_t>(consumed) == text.size());
  // Fixed width after the year, so that times of one year sort as text.
  FUZZ_CHECK(text.size() >= 24 && text.compare(text.size() - 20, 1, "-") == 0);
  if (year >= 0 && year <= 9999)
    FUZZ_CHECK(text.size() == 24);
  FUZZ_CHECK(month >= 1 && month <= 12);
  FUZZ_CHECK(day >= 1 && day <= days_in_month(year, month));
  FUZZ_CHECK(hour < 24 && minute < 60 && second < 60 && milli < 1000);

  const int64_t millis = days_since_epoch(year, month, day) * 86'400'000 +
                         ((hour * 60 + minute) * 60 + second) * int64_t{1000} + milli;
  FUZZ_CHECK(millis == floor_div(t, 1000));
  if (year >= 0 && year <= 9999)
    FUZZ_CHECK(protocol::parse_rfc3339(text) == millis * 1000);

  check_parse(bytes(data, size));
  return 0;
}
