// Expected instants are UTC literals worked out independently with Python's zoneinfo
// (python3 -c 'from zoneinfo import ZoneInfo; …'), never with the code under test.
// 2026's daylight-saving changes: New York Mar 8 (02:00 → 03:00) and Nov 1 (02:00 →
// 01:00); Berlin Mar 29 (02:00 → 03:00) and Oct 25 (03:00 → 02:00).
#include "parsed_helpers.hpp"
#include "protocol/oncall.hpp"
#include "protocol/schedule_json.hpp"
#include "support/utc.hpp"

#include <date/date.h>

using namespace belay;
using namespace belay::protocol;
using belay::test::utc;
using namespace belay::protocol::test;

namespace {

std::string utc_text(micros t) {
  return date::format("%FT%TZ", date::floor<std::chrono::seconds>(
                                    date::sys_time<std::chrono::microseconds>{
                                        std::chrono::microseconds{t}}));
}

// "alice 2026-03-06T14:00:00Z/2026-03-07T14:00:00Z": one line per shift, so a failure
// shows the whole timeline.
std::vector<std::string> timeline(const std::vector<shift>& shifts) {
  std::vector<std::string> out;
  for (const shift& s : shifts)
    out.push_back(s.user + " " + utc_text(s.start) + "/" + utc_text(s.end));
  return out;
}

std::vector<std::string> sources(const std::vector<shift>& shifts) {
  std::vector<std::string> out;
  for (const shift& s : shifts)
    out.push_back(s.source);
  return out;
}

layer rotating(std::string name, std::vector<std::string> users, rotation_type type,
               const char* start, int length = 1) {
  layer l;
  l.name = std::move(name);
  l.users = std::move(users);
  l.rotation.type = type;
  l.rotation.length = length;
  const auto local = parse_local_date_time(start);
  REQUIRE(local);
  l.rotation.start = *local;
  return l;
}

restriction window(std::initializer_list<const char*> days, const char* start,
                   const char* end) {
  restriction r;
  for (const char* day : days) {
    const auto weekday = weekday_named(day);
    REQUIRE(weekday);
    r.days[*weekday] = true;
  }
  r.start = parse_time_of_day(start).value();
  r.end = parse_time_of_day(end).value();
  return r;
}

layer restricted(layer l, std::vector<restriction> windows) {
  l.restrictions = std::move(windows);
  return l;
}

schedule in_zone(const char* zone, std::vector<layer> layers) {
  schedule s;
  s.name = "primary";
  s.time_zone = zone;
  s.layers = std::move(layers);
  const auto problem = check_schedule(s);
  REQUIRE_FALSE(problem);
  return s;
}

schedule_override override_for(int64_t id, std::string user, const char* start,
                               const char* end, micros created_at,
                               std::optional<std::string> replaces = std::nullopt) {
  schedule_override o;
  o.id = id;
  o.user = std::move(user);
  o.replaces = std::move(replaces);
  o.start = utc(start);
  o.end = utc(end);
  o.created_at = created_at;
  return o;
}

const std::vector<schedule_override> no_overrides;

std::vector<std::string>
shifts_of(const schedule& s, const char* from, const char* to,
          const std::vector<schedule_override>& o = no_overrides) {
  return timeline(final_shifts(s, o, utc(from), utc(to)));
}

using lines = std::vector<std::string>;

} // namespace

TEST_CASE("09:00 handoffs stay 09:00 in New York across spring forward", "[oncall]") {
  const auto s = in_zone(
      "America/New_York",
      {rotating("days", {"alice", "bob"}, rotation_type::daily, "2026-03-05T09:00")});
  CHECK(shifts_of(s, "2026-03-06T14:00:00Z", "2026-03-10T13:00:00Z") ==
        lines{"bob 2026-03-06T14:00:00Z/2026-03-07T14:00:00Z",
              "alice 2026-03-07T14:00:00Z/2026-03-08T13:00:00Z",
              "bob 2026-03-08T13:00:00Z/2026-03-09T13:00:00Z",
              "alice 2026-03-09T13:00:00Z/2026-03-10T13:00:00Z"});
}

