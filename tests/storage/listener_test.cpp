// The NOTIFY listener against a connection that goes silent
// (docs/guarantees.md#nothing-waits-for-ever): a socket that is open but answers nothing
// is found by the probe and replaced.
#include "storage/listener.hpp"
#include "support/postgres_proxy.hpp"
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>

using namespace belay;
using namespace std::chrono_literals;

TEST_CASE("a listener whose connection goes silent reconnects within its grace, catches "
          "up and hears again") {
  test::test_database db;
  test::postgres_proxy pg;
  std::mutex mutex;
  std::vector<std::string> heard;
  std::atomic<int> resumed{0};
  storage::listener l{pg.url(db), "belay_listener_test",
                      [&](const std::string& payload) {
                        std::lock_guard lock{mutex};
                        heard.push_back(payload);
                      },
                      [&] { ++resumed; }, storage::listener_timing{200ms, 1s}};
  REQUIRE(test::eventually([&] { return l.listening(); }, 5s));
  auto heard_count = [&] {
    std::lock_guard lock{mutex};
    return heard.size();
  };
  db.sql().exec("NOTIFY belay_listener_test, 'before'");
  REQUIRE(test::eventually([&] { return heard_count() == 1; }, 5s));

  pg.proxy.stall_open(); // its socket stays open and says nothing
  // The loss is counted rather than watched: the reconnect can take less time than one
  // poll of eventually(), so a check of !listening() may never see it (CI did not).
  CHECK(test::eventually([&] { return l.losses() == 1; }, 5s));
  CHECK(test::eventually([&] { return l.listening() && resumed == 1; }, 10s));
  CHECK(l.losses() == 1);
  db.sql().exec("NOTIFY belay_listener_test, 'after'");
  CHECK(test::eventually([&] { return heard_count() == 2; }, 5s));
}
