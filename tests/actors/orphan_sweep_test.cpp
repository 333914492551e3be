// docs/guarantees.md#every-accepted-event-pages: "a periodic sweep adopts any
// non-resolved incident with an overdue step that no live actor holds". Each incident
// here was written as a lost reply or a vanished node leaves it: in the database, owned,
// due, and held by no actor.
#include "actors/metrics.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

using test::fired;
using test::one_second;

struct sweep_fixture : test::ladder_fixture {
  test::test_node node{db, test::simulated_epoch, "node-a",
                       [](node_options& o) { o.orphan_sweep_seconds = 5; }};
  micros t0 = node.now();

  // An incident written straight to the database, as a trigger batch would have, but
  // with no registry told: owned by `owner` with its lease until `lease_until`.
  int64_t orphan(const std::string& key, const std::string& owner, micros lease_until) {
    storage::trigger_event e;
    e.cmd.org_id = org;
    e.cmd.dedup_key = key;
    e.cmd.title = "incident " + key;
    e.cmd.policy = "default";
    e.at = node.now();
    e.owner = {owner, lease_until};
    auto written = storage::upsert_triggers(db.sql(), {e});
    REQUIRE(written.at(0).created);
    return written[0].held.incident.id;
  }

  void node_lease(const std::string& node_id, micros until) {
    db.sql().query("INSERT INTO node_lease (node, expires_at) VALUES ($1, belay_ts($2))",
                   node_id, until);
  }
};

} // namespace

TEST_CASE_METHOD(sweep_fixture,
                 "the orphan sweep adopts overdue incidents nobody holds") {
  node.adopt(); // the orphans appear after adoption at start, which would take some
  auto adopted_before = metrics::value(metrics::name::orphans_adopted_total);
  // Its own, but no actor: the reply that would have told the registry was lost.
  auto own = orphan("own-no-actor", "node-a", t0 + 30 * one_second);
  // A node that vanished, whose lease row is gone and whose incident lease lapsed.
  auto ghost = orphan("ghost-owner", "node-ghost", t0 - one_second);
  // A live node's: its own sweep's business, not ours, however overdue.
  node_lease("node-b", t0 + 3600 * one_second);
  auto live = orphan("live-owner", "node-b", t0 - one_second);
  node.run();
  REQUIRE(node.stats().held == 0);

  node.advance(5s); // the first sweep: the steps are due, but not yet a period overdue
  CHECK(node.stats().held == 0);
  node.advance(5s); // overdue now: adopted, and their step 0 fires at once
  CHECK(node.stats().held == 2);
  CHECK(node.stats().adopted == 2);
  CHECK(metrics::value(metrics::name::orphans_adopted_total) - adopted_before == 2);
  CHECK(owner(own) == "node-a");
  CHECK(owner(ghost) == "node-a");
  CHECK(owner(live) == "node-b");
  CHECK(deliveries(own, t0) == fired{{0, 0, 10}});
  CHECK(deliveries(ghost, t0) == fired{{0, 0, 10}});
  CHECK(deliveries(live, t0).empty());

  node.advance(300s); // later sweeps leave held incidents alone; step 1 fires once
  CHECK(node.stats().adopted == 2);
  CHECK(deliveries(own, t0) == fired{{0, 0, 10}, {1, 0, 300}});
  CHECK(deliveries(ghost, t0) == fired{{0, 0, 10}, {1, 0, 300}});
}

TEST_CASE_METHOD(sweep_fixture,
                 "the orphan sweep prunes trigger marks older than ten minutes") {
  node.adopt();
  db.sql().query("INSERT INTO trigger_mark (id, at) VALUES (1, belay_ts($1)), "
                 "(2, belay_ts($2))",
                 t0 - 3600 * one_second, t0);
  node.advance(5s);
  CHECK(db.sql().exec("SELECT string_agg(id::text, ',') FROM trigger_mark").str(0, 0) ==
        "2");
}

TEST_CASE_METHOD(sweep_fixture,
                 "the orphan sweep finds an orphan behind more lagging held incidents "
                 "than one pass reads") {
  // A storm: more incidents than one pass takes (200), held by live actors here, their
  // rows an hour overdue (their actors wait on a busy database).
  constexpr int lagging = 201;
  std::vector<int64_t> held;
  for (int i = 0; i < lagging; ++i)
    held.push_back(
        orphan("lagging-" + std::to_string(i), "node-a", t0 + 30 * one_second));
  REQUIRE(node.adopt() == static_cast<size_t>(lagging));
  node.run();
  db.sql().query("UPDATE incident SET next_fire_at = belay_ts($1) WHERE id = ANY($2)",
                 t0 - 3600 * one_second, storage::bigint_array(held));
  // Its own, due now, and no actor: the reply that would have told the registry was
  // lost.
  auto lost = orphan("lost-reply", "node-a", t0 + 30 * one_second);
  node.run();

  node.advance(5s); // due, not yet a period overdue
  CHECK(deliveries(lost, t0).empty());
  node.advance(5s); // overdue now: this sweep adopts it, whatever lags before it
  CHECK(node.stats().held == static_cast<size_t>(lagging) + 1);
  CHECK(deliveries(lost, t0) == fired{{0, 0, 10}});
}