TEST_CASE("09:00 weekly handoffs stay 09:00 in New York across fall back", "[oncall]") {
  const auto s =
      in_zone("America/New_York", {rotating("weeks", {"alice", "bob", "carol"},
                                            rotation_type::weekly, "2026-10-26T09:00")});
  CHECK(shifts_of(s, "2026-10-20T00:00:00Z", "2026-11-09T14:00:00Z") ==
        lines{"alice 2026-10-26T13:00:00Z/2026-11-02T14:00:00Z",
              "bob 2026-11-02T14:00:00Z/2026-11-09T14:00:00Z"});
}

TEST_CASE("09:00 handoffs stay 09:00 in Berlin across both changes", "[oncall]") {
  const auto spring = in_zone(
      "Europe/Berlin",
      {rotating("days", {"alice", "bob"}, rotation_type::daily, "2026-03-27T09:00")});
  CHECK(shifts_of(spring, "2026-03-28T08:00:00Z", "2026-03-30T07:00:00Z") ==
        lines{"bob 2026-03-28T08:00:00Z/2026-03-29T07:00:00Z",
              "alice 2026-03-29T07:00:00Z/2026-03-30T07:00:00Z"});
  const auto autumn = in_zone(
      "Europe/Berlin",
      {rotating("days", {"alice", "bob"}, rotation_type::daily, "2026-10-23T09:00")});
  CHECK(shifts_of(autumn, "2026-10-24T07:00:00Z", "2026-10-26T08:00:00Z") ==
        lines{"bob 2026-10-24T07:00:00Z/2026-10-25T08:00:00Z",
              "alice 2026-10-25T08:00:00Z/2026-10-26T08:00:00Z"});
}

TEST_CASE("a 02:30 handoff on the spring-forward night happens at 03:00 local",
          "[oncall]") {
  // 02:30 does not exist that night; 03:00 EDT is 07:00Z in New York, 03:00 CEST is
  // 01:00Z in Berlin.
  const auto new_york =
      in_zone("America/New_York", {rotating("nights", {"alice", "bob", "carol"},
                                            rotation_type::daily, "2026-03-06T02:30")});
  CHECK(shifts_of(new_york, "2026-03-07T07:30:00Z", "2026-03-09T06:30:00Z") ==
        lines{"bob 2026-03-07T07:30:00Z/2026-03-08T07:00:00Z",
              "carol 2026-03-08T07:00:00Z/2026-03-09T06:30:00Z"});
  const auto berlin =
      in_zone("Europe/Berlin", {rotating("nights", {"alice", "bob", "carol"},
                                         rotation_type::daily, "2026-03-27T02:30")});
  CHECK(shifts_of(berlin, "2026-03-28T01:30:00Z", "2026-03-30T00:30:00Z") ==
        lines{"bob 2026-03-28T01:30:00Z/2026-03-29T01:00:00Z",
              "carol 2026-03-29T01:00:00Z/2026-03-30T00:30:00Z"});
}

TEST_CASE("a handoff at a wall time that occurs twice happens once, at the first",
          "[oncall]") {
  // New York 01:30 on Nov 1 is 05:30Z (EDT) and again 06:30Z (EST); Berlin 02:30 on
  // Oct 25 is 00:30Z (CEST) and again 01:30Z (CET). The shift that starts at the first
  // runs through the second, 25 hours long.
  const auto new_york =
      in_zone("America/New_York", {rotating("nights", {"alice", "bob", "carol"},
                                            rotation_type::daily, "2026-10-30T01:30")});
  CHECK(shifts_of(new_york, "2026-10-31T05:30:00Z", "2026-11-02T06:30:00Z") ==
        lines{"bob 2026-10-31T05:30:00Z/2026-11-01T05:30:00Z",
              "carol 2026-11-01T05:30:00Z/2026-11-02T06:30:00Z"});
  const auto berlin =
      in_zone("Europe/Berlin", {rotating("nights", {"alice", "bob", "carol"},
                                         rotation_type::daily, "2026-10-23T02:30")});
  CHECK(shifts_of(berlin, "2026-10-24T00:30:00Z", "2026-10-26T01:30:00Z") ==
        lines{"bob 2026-10-24T00:30:00Z/2026-10-25T00:30:00Z",
              "carol 2026-10-25T00:30:00Z/2026-10-26T01:30:00Z"});
}

