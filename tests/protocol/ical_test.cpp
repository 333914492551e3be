#include "protocol/ical.hpp"
#include "support/utc.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace belay;
using namespace belay::protocol;
using belay::test::utc;

namespace {

shift on_call(std::string user, const char* start, const char* end) {
  return shift{std::move(user), utc(start), utc(end), "layer:weekdays"};
}

// 2026-11-01T12:00:00Z (a literal: utc() may not run before a test does).
const micros now = 1'793'534'400'000'000;

std::vector<std::string> physical_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  for (auto end = text.find("\r\n"); end != std::string::npos;
       end = text.find("\r\n", from)) {
    lines.push_back(text.substr(from, end - from));
    from = end + 2;
  }
  CHECK(from == text.size()); // the last line ends in CRLF too
  return lines;
}

// RFC 5545 unfolding: a CRLF followed by one space disappears.
std::vector<std::string> content_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string& line : physical_lines(text)) {
    if (!line.empty() && line[0] == ' ')
      lines.back() += line.substr(1);
    else
      lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> with_prefix(const std::vector<std::string>& lines,
                                     const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& line : lines)
    if (line.rfind(prefix, 0) == 0)
      out.push_back(line);
  return out;
}

} // namespace

TEST_CASE("a calendar has one VEVENT per shift, in UTC", "[ical]") {
  const std::string text =
      render_calendar("primary",
                      {on_call("alice", "2026-11-02T14:00:00Z", "2026-11-02T23:00:00Z"),
                       on_call("bob", "2026-11-09T14:00:00Z", "2026-11-09T23:00:00Z")},
                      now);
  const auto lines = content_lines(text);
  REQUIRE(lines.size() >= 4);
  CHECK(lines[0] == "BEGIN:VCALENDAR");
  CHECK(lines[1] == "VERSION:2.0");
  CHECK(with_prefix(lines, "PRODID:").size() == 1);
  CHECK(lines.back() == "END:VCALENDAR");
  CHECK(with_prefix(lines, "BEGIN:VEVENT").size() == 2);
  CHECK(with_prefix(lines, "END:VEVENT").size() == 2);
  CHECK(with_prefix(lines, "DTSTART:") ==
        std::vector<std::string>{"DTSTART:20261102T140000Z", "DTSTART:20261109T140000Z"});
  CHECK(with_prefix(lines, "DTEND:") ==
        std::vector<std::string>{"DTEND:20261102T230000Z", "DTEND:20261109T230000Z"});
  CHECK(with_prefix(lines, "SUMMARY:") ==
        std::vector<std::string>{"SUMMARY:On call: alice (primary)",
                                 "SUMMARY:On call: bob (primary)"});
  CHECK(with_prefix(lines, "DTSTAMP:") ==
        std::vector<std::string>{"DTSTAMP:20261101T120000Z", "DTSTAMP:20261101T120000Z"});
}

TEST_CASE("an empty schedule is an empty calendar, still valid", "[ical]") {
  const auto lines = content_lines(render_calendar("primary", {}, now));
  CHECK(with_prefix(lines, "BEGIN:VEVENT").empty());
  CHECK(lines.front() == "BEGIN:VCALENDAR");
  CHECK(lines.back() == "END:VCALENDAR");
}

TEST_CASE("sub-second bounds widen to whole seconds, never to an empty event", "[ical]") {
  shift s = on_call("alice", "2026-11-02T14:00:00Z", "2026-11-02T14:00:00Z");
  s.start += 250'000;
  s.end += 500'000;
  const auto lines = content_lines(render_calendar("primary", {s}, now));
  CHECK(with_prefix(lines, "DTSTART:") ==
        std::vector<std::string>{"DTSTART:20261102T140000Z"});
  CHECK(with_prefix(lines, "DTEND:") ==
        std::vector<std::string>{"DTEND:20261102T140001Z"});
}

TEST_CASE("TEXT values are escaped", "[ical]") {
  CHECK(ical_text("ops, EU; night\\shift\nsecond") ==
        "ops\\, EU\\; night\\\\shift\\nsecond");
  CHECK(ical_text("a\rb\x01"
                  "c\td") == "abc\td");
  const auto lines = content_lines(render_calendar(
      "ops, EU", {on_call("o'neil; jr", "2026-11-02T14:00:00Z", "2026-11-02T23:00:00Z")},
      now));
  CHECK(with_prefix(lines, "SUMMARY:") ==
        std::vector<std::string>{"SUMMARY:On call: o'neil\\; jr (ops\\, EU)"});
}

