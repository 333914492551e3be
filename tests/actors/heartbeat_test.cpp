// Heartbeat monitors on the simulated clock against a real PostgreSQL
// (docs/guarantees.md#heartbeats): new -> up -> late -> down, the incident that down or
// fail opens and the next success resolves, /start, alertIfNeverPinged, and a restart or
// a takeover while a monitor is late, which still goes down on time, once.
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

using test::one_second;

// "nightly": period 1 h, grace 10 min. "cron": alertIfNeverPinged, period 10 min, grace
// 1 min. "quiet": never pinged, without alertIfNeverPinged.
std::string heartbeat_org(bool with_nightly = true) {
  std::string nightly =
      with_nightly ? R"({"name":"nightly","key":"nightly-key","periodSeconds":3600,
        "graceSeconds":600,"policy":"default"},)"
                   : "";
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
        {"delaySeconds":300,"targets":[{"channel":"log","to":"lead"}]}]}],
    "heartbeats":[)" +
         nightly + R"(
      {"name":"cron","key":"cron-key","periodSeconds":600,"graceSeconds":60,
       "policy":"default","alertIfNeverPinged":true},
      {"name":"quiet","key":"quiet-key","periodSeconds":60,"policy":"default"}]}]})";
}

struct incident_row {
  int64_t id;
  std::string status, title;
  micros created_at;
  int64_t event_count;
  std::string resolved_by, resolved_via;
};

struct heartbeat_fixture {
  test::test_database db;
  int64_t org;
  heartbeat_fixture() {
    db.provision(heartbeat_org());
    org = db.org_id("acme");
  }

  int64_t heartbeat_id(const std::string& name) {
    return db.sql().query("SELECT id FROM heartbeat WHERE name = $1", name).int64(0, 0);
  }
  reply_code ping(test::test_node& node, const std::string& name,
                  ping_kind kind = ping_kind::success) {
    return node.ask<reply_code>(node.n.heartbeats, atom::ping_v, org, heartbeat_id(name),
                                kind);
  }
  std::string state(const std::string& name) {
    return db.sql().query("SELECT state FROM heartbeat WHERE name = $1", name).str(0, 0);
  }
  std::vector<incident_row> incidents(const std::string& name) {
    auto r = db.sql().query(
        "SELECT id, status, title, belay_us(created_at), event_count, "
        "coalesce(resolved_by, ''), coalesce(resolved_via, '') FROM incident "
        "WHERE org_id = $1 AND dedup_key = $2 ORDER BY id",
        org, "heartbeat:" + name);
    std::vector<incident_row> out;
    for (int i = 0; i < r.rows(); ++i)
      out.push_back({r.int64(i, 0), r.str(i, 1), r.str(i, 2), r.int64(i, 3),
                     r.int64(i, 4), r.str(i, 5), r.str(i, 6)});
    return out;
  }
  int64_t pages(int64_t incident) {
    return db.sql()
        .query("SELECT count(*) FROM delivery WHERE incident_id = $1", incident)
        .int64(0, 0);
  }
};

} // namespace

TEST_CASE_METHOD(heartbeat_fixture, "a heartbeat goes from new to up on its first ping") {
  test::test_node node{db};
  node.adopt();
  CHECK(state("nightly") == "new");
  node.advance(2h); // no ping yet, and no alertIfNeverPinged: it waits
  CHECK(state("nightly") == "new");
  CHECK(ping(node, "nightly") == reply_code::ok);
  CHECK(state("nightly") == "up");
  auto r = db.sql().query("SELECT belay_us(last_ping_at), belay_us(late_at), "
                          "belay_us(down_at) FROM heartbeat WHERE name = 'nightly'");
  CHECK(r.int64(0, 0) == node.now());
  CHECK(r.int64(0, 1) == node.now() + 3600 * one_second);
  CHECK(r.int64(0, 2) == node.now() + 4200 * one_second);
  CHECK(incidents("nightly").empty());
  CHECK(state("quiet") == "new"); // never pinged, never late
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "a silent heartbeat goes late after its period and down after its "
                 "grace, opening one incident that pages") {
  test::test_node node{db};
  node.adopt();
  ping(node, "nightly");
  auto t0 = node.now();
  node.advance(3599s);
  CHECK(state("nightly") == "up");
  node.advance(2s);
  CHECK(state("nightly") == "late");
  CHECK(incidents("nightly").empty()); // late pages nobody
  node.advance(598s);                  // 4199 s
  CHECK(state("nightly") == "late");
  node.advance(2s);
  CHECK(state("nightly") == "down");
  auto opened = incidents("nightly");
  REQUIRE(opened.size() == 1);
  CHECK(opened[0].status == "OPEN");
  CHECK(opened[0].title == "Heartbeat nightly missed");
  CHECK(opened[0].created_at == t0 + 4200 * one_second);
  CHECK(pages(opened[0].id) == 1); // step 0 at once
  node.advance(3h); // still silent: still the one incident, never triggered again
  opened = incidents("nightly");
  REQUIRE(opened.size() == 1);
  CHECK(opened[0].event_count == 1);
  CHECK(state("nightly") == "down");
}