TEST_CASE("hourly handoffs follow the wall clock through both nights", "[oncall]") {
  SECTION("fall back: the 01:00 shift lasts two hours") {
    const auto s = in_zone(
        "America/New_York",
        {rotating("hours", {"alice", "bob"}, rotation_type::hourly, "2026-11-01T00:00")});
    CHECK(shifts_of(s, "2026-11-01T04:00:00Z", "2026-11-01T09:00:00Z") ==
          lines{"alice 2026-11-01T04:00:00Z/2026-11-01T05:00:00Z",
                "bob 2026-11-01T05:00:00Z/2026-11-01T07:00:00Z",
                "alice 2026-11-01T07:00:00Z/2026-11-01T08:00:00Z",
                "bob 2026-11-01T08:00:00Z/2026-11-01T09:00:00Z"});
  }
  SECTION("spring forward: the 02:00 shift does not exist and its owner is skipped") {
    const auto s = in_zone("America/New_York",
                           {rotating("hours", {"alice", "bob", "carol"},
                                     rotation_type::hourly, "2026-03-08T00:00")});
    CHECK(shifts_of(s, "2026-03-08T05:00:00Z", "2026-03-08T09:00:00Z") ==
          lines{"alice 2026-03-08T05:00:00Z/2026-03-08T06:00:00Z",
                "bob 2026-03-08T06:00:00Z/2026-03-08T07:00:00Z",
                "alice 2026-03-08T07:00:00Z/2026-03-08T08:00:00Z",
                "bob 2026-03-08T08:00:00Z/2026-03-08T09:00:00Z"});
  }
  SECTION("a length of several hours") {
    const auto s =
        in_zone("Etc/UTC", {rotating("hours", {"alice", "bob"}, rotation_type::hourly,
                                     "2026-07-01T00:00", 8)});
    CHECK(shifts_of(s, "2026-07-01T00:00:00Z", "2026-07-02T00:00:00Z") ==
          lines{"alice 2026-07-01T00:00:00Z/2026-07-01T08:00:00Z",
                "bob 2026-07-01T08:00:00Z/2026-07-01T16:00:00Z",
                "alice 2026-07-01T16:00:00Z/2026-07-02T00:00:00Z"});
  }
}

TEST_CASE("a monthly rotation from Jan 31 keeps the 31st where the month has one",
          "[oncall]") {
  const auto s =
      in_zone("Europe/Berlin", {rotating("months", {"a", "b", "c", "d", "e", "f"},
                                         rotation_type::monthly, "2026-01-31T09:00")});
  CHECK(shifts_of(s, "2026-01-01T00:00:00Z", "2026-07-01T00:00:00Z") ==
        lines{"a 2026-01-31T08:00:00Z/2026-02-28T08:00:00Z",
              "b 2026-02-28T08:00:00Z/2026-03-31T07:00:00Z",
              "c 2026-03-31T07:00:00Z/2026-04-30T07:00:00Z",
              "d 2026-04-30T07:00:00Z/2026-05-31T07:00:00Z",
              "e 2026-05-31T07:00:00Z/2026-06-30T07:00:00Z",
              "f 2026-06-30T07:00:00Z/2026-07-01T00:00:00Z"});
  const auto now = on_call_at(s, no_overrides, utc("2026-03-15T12:00:00Z"));
  REQUIRE(now);
  CHECK(timeline({*now}) == lines{"b 2026-02-28T08:00:00Z/2026-03-31T07:00:00Z"});
}

TEST_CASE("restrictions whose end is before their start run past midnight", "[oncall]") {
  SECTION("Friday 22:00 to Saturday 06:00, in a week of July") {
    const auto s = in_zone("America/New_York",
                           {restricted(rotating("nights", {"alice"}, rotation_type::daily,
                                                "2026-07-01T00:00"),
                                       {window({"fri"}, "22:00", "06:00")})});
    CHECK(shifts_of(s, "2026-07-13T00:00:00Z", "2026-07-20T00:00:00Z") ==
          lines{"alice 2026-07-18T02:00:00Z/2026-07-18T10:00:00Z"});
  }
  SECTION("the night New York falls back lasts nine hours") {
    const auto s = in_zone("America/New_York",
                           {restricted(rotating("nights", {"alice"}, rotation_type::daily,
                                                "2026-10-01T00:00"),
                                       {window({"sat"}, "22:00", "06:00")})});
    CHECK(shifts_of(s, "2026-10-31T12:00:00Z", "2026-11-01T20:00:00Z") ==
          lines{"alice 2026-11-01T02:00:00Z/2026-11-01T11:00:00Z"});
  }
  SECTION("a window reaching into the span from the day before is clipped") {
    const auto s =
        in_zone("Etc/UTC", {restricted(rotating("nights", {"alice"}, rotation_type::daily,
                                                "2026-07-01T00:00"),
                                       {window({"mon"}, "20:00", "04:00")})});
    CHECK(shifts_of(s, "2026-07-14T02:00:00Z", "2026-07-21T00:00:00Z") ==
          lines{"alice 2026-07-14T02:00:00Z/2026-07-14T04:00:00Z",
                "alice 2026-07-20T20:00:00Z/2026-07-21T00:00:00Z"});
  }
}

