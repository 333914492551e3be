#include "support/belay_process.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

using namespace belay;

TEST_CASE("/readyz answers 503 while the database is down and 200 once it is back") {
  char dir_template[] = "/tmp/belay-readyz-pg.XXXXXX";
  std::string dir = mkdtemp(dir_template);
  auto port = std::to_string(test::free_port());
  REQUIRE(test::run_lib("pg_start " + dir + " " + port + " && pg_ensure_db " + dir + " " +
                        port + " belay") == 0);
  auto url = "host=" + dir + " port=" + port + " dbname=belay user=postgres";
  {
    auto belay = test::belay_process::serve(url);
    auto http = belay.client();
    CHECK(http.Get("/readyz")->status == 200);
    CHECK(http.Get("/healthz")->status == 200);

    REQUIRE(test::run_lib("pg_stop " + dir) == 0);
    auto down = http.Get("/readyz");
    REQUIRE(down);
    CHECK(down->status == 503);
    CHECK(down->body.find("\"reason\":\"database:") != std::string::npos);
    CHECK(http.Get("/healthz")->status == 200); // alive, just not ready

    REQUIRE(test::run_lib("pg_start " + dir + " " + port) == 0);
    CHECK(http.Get("/readyz")->status == 200);
    CHECK(belay.stop() == 0);
  }
  test::run_lib("pg_stop " + dir);
  std::system(("rm -rf " + dir).c_str());
}
