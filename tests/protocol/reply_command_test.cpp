#include "protocol/reply_command.hpp"

#include <catch2/catch.hpp>

using namespace belay::protocol;

namespace {

std::optional<reply_command> ack(std::optional<int64_t> id = std::nullopt) {
  return reply_command{answer_action::acknowledge, id};
}

std::optional<reply_command> resolve(std::optional<int64_t> id = std::nullopt) {
  return reply_command{answer_action::resolve, id};
}

} // namespace

TEST_CASE("SMS replies that acknowledge or resolve are understood", "[signing]") {
  const std::pair<const char*, std::optional<reply_command>> table[] = {
      {"1", ack()},
      {"ack", ack()},
      {"ACK", ack()},
      {"Ack", ack()},
      {"acknowledge", ack()},
      {"  ack \r\n", ack()},
      {"2", resolve()},
      {"resolve", resolve()},
      {"Resolve", resolve()},
      {"\tRESOLVE ", resolve()},
      {"ack 123", ack(123)},
      {"ACK   123", ack(123)},
      {" ack\t#123 ", ack(123)},
      {"resolve 123", resolve(123)},
      {"Resolve #7", resolve(7)},
      {"1 42", ack(42)},
      {"2 42", resolve(42)},
      {"ack 9223372036854775807", ack(9'223'372'036'854'775'807)},
  };
  for (const auto& [body, expected] : table) {
    INFO('"' << body << '"');
    const auto command = parse_sms_reply(body);
    REQUIRE(command);
    CHECK(*command == *expected);
  }
}

TEST_CASE("any other SMS reply is not understood", "[signing]") {
  for (const char* body : {"",
                           "   ",
                           "3",
                           "0",
                           "12",
                           "yes",
                           "ok",
                           "acked",
                           "ack!",
                           "resolved",
                           "ac k",
                           "ack 12 13",
                           "ack twelve",
                           "ack -5",
                           "ack 0",
                           "ack #",
                           "ack 12x",
                           "ack 9223372036854775808",
                           "ack 99999999999999999999",
                           "please ack",
                           "1.",
                           "１"}) {
    INFO('"' << body << '"');
    CHECK_FALSE(parse_sms_reply(body));
  }
  CHECK_FALSE(parse_sms_reply(std::string_view{"ack\0", 4}));
}

TEST_CASE("voice digits 1 and 2 acknowledge and resolve, nothing else does",
          "[signing]") {
  CHECK(parse_voice_digits("1") == answer_action::acknowledge);
  CHECK(parse_voice_digits("2") == answer_action::resolve);
  for (const char* digits : {"", "0", "3", "12", "#", "*", "a"}) {
    INFO('"' << digits << '"');
    CHECK_FALSE(parse_voice_digits(digits));
  }
}

TEST_CASE("the answer page's action field is ack or resolve exactly", "[signing]") {
  CHECK(parse_answer_action("ack") == answer_action::acknowledge);
  CHECK(parse_answer_action("resolve") == answer_action::resolve);
  CHECK_FALSE(parse_answer_action("ACK"));
  CHECK_FALSE(parse_answer_action("1"));
  CHECK_FALSE(parse_answer_action(""));
  CHECK(answer_action_name(answer_action::acknowledge) == "ack");
  CHECK(answer_action_name(answer_action::resolve) == "resolve");
}

TEST_CASE("which answers make sense follows the incident's status", "[signing]") {
  CHECK(can_acknowledge("OPEN"));
  CHECK(can_acknowledge("EXHAUSTED"));
  CHECK_FALSE(can_acknowledge("ACKNOWLEDGED"));
  CHECK_FALSE(can_acknowledge("RESOLVED"));
  CHECK(can_resolve("OPEN"));
  CHECK(can_resolve("EXHAUSTED"));
  CHECK(can_resolve("ACKNOWLEDGED"));
  CHECK_FALSE(can_resolve("RESOLVED"));
  CHECK_FALSE(can_resolve("open"));
}

TEST_CASE("every outcome of an answer is worded", "[signing]") {
  belay::incident_record incident;
  incident.acked_by = "bob";
  CHECK(answer_outcome_text(answer_outcome::acknowledged, incident, "alice") ==
        "Acknowledged by alice");
  CHECK(answer_outcome_text(answer_outcome::resolved, incident, "alice") ==
        "Resolved by alice");
  CHECK(answer_outcome_text(answer_outcome::already_acknowledged, incident, "alice") ==
        "Already acknowledged by bob");
  CHECK(answer_outcome_text(answer_outcome::already_resolved, incident, "alice") ==
        "Already resolved");
  CHECK(answer_outcome_text(answer_outcome::not_understood, incident, "alice")
            .rfind("Not understood", 0) == 0);
  CHECK(answer_outcome_text(answer_outcome::unavailable, incident, "alice")
            .rfind("Not recorded", 0) == 0);
  incident.acked_by.clear();
  CHECK(answer_outcome_text(answer_outcome::already_acknowledged, incident, "alice") ==
        "Already acknowledged");
}
