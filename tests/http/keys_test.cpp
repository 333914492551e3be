// key_store: bearer keys resolved through the database, cached for a while.
#include "http/keys.hpp"
#include "storage/db.hpp"
#include "support/policies.hpp"
#include "support/test_database.hpp"

#include <catch2/catch.hpp>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

TEST_CASE("a key removed from the database stops working once its cache entry is stale") {
  test::test_database db;
  db.provision(test::ladder_org());
  storage::pool pool{db.url(), 1};
  key_store keys{pool, 200ms};
  REQUIRE(keys.org_for("acme-key") == db.org_id("acme"));
  REQUIRE(keys.integration_for("acme-routing"));
  CHECK_FALSE(keys.org_for("wrong-key"));
  // As another node's provisioning would: the key and the integration are gone.
  db.sql().exec("DELETE FROM api_key");
  db.sql().exec("DELETE FROM integration");
  CHECK(keys.org_for("acme-key") == db.org_id("acme")); // cached: no database read
  std::this_thread::sleep_for(250ms);
  CHECK_FALSE(keys.org_for("acme-key"));
  CHECK_FALSE(keys.integration_for("acme-routing"));
}

TEST_CASE("an unknown key is remembered as unknown for a while, not read every time") {
  test::test_database db;
  db.provision(test::ladder_org());
  storage::pool pool{db.url(), 1};
  key_store_options options;
  options.unknown_ttl = 200ms;
  key_store keys{pool, options};
  for (int i = 0; i < 50; ++i)
    CHECK_FALSE(keys.admit_api_key("flood-key").found);
  CHECK(keys.reads() == 1);
  std::this_thread::sleep_for(250ms);
  CHECK_FALSE(keys.admit_api_key("flood-key").found);
  CHECK(keys.reads() == 2);
  // Known keys are cached too, and take from their bucket each time.
  for (int i = 0; i < 5; ++i)
    CHECK(keys.admit_api_key("acme-key").found);
  CHECK(keys.reads() == 3);
}

TEST_CASE("a key's rate limit survives the re-reads of its cache entry") {
  test::test_database db;
  db.provision(test::ladder_org());
  storage::pool pool{db.url(), 1};
  key_store_options options;
  options.ttl = 50ms;
  options.api_rate_per_minute = 3;
  key_store keys{pool, options};
  for (int i = 0; i < 3; ++i)
    REQUIRE(keys.admit_api_key("acme-key").retry_after_seconds == 0);
  std::this_thread::sleep_for(60ms); // stale: read again from the database
  auto refused = keys.admit_api_key("acme-key");
  CHECK(refused.found);
  CHECK(refused.retry_after_seconds >= 1);
}
