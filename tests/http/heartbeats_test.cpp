// Heartbeat pings and the list through the real binary (docs/guarantees.md#heartbeats):
// Healthchecks-style endpoints, their bad input, GET /api/v1/heartbeats, and
// Alertmanager's Watchdog alert pinging a heartbeat instead of opening an incident.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

// Org "alpha" with heartbeat "backup" (ping key alpha-hb, period 1 h, grace 10 min),
// "never" (never pinged) and an alertmanager integration "prom" (key alpha-am) whose
// Watchdog pings "watchdog"; org "beta" with its own heartbeat.
std::string heartbeat_orgs() {
  auto org = [](const std::string& name, const std::string& heartbeats,
                const std::string& am_extra) {
    return R"({"name":")" + name + R"(","apiKeys":[")" + name + R"(-key"],
      "channels":[{"name":"log","type":"log"}],
      "policies":[{"name":"default","steps":[
        {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
        {"delaySeconds":86400,"targets":[{"channel":"log","to":"lead"}]}]}],
      "heartbeats":[)" +
           heartbeats + R"(],
      "integrations":[{"name":"prom","type":"alertmanager","key":")" +
           name + R"(-am","policy":"default")" + am_extra + "}]}";
  };
  return R"({"orgs":[)" +
         org("alpha",
             R"({"name":"backup","key":"alpha-hb","periodSeconds":3600,
                 "graceSeconds":600,"policy":"default"},
                {"name":"never","key":"alpha-never","periodSeconds":60,"policy":"default"},
                {"name":"watchdog","key":"alpha-watchdog","periodSeconds":300,
                 "policy":"default"})",
             R"(,"heartbeat":"watchdog")") +
         "," +
         org("beta",
             R"({"name":"beta-cron","key":"beta-hb","periodSeconds":60,
                 "policy":"default"})",
             "") +
         "]}";
}

std::string state(test::served_belay& belay, const std::string& name) {
  return belay.db.sql()
      .query("SELECT state FROM heartbeat WHERE name = $1", name)
      .str(0, 0);
}

} // namespace

TEST_CASE("pings answer 200 OK by GET, POST and HEAD, with /start, /fail and exit "
          "codes") {
  test::served_belay belay{heartbeat_orgs()};
  auto http = belay.client();
  auto got = http.Get("/hb/alpha-hb");
  REQUIRE(got);
  CHECK(got->status == 200);
  CHECK(got->body == "OK");
  CHECK(state(belay, "backup") == "up");
  auto posted = http.Post("/hb/alpha-hb", "backup finished: 12 GB", "text/plain");
  REQUIRE(posted);
  CHECK(posted->status == 200);
  CHECK(posted->body == "OK");
  auto head = http.Head("/hb/alpha-hb/start");
  REQUIRE(head);
  CHECK(head->status == 200);
  CHECK(belay.get("/hb/alpha-hb/0", "").status == 200);
  CHECK(state(belay, "backup") == "up");
  CHECK(belay.count("SELECT count(*) FROM incident") == 0);

  auto failed = belay.get("/hb/alpha-hb/3", ""); // exit code 3: a fail
  CHECK(failed.status == 200);
  CHECK(failed.body == "OK");
  CHECK(state(belay, "backup") == "down");
  REQUIRE(test::eventually([&] {
    return belay.count("SELECT count(*) FROM incident WHERE dedup_key = "
                       "'heartbeat:backup' AND title = 'Heartbeat backup failed' AND "
                       "status = 'OPEN'") == 1;
  }));
  CHECK(belay.get("/hb/alpha-hb/fail", "").status == 200); // the same incident
  CHECK(belay.get("/hb/alpha-hb", "").status == 200);      // fixed: resolved
  REQUIRE(test::eventually([&] {
    return belay.count("SELECT count(*) FROM incident WHERE dedup_key = "
                       "'heartbeat:backup' AND status = 'RESOLVED' AND resolved_via = "
                       "'heartbeat'") == 1;
  }));
  CHECK(belay.count("SELECT count(*) FROM incident") == 1);
}