TEST_CASE("the docs/ example schedule: weekdays on top of a daily backstop", "[oncall]") {
  const auto s =
      value_of(parse_schedule(R"({"name": "primary", "timeZone": "America/New_York",
    "layers": [{"name": "weekdays", "users": ["alice", "bob", "carol"],
                "rotation": {"type": "weekly", "length": 1, "start": "2026-11-02T09:00"},
                "restrictions": [{"days": ["mon","tue","wed","thu","fri"], "start": "09:00", "end": "18:00"}]},
               {"name": "backstop", "users": ["dave"], "rotation": {"type": "daily", "length": 1, "start": "2026-11-02T00:00"}}]})"));
  // The backstop is listed last, so it sits on top: dave all the time.
  CHECK(shifts_of(s, "2026-11-02T05:00:00Z", "2026-11-10T05:00:00Z") ==
        lines{"dave 2026-11-02T05:00:00Z/2026-11-10T05:00:00Z"});

  schedule reordered = s;
  std::swap(reordered.layers[0], reordered.layers[1]);
  const auto week = final_shifts(reordered, no_overrides, utc("2026-11-02T05:00:00Z"),
                                 utc("2026-11-10T05:00:00Z"));
  CHECK(timeline(week) == lines{"dave 2026-11-02T05:00:00Z/2026-11-02T14:00:00Z",
                                "alice 2026-11-02T14:00:00Z/2026-11-02T23:00:00Z",
                                "dave 2026-11-02T23:00:00Z/2026-11-03T14:00:00Z",
                                "alice 2026-11-03T14:00:00Z/2026-11-03T23:00:00Z",
                                "dave 2026-11-03T23:00:00Z/2026-11-04T14:00:00Z",
                                "alice 2026-11-04T14:00:00Z/2026-11-04T23:00:00Z",
                                "dave 2026-11-04T23:00:00Z/2026-11-05T14:00:00Z",
                                "alice 2026-11-05T14:00:00Z/2026-11-05T23:00:00Z",
                                "dave 2026-11-05T23:00:00Z/2026-11-06T14:00:00Z",
                                "alice 2026-11-06T14:00:00Z/2026-11-06T23:00:00Z",
                                "dave 2026-11-06T23:00:00Z/2026-11-09T14:00:00Z",
                                "bob 2026-11-09T14:00:00Z/2026-11-09T23:00:00Z",
                                "dave 2026-11-09T23:00:00Z/2026-11-10T05:00:00Z"});
  CHECK(week[0].source == "layer:backstop");
  CHECK(week[1].source == "layer:weekdays");
}

TEST_CASE("before its rotation starts a layer has nobody", "[oncall]") {
  const auto s = in_zone("Etc/UTC", {rotating("days", {"alice", "bob"},
                                              rotation_type::daily, "2026-06-01T00:00")});
  CHECK_FALSE(on_call_at(s, no_overrides, utc("2026-05-31T23:59:59Z")));
  CHECK(shifts_of(s, "2026-05-30T00:00:00Z", "2026-06-02T12:00:00Z") ==
        lines{"alice 2026-06-01T00:00:00Z/2026-06-02T00:00:00Z",
              "bob 2026-06-02T00:00:00Z/2026-06-02T12:00:00Z"});
  const auto first = on_call_at(s, no_overrides, utc("2026-06-01T00:00:00Z"));
  REQUIRE(first);
  CHECK(first->user == "alice");
}

