#include "protocol/time.hpp"

// date::parse's internals trip GCC 12's -Wmaybe-uninitialized at -O2 (a false positive
// in date.h's from_stream, reported from libstdc++'s chrono.h); -Werror would stop the
// release build on it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <date/date.h>
#include <sstream>

namespace belay::protocol {

namespace {

// Division that rounds towards negative infinity, so instants before 1970 land in the
// right day and millisecond.
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct civil_date {
  int64_t year;
  unsigned month; // 1..12
  unsigned day;   // 1..31
};

// Howard Hinnant's days_from_civil inverse: exact for the proleptic Gregorian calendar
// and independent of the process time zone and locale, unlike gmtime.
civil_date civil_from_days(int64_t days) {
  days += 719468;
  const int64_t era = floor_div(days, 146097);
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned shifted_month = (5 * day_of_year + 2) / 153; // March is 0
  const unsigned day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
  const unsigned month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
  const int64_t year = static_cast<int64_t>(year_of_era) + era * 400 + (month <= 2);
  return {year, month, day};
}

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// What follows the seconds of an RFC 3339 time, past its fraction (".315") if it has one.
std::string_view fraction_end(std::string_view text) {
  auto rest = text.substr(19);
  if (rest.empty() || rest[0] != '.')
    return rest;
  std::size_t end = 1;
  while (end < rest.size() && is_digit(rest[end]))
    ++end;
  return end == 1 ? rest : rest.substr(end); // a bare "." is no zone either
}

// RFC 3339's time-numoffset: hours 00-23, minutes 00-59. date::parse takes any two
// digits, so "+99:99" moved a time by four days (found by fuzzing).
bool is_zone(std::string_view zone) {
  if (zone == "Z" || zone == "z")
    return true;
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && is_digit(zone[1]) &&
         is_digit(zone[2]) && zone[3] == ':' && is_digit(zone[4]) && is_digit(zone[5]) &&
         (zone[1] < '2' || (zone[1] == '2' && zone[2] <= '3')) && zone[4] <= '5';
}

// The instants rfc3339 writes as RFC 3339: 0000-01-01T00:00:00Z to the end of 9999.
constexpr belay::micros first_writable = -62'167'219'200'000'000;
constexpr belay::micros last_writable = 253'402'300'799'999'999;

} // namespace

std::string rfc3339(belay::micros t) {
  constexpr int64_t millis_per_day = 86'400'000;
  const int64_t millis = floor_div(t, 1000);
  const int64_t days = floor_div(millis, millis_per_day);
  const int64_t millis_of_day = millis - days * millis_per_day;
  const civil_date date = civil_from_days(days);
  const auto hours = static_cast<int>(millis_of_day / 3'600'000),
             minutes = static_cast<int>(millis_of_day / 60'000 % 60),
             seconds = static_cast<int>(millis_of_day / 1000 % 60),
             milliseconds = static_cast<int>(millis_of_day % 1000);
  char text[48];
  if (date.year < 0 || date.year > 9999) {
    std::snprintf(text, sizeof text, "%04" PRId64 "-%02u-%02uT%02d:%02d:%02d.%03dZ",
                  date.year, date.month, date.day, hours, minutes, seconds, milliseconds);
    return text;
  }
  // Every response carries three or four times: snprintf was ~4,000 instructions each,
  // more than the rest of rendering an incident (callgrind, bench/README.md).
  auto digits = [](char* at, int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10)
      at[i] = static_cast<char>('0' + value % 10);
  };
  std::memcpy(text, "0000-00-00T00:00:00.000Z", 24);
  digits(text, date.year, 4);
  digits(text + 5, date.month, 2);
  digits(text + 8, date.day, 2);
  digits(text + 11, hours, 2);
  digits(text + 14, minutes, 2);
  digits(text + 17, seconds, 2);
  digits(text + 20, milliseconds, 3);
  return std::string(text, 24);
}

std::optional<belay::micros> parse_rfc3339(std::string_view text) {
  // Shape first: date::parse alone is lenient (it skips spaces, takes short fields).
  if (text.size() < 20 || text.size() > 35 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  // Every field a digit: date::parse reads "10:00:E9" as seconds in exponent notation
  // and converts the resulting NaN to an integer (undefined behaviour, found by fuzzing).
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (!is_digit(text[i]))
      return std::nullopt;
  // The rest is a fraction and "Z" or "±hh:mm", checked here too: date::parse negates a
  // "-" offset it could not read, and that is minutes::min() (undefined behaviour, found
  // by fuzzing "…:58-x").
  if (!is_zone(fraction_end(text)))
    return std::nullopt;
  std::string upper{text};
  for (auto& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  bool utc = upper.back() == 'Z';
  if (utc)
    upper.back() = ' ';
  date::sys_time<std::chrono::microseconds> at;
  std::istringstream in{upper};
  if (utc)
    in >> date::parse("%Y-%m-%dT%H:%M:%S", at);
  else
    in >> date::parse("%Y-%m-%dT%H:%M:%S%Ez", at);
  if (in.fail())
    return std::nullopt;
  in >> std::ws;
  if (!in.eof())
    return std::nullopt;
  // An offset can carry a time out of those years ("9999-12-31T23:59:59-01:00"); kept,
  // it would be written back as "10000-01-01T00:59:59.000Z", which nobody reads.
  const auto t = at.time_since_epoch().count();
  if (t < first_writable || t > last_writable)
    return std::nullopt;
  return t;
}

} // namespace belay::protocol
