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

TEST_CASE("a key sent as the wrong kind does not make its own kind unknown") {
  test::test_database db;
  db.provision(test::ladder_org());
  storage::pool pool{db.url(), 1};
  key_store keys{pool};
  // An integration key sent as an API key (a misconfigured client, or a probe) ...
  CHECK_FALSE(keys.admit_api_key("acme-routing").found);
  CHECK_FALSE(keys.heartbeat_for("acme-routing"));
  // ... leaves the integration answering at once, not 2 s later.
  CHECK(keys.admit_integration("acme-routing").found);
  CHECK_FALSE(keys.integration_for("acme-key"));
  CHECK(keys.org_for("acme-key") == db.org_id("acme"));
}

TEST_CASE("a flood of random keys does not send every miss to the database") {
  test::test_database db;
  db.provision(test::ladder_org());
  storage::pool pool{db.url(), 1};
  key_store keys{pool};
  constexpr int flood = 100'000;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < flood; ++i) {
    auto key = "random-" + std::to_string(i * 7919 + 13);
    CHECK_FALSE(keys.admit_api_key(key).found);
    CHECK_FALSE(keys.admit_integration(key).found);
    CHECK_FALSE(keys.heartbeat_for(key));
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  // One read of each kind's hashes per 2 s window (docs/guarantees.md#rate-limits), not
  // one a key.
  auto windows = static_cast<size_t>(took.count() / 2) + 1;
  WARN(3 * flood << " random keys in " << took.count() << " s: " << keys.reads()
                 << " database reads");
  CHECK(keys.reads() <= 3 * windows);
  // The real keys still work.
  CHECK(keys.admit_api_key("acme-key").found);
  CHECK(keys.admit_integration("acme-routing").found);
}
