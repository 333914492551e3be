// Working an incident on the simulated clock against a real PostgreSQL
// (docs/guarantees.md#working-an-incident): escalate now in each state, a snooze that
// returns across a restart and a failover, a reassign that cancels exactly the old
// ladder's pending pages.
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

using test::fired;
using test::ladder_fixture;
using test::one_second;

namespace {

incident_action action(int64_t org, int64_t id, incident_verb verb) {
  incident_action a;
  a.org_id = org;
  a.incident_id = id;
  a.verb = verb;
  return a;
}

struct working_fixture : ladder_fixture {
  storage::action_reply escalate(test::test_node& node, int64_t id) {
    return node.act(action(org, id, incident_verb::escalate));
  }
  storage::action_reply snooze(test::test_node& node, int64_t id, micros until) {
    auto a = action(org, id, incident_verb::snooze);
    a.until = until;
    return node.act(a);
  }
  int64_t timeline(int64_t id, const std::string& kind) {
    return count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = $2", id,
                 kind);
  }
  int64_t audited(const std::string& action_name) {
    return count("SELECT count(*) FROM audit WHERE action = $1", action_name);
  }
};

} // namespace

TEST_CASE_METHOD(working_fixture, "escalate now fires the next step at once on an OPEN "
                                  "incident, and the ladder goes on from there") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "disk").incident;
  node.advance(10s);
  auto r = escalate(node, inc.id);
  REQUIRE(r.code == reply_code::ok);
  node.run();
  // Step 1 was due at 300 s: it fired at 10 s; step 2 follows 900 s after it.
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 10}});
  node.advance(899s);
  CHECK(deliveries(inc.id, t0).size() == 2);
  node.advance(1s);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 10}, {2, 0, 910}});
  CHECK(timeline(inc.id, "escalated") == 1);
  CHECK(timeline(inc.id, "step_fired") == 3);
  CHECK(audited("incident.escalate") == 1);
  CHECK(db.sql()
            .query("SELECT detail->>'by' FROM timeline WHERE kind = 'escalated'")
            .str(0, 0) == "alice");
}

TEST_CASE_METHOD(working_fixture, "escalate now on an ACKNOWLEDGED incident reopens "
                                  "paging from the next step, each step once") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "cpu").incident;
  node.advance(20s);
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  node.advance(40s);
  auto r = escalate(node, inc.id);
  REQUIRE(r.code == reply_code::ok);
  CHECK(r.held.incident.status == "OPEN");
  CHECK(r.held.incident.acked_by.empty());
  // Escalated again at once: the step after, not step 1 a second time.
  REQUIRE(escalate(node, inc.id).code == reply_code::ok);
  node.run();
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {1, 0, 60}, {2, 0, 60}});
  CHECK(incident_status(inc.id) == "OPEN");
  node.advance(5h); // the grace period ends: nothing pages again
  CHECK(deliveries(inc.id, t0).size() == 3);
  CHECK(incident_status(inc.id) == "EXHAUSTED");
}

TEST_CASE_METHOD(working_fixture,
                 "escalate now is refused, writing nothing, on an EXHAUSTED or RESOLVED "
                 "incident and while a maintenance window holds it") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "net").incident;
  node.advance(3h);
  REQUIRE(incident_status(inc.id) == "EXHAUSTED");
  auto version = count("SELECT version FROM incident WHERE id = $1", inc.id);
  auto r = escalate(node, inc.id);
  CHECK(r.code == reply_code::conflict);
  CHECK(r.error == "no_next_step");
  REQUIRE(node.resolve(org, inc.id).code == reply_code::ok);
  r = escalate(node, inc.id);
  CHECK(r.code == reply_code::conflict);
  CHECK(r.error == "invalid_transition");
  CHECK(escalate(node, 999999).code == reply_code::not_found);
  // A maintenance window over "looping" holds a new incident's ladder.
  db.sql().query("INSERT INTO maintenance (org_id, policy, start_at, end_at, created_at) "
                 "VALUES ($1, 'looping', belay_ts($2), belay_ts($3), belay_ts($2))",
                 org, node.now() - one_second, node.now() + 3600 * one_second);
  auto held = node.trigger(org, "held", "looping").incident;
  node.run();
  REQUIRE(count("SELECT count(*) FROM incident WHERE id = $1 AND held_until IS NOT NULL",
                held.id) == 1);
  auto in_maintenance = escalate(node, held.id);
  CHECK(in_maintenance.code == reply_code::conflict);
  CHECK(in_maintenance.error == "in_maintenance");
  CHECK(timeline(held.id, "escalated") == 0);
  CHECK(timeline(inc.id, "escalated") == 0);
  CHECK(audited("incident.escalate") == 0);
  CHECK(count("SELECT version FROM incident WHERE id = $1", inc.id) ==
        version + 1); // resolve
  CHECK(deliveries(inc.id, t0).size() == 3);
}

