// RFC 3339 times as belay writes them (protocol/time.hpp). protocol/ has no time parser
// yet, so this checks the renderer against an independent inverse over the whole
// int64 microsecond range: the text must name the millisecond the instant falls in.
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
  return 0;
}