TEST_CASE_METHOD(heartbeat_fixture, "the next success resolves the incident") {
  test::test_node node{db};
  node.adopt();
  ping(node, "nightly");
  node.advance(4201s);
  REQUIRE(incidents("nightly").size() == 1);
  node.advance(1min);
  CHECK(ping(node, "nightly") == reply_code::ok);
  CHECK(state("nightly") == "up");
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == "RESOLVED");
  CHECK(rows[0].resolved_by == "heartbeat");
  CHECK(rows[0].resolved_via == "heartbeat");
  CHECK(
      db.sql().query("SELECT pending FROM heartbeat WHERE name = 'nightly'").str(0, 0) ==
      "");
  // Up again: the schedule starts over from this success.
  node.advance(3599s);
  CHECK(state("nightly") == "up");
  node.advance(602s);
  CHECK(state("nightly") == "down");
  CHECK(incidents("nightly").size() == 2); // a new incident (G2)
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "a start then silence goes down after the grace, before the period") {
  test::test_node node{db};
  node.adopt();
  ping(node, "nightly");
  auto t0 = node.now();
  node.advance(100s);
  CHECK(ping(node, "nightly", ping_kind::start) == reply_code::ok);
  CHECK(state("nightly") == "up");
  node.advance(599s); // 699 s
  CHECK(state("nightly") == "up");
  node.advance(2s);
  CHECK(state("nightly") == "down");
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].title == "Heartbeat nightly missed");
  CHECK(rows[0].created_at == t0 + 700 * one_second);
}

TEST_CASE_METHOD(heartbeat_fixture, "exit code 3 is a fail: down at once, one incident") {
  test::test_node node{db};
  node.adopt();
  ping(node, "nightly");
  node.advance(10s);
  auto kind = protocol::parse_ping_suffix("3");
  REQUIRE(std::get<ping_kind>(kind) == ping_kind::fail);
  CHECK(ping(node, "nightly", std::get<ping_kind>(kind)) == reply_code::ok);
  CHECK(state("nightly") == "down");
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].title == "Heartbeat nightly failed");
  CHECK(rows[0].created_at == node.now());
  CHECK(pages(rows[0].id) == 1);
  // Down: silence changes nothing more; the success after the fix resolves it.
  node.advance(3h);
  CHECK(incidents("nightly").size() == 1);
  ping(node, "nightly", std::get<ping_kind>(protocol::parse_ping_suffix("0")));
  CHECK(incidents("nightly")[0].status == "RESOLVED");
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "alertIfNeverPinged makes a new monitor go down at creation plus period "
                 "plus grace") {
  test::test_node node{db};
  node.adopt();
  auto created = node.now(); // the first holder stamps it on its clock
  CHECK(db.sql()
            .query("SELECT belay_us(created_at) FROM heartbeat WHERE name = 'cron'")
            .int64(0, 0) == created);
  node.advance(599s);
  CHECK(state("cron") == "new");
  node.advance(2s);
  CHECK(state("cron") == "late");
  node.advance(58s); // 659 s
  CHECK(incidents("cron").empty());
  node.advance(2s);
  CHECK(state("cron") == "down");
  auto rows = incidents("cron");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].created_at == created + 660 * one_second);
  CHECK(state("quiet") == "new");
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "a restart of the node while a monitor is late keeps the schedule: it "
                 "still goes down on time, once") {
  micros t0, stopped_at;
  {
    test::test_node node{db};
    node.adopt();
    ping(node, "nightly");
    t0 = node.now();
    node.advance(3700s);
    REQUIRE(state("nightly") == "late");
    stopped_at = node.now();
  } // the node stops with the monitor late, due down at 4200 s
  test::test_node again{db, stopped_at};
  again.adopt();
  again.advance(499s); // 4199 s
  CHECK(state("nightly") == "late");
  CHECK(incidents("nightly").empty());
  again.advance(2s);
  CHECK(state("nightly") == "down");
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].created_at == t0 + 4200 * one_second);
  again.advance(2h);
  rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].event_count == 1);
  CHECK(pages(rows[0].id) == 2); // both steps, once each
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "another node takes over the monitors of a node whose lease lapsed and "
                 "they go down on time, once") {
  micros t0, died_at;
  {
    test::test_node a{db, test::simulated_epoch, "node-a"};
    a.adopt();
    ping(a, "nightly");
    t0 = a.now();
    a.advance(3700s);
    REQUIRE(state("nightly") == "late");
    died_at = a.now();
  } // node-a dies without a word
  test::test_node b{db, died_at, "node-b"};
  b.adopt();
  CHECK(db.sql().query("SELECT owner FROM heartbeat WHERE name = 'nightly'").str(0, 0) ==
        "node-a"); // its lease holds for now
  b.advance(60s);
  CHECK(db.sql().query("SELECT owner FROM heartbeat WHERE name = 'nightly'").str(0, 0) ==
        "node-b");
  b.advance(439s); // 4199 s
  CHECK(state("nightly") == "late");
  b.advance(2s);
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].created_at == t0 + 4200 * one_second);
  CHECK(rows[0].event_count == 1);
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "a down monitor whose incident was never opened has it opened by its "
                 "next holder") {
  // The node died between the compare-and-set to down and the trigger.
  db.sql().query("UPDATE heartbeat SET state = 'down', pending = 'missed', owner = "
                 "'test-node', created_at = belay_ts($1) WHERE name = 'nightly'",
                 test::simulated_epoch);
  test::test_node node{db};
  auto rows = incidents("nightly");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].title == "Heartbeat nightly missed");
  CHECK(
      db.sql().query("SELECT pending FROM heartbeat WHERE name = 'nightly'").str(0, 0) ==
      "");
}

TEST_CASE_METHOD(heartbeat_fixture,
                 "a heartbeat removed from the provisioning file stops: its pings are "
                 "refused and silence opens nothing") {
  test::test_node node{db};
  node.adopt();
  ping(node, "nightly");
  auto id = heartbeat_id("nightly");
  db.provision(heartbeat_org(false));
  CHECK(node.ask<reply_code>(node.n.heartbeats, atom::ping_v, org, id,
                             ping_kind::success) == reply_code::not_found);
  node.advance(2h);
  CHECK(incidents("nightly").empty());
  CHECK(node.ask<std::vector<heartbeat_record>>(node.n.heartbeats, atom::views_v, org)
            .size() == 2); // cron and quiet
}
