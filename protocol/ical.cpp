#include "protocol/ical.hpp"

#include "protocol/hash.hpp"

#include <algorithm>
#include <date/date.h>

namespace belay::protocol {

namespace {

constexpr belay::micros micros_per_second = 1'000'000;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// 20261102T140000Z
std::string utc_stamp(int64_t seconds) {
  return date::format("%Y%m%dT%H%M%SZ", date::sys_seconds{std::chrono::seconds{seconds}});
}

int64_t seconds_down(belay::micros t) {
  return floor_div(t, micros_per_second);
}

int64_t seconds_up(belay::micros t) {
  return -floor_div(-t, micros_per_second);
}

// RFC 5545 section 3.1: lines longer than 75 octets are folded by CRLF and one space.
// A fold never splits a UTF-8 character, so each physical line is valid UTF-8.
void append_line(std::string& out, std::string_view line) {
  constexpr std::size_t max_octets = 75;
  std::size_t room = max_octets;
  while (line.size() > room) {
    std::size_t cut = room;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
      --cut;
    out.append(line.substr(0, cut));
    out += "\r\n ";
    line.remove_prefix(cut);
    room = max_octets - 1; // the leading space counts
  }
  out.append(line);
  out += "\r\n";
}

// Stable for the same shift of the same schedule: the names are hashed because they
// may hold any character, and joined by NUL, which no name contains.
std::string uid_of(std::string_view schedule_name, const shift& s) {
  std::string key{schedule_name};
  key += '\0';
  key += s.user;
  key += '\0';
  key += std::to_string(s.start);
  return "shift-" + utc_stamp(seconds_down(s.start)) + "-" +
         belay::sha256_hex(key).substr(0, 24) + "@belay";
}

} // namespace

std::string ical_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case ';':
      out += "\\;";
      break;
    case ',':
      out += "\\,";
      break;
    case '\n':
      out += "\\n";
      break;
    default:
      if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F)
        out += c;
      else if (c == '\t')
        out += c;
    }
  }
  return out;
}

std::string render_calendar(std::string_view schedule_name,
                            const std::vector<shift>& shifts, belay::micros now) {
  std::string out;
  const std::string name = ical_text(schedule_name);
  const std::string stamp = utc_stamp(seconds_down(now));
  append_line(out, "BEGIN:VCALENDAR");
  append_line(out, "VERSION:2.0");
  append_line(out, "PRODID:-//belay//on-call schedules//EN");
  append_line(out, "CALSCALE:GREGORIAN");
  append_line(out, "METHOD:PUBLISH");
  append_line(out, "X-WR-CALNAME:On call: " + name);
  for (const shift& s : shifts) {
    const int64_t start = seconds_down(s.start);
    const int64_t end = std::max(seconds_up(s.end), start + 1);
    append_line(out, "BEGIN:VEVENT");
    append_line(out, "UID:" + uid_of(schedule_name, s));
    append_line(out, "DTSTAMP:" + stamp);
    append_line(out, "DTSTART:" + utc_stamp(start));
    append_line(out, "DTEND:" + utc_stamp(end));
    append_line(out, "SUMMARY:On call: " + ical_text(s.user) + " (" + name + ")");
    append_line(out, "DESCRIPTION:" + ical_text("From " + s.source));
    // Being on call is not being busy: the shift should not block the person's
    // calendar for meetings.
    append_line(out, "TRANSP:TRANSPARENT");
    append_line(out, "END:VEVENT");
  }
  append_line(out, "END:VCALENDAR");
  return out;
}

} // namespace belay::protocol