TEST_CASE("lines end in CRLF and fold at 75 octets, never inside a character", "[ical]") {
  std::string long_name;
  for (int i = 0; i < 40; ++i)
    long_name += "Zoë "; // ë is two octets: folds must step around it
  const std::string text = render_calendar(
      "primary", {on_call(long_name, "2026-11-02T14:00:00Z", "2026-11-02T23:00:00Z")},
      now);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      REQUIRE((i > 0 && text[i - 1] == '\r'));
  bool folded = false;
  for (const std::string& line : physical_lines(text)) {
    CHECK(line.size() <= 75);
    if (!line.empty() && line[0] == ' ') {
      folded = true;
      REQUIRE(line.size() > 1);
      CHECK((static_cast<unsigned char>(line[1]) & 0xC0) != 0x80);
    }
  }
  CHECK(folded);
  CHECK(with_prefix(content_lines(text), "SUMMARY:") ==
        std::vector<std::string>{"SUMMARY:On call: " + long_name + " (primary)"});
}

TEST_CASE("a shift keeps its UID across refreshes, other shifts get others", "[ical]") {
  auto uid = [](const std::string& schedule, const shift& s, micros at) {
    const auto uids =
        with_prefix(content_lines(render_calendar(schedule, {s}, at)), "UID:");
    REQUIRE(uids.size() == 1);
    return uids[0];
  };
  const shift alice = on_call("alice", "2026-11-02T14:00:00Z", "2026-11-02T23:00:00Z");
  shift longer = alice;
  longer.end = utc("2026-11-03T02:00:00Z");
  shift later = alice;
  later.start = utc("2026-11-02T15:00:00Z");
  shift bob = alice;
  bob.user = "bob";
  CHECK(uid("primary", alice, now) == uid("primary", alice, now + 3'600'000'000));
  CHECK(uid("primary", alice, now) == uid("primary", longer, now));
  CHECK(uid("primary", alice, now) != uid("primary", later, now));
  CHECK(uid("primary", alice, now) != uid("primary", bob, now));
  CHECK(uid("primary", alice, now) != uid("secondary", alice, now));
}

TEST_CASE("Python's icalendar reads the feed back", "[ical]") {
  std::string long_name;
  for (int i = 0; i < 30; ++i)
    long_name += "Zoë ";
  const std::vector<shift> shifts{
      on_call("alice", "2026-11-02T14:00:00Z", "2026-11-02T23:00:00Z"),
      on_call(long_name, "2026-11-06T23:00:00Z", "2026-11-09T14:00:00Z"),
      on_call("o'neil, jr; \\ \"x\"", "2026-11-09T14:00:00Z", "2026-11-09T23:00:00Z")};
  const std::string text = render_calendar("primary, EU", shifts, now);

  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("belay-ical-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "feed.ics", std::ios::binary) << text;
  // The expected summaries as JSON strings: only the quote and the backslash need
  // escaping in these names.
  auto json_string = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::ofstream(dir / "expected.json", std::ios::binary)
      << "[[" << json_string("On call: alice (primary, EU)")
      << R"(,"2026-11-02T14:00:00Z","2026-11-02T23:00:00Z"],)"
      << "[" << json_string("On call: " + long_name + " (primary, EU)")
      << R"(,"2026-11-06T23:00:00Z","2026-11-09T14:00:00Z"],)"
      << "[" << json_string("On call: o'neil, jr; \\ \"x\" (primary, EU)")
      << R"(,"2026-11-09T14:00:00Z","2026-11-09T23:00:00Z"]])";
  // Debian's interpreter, for which python3-icalendar is installed: a python3 found
  // earlier on PATH (pyenv, a virtualenv) may lack it.
  const std::string command =
      "/usr/bin/python3 '" BELAY_SOURCE_DIR "/tests/protocol/ical_check.py' '" +
      (dir / "feed.ics").string() + "' '" + (dir / "expected.json").string() + "'";
  const int status = std::system(command.c_str());
  fs::remove_all(dir);
  CHECK(status == 0);
}
