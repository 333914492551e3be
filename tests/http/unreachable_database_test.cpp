// docs/guarantees.md#nothing-waits-for-ever, through the real binary: with the
// database blackholed (connections accepted, nothing answered), a wave of triggers is
// answered 503 within about one connect timeout, not one connect timeout per trigger.
#include "support/bodies.hpp"
#include "support/eventually.hpp"
#include "support/postgres_proxy.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;

TEST_CASE("a blackholed database fails a whole wave of triggers fast: 503, not a wait "
          "of one connect timeout per trigger") {
  test::test_database db;
  test::postgres_proxy pg;
  test::temp_file provisioning{test::two_orgs()};
  auto belay = test::belay_process::serve(
      pg.url(db), {"--provision", provisioning.path(), "--node-id", "node-0",
                   "--db-connections", "2", "--db-connect-timeout-seconds", "1"});

  auto http = belay.client();
  http.set_read_timeout(120, 0);
  // The integration's key is looked up now, and cached for the rest of the test.
  auto warm = http.Post("/api/v1/integrations/alertmanager",
                        {{"Authorization", "Bearer alpha-am"}},
                        test::alertmanager_body(R"({"status":"firing","labels":{)"
                                                R"("alertname":"Warm"}})"),
                        "application/json");
  REQUIRE(warm);
  REQUIRE(warm->status / 100 == 2);

  pg.proxy.stall(true); // new connections hang: each attempt waits its connect timeout
  pg.proxy.reset_all(); // the open ones die
  // A first trigger finds its worker's connection dead, cannot reach the database to
  // read back, and fails: the worker has no connection now.
  auto first = http.Post("/api/v1/integrations/alertmanager",
                         {{"Authorization", "Bearer alpha-am"}},
                         test::alertmanager_body(R"({"status":"firing","labels":{)"
                                                 R"("alertname":"First"}})"),
                         "application/json");
  REQUIRE(first);
  REQUIRE(first->status == 503);

  constexpr int alerts = 40;
  std::string wave;
  for (int i = 0; i < alerts; ++i)
    wave += std::string(i ? "," : "") +
            R"({"status":"firing","labels":{"alertname":"Blackholed)" +
            std::to_string(i) + R"("},"fingerprint":"blackholed-)" + std::to_string(i) +
            R"("})";
  auto started = std::chrono::steady_clock::now();
  auto res = http.Post("/api/v1/integrations/alertmanager",
                       {{"Authorization", "Bearer alpha-am"}},
                       test::alertmanager_body(wave), "application/json");
  auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(res);
  CHECK(res->status == 503);
  CHECK(res->has_header("Retry-After"));
  INFO("answered after " << std::chrono::duration<double>(took).count() << " s");
  CHECK(took < 5s);

  pg.proxy.stall(false); // back: the same wave is written, nothing of it was lost
  REQUIRE(test::eventually(
      [&] {
        auto again = belay.client().Post(
            "/api/v1/integrations/alertmanager", {{"Authorization", "Bearer alpha-am"}},
            test::alertmanager_body(wave), "application/json");
        return again && again->status / 100 == 2;
      },
      20s));
  CHECK(db.count("SELECT count(*) FROM incident WHERE dedup_key LIKE 'blackholed-%'") ==
        alerts);
}