TEST_CASE("contiguous spans of one user merge, keeping the first part's source",
          "[oncall]") {
  const auto s = in_zone(
      "Etc/UTC", {rotating("base", {"alice"}, rotation_type::daily, "2026-07-01T00:00"),
                  restricted(rotating("day", {"alice", "alice", "bob"},
                                      rotation_type::daily, "2026-07-01T00:00"),
                             {window({"mon", "tue", "wed", "thu", "fri", "sat", "sun"},
                                     "09:00", "17:00")})});
  const auto shifts = final_shifts(s, no_overrides, utc("2026-07-01T00:00:00Z"),
                                   utc("2026-07-04T00:00:00Z"));
  CHECK(timeline(shifts) == lines{"alice 2026-07-01T00:00:00Z/2026-07-03T09:00:00Z",
                                  "bob 2026-07-03T09:00:00Z/2026-07-03T17:00:00Z",
                                  "alice 2026-07-03T17:00:00Z/2026-07-04T00:00:00Z"});
  CHECK(sources(shifts) == lines{"layer:base", "layer:day", "layer:base"});
}

TEST_CASE("an override without replaces makes its user the only one on call",
          "[oncall]") {
  const auto s = in_zone("Etc/UTC", {rotating("days", {"alice", "bob"},
                                              rotation_type::daily, "2026-07-01T12:00")});
  const std::vector<schedule_override> overrides{
      override_for(7, "erin", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 1)};
  const auto shifts = final_shifts(s, overrides, utc("2026-07-02T00:00:00Z"),
                                   utc("2026-07-03T00:00:00Z"));
  CHECK(timeline(shifts) == lines{"alice 2026-07-02T00:00:00Z/2026-07-02T10:00:00Z",
                                  "erin 2026-07-02T10:00:00Z/2026-07-02T14:00:00Z",
                                  "bob 2026-07-02T14:00:00Z/2026-07-03T00:00:00Z"});
  CHECK(sources(shifts) == lines{"layer:days", "override:7", "layer:days"});
}

TEST_CASE("an override with replaces stands in only while that person is on call",
          "[oncall]") {
  const auto s = in_zone("Etc/UTC", {rotating("days", {"alice", "bob"},
                                              rotation_type::daily, "2026-07-01T00:00")});
  const std::vector<schedule_override> overrides{override_for(
      3, "frank", "2026-07-01T12:00:00Z", "2026-07-03T12:00:00Z", 1, "alice")};
  CHECK(shifts_of(s, "2026-07-01T00:00:00Z", "2026-07-04T00:00:00Z", overrides) ==
        lines{"alice 2026-07-01T00:00:00Z/2026-07-01T12:00:00Z",
              "frank 2026-07-01T12:00:00Z/2026-07-02T00:00:00Z",
              "bob 2026-07-02T00:00:00Z/2026-07-03T00:00:00Z",
              "frank 2026-07-03T00:00:00Z/2026-07-03T12:00:00Z",
              "alice 2026-07-03T12:00:00Z/2026-07-04T00:00:00Z"});
  const std::vector<schedule_override> nobody_to_replace{override_for(
      4, "frank", "2026-07-02T06:00:00Z", "2026-07-02T18:00:00Z", 1, "alice")};
  CHECK(shifts_of(s, "2026-07-02T00:00:00Z", "2026-07-03T00:00:00Z", nobody_to_replace) ==
        lines{"bob 2026-07-02T00:00:00Z/2026-07-03T00:00:00Z"});
}

