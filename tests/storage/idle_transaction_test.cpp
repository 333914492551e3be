// docs/guarantees.md#nothing-waits-for-ever: a transaction whose network path died
// silently (its client gone, the server none the wiser) gives up its row locks within
// the idle-in-transaction bound, not when the server's keepalive gives up hours later.
#include "storage/db.hpp"
#include "support/postgres_proxy.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// The process-wide limits for one test, as they were afterwards.
struct limits_for_test {
  storage::connection_limits before = storage::current_connection_limits();
  explicit limits_for_test(storage::connection_limits l) {
    storage::set_connection_limits(l);
  }
  ~limits_for_test() { storage::set_connection_limits(before); }
};

} // namespace

TEST_CASE("a transaction stranded by a dead network path loses its row locks within the "
          "idle-in-transaction bound") {
  test::test_database db;
  test::postgres_proxy pg;
  db.sql().exec("CREATE TABLE stranded (id int PRIMARY KEY)");
  db.sql().exec("INSERT INTO stranded VALUES (1)");
  storage::connection_limits limits;
  limits.idle_in_transaction_seconds = 1;
  limits_for_test set{limits};

  storage::connection stranded{pg.url(db)};
  stranded.exec("BEGIN");
  stranded.exec("SELECT id FROM stranded WHERE id = 1 FOR UPDATE");
  pg.proxy.stall_open(); // the path dies: the server hears nothing more, not even a FIN

  auto started = std::chrono::steady_clock::now();
  db.sql().exec("SET lock_timeout = '10s'");
  CHECK_NOTHROW(db.sql().exec("SELECT id FROM stranded WHERE id = 1 FOR UPDATE"));
  auto waited = std::chrono::steady_clock::now() - started;
  CHECK(waited < 4s);
  CHECK(db.count("SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in "
                 "transaction' AND datname = current_database()") == 0);
}
