// storage::fire_steps: many incidents' steps in one statement, each its own
// compare-and-set.
#include "protocol/ladder.hpp"
#include "storage/incidents.hpp"
#include "support/policies.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

TEST_CASE("steps fired together: each compare-and-set stands alone") {
  test::test_database db;
  db.provision(test::ladder_org());
  auto org = db.org_id("acme");
  micros at = 1'000'000'000'000;
  std::vector<storage::trigger_event> events;
  for (auto key : {"a", "b", "c"})
    events.push_back({{org, key, "t", "critical", "default"}, at, {"node", at + 1}});
  auto opened = storage::upsert_triggers(db.sql(), events);
  auto& ladder = *opened[0].held.ladder;
  std::vector<storage::fire_event> fires;
  for (auto& o : opened) {
    auto& rec = o.held.incident;
    auto next = advance(ladder, rec.current_step, rec.loop, *rec.next_fire_at);
    fires.push_back(storage::fire_of(
        rec, protocol::expand_targets(ladder.steps[0].targets, {}, at), next, at + 5));
  }
  fires[1].version += 1; // "b" moved on meanwhile: its compare-and-set must fail
  auto fired = storage::fire_steps(db.sql(), fires);
  REQUIRE(fired.size() == 3);
  REQUIRE(fired[0]);
  CHECK_FALSE(fired[1]);
  REQUIRE(fired[2]);
  CHECK(fired[0]->current_step == 1);
  CHECK(fired[0]->version == opened[0].held.incident.version + 1);
  CHECK(db.count("SELECT count(*) FROM delivery") == 2); // one target each for a and c
  CHECK(db.count("SELECT count(*) FROM timeline WHERE kind = 'step_fired' "
                 "AND (detail->>'deliveries')::int = 1") == 2);
  CHECK(db.count("SELECT current_step FROM incident WHERE dedup_key = 'b'") == 0);
  // Firing the same step again does nothing: the versions moved on.
  auto again = storage::fire_steps(db.sql(), {fires[0], fires[2]});
  CHECK_FALSE(again[0]);
  CHECK_FALSE(again[1]);
  CHECK(db.count("SELECT count(*) FROM delivery") == 2);
}