TEST_CASE("where overrides overlap, the one created last wins", "[oncall]") {
  const auto s = in_zone(
      "Etc/UTC", {rotating("days", {"alice"}, rotation_type::daily, "2026-07-01T00:00")});
  SECTION("by creation time, not by id") {
    const std::vector<schedule_override> overrides{
        override_for(2, "frank", "2026-07-02T12:00:00Z", "2026-07-02T16:00:00Z", 100),
        override_for(1, "erin", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 200)};
    const auto shifts = final_shifts(s, overrides, utc("2026-07-02T08:00:00Z"),
                                     utc("2026-07-02T18:00:00Z"));
    CHECK(timeline(shifts) == lines{"alice 2026-07-02T08:00:00Z/2026-07-02T10:00:00Z",
                                    "erin 2026-07-02T10:00:00Z/2026-07-02T14:00:00Z",
                                    "frank 2026-07-02T14:00:00Z/2026-07-02T16:00:00Z",
                                    "alice 2026-07-02T16:00:00Z/2026-07-02T18:00:00Z"});
    CHECK(sources(shifts) ==
          lines{"layer:days", "override:1", "override:2", "layer:days"});
  }
  SECTION("two stand-ins for the same person") {
    const std::vector<schedule_override> overrides{
        override_for(1, "bob", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 100,
                     "alice"),
        override_for(2, "carol", "2026-07-02T12:00:00Z", "2026-07-02T16:00:00Z", 200,
                     "alice")};
    CHECK(shifts_of(s, "2026-07-02T10:00:00Z", "2026-07-02T16:00:00Z", overrides) ==
          lines{"bob 2026-07-02T10:00:00Z/2026-07-02T12:00:00Z",
                "carol 2026-07-02T12:00:00Z/2026-07-02T16:00:00Z"});
  }
  SECTION("a stand-in for a stand-in") {
    const std::vector<schedule_override> overrides{
        override_for(1, "bob", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 100,
                     "alice"),
        override_for(2, "dave", "2026-07-02T12:00:00Z", "2026-07-02T16:00:00Z", 200,
                     "bob")};
    CHECK(shifts_of(s, "2026-07-02T10:00:00Z", "2026-07-02T16:00:00Z", overrides) ==
          lines{"bob 2026-07-02T10:00:00Z/2026-07-02T12:00:00Z",
                "dave 2026-07-02T12:00:00Z/2026-07-02T14:00:00Z",
                "alice 2026-07-02T14:00:00Z/2026-07-02T16:00:00Z"});
  }
  SECTION("an older override without replaces under a newer one with it") {
    const std::vector<schedule_override> overrides{
        override_for(1, "erin", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 100),
        override_for(2, "frank", "2026-07-02T12:00:00Z", "2026-07-02T16:00:00Z", 200,
                     "alice")};
    CHECK(shifts_of(s, "2026-07-02T10:00:00Z", "2026-07-02T16:00:00Z", overrides) ==
          lines{"erin 2026-07-02T10:00:00Z/2026-07-02T12:00:00Z",
                "frank 2026-07-02T12:00:00Z/2026-07-02T16:00:00Z"});
  }
}

TEST_CASE("overrides put someone on call where no layer does", "[oncall]") {
  const auto s = in_zone(
      "Etc/UTC", {rotating("days", {"alice"}, rotation_type::daily, "2026-08-01T00:00")});
  const std::vector<schedule_override> overrides{
      override_for(1, "erin", "2026-07-31T20:00:00Z", "2026-08-01T02:00:00Z", 1)};
  CHECK(shifts_of(s, "2026-07-31T00:00:00Z", "2026-08-01T06:00:00Z", overrides) ==
        lines{"erin 2026-07-31T20:00:00Z/2026-08-01T02:00:00Z",
              "alice 2026-08-01T02:00:00Z/2026-08-01T06:00:00Z"});
}

TEST_CASE("shifts are clipped to the span asked for", "[oncall]") {
  const auto s = in_zone("Etc/UTC", {rotating("days", {"alice", "bob"},
                                              rotation_type::daily, "2026-07-01T00:00")});
  CHECK(shifts_of(s, "2026-07-01T06:00:00Z", "2026-07-02T06:00:00Z") ==
        lines{"alice 2026-07-01T06:00:00Z/2026-07-02T00:00:00Z",
              "bob 2026-07-02T00:00:00Z/2026-07-02T06:00:00Z"});
  CHECK(final_shifts(s, no_overrides, utc("2026-07-02T00:00:00Z"),
                     utc("2026-07-02T00:00:00Z"))
            .empty());
  CHECK(final_shifts(s, no_overrides, utc("2026-07-03T00:00:00Z"),
                     utc("2026-07-02T00:00:00Z"))
            .empty());
}

