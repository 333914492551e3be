// Retention (docs/guarantees.md#retention): resolved incidents older than
// --retention-days are deleted with their timelines, deliveries and dead letters, a small
// batch at a time, on the actor clock: the simulated clock proves it without waiting 90
// days.
#include "storage/db.hpp"
#include "storage/incidents.hpp"
#include "support/ladder_fixture.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

constexpr auto day = std::chrono::hours{24};

struct retention_fixture : test::ladder_fixture {
  // Months of simulated time: every timer of the node fires in turn, so they are set
  // to about a day (a sweep with its retention pass, the lease, the channels' poll).
  test::test_node node{db, test::simulated_epoch, "node-a", [](node_options& o) {
                         o.retention_days = 90;
                         o.orphan_sweep_seconds = 86400;
                         o.lease_seconds = 3 * 86400;
                         o.poll_seconds = 86400;
                       }};

  int64_t resolved(const std::string& key) {
    auto t = node.trigger(org, key);
    REQUIRE(t.code == reply_code::ok);
    node.run();
    auto id = t.incident.id;
    // A dead letter too, as a failed delivery would have left.
    db.sql().query("INSERT INTO dead_letter (org_id, delivery_id, incident_id, channel, "
                   "target, reason, attempts, failed_at) SELECT org_id, id, incident_id, "
                   "channel, target, 'gone', 4, created_at FROM delivery "
                   "WHERE incident_id = $1 LIMIT 1",
                   id);
    REQUIRE(node.resolve(org, id).code == reply_code::ok);
    return id;
  }

  int64_t rows(int64_t id) {
    return count("SELECT (SELECT count(*) FROM incident WHERE id = $1) + "
                 "(SELECT count(*) FROM timeline WHERE incident_id = $1) + "
                 "(SELECT count(*) FROM delivery WHERE incident_id = $1) + "
                 "(SELECT count(*) FROM dead_letter WHERE incident_id = $1)",
                 id);
  }
};

} // namespace

TEST_CASE_METHOD(retention_fixture,
                 "resolved incidents past the retention go with everything they wrote") {
  node.adopt();
  auto old = resolved("old");
  REQUIRE(count("SELECT count(*) FROM dead_letter WHERE incident_id = $1", old) == 1);
  node.advance(2 * day);
  auto recent = resolved("recent");
  auto open = node.trigger(org, "still-open").incident.id;
  node.run();
  auto before_old = rows(old), before_recent = rows(recent), before_open = rows(open);
  REQUIRE(before_old >= 4);

  node.advance(89 * day); // a sweep 91 days after "old" was resolved, 89 after "recent"
  CHECK(rows(old) == 0);
  CHECK(rows(recent) == before_recent);
  CHECK(rows(open) >= before_open); // never deleted, whatever its age
  CHECK(incident_status(open) != "RESOLVED");
}

TEST_CASE_METHOD(retention_fixture, "retention deletes in batches, oldest first") {
  node.adopt();
  auto a = resolved("a");
  node.advance(1s);
  auto b = resolved("b");
  node.advance(1s);
  auto c = resolved("c");
  auto later = node.now() + 1'000'000;
  CHECK(storage::delete_resolved_before(db.sql(), later, 2) == 2);
  CHECK(rows(a) == 0);
  CHECK(rows(b) == 0);
  CHECK(rows(c) > 0);
  CHECK(storage::delete_resolved_before(db.sql(), later, 2) == 1);
  CHECK(rows(c) == 0);
  CHECK(storage::delete_resolved_before(db.sql(), later, 2) == 0);
}

TEST_CASE_METHOD(
    retention_fixture,
    "a resolved incident's bundle rows go with it, and a bundle with the last "
    "incident it spoke of") {
  node.adopt();
  auto a = resolved("bundled-a");
  node.advance(1s);
  auto b = resolved("bundled-b");
  auto later = node.now() + 1'000'000;
  // One bundle that spoke of both, as a storm's message to one person would have.
  db.sql().query(
      "INSERT INTO bundle (org_id, id, channel, target, kind, status, attempts, "
      "idempotency_key, created_at) VALUES ($1, 77, 'log', 'bob', 'page', "
      "'SENT', 1, 'bundle:77', now())",
      org);
  db.sql().query("INSERT INTO bundle_incident (org_id, bundle_id, incident_id, member) "
                 "VALUES ($1, 77, $2, true), ($1, 77, $3, true)",
                 org, a, b);
  auto bundle_rows = [&] {
    return count("SELECT (SELECT count(*) FROM bundle WHERE id = 77) * 10 + "
                 "(SELECT count(*) FROM bundle_incident WHERE bundle_id = 77)");
  };
  REQUIRE(bundle_rows() == 12);

  CHECK(storage::delete_resolved_before(db.sql(), later, 1) == 1); // a, the oldest
  CHECK(bundle_rows() == 11); // b's row and the bundle stay
  CHECK(storage::delete_resolved_before(db.sql(), later, 1) == 1);
  CHECK(bundle_rows() == 0);
}
