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
