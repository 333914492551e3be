#include "storage/migrate.hpp"
#include "support/belay_process.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>

using namespace belay;

namespace {

int64_t count(test::test_database& db, const std::string& sql) {
  return db.sql().exec(sql).int64(0, 0);
}

} // namespace

TEST_CASE("migrations apply once and re-running them changes nothing") {
  test::test_database db{false};
  auto first = storage::migrate(db.sql());
  REQUIRE(first == std::vector<std::string>{"0001_init", "0002_batched_ingest"});
  CHECK(storage::migrate(db.sql()).empty());
  CHECK(count(db, "SELECT count(*) FROM schema_migrations") == 2);
  CHECK(
      count(db, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" +
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

TEST_CASE("two belay serve processes starting at once migrate once") {
  test::test_database db{false};
  auto a = test::belay_process{{"serve", "--port", std::to_string(test::free_port()),
                                "--database-url", db.url(), "--node-id", "a"}};
  auto b = test::belay_process{{"serve", "--port", std::to_string(test::free_port()),
                                "--database-url", db.url(), "--node-id", "b"}};
  REQUIRE(a.wait_ready());
  REQUIRE(b.wait_ready());
  CHECK(count(db, "SELECT count(*) FROM schema_migrations") == 2);
  auto applied = [](const std::string& log) {
    return log.find("applied migration 0001_init") != std::string::npos;
  };
  CHECK(applied(a.log()) != applied(b.log())); // exactly one of them migrated
  CHECK(a.stop() == 0);                        // clean shutdown on SIGTERM
  CHECK(b.stop() == 0);
}
