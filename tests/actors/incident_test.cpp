// The escalation ladder on the simulated clock against a real PostgreSQL.
#include "actors/registry.hpp"
#include "storage/incidents.hpp"
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <caf/send.hpp>
#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

using test::fired;
using test::ladder_fixture;
using test::one_second;

TEST_CASE_METHOD(ladder_fixture,
                 "steps fire at exactly their scheduled simulated times") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "disk-full").incident;
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}});
  node.advance(299s);
  CHECK(deliveries(inc.id, t0).size() == 1);
  node.advance(1s);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 300}});
  node.advance(899s);
  CHECK(deliveries(inc.id, t0).size() == 2);
  node.advance(1s);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 300}, {2, 0, 1200}});
  node.advance(10h);
  CHECK(deliveries(inc.id, t0).size() == 3);
}

TEST_CASE_METHOD(ladder_fixture,
                 "repeat loops restart the ladder after repeatDelaySeconds") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "loop", "looping").incident;
  node.advance(5h);
  // loop 0 at 0 and 300; loop 1 starts 600 s after the last step: 900, then 1200.
  CHECK(deliveries(inc.id, t0) ==
        fired{{0, 0, 0}, {1, 0, 300}, {0, 1, 900}, {1, 1, 1200}});
}

TEST_CASE_METHOD(ladder_fixture,
                 "an ack between steps means no later step's deliveries exist") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "cpu").incident;
  node.advance(20s); // before step 0's first retry (30 s) and step 1 (300 s)
  auto acked = node.ack(org, inc.id, "alice");
  CHECK(acked.code == reply_code::ok);
  CHECK(acked.incident.status == "ACKNOWLEDGED");
  CHECK(acked.incident.acked_by == "alice");
  node.advance(10h);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}});
  CHECK(incident_status(inc.id) == "ACKNOWLEDGED");
  // Step 0's delivery had not been claimed yet, so the ack cancelled it.
  CHECK(
      count(
          "SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'CANCELLED'",
          inc.id) == 1);
}

TEST_CASE_METHOD(
    ladder_fixture,
    "an ack racing a due step: the step commits before the ack or not at all") {
  test::test_node node{db};
  auto inc = node.trigger(org, "race").incident;
  node.advance(299s);
  SECTION("the timer is already in the mailbox when the ack arrives") {
    node.sched.advance_time(1s); // step 1's timer message is enqueued, not yet run
    auto acked = node.ack(org, inc.id);
    CHECK(acked.code == reply_code::ok);
  }
  SECTION("another node's ack commits just before the step fires") {
    transition_command other_node{org, inc.id, {}, transition::ack, "bob"};
    storage::apply_transition(db.sql(), other_node, node.now());
    node.advance(1s);
  }
  node.advance(10h);
  // No delivery was created after the ack committed: every step row predates it.
  CHECK(count("SELECT count(*) FROM delivery d JOIN incident i ON i.id = d.incident_id "
              "WHERE i.id = $1 AND i.acked_at IS NOT NULL AND d.created_at > i.acked_at",
              inc.id) == 0);
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND step = 2",
              inc.id) == 0);
  CHECK(
      count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'PENDING'",
            inc.id) == 0);
}

TEST_CASE_METHOD(ladder_fixture,
                 "resolve mid-ladder stops everything and frees the key") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "mem").incident;
  node.advance(6min);
  auto resolved = node.resolve(org, inc.id);
  CHECK(resolved.code == reply_code::ok);
  CHECK(resolved.incident.status == "RESOLVED");
  CHECK(node.ask<registry_stats>(node.n.registry, atom::stats_v).held == 0);
  node.advance(10h);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 300}});
  auto again = node.trigger(org, "mem");
  CHECK(again.created);
  CHECK(again.incident.id != inc.id);
  CHECK(node.resolve(org, inc.id).code == reply_code::unchanged);
  CHECK(node.ack(org, inc.id).code == reply_code::conflict);
}

TEST_CASE_METHOD(
    ladder_fixture,
    "EXHAUSTED comes exactly graceSeconds after the last step; a late ack works") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "nobody-home").incident;
  node.advance(1200s); // last step fires at t = 1200 s
  auto row = db.sql().query(
      "SELECT belay_us(exhausted_at), status FROM incident WHERE id = $1", inc.id);
  CHECK(row.int64(0, 0) == t0 + 1200 * one_second);
  CHECK(row.str(0, 1) == "OPEN");
  node.advance(299s);
  CHECK(incident_status(inc.id) == "OPEN");
  node.advance(1s);
  CHECK(incident_status(inc.id) == "EXHAUSTED");
  CHECK(
      count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = 'exhausted'",
            inc.id) == 1);
  node.advance(3h);
  auto acked = node.ack(org, inc.id, "late-larry");
  CHECK(acked.code == reply_code::ok);
  CHECK(acked.incident.status == "ACKNOWLEDGED");
}

