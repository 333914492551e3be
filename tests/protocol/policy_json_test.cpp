#include "parsed_helpers.hpp"
#include "protocol/policy_json.hpp"

using namespace belay;
using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

policy two_step_policy() {
  policy p;
  p.name = "default";
  p.repeat = 2;
  p.repeat_delay_seconds = 0.5;
  p.grace_seconds = 0.1;
  p.steps = {{0, {{"ops-hook", "#ops"}}},
             {300, {{"mail", "oncall@example.org"}, {"sms", "+15550100"}}}};
  return p;
}

void check_same(const policy& a, const policy& b) {
  CHECK(a.name == b.name);
  CHECK(a.repeat == b.repeat);
  CHECK(a.repeat_delay_seconds == b.repeat_delay_seconds);
  CHECK(a.grace_seconds == b.grace_seconds);
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    CHECK(a.steps[i].delay_seconds == b.steps[i].delay_seconds);
    REQUIRE(a.steps[i].targets.size() == b.steps[i].targets.size());
    for (std::size_t j = 0; j < a.steps[i].targets.size(); ++j) {
      CHECK(a.steps[i].targets[j].channel == b.steps[i].targets[j].channel);
      CHECK(a.steps[i].targets[j].to == b.steps[i].targets[j].to);
    }
  }
}

} // namespace

TEST_CASE("a rendered policy parses back to the same policy") {
  const policy p = two_step_policy();
  check_same(value_of(parse_policy(render_policy(p))), p);
}

TEST_CASE("a policy without repeat delay round-trips it as absent") {
  policy p = two_step_policy();
  p.repeat_delay_seconds.reset();
  CHECK(json(render_policy(p))["repeatDelaySeconds"].IsNull());
  CHECK_FALSE(value_of(parse_policy(render_policy(p))).repeat_delay_seconds);
}

TEST_CASE("policy defaults: no repeat, 300 s grace, first step at once") {
  auto p = value_of(
      parse_policy(R"({"name":"p","steps":[{"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(p.repeat == 0);
  CHECK_FALSE(p.repeat_delay_seconds);
  CHECK(p.grace_seconds == 300);
  CHECK(p.steps[0].delay_seconds == 0);
}

TEST_CASE("a policy must have steps and every step someone to page") {
  auto no_steps = error_of(parse_policy(R"({"name":"p","steps":[]})"));
  CHECK(no_steps.code == "invalid_value");
  CHECK(no_steps.field == "steps");
  auto no_targets = error_of(parse_policy(
      R"({"name":"p","steps":[{"targets":[{"channel":"c","to":"t"}]},{"delaySeconds":5}]})"));
  CHECK(no_targets.code == "missing_field");
  CHECK(no_targets.field == "steps[1].targets");
  auto no_to =
      error_of(parse_policy(R"({"name":"p","steps":[{"targets":[{"channel":"c"}]}]})"));
  CHECK(no_to.field == "steps[0].targets[0].to");
}

TEST_CASE("policy numbers are range-checked") {
  auto negative = error_of(parse_policy(
      R"({"name":"p","steps":[{"delaySeconds":-1,"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(negative.code == "invalid_value");
  CHECK(negative.field == "steps[0].delaySeconds");
  auto fractional_repeat = error_of(parse_policy(
      R"({"name":"p","repeat":1.5,"steps":[{"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(fractional_repeat.code == "wrong_type");
  CHECK(fractional_repeat.field == "repeat");
  auto huge_repeat = error_of(parse_policy(
      R"({"name":"p","repeat":1e10,"steps":[{"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(huge_repeat.code == "invalid_value");
  CHECK_THAT(huge_repeat.message, Catch::Contains("too large"));
  auto beyond_a_year = error_of(parse_policy(
      R"({"name":"p","graceSeconds":1e12,"steps":[{"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(beyond_a_year.code == "invalid_value");
  CHECK(beyond_a_year.field == "graceSeconds");
}

TEST_CASE("a misspelt policy field is refused, not ignored") {
  auto e = error_of(parse_policy(
      R"({"name":"p","grace":5,"steps":[{"targets":[{"channel":"c","to":"t"}]}]})"));
  CHECK(e.code == "unknown_field");
  CHECK(e.field == "grace");
}

TEST_CASE("targets may page a user or a schedule, and render back as they came") {
  auto p = value_of(parse_policy(R"({"name":"p","steps":[{"targets":[
    {"channel":"c","to":"t"},{"user":"alice"},{"schedule":"primary"}]}]})"));
  const auto& targets = p.steps[0].targets;
  REQUIRE(targets.size() == 3);
  CHECK(targets[0].is_address());
  CHECK(targets[1].is_user());
  CHECK(targets[1].user == "alice");
  CHECK(targets[1].channel.empty());
  CHECK(targets[2].is_schedule());
  CHECK(targets[2].schedule == "primary");
  const auto rendered = json(render_policy(p));
  const auto& written = rendered["steps"][0]["targets"];
  CHECK(text_of(written) ==
        R"([{"channel":"c","to":"t"},{"user":"alice"},{"schedule":"primary"}])");
  auto back = value_of(parse_policy(render_policy(p)));
  CHECK(back.steps[0].targets[1].user == "alice");
  CHECK(back.steps[0].targets[2].schedule == "primary");
}

TEST_CASE("a target is exactly one kind") {
  auto user_and_address = error_of(parse_policy(
      R"({"name":"p","steps":[{"targets":[{"channel":"c","to":"t","user":"alice"}]}]})"));
  CHECK(user_and_address.code == "invalid_value");
  CHECK(user_and_address.field == "steps[0].targets[0].user");
  CHECK_THAT(user_and_address.message, Catch::Contains("exactly one kind"));
  auto user_and_schedule = error_of(parse_policy(
      R"({"name":"p","steps":[{"targets":[{"user":"alice","schedule":"primary"}]}]})"));
  CHECK(user_and_schedule.field == "steps[0].targets[0].schedule");
  auto to_and_schedule = error_of(parse_policy(
      R"({"name":"p","steps":[{"targets":[{"to":"t","schedule":"primary"}]}]})"));
  CHECK(to_and_schedule.field == "steps[0].targets[0].schedule");
  auto blank_user =
      error_of(parse_policy(R"({"name":"p","steps":[{"targets":[{"user":" "}]}]})"));
  CHECK(blank_user.field == "steps[0].targets[0].user");
  auto nothing = error_of(parse_policy(R"({"name":"p","steps":[{"targets":[{}]}]})"));
  CHECK(nothing.code == "missing_field");
  CHECK(nothing.field == "steps[0].targets[0].channel");
}
