#include "storage/migrate.hpp"
#include "support/belay_process.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

TEST_CASE("migrations apply once and re-running them changes nothing") {
  test::test_database db{false};
  auto first = storage::migrate(db.sql());
  REQUIRE(first == std::vector<std::string>{"0001_init",
                                            "0002_batched_ingest",
                                            "0003_inline_functions",
                                            "0004_timeline_unchecked",
                                            "0005_incident_fillfactor",
                                            "0006_node_lease",
                                            "0007_delivery_key",
                                            "0008_people",
                                            "0009_trigger_mark",
                                            "0010_rate_limits",
                                            "0011_retention",
                                            "0012_org_disabled",
                                            "0013_answers",
                                            "0014_status_updates",
                                            "0015_heartbeats",
                                            "0017_reopen",
                                            "0018_maintenance",
                                            "0019_changes",
                                            "0020_live_since",
                                            "0021_lighter_trigger_statement",
                                            "0022_duplicate_statement",
                                            "0023_alerts",
                                            "0024_contacts",
                                            "0025_inbound_messages",
                                            "0026_bundle_retention",
                                            "0027_sealed_secrets",
                                            "0028_people_at_the_keyboard",
                                            "0029_working_an_incident"});
  CHECK(storage::migrate(db.sql()).empty());
  CHECK(db.count("SELECT count(*) FROM schema_migrations") ==
        static_cast<int64_t>(first.size()));
  CHECK(db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" +
                 db.schema() +
                 "' AND table_name IN ('incident', 'delivery', 'dead_letter')") == 3);
}

TEST_CASE("the partial unique index exists with org_id leading") {
  test::test_database db;
  auto r = db.sql().query("SELECT indexdef FROM pg_indexes WHERE indexname = "
                          "'incident_open_dedup' AND schemaname = $1",
                          db.schema());
  REQUIRE(r.rows() == 1);
  CHECK(r.str(0, 0).find("(org_id, dedup_key) WHERE (status <> 'RESOLVED'") !=
        std::string::npos);
}

// A helper PostgreSQL does not inline runs a small executor per call, in every row of the
// hot statements (migration 0003).
TEST_CASE("the SQL helper functions are inlined into the statements that call them") {
  test::test_database db;
  auto plan = db.sql().query("EXPLAIN VERBOSE SELECT belay_us(belay_ts($1::bigint)), "
                             "belay_keep_last($2::jsonb, 5), "
                             "belay_delivery_key($1::bigint, 0, 1, 'hook', '#ops')",
                             "1000000000000001", "[1, 2, 3, 4, 5, 6]");
  for (int row = 0; row < plan.rows(); ++row)
    CHECK(plan.str(row, 0).find("belay_") == std::string::npos);
  auto r = db.sql().query("SELECT belay_us(belay_ts($1::bigint))::text, "
                          "belay_keep_last($2::jsonb, 5)::text",
                          "1796000000123457", "[1, [2], {\"a\": 3}, 4, 5, 6]");
  CHECK(r.str(0, 0) == "1796000000123457");
  CHECK(r.str(0, 1) == R"([[2], {"a": 3}, 4, 5, 6])");
  CHECK(db.sql().exec("SELECT belay_delivery_key(42, 1, 2, 'hook', 'a:b')").str(0, 0) ==
        "42:1:2:hook:a:b");
  // The duplicate statement's guard: nothing commits unless it updated every key.
  CHECK(db.sql().exec("SELECT belay_all_updated(3, 3)").boolean(0, 0));
  try {
    db.sql().exec("SELECT belay_all_updated(2, 3)");
    FAIL("belay_all_updated(2, 3) did not raise");
  } catch (const storage::db_error& e) {
    CHECK(e.sqlstate == "BLY01");
  }
}

TEST_CASE("two belay serve processes starting at once migrate once") {
  test::test_database db{false};
  auto a = test::belay_process{{"serve", "--port", std::to_string(test::free_port()),
                                "--database-url", db.url(), "--node-id", "a"}};
  auto b = test::belay_process{{"serve", "--port", std::to_string(test::free_port()),
                                "--database-url", db.url(), "--node-id", "b"}};
  REQUIRE(a.wait_ready());
  REQUIRE(b.wait_ready());
  // Every migration once (the first test case names them all).
  CHECK(db.count("SELECT count(*) FROM schema_migrations") == 28);
  auto applied = [](const std::string& log) {
    return log.find("applied migration 0001_init") != std::string::npos;
  };
  CHECK(applied(a.log()) != applied(b.log())); // exactly one of them migrated
  CHECK(a.stop() == 0);                        // clean shutdown on SIGTERM
  CHECK(b.stop() == 0);
}