TEST_CASE_METHOD(working_fixture, "a snoozed incident returns to OPEN at its time and "
                                  "its ladder starts again from step 1 with new keys") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "queue").incident;
  node.advance(20s);
  auto open_snooze = snooze(node, inc.id, t0 + 3600 * one_second);
  CHECK(open_snooze.code == reply_code::conflict); // only an acknowledged incident
  CHECK(open_snooze.error == "not_acknowledged");
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  auto r = snooze(node, inc.id, t0 + 3600 * one_second);
  REQUIRE(r.code == reply_code::ok);
  CHECK(r.held.incident.snoozed_until == t0 + 3600 * one_second);
  node.advance(3579s); // 3,599 s after t0
  CHECK(incident_status(inc.id) == "ACKNOWLEDGED");
  CHECK(deliveries(inc.id, t0).size() == 1);
  node.advance(1s);
  CHECK(incident_status(inc.id) == "OPEN");
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {0, 0, 3600}});
  node.advance(300s);
  CHECK(deliveries(inc.id, t0) == fired{{0, 0, 0}, {0, 0, 3600}, {1, 0, 3900}});
  CHECK(
      count("SELECT count(DISTINCT idempotency_key) FROM delivery WHERE incident_id = $1",
            inc.id) == 3);
  CHECK(timeline(inc.id, "snoozed") == 1);
  CHECK(timeline(inc.id, "snooze_ended") == 1);
  CHECK(audited("incident.snooze") == 1);
}

TEST_CASE_METHOD(working_fixture,
                 "a snoozed incident resolved meanwhile stays resolved") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "quiet").incident;
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  REQUIRE(snooze(node, inc.id, t0 + 600 * one_second).code == reply_code::ok);
  node.advance(100s);
  REQUIRE(node.resolve(org, inc.id).code == reply_code::ok);
  node.advance(2h);
  CHECK(incident_status(inc.id) == "RESOLVED");
  CHECK(deliveries(inc.id, t0).size() == 1);
  CHECK(timeline(inc.id, "snooze_ended") == 0);
}

TEST_CASE_METHOD(working_fixture,
                 "a snooze survives a restart of its node and a failover to another") {
  micros t0;
  int64_t id;
  {
    test::test_node first{db};
    t0 = first.now();
    id = first.trigger(org, "restart").incident.id;
    REQUIRE(first.ack(org, id).code == reply_code::ok);
    REQUIRE(snooze(first, id, t0 + 1800 * one_second).code == reply_code::ok);
    first.advance(1min); // the node then goes away while the incident sleeps
  }
  SECTION("the same node starts again after the snooze's end") {
    test::test_node second{db, t0 + 7200 * one_second};
    CHECK(second.adopt() == 1);
    second.run();
    CHECK(incident_status(id) == "OPEN");
    CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {0, 0, 7200}});
  }
  SECTION("another node takes it over, before the snooze's end") {
    test::test_node other{db, t0 + 900 * one_second, "other-node"};
    CHECK(other.adopt() == 1); // the first node's lease lapsed long ago
    other.run();
    CHECK(incident_status(id) == "ACKNOWLEDGED");
    other.advance(899s);
    CHECK(incident_status(id) == "ACKNOWLEDGED");
    other.advance(1s);
    CHECK(incident_status(id) == "OPEN");
    CHECK(deliveries(id, t0) == fired{{0, 0, 0}, {0, 0, 1800}});
    CHECK(owner(id) == "other-node");
  }
  CHECK(timeline(id, "snooze_ended") == 1);
}

TEST_CASE_METHOD(working_fixture,
                 "reassign cancels exactly the old ladder's pending pages and starts the "
                 "new policy's ladder from its first step") {
  test::test_node node{db};
  auto t0 = node.now();
  // Both incidents' first pages fail (nothing listens on port 9) and wait to retry.
  auto moved = node.trigger(org, "moved").incident;
  auto kept = node.trigger(org, "kept").incident;
  node.advance(5s);
  auto pending = [&](int64_t id) {
    return count(
        "SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'PENDING'",
        id);
  };
  REQUIRE(pending(moved.id) == 1);
  REQUIRE(pending(kept.id) == 1);
  auto a = action(org, moved.id, incident_verb::reassign);
  a.policy = "looping";
  auto r = node.act(a);
  REQUIRE(r.code == reply_code::ok);
  CHECK(r.held.incident.policy == "looping");
  CHECK(r.held.incident.current_step == 0);
  node.run();
  CHECK(
      count(
          "SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'CANCELLED'",
          moved.id) == 1);
  CHECK(pending(kept.id) == 1); // the other incident's page is untouched
  // The new ladder: step 0 at once (a new key), step 1 300 s later, as "looping" says.
  CHECK(deliveries(moved.id, t0) == fired{{0, 0, 0}, {0, 0, 5}});
  node.advance(300s);
  CHECK(deliveries(moved.id, t0) == fired{{0, 0, 0}, {0, 0, 5}, {1, 0, 305}});
  CHECK(db.sql()
            .query("SELECT detail->>'cancelledDeliveries' FROM timeline WHERE kind = "
                   "'reassigned'")
            .str(0, 0) == "1");
  CHECK(audited("incident.reassign") == 1);
}