TEST_CASE_METHOD(
    ladder_fixture,
    "a crashed incident actor is respawned and neither skips nor repeats a step") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "crashy").incident;
  node.advance(100s);
  auto actor = node.ask<incident_actor>(node.n.registry, atom::holder_v, inc.id);
  REQUIRE(actor);
  caf::anon_send_exit(actor, caf::exit_reason::kill);
  node.run();
  auto respawned = node.ask<incident_actor>(node.n.registry, atom::holder_v, inc.id);
  REQUIRE(respawned);
  CHECK(respawned != actor);
  CHECK(node.ask<registry_stats>(node.n.registry, atom::stats_v).respawned == 1);
  node.advance(3h);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 300}, {2, 0, 1200}});
  CHECK(
      count(
          "SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = 'step_fired'",
          inc.id) == 3);
}

TEST_CASE_METHOD(ladder_fixture,
                 "after a restart every overdue step fires once and none twice") {
  micros t0;
  int64_t id;
  {
    test::test_node first{db};
    t0 = first.now();
    id = first.trigger(org, "restart").incident.id;
    first.advance(1min); // step 0 fired; the node then goes away mid-ladder
  }
  // Two hours later a new node starts: steps 1 and 2 and the grace period are overdue.
  test::test_node second{db, t0 + 7200 * one_second};
  CHECK(second.adopt() == 1);
  second.run();
  CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {1, 0, 7200}, {2, 0, 7200}});
  CHECK(
      count(
          "SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = 'step_fired'",
          id) == 3);
  CHECK(incident_status(id) == "EXHAUSTED");
  second.advance(5h);
  CHECK(deliveries(id, t0).size() == 3);
}

TEST_CASE_METHOD(ladder_fixture, "undeliverable pages never delay or stop later steps") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "dead-channel").incident;
  // Whatever becomes of step 0's delivery, the ladder runs on its own timers.
  db.sql().query(
      "UPDATE delivery SET status = 'DEAD', attempts = 4 WHERE incident_id = $1", inc.id);
  node.advance(20min);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 300}, {2, 0, 1200}});
}

TEST_CASE_METHOD(ladder_fixture,
                 "acks and resolves work when no actor holds the incident") {
  int64_t id;
  micros t0;
  {
    test::test_node first{db};
    t0 = first.now();
    id = first.trigger(org, "orphan").incident.id;
  }
  test::test_node second{db, t0 + 10 * one_second}; // has not adopted anything
  CHECK(second.ack(org, id).incident.status == "ACKNOWLEDGED");
  CHECK(second.ack(org, id).code == reply_code::unchanged);
  CHECK(second.resolve(org, id).incident.status == "RESOLVED");
  CHECK(second.ack(org, 999999).code == reply_code::not_found);
}

// A node hears of acknowledges and resolves made elsewhere through NOTIFY; after its
// listener was deaf for a while it asks the database instead (tests/http/nodes_test.cpp
// has the notifications themselves, through real processes).
TEST_CASE_METHOD(
    ladder_fixture,
    "a node that missed notifications catches up on acknowledges and resolves") {
  test::test_node a{db, test::simulated_epoch, "node-a"};
  auto acked = a.trigger(org, "acked-elsewhere").incident.id;
  auto resolved = a.trigger(org, "resolved-elsewhere").incident.id;
  {
    test::test_node b{db, a.now(), "node-b"}; // holds neither: the database decides
    REQUIRE(b.ack(org, acked).code == reply_code::ok);
    REQUIRE(b.resolve(org, resolved).code == reply_code::ok);
  }
  auto held_status = [&](int64_t id) {
    auto actor = a.ask<incident_actor>(a.n.registry, atom::holder_v, id);
    return actor ? a.ask<incident_view>(actor, atom::view_v).incident.status
                 : std::string{"none held"};
  };
  // On the test scheduler there is no listener: node-a heard nothing.
  REQUIRE(held_status(acked) == "OPEN");
  REQUIRE(held_status(resolved) == "OPEN");
  caf::anon_send(a.n.registry, atom::catch_up_v); // what the listener sends once back
  a.run();
  CHECK(held_status(acked) == "ACKNOWLEDGED");
  CHECK(held_status(resolved) == "none held");
}
