#include "parsed_helpers.hpp"
#include "protocol/schedule_json.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

// The schedule of docs/guarantees.md#on-call.
const char* design_schedule = R"({"name": "primary", "timeZone": "America/New_York",
  "layers": [{"name": "weekdays", "users": ["alice", "bob", "carol"],
              "rotation": {"type": "weekly", "length": 1, "start": "2026-11-02T09:00"},
              "restrictions": [{"days": ["mon","tue","wed","thu","fri"], "start": "09:00", "end": "18:00"}]},
             {"name": "backstop", "users": ["dave"], "rotation": {"type": "daily", "length": 1, "start": "2026-11-02T00:00"}}]})";

std::string schedule_with(const char* pointer, const std::string& value_json) {
  return belay::test::with_value(design_schedule, pointer, value_json);
}

std::string schedule_without(const char* pointer) {
  return belay::test::without(design_schedule, pointer);
}

std::string field_of(const std::string& text) {
  return error_of(parse_schedule(text)).field;
}

} // namespace

TEST_CASE("the docs/ example schedule parses with its zone resolved", "[schedule]") {
  const schedule s = value_of(parse_schedule(design_schedule));
  CHECK(s.name == "primary");
  CHECK(s.time_zone == "America/New_York");
  CHECK(s.zone == date::locate_zone("America/New_York"));
  REQUIRE(s.layers.size() == 2);
  const layer& weekdays = s.layers[0];
  CHECK(weekdays.name == "weekdays");
  CHECK(weekdays.users == std::vector<std::string>{"alice", "bob", "carol"});
  CHECK(weekdays.rotation.type == rotation_type::weekly);
  CHECK(weekdays.rotation.length == 1);
  CHECK(local_date_time_text(weekdays.rotation.start) == "2026-11-02T09:00");
  REQUIRE(weekdays.restrictions.size() == 1);
  CHECK(weekdays.restrictions[0].days ==
        std::array<bool, 7>{false, true, true, true, true, true, false});
  CHECK(weekdays.restrictions[0].start == 9 * 60);
  CHECK(weekdays.restrictions[0].end == 18 * 60);
  CHECK(s.layers[1].rotation.type == rotation_type::daily);
  CHECK(s.layers[1].restrictions.empty());
  schedule copy = s;
  CHECK_FALSE(check_schedule(copy));
}

TEST_CASE("a rendered schedule parses back to the same schedule", "[schedule]") {
  schedule s = value_of(parse_schedule(design_schedule));
  s.layers[1].rotation.type = rotation_type::monthly;
  s.layers[1].rotation.length = 3;
  s.layers[1].rotation.start = parse_local_date_time("2026-01-31T23:30:15").value();
  s.layers[0].restrictions.push_back(s.layers[0].restrictions[0]);
  s.layers[0].restrictions[1].days = {true, false, false, false, false, false, true};
  s.layers[0].restrictions[1].start = 22 * 60 + 30;
  s.layers[0].restrictions[1].end = 6 * 60;
  const std::string text = render_schedule(s);
  const schedule back = value_of(parse_schedule(text));
  CHECK(render_schedule(back) == text);
  CHECK(back.layers[1].rotation.type == rotation_type::monthly);
  CHECK(back.layers[1].rotation.length == 3);
  CHECK(back.layers[1].rotation.start == s.layers[1].rotation.start);
  CHECK(back.layers[0].restrictions[1].days == s.layers[0].restrictions[1].days);
  CHECK(back.layers[0].restrictions[1].start == 22 * 60 + 30);
  CHECK(back.layers[0].restrictions[1].end == 6 * 60);
  CHECK_FALSE(json(text)["layers"][1].HasMember("restrictions"));
}

TEST_CASE("rotation length defaults to 1 and restriction days to every day",
          "[schedule]") {
  auto s = value_of(parse_schedule(schedule_without("/layers/1/rotation/length")));
  CHECK(s.layers[1].rotation.length == 1);
  s = value_of(parse_schedule(schedule_without("/layers/0/restrictions/0/days")));
  CHECK(s.layers[0].restrictions[0].days ==
        std::array<bool, 7>{true, true, true, true, true, true, true});
}