TEST_CASE_METHOD(working_fixture, "reassign refuses an unknown policy, user or schedule "
                                  "and a resolved incident, writing nothing") {
  test::test_node node{db};
  auto inc = node.trigger(org, "nowhere").incident;
  node.run();
  auto try_reassign = [&](const std::string& policy, const std::string& user,
                          const std::string& schedule) {
    auto a = action(org, inc.id, incident_verb::reassign);
    a.policy = policy;
    a.user = user;
    a.schedule = schedule;
    return node.act(a);
  };
  auto r = try_reassign("nope", "", "");
  CHECK(r.code == reply_code::invalid);
  CHECK(r.field == "policy");
  CHECK(try_reassign("", "nobody", "").field == "user");
  CHECK(try_reassign("", "", "nothing").field == "schedule");
  REQUIRE(node.resolve(org, inc.id).code == reply_code::ok);
  CHECK(try_reassign("looping", "", "").code == reply_code::conflict);
  CHECK(timeline(inc.id, "reassigned") == 0);
  CHECK(audited("incident.reassign") == 0);
  CHECK(db.sql().query("SELECT policy FROM incident WHERE id = $1", inc.id).str(0, 0) ==
        "default");
}

TEST_CASE_METHOD(
    working_fixture,
    "merge resolves one incident into another, cancels its pending pages, and "
    "a later event for its key joins the other: no second incident (G1)") {
  test::test_node node{db};
  auto merged = node.trigger(org, "db-down").incident;
  auto into = node.trigger(org, "api-errors").incident;
  node.advance(5s); // both first pages failed and wait to retry
  auto a = action(org, merged.id, incident_verb::merge);
  a.into = into.id;
  auto r = node.act(a);
  REQUIRE(r.code == reply_code::ok);
  CHECK(r.held.incident.status == "RESOLVED");
  CHECK(r.held.incident.resolved_via == "merge");
  node.run();
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = "
              "'CANCELLED'",
              merged.id) == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = "
              "'PENDING'",
              into.id) == 1);
  CHECK(count("SELECT event_count FROM incident WHERE id = $1", into.id) == 2);
  CHECK(count("SELECT merged_into FROM incident WHERE id = $1", merged.id) == into.id);
  CHECK(timeline(merged.id, "merged") == 1);
  CHECK(timeline(into.id, "merged_in") == 1);
  CHECK(audited("incident.merge") == 1);

  // A later event for the merged key is a duplicate of the incident it went into.
  auto later = node.trigger(org, "db-down");
  CHECK(later.code == reply_code::ok);
  CHECK_FALSE(later.created);
  CHECK(later.incident.id == into.id);
  CHECK(count("SELECT count(*) FROM incident WHERE dedup_key = 'db-down' AND status <> "
              "'RESOLVED'") == 0);
  CHECK(count("SELECT event_count FROM incident WHERE id = $1", into.id) == 3);
  CHECK(count("SELECT count(*) FROM incident") == 2);

  // Once that one is resolved, the key opens an incident of its own again.
  REQUIRE(node.resolve(org, into.id).code == reply_code::ok);
  auto fresh = node.trigger(org, "db-down");
  CHECK(fresh.created);
  CHECK(fresh.incident.id != merged.id);
  CHECK(fresh.incident.dedup_key == "db-down");
}

TEST_CASE_METHOD(working_fixture, "two incidents merged into each other at once: one "
                                  "merge wins, the other is refused, neither deadlocks") {
  test::test_node node{db};
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int i = 0; i < 20; ++i)
    pairs.emplace_back(node.trigger(org, "a" + std::to_string(i)).incident.id,
                       node.trigger(org, "b" + std::to_string(i)).incident.id);
  node.run();
  int won = 0;
  for (auto [a, b] : pairs) {
    // Each side on a connection of its own, as two storage workers merge.
    auto merge = [&](int64_t from, int64_t into) -> std::string {
      storage::connection c{db.url()};
      auto m = action(org, from, incident_verb::merge);
      m.into = into;
      m.who = {"sim", "api", ""};
      try {
        auto r = storage::apply_action(c, m, node.now());
        return r.code == reply_code::ok ? "ok" : r.error;
      } catch (const std::exception& e) {
        return e.what();
      }
    };
    std::string one, other;
    std::thread t{[&] { one = merge(a, b); }};
    other = merge(b, a);
    t.join();
    INFO(one << " / " << other);
    CHECK((one == "ok") != (other == "ok"));
    for (auto& answer : {one, other})
      CHECK((answer == "ok" || answer == "invalid_transition" ||
             answer == "target_resolved"));
    won += one == "ok";
  }
  CHECK(count("SELECT count(*) FROM incident WHERE resolved_via = 'merge'") == 20);
  WARN("the first merge of the pair won " << won << " of 20");
}
