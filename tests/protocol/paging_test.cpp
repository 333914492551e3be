// Who a step pages: channels as they are, users through their rules, schedules through
// whoever is on call at the step's scheduled time.
#include "protocol/paging.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace belay::protocol;

namespace {

constexpr micros hour = 3'600'000'000LL;
// 2026-12-01T00:00:00Z
constexpr micros dec_1 = 1'796'083'200'000'000LL;

user_config person(const std::string& name) {
  return {
      name,
      "",
      "",
      {{"mail", "email", name + "@example.com", false}, {"phone", "sms", "+1555" + name}},
      {{"mail", 0}, {"phone", 120}}};
}

// alice and bob hand over daily at 09:00 UTC from 2026-01-01 (alice first).
org_people people() {
  org_people p;
  p.users["alice"] = person("alice");
  p.users["bob"] = person("bob");
  schedule s;
  s.name = "primary";
  s.time_zone = "UTC";
  s.layers.push_back({"main", {"alice", "bob"}, {rotation_type::daily, 1, {}}, {}});
  s.layers[0].rotation.start = *parse_local_date_time("2026-01-01T09:00");
  REQUIRE_FALSE(check_schedule(s));
  p.schedules["primary"] = s;
  return p;
}

} // namespace

TEST_CASE("a channel target pages its address at once") {
  auto out = expand_targets({{"hook", "#ops"}}, {}, dec_1);
  REQUIRE(out.pages.size() == 1);
  CHECK(out.pages[0].channel == "hook");
  CHECK(out.pages[0].to == "#ops");
  CHECK(out.pages[0].delay == 0);
  CHECK(out.nobody_on_call.empty());
}

TEST_CASE("a user is paged through each rule, after the rule's delay") {
  target t{"", "", "bob", ""};
  auto out = expand_targets({t}, people(), dec_1);
  REQUIRE(out.pages.size() == 2);
  CHECK(out.pages[0].channel == "email");
  CHECK(out.pages[0].to == "bob@example.com");
  CHECK(out.pages[0].delay == 0);
  CHECK(out.pages[1].channel == "sms");
  CHECK(out.pages[1].delay == 120'000'000);
  CHECK(out.pages[1].user == "bob");
  CHECK(out.pages[1].schedule.empty());
}

TEST_CASE("a schedule pages whoever is on call at the step's scheduled time") {
  target t{"", "", "", "primary"};
  // Day 334 (2026-12-01) from 09:00 is alice's; before 09:00 it is still bob's.
  auto before = expand_targets({t}, people(), dec_1 + 8 * hour);
  REQUIRE(before.pages.size() == 2);
  CHECK(before.pages[0].user == "bob");
  CHECK(before.pages[0].schedule == "primary");
  auto after = expand_targets({t}, people(), dec_1 + 9 * hour);
  CHECK(after.pages[0].user == "alice");
}

TEST_CASE("an override decides who a schedule pages") {
  auto p = people();
  p.overrides["primary"].push_back(
      {7, "bob", std::nullopt, dec_1, dec_1 + 24 * hour, dec_1});
  auto out = expand_targets({{"", "", "", "primary"}}, p, dec_1 + 10 * hour);
  CHECK(out.pages[0].user == "bob");
}

TEST_CASE("a schedule with nobody on call pages nobody, and says so") {
  auto p = people();
  p.users.erase("alice"); // removed from the file since the policy was written
  auto out =
      expand_targets({{"", "", "", "primary"}, {"hook", "#ops"}}, p, dec_1 + 10 * hour);
  REQUIRE(out.pages.size() == 1);
  CHECK(out.pages[0].channel == "hook");
  CHECK(out.nobody_on_call == std::vector<std::string>{"primary"});
  CHECK(expand_targets({{"", "", "", "gone"}}, p, dec_1).nobody_on_call.size() == 1);
}

TEST_CASE("only people and schedules need the people read") {
  CHECK_FALSE(needs_people({{"hook", "#ops"}}));
  CHECK(needs_people({{"hook", "#ops"}, {"", "", "bob", ""}}));
}