TEST_CASE("on_call_at gives the bounds of the current final shift", "[oncall]") {
  SECTION("a weekly rotation") {
    const auto s = in_zone("America/New_York",
                           {rotating("weeks", {"alice", "bob", "carol"},
                                     rotation_type::weekly, "2026-10-26T09:00")});
    const auto now = on_call_at(s, no_overrides, utc("2026-11-05T12:00:00Z"));
    REQUIRE(now);
    CHECK(timeline({*now}) == lines{"bob 2026-11-02T14:00:00Z/2026-11-09T14:00:00Z"});
    CHECK(now->source == "layer:weeks");
  }
  SECTION("a shift cut short by an override") {
    const auto s = in_zone("America/New_York",
                           {rotating("weeks", {"alice", "bob", "carol"},
                                     rotation_type::weekly, "2026-10-26T09:00")});
    const std::vector<schedule_override> overrides{
        override_for(9, "erin", "2026-11-04T00:00:00Z", "2026-11-06T00:00:00Z", 1)};
    const auto before = on_call_at(s, overrides, utc("2026-11-03T12:00:00Z"));
    REQUIRE(before);
    CHECK(timeline({*before}) == lines{"bob 2026-11-02T14:00:00Z/2026-11-04T00:00:00Z"});
    const auto during = on_call_at(s, overrides, utc("2026-11-05T12:00:00Z"));
    REQUIRE(during);
    CHECK(timeline({*during}) == lines{"erin 2026-11-04T00:00:00Z/2026-11-06T00:00:00Z"});
    CHECK(during->source == "override:9");
  }
  SECTION("nobody outside the restriction windows") {
    const auto s =
        in_zone("Etc/UTC", {restricted(rotating("day", {"alice", "bob"},
                                                rotation_type::daily, "2026-07-01T00:00"),
                                       {window({"wed"}, "09:00", "17:00")})});
    CHECK_FALSE(on_call_at(s, no_overrides, utc("2026-07-01T08:59:59Z")));
    const auto now = on_call_at(s, no_overrides, utc("2026-07-01T09:00:00Z"));
    REQUIRE(now);
    CHECK(timeline({*now}) == lines{"alice 2026-07-01T09:00:00Z/2026-07-01T17:00:00Z"});
  }
  SECTION("a shift with no end is reported up to the search limit") {
    const auto s =
        in_zone("Etc/UTC",
                {rotating("only", {"alice"}, rotation_type::weekly, "2026-07-01T00:00")});
    const micros at = utc("2026-08-01T00:00:00Z");
    const auto now = on_call_at(s, no_overrides, at);
    REQUIRE(now);
    CHECK(now->start == utc("2026-07-01T00:00:00Z"));
    CHECK(now->end == at + on_call_search_limit);
  }
}

TEST_CASE("a rotation started in 2020 is computed by arithmetic, not by walking",
          "[oncall]") {
  // Six and a half years of daily handoffs (k = 2381) and hourly ones (k = 57296): the
  // answer comes from jumping to the handoff, so its cost does not grow with the age.
  const auto daily =
      in_zone("America/New_York", {rotating("days", {"alice", "bob", "carol"},
                                            rotation_type::daily, "2020-01-06T09:00")});
  const auto day = on_call_at(daily, no_overrides, utc("2026-07-15T12:00:00Z"));
  REQUIRE(day);
  CHECK(timeline({*day}) == lines{"carol 2026-07-14T13:00:00Z/2026-07-15T13:00:00Z"});

  const auto hourly =
      in_zone("America/New_York", {rotating("hours", {"u0", "u1", "u2", "u3", "u4"},
                                            rotation_type::hourly, "2020-01-01T00:00")});
  for (int i = 0; i < 1000; ++i) {
    const auto hour = on_call_at(hourly, no_overrides, utc("2026-07-15T12:34:00Z"));
    REQUIRE(hour);
    CHECK(timeline({*hour}) == lines{"u1 2026-07-15T12:00:00Z/2026-07-15T13:00:00Z"});
  }
}