TEST_CASE("a schedule's time zone must be one the tz database knows", "[schedule]") {
  const auto e = error_of(parse_schedule(schedule_with("/timeZone", R"("EST+5")")));
  CHECK(e.code == "invalid_value");
  CHECK(e.field == "timeZone");
  CHECK_THAT(e.message, Catch::Contains("IANA"));
  CHECK(field_of(schedule_with("/timeZone", R"("")")) == "timeZone");
  CHECK(field_of(schedule_without("/timeZone")) == "timeZone");
}

TEST_CASE("rotation fields are checked with their paths", "[schedule]") {
  CHECK(field_of(schedule_with("/layers/1/rotation/type", R"("yearly")")) ==
        "layers[1].rotation.type");
  CHECK(field_of(schedule_with("/layers/1/rotation/length", "0")) ==
        "layers[1].rotation.length");
  CHECK(field_of(schedule_with("/layers/1/rotation/length", "1001")) ==
        "layers[1].rotation.length");
  CHECK(field_of(schedule_with("/layers/1/rotation/length", "1.5")) ==
        "layers[1].rotation.length");
  const auto offset = error_of(parse_schedule(
      schedule_with("/layers/1/rotation/start", R"("2026-11-02T00:00Z")")));
  CHECK(offset.field == "layers[1].rotation.start");
  CHECK_THAT(offset.message, Catch::Contains("without offset"));
  CHECK(field_of(schedule_with("/layers/1/rotation/start", R"("2026-02-30T00:00")")) ==
        "layers[1].rotation.start");
  CHECK(field_of(schedule_without("/layers/1/rotation")) == "layers[1].rotation");
  CHECK(field_of(schedule_with("/layers/1/rotation/every", "2")) ==
        "layers[1].rotation.every");
}

TEST_CASE("a layer needs users and a unique name", "[schedule]") {
  const auto empty = error_of(parse_schedule(schedule_with("/layers/1/users", "[]")));
  CHECK(empty.field == "layers[1].users");
  CHECK_THAT(empty.message, Catch::Contains("must not be empty"));
  CHECK(field_of(schedule_with("/layers/1/users/0", "7")) == "layers[1].users[0]");
  CHECK(field_of(schedule_with("/layers/1/users/0", R"("")")) == "layers[1].users[0]");
  const auto twice =
      error_of(parse_schedule(schedule_with("/layers/1/name", R"("weekdays")")));
  CHECK(twice.field == "layers[1].name");
  CHECK_THAT(twice.message, Catch::Contains("layers[0].name"));
  CHECK(field_of(schedule_with("/layers", "[]")) == "layers");
}

TEST_CASE("restrictions name known days once and times as HH:MM", "[schedule]") {
  const auto unknown = error_of(
      parse_schedule(schedule_with("/layers/0/restrictions/0/days/1", R"("fun")")));
  CHECK(unknown.field == "layers[0].restrictions[0].days[1]");
  CHECK_THAT(unknown.message, Catch::Contains("\"fun\""));
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/days/1", R"("Tue")")) ==
        "layers[0].restrictions[0].days[1]");
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/days/1", R"("mon")")) ==
        "layers[0].restrictions[0].days[1]");
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/days", "[]")) ==
        "layers[0].restrictions[0].days");
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/start", R"("9:00")")) ==
        "layers[0].restrictions[0].start");
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/end", R"("24:00")")) ==
        "layers[0].restrictions[0].end");
  CHECK(field_of(schedule_without("/layers/0/restrictions/0/end")) ==
        "layers[0].restrictions[0].end");
  CHECK(field_of(schedule_with("/layers/0/restrictions", "[]")) ==
        "layers[0].restrictions");
  CHECK(field_of(schedule_with("/layers/0/restrictions/0/weeks", "2")) ==
        "layers[0].restrictions[0].weeks");
}
