#include "protocol/heartbeat.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace belay::protocol;

namespace {

constexpr micros s = 1'000'000;

heartbeat_record pinged_at(micros t) {
  heartbeat_record h;
  h.name = "nightly";
  h.period_seconds = 3600;
  h.grace_seconds = 600;
  h.state = heartbeat_up;
  h.last_ping_at = t;
  h.late_at = t + 3600 * s;
  h.down_at = t + 4200 * s;
  return h;
}

} // namespace

TEST_CASE("ping suffixes: none, start, fail, and exit codes 0 to 255") {
  CHECK(std::get<ping_kind>(parse_ping_suffix("")) == ping_kind::success);
  CHECK(std::get<ping_kind>(parse_ping_suffix("start")) == ping_kind::start);
  CHECK(std::get<ping_kind>(parse_ping_suffix("fail")) == ping_kind::fail);
  CHECK(std::get<ping_kind>(parse_ping_suffix("0")) == ping_kind::success);
  CHECK(std::get<ping_kind>(parse_ping_suffix("3")) == ping_kind::fail);
  CHECK(std::get<ping_kind>(parse_ping_suffix("255")) == ping_kind::fail);
  for (auto bad : {"256", "1000", "-1", "x", "OK", "0x1", "start2", " 1"}) {
    auto e = std::get<error>(parse_ping_suffix(bad));
    CHECK(e.status == 400);
    CHECK(e.code == "invalid_exit_code");
    CHECK(e.field == "exitCode");
  }
}

TEST_CASE("silence makes an up monitor late after its period, down after its grace") {
  auto h = pinged_at(0);
  CHECK(next_deadline(h)->at == 3600 * s);
  CHECK(next_deadline(h)->to == std::string{heartbeat_late});
  CHECK(due_transition(h, 3600 * s - 1) == nullptr);
  CHECK(due_transition(h, 3600 * s) == std::string{heartbeat_late});
  CHECK(due_transition(h, 4200 * s) == std::string{heartbeat_down}); // both due: down
  h.state = heartbeat_late;
  CHECK(next_deadline(h)->at == 4200 * s);
  CHECK(due_transition(h, 4199 * s) == nullptr);
  CHECK(due_transition(h, 4200 * s) == std::string{heartbeat_down});
  h.state = heartbeat_down;
  h.late_at.reset();
  h.down_at.reset();
  CHECK_FALSE(next_deadline(h));
  CHECK(due_transition(h, 99999 * s) == nullptr);
}

TEST_CASE("a start that shortens the deadline goes down before late") {
  auto h = pinged_at(0);
  h.down_at = 700 * s; // a /start at 100 s with 600 s of grace
  CHECK(next_deadline(h)->at == 700 * s);
  CHECK(next_deadline(h)->to == std::string{heartbeat_down});
  CHECK(due_transition(h, 700 * s) == std::string{heartbeat_down});
}

TEST_CASE("a new monitor without deadlines waits for its first ping") {
  heartbeat_record h;
  CHECK_FALSE(next_deadline(h));
  CHECK(due_transition(h, 1'000'000 * s) == nullptr);
}

TEST_CASE("incident names and the list's JSON") {
  CHECK(heartbeat_dedup_key("nightly") == "heartbeat:nightly");
  CHECK(heartbeat_title("nightly", pending_missed) == "Heartbeat nightly missed");
  CHECK(heartbeat_title("nightly", pending_failed) == "Heartbeat nightly failed");
  CHECK(heartbeat_incident_details("a\"b", pending_failed) ==
        R"({"heartbeat":"a\"b","reason":"failed"})");
  heartbeat_record never;
  never.name = "cron";
  CHECK(render_heartbeats({pinged_at(1'767'225'600 * s), never}) ==
        R"({"heartbeats":[{"name":"nightly","state":"up","lastPingAt":)"
        R"("2026-01-01T00:00:00.000Z","nextDueAt":"2026-01-01T01:00:00.000Z"},)"
        R"({"name":"cron","state":"new","lastPingAt":null,"nextDueAt":null}]})");
}
