// /readyz against a PostgreSQL cluster of the test's own, which it stops, restarts and
// locks out (docs/guarantees.md#nothing-waits-for-ever): readiness follows each
// component.
#include "storage/db.hpp"
#include "support/belay_process.hpp"
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// A private cluster in a fresh folder, with database "belay"; stopped and removed at the
// end.
struct own_cluster {
  std::string dir;
  std::string port = std::to_string(test::free_port());
  own_cluster() {
    char dir_template[] = "/tmp/belay-readyz-pg.XXXXXX";
    dir = mkdtemp(dir_template);
    REQUIRE(test::run_lib("pg_start " + dir + " " + port + " && pg_ensure_db " + dir +
                          " " + port + " belay") == 0);
  }
  ~own_cluster() {
    test::run_lib("pg_stop " + dir);
    std::system(("rm -rf " + dir).c_str());
  }
  std::string url(const std::string& user = "postgres") const {
    return "host=" + dir + " port=" + port + " dbname=belay user=" + user;
  }
  void sql(const std::string& statement) const {
    storage::connection c{url()};
    c.exec(statement);
  }
  int stop_immediately() const {
    return test::run_lib("runuser -u postgres -- $PG_BIN/pg_ctl -D " + dir +
                         "/data -m immediate -w stop >/dev/null");
  }
  int start() const { return test::run_lib("pg_start " + dir + " " + port); }
};

} // namespace

TEST_CASE("/readyz answers 503 while the database is down and 200 once it is back") {
  own_cluster pg;
  auto belay = test::belay_process::serve(pg.url());
  auto http = belay.client();
  CHECK(http.Get("/readyz")->status == 200);
  CHECK(http.Get("/healthz")->status == 200);

  REQUIRE(test::run_lib("pg_stop " + pg.dir) == 0);
  auto down = http.Get("/readyz");
  REQUIRE(down);
  CHECK(down->status == 503);
  CHECK(down->body.find("\"reason\":\"database:") != std::string::npos);
  CHECK(http.Get("/healthz")->status == 200); // alive, just not ready
  // Clients and probes are told when to ask again (docs/operations.md#failover).
  CHECK(down->get_header_value("Retry-After") == "1");

  REQUIRE(pg.start() == 0);
  CHECK(test::eventually([&] { return http.Get("/readyz")->status == 200; }, 10s));
  INFO(belay.log());
  CHECK(belay.stop() == 0);
}

TEST_CASE("/readyz names each component, and turns 503 while the listener cannot "
          "listen although the database answers") {
  own_cluster pg;
  pg.sql("CREATE ROLE belay LOGIN SUPERUSER");
  auto belay =
      test::belay_process::serve(pg.url("belay"), {"--listener-grace-seconds", "2"});
  auto http = belay.client();
  auto ready = http.Get("/readyz");
  REQUIRE(ready);
  CHECK(ready->status == 200);
  for (auto* component : {"database", "storage", "registry", "dispatcher", "listener"})
    CHECK(ready->body.find("\"" + std::string{component} + "\":\"ok\"") !=
          std::string::npos);

  // The role can log in no more: open sessions go on, the listener's is ended.
  pg.sql("ALTER ROLE belay NOLOGIN");
  pg.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
         "application_name LIKE 'belay listener%'");
  INFO(belay.log());
  CHECK(test::eventually(
      [&] {
        auto r = http.Get("/readyz");
        return r && r->status == 503 &&
               r->body.find("\"reason\":\"listener:") != std::string::npos &&
               r->body.find("\"database\":\"ok\"") != std::string::npos;
      },
      10s));

  pg.sql("ALTER ROLE belay LOGIN");
  CHECK(test::eventually([&] { return http.Get("/readyz")->status == 200; }, 10s));
  CHECK(belay.stop() == 0);
}

TEST_CASE("PostgreSQL stopped at once and restarted under a stream of triggers: every "
          "2xx'd event exists, every incident pages, /readyz is 200 within 10 s") {
  own_cluster pg;
  test::temp_file provisioning{test::two_orgs()};
  auto belay = test::belay_process::serve(pg.url(), {"--provision", provisioning.path()});
  std::atomic<bool> done{false};
  std::mutex mutex;
  std::vector<std::string> accepted;
  int sent = 0;
  std::thread stream{[&] {
    auto http = belay.client();
    http.set_read_timeout(15, 0);
    for (int i = 0; !done; ++i) {
      auto key = "stream-" + std::to_string(i);
      auto r = http.Post("/api/v1/incidents", {{"Authorization", "Bearer alpha-key"}},
                         test::trigger_body(key), "application/json");
      std::lock_guard lock{mutex};
      ++sent;
      if (r && r->status / 100 == 2)
        accepted.push_back(key);
      else
        std::this_thread::sleep_for(50ms);
    }
  }};
  std::this_thread::sleep_for(1500ms);
  REQUIRE(pg.stop_immediately() == 0);
  auto http = belay.client();
  auto down = http.Get("/readyz");
  CHECK((down && down->status == 503));
  std::this_thread::sleep_for(2s);
  REQUIRE(pg.start() == 0);
  auto back = std::chrono::steady_clock::now();
  CHECK(test::eventually([&] { return http.Get("/readyz")->status == 200; }, 10s));
  INFO("ready again after " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - back)
                                   .count()
                            << " ms");
  std::this_thread::sleep_for(2s);
  done = true;
  stream.join();

  storage::connection c{pg.url()};
  INFO(belay.log());
  INFO(sent << " triggers sent, " << accepted.size() << " accepted");
  REQUIRE(accepted.size() > 10);
  for (auto& key : accepted) {
    INFO(key);
    CHECK(
        c.query("SELECT count(*) FROM incident WHERE dedup_key = $1", key).int64(0, 0) ==
        1);
  }
  // Every incident written, answered or not, pages its first step; none twice.
  auto unpaged = [&] {
    return c
        .exec("SELECT count(*) FROM incident i WHERE NOT EXISTS (SELECT 1 FROM "
              "delivery d WHERE d.incident_id = i.id AND d.step = 0 AND d.status = "
              "'SENT')")
        .int64(0, 0);
  };
  bool all_paged = test::eventually([&] { return unpaged() == 0; }, 20s);
  if (!all_paged) {
    auto r =
        c.exec("SELECT i.id, i.dedup_key, i.status, i.current_step, i.next_fire_at, "
               "i.owner, (SELECT string_agg(d.status || '/' || d.attempts, ',') FROM "
               "delivery d WHERE d.incident_id = i.id) FROM incident i WHERE NOT "
               "EXISTS (SELECT 1 FROM delivery d WHERE d.incident_id = i.id AND "
               "d.step = 0 AND d.status = 'SENT')");
    for (int i = 0; i < r.rows(); ++i)
      UNSCOPED_INFO("unpaged: id " << r.str(i, 0) << " key " << r.str(i, 1) << " "
                                   << r.str(i, 2) << " step " << r.str(i, 3) << " next "
                                   << r.str(i, 4) << " owner " << r.str(i, 5)
                                   << " deliveries " << r.str(i, 6));
  }
  CHECK(all_paged);
  CHECK(c.exec("SELECT count(*) FROM delivery WHERE step = 0 GROUP BY incident_id "
               "HAVING count(*) > 1")
            .rows() == 0);
  CHECK(belay.stop() == 0);
}