TEST_CASE("bad pings get 404 or 400 naming exitCode and write nothing") {
  test::served_belay belay{heartbeat_orgs()};
  auto before = belay.count("SELECT sum(version) FROM heartbeat");
  auto unknown = belay.get("/hb/no-such-key", "");
  CHECK(unknown.status == 404);
  CHECK(test::error_code(unknown) == "unknown_heartbeat");
  CHECK(belay.post("/hb/no-such-key/fail", "", "").status == 404);
  for (auto suffix : {"256", "-1", "oops", "1000"}) {
    auto bad = belay.get(std::string{"/hb/alpha-hb/"} + suffix, "");
    CHECK(bad.status == 400);
    CHECK(test::error_code(bad) == "invalid_exit_code");
    CHECK(test::error_field(bad) == "exitCode");
  }
  CHECK(belay.get("/hb/alpha-hb/1/2", "").status == 404); // no such endpoint
  CHECK(belay.count("SELECT sum(version) FROM heartbeat") == before);
  CHECK(state(belay, "backup") == "new");
  CHECK(belay.count("SELECT count(*) FROM incident") == 0);
}

TEST_CASE("GET /api/v1/heartbeats lists the org's monitors with state, last ping and "
          "next due") {
  test::served_belay belay{heartbeat_orgs()};
  REQUIRE(belay.get("/hb/alpha-hb", "").status == 200);
  auto list = belay.get("/api/v1/heartbeats", "alpha-key");
  REQUIRE(list.status == 200);
  auto& all = list.json["heartbeats"];
  REQUIRE(all.Size() == 3);
  CHECK(std::string{all[0]["name"].GetString()} == "backup");
  CHECK(std::string{all[0]["state"].GetString()} == "up");
  REQUIRE(all[0]["lastPingAt"].IsString());
  REQUIRE(all[0]["nextDueAt"].IsString());
  CHECK(std::string{all[0]["nextDueAt"].GetString()} >
        std::string{all[0]["lastPingAt"].GetString()});
  CHECK(std::string{all[1]["name"].GetString()} == "never");
  CHECK(std::string{all[1]["state"].GetString()} == "new");
  CHECK(all[1]["lastPingAt"].IsNull());
  CHECK(all[1]["nextDueAt"].IsNull());
  auto beta = belay.get("/api/v1/heartbeats", "beta-key"); // tenants see their own
  REQUIRE(beta.status == 200);
  REQUIRE(beta.json["heartbeats"].Size() == 1);
  CHECK(std::string{beta.json["heartbeats"][0]["name"].GetString()} == "beta-cron");
  CHECK(belay.get("/api/v1/heartbeats", "").status == 401);
}

TEST_CASE("an Alertmanager Watchdog alert pings the integration's heartbeat instead of "
          "opening an incident") {
  test::served_belay belay{heartbeat_orgs()};
  auto r = belay.post("/api/v1/integrations/alertmanager",
                      R"({"version":"4","status":"firing","alerts":[
        {"status":"firing","labels":{"alertname":"Watchdog","severity":"none"},
         "fingerprint":"wd"},
        {"status":"firing","labels":{"alertname":"DiskFull"},"fingerprint":"df"}]})",
                      "alpha-am");
  REQUIRE(r.status == 200);
  CHECK(r.body == R"({"created":1,"deduplicated":0,"resolved":0,"ignored":1})");
  CHECK(state(belay, "watchdog") == "up");
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'wd'") == 0);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE dedup_key = 'df'") == 1);
  // Beta's integration names no heartbeat: its Watchdog is an alert like any other.
  auto beta = belay.post("/api/v1/integrations/alertmanager",
                         R"({"version":"4","status":"firing","alerts":[
        {"status":"firing","labels":{"alertname":"Watchdog"},"fingerprint":"wd"}]})",
                         "beta-am");
  REQUIRE(beta.status == 200);
  CHECK(beta.body == R"({"created":1,"deduplicated":0,"resolved":0,"ignored":0})");
}

TEST_CASE("no heartbeat ping key is stored in clear") {
  test::served_belay belay{heartbeat_orgs()};
  REQUIRE(belay.get("/hb/alpha-hb", "").status == 200);
  auto dump = belay.db.dump();
  REQUIRE(dump.find("CREATE TABLE") != std::string::npos);
  REQUIRE(dump.find("backup") != std::string::npos);
  for (auto key : {"alpha-hb", "alpha-never", "alpha-watchdog", "beta-hb"})
    CHECK(dump.find(key) == std::string::npos);
}