TEST_CASE("schedule checks name the field at fault", "[oncall]") {
  auto field_of = [](schedule s) {
    const auto problem = check_schedule(s);
    REQUIRE(problem);
    CHECK(problem->code == "invalid_value");
    return problem->field;
  };
  const layer ok = rotating("days", {"alice"}, rotation_type::daily, "2026-07-01T00:00");
  schedule s;
  s.name = "primary";
  s.time_zone = "Europe/Berlin";
  s.layers = {ok};
  CHECK_FALSE(check_schedule(s));
  CHECK(s.zone == date::locate_zone("Europe/Berlin"));

  schedule bad_zone = s;
  bad_zone.time_zone = "Mars/Olympus_Mons";
  CHECK(field_of(bad_zone) == "timeZone");
  schedule no_layers = s;
  no_layers.layers.clear();
  CHECK(field_of(no_layers) == "layers");
  schedule no_users = s;
  no_users.layers.push_back(ok);
  no_users.layers[1].name = "second";
  no_users.layers[1].users.clear();
  CHECK(field_of(no_users) == "layers[1].users");
  schedule zero_length = s;
  zero_length.layers[0].rotation.length = 0;
  CHECK(field_of(zero_length) == "layers[0].rotation.length");
  schedule bad_type = s;
  bad_type.layers[0].rotation.type = static_cast<rotation_type>(9);
  CHECK(field_of(bad_type) == "layers[0].rotation.type");
  schedule no_days = s;
  no_days.layers[0].restrictions = {restriction{}};
  CHECK(field_of(no_days) == "layers[0].restrictions[0].days");
  schedule late = s;
  late.layers[0].restrictions = {window({"mon"}, "09:00", "17:00")};
  late.layers[0].restrictions[0].end = 24 * 60;
  CHECK(field_of(late) == "layers[0].restrictions[0].end");
  schedule twice = s;
  twice.layers.push_back(ok);
  CHECK(field_of(twice) == "layers[1].name");
}

TEST_CASE("override checks: a user, end after start, someone else replaced", "[oncall]") {
  const auto good =
      override_for(1, "erin", "2026-07-02T10:00:00Z", "2026-07-02T14:00:00Z", 1, "alice");
  CHECK_FALSE(check_override(good));
  auto backwards = good;
  backwards.end = backwards.start;
  const auto problem = check_override(backwards);
  REQUIRE(problem);
  CHECK(problem->code == "invalid_value");
  CHECK(problem->field == "end");
  auto self = good;
  self.replaces = "erin";
  CHECK(check_override(self)->field == "replaces");
  auto nobody = good;
  nobody.user = " ";
  CHECK(check_override(nobody)->field == "user");
}

TEST_CASE("times of day, day names and local date-times parse strictly", "[oncall]") {
  CHECK(parse_time_of_day("00:00") == 0);
  CHECK(parse_time_of_day("23:59") == 23 * 60 + 59);
  for (const char* bad : {"24:00", "9:00", "09:60", "0900", "09:00:00", "", "ab:cd"})
    CHECK_FALSE(parse_time_of_day(bad));
  CHECK(time_of_day_text(9 * 60 + 5) == "09:05");

  CHECK(weekday_named("sun") == 0u);
  CHECK(weekday_named("sat") == 6u);
  CHECK_FALSE(weekday_named("Mon"));
  CHECK_FALSE(weekday_named("monday"));

  const auto t = parse_local_date_time("2026-11-02T09:00");
  REQUIRE(t);
  CHECK(local_date_time_text(*t) == "2026-11-02T09:00");
  CHECK(local_date_time_text(parse_local_date_time("2024-02-29T23:59:30").value()) ==
        "2024-02-29T23:59:30");
  for (const char* bad : {"2026-11-02T09:00Z", "2026-11-02T09:00+01:00",
                          "2026-02-29T09:00", "2026-13-01T09:00", "2026-11-02 09:00",
                          "2026-11-02", "1969-12-31T23:00", "2026-11-02T24:00"})
    CHECK_FALSE(parse_local_date_time(bad));
}

TEST_CASE("rotation types by name", "[oncall]") {
  for (auto type : {rotation_type::hourly, rotation_type::daily, rotation_type::weekly,
                    rotation_type::monthly})
    CHECK(rotation_type_named(rotation_type_name(type)) == type);
  CHECK_FALSE(rotation_type_named("yearly"));
}

TEST_CASE("unknown time zones are refused, links and canonical names found", "[oncall]") {
  CHECK(find_time_zone("America/New_York"));
  CHECK(find_time_zone("Etc/UTC"));
  CHECK_FALSE(find_time_zone(""));
  CHECK_FALSE(find_time_zone("America/Gotham"));
  CHECK_FALSE(find_time_zone("EST5EDT,M3.2.0,M11.1.0"));
}
