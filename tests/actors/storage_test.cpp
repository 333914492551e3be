// The storage actor's group commit: a failing job never takes its neighbours down with
// it. (That answers come only after COMMIT is tested through the real binary, where
// workers have threads of their own: tests/http/commit_test.cpp.)
#include "actors/storage.hpp"
#include "support/test_node.hpp"

#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>

using namespace belay;

namespace {

struct outcome {
  int ok = 0;
  int failed = 0;
};

} // namespace

TEST_CASE("a failing job in a batch fails alone; the rest commit") {
  test::test_database db;
  db.sql().exec("CREATE TABLE scratch (n int PRIMARY KEY)");
  test::simulated_system s;
  auto storage = spawn_storage(s.sys, db.url(), 1, false);
  auto result = std::make_shared<outcome>();
  s.sys.spawn(
      [result](caf::event_based_actor* self, caf::actor storage) {
        for (int n = 0; n < 10; ++n) {
          auto sql = n == 4 ? std::string{"INSERT INTO no_such_table VALUES (1)"}
                            : "INSERT INTO scratch VALUES (" + std::to_string(n) + ")";
          auto job = make_db_job([sql](storage::connection& c) {
            c.exec(sql);
            return true;
          });
          self->request(storage, caf::infinite, atom::run_v, job)
              .then([result](bool) { ++result->ok; },
                    [result](caf::error&) { ++result->failed; });
        }
      },
      storage);
  s.run(); // all ten are queued before the worker's flush: one batch
  CHECK(result->ok == 9);
  CHECK(result->failed == 1);
  CHECK(db.sql().exec("SELECT count(*) FROM scratch").int64(0, 0) == 9);
  caf::anon_send_exit(storage, caf::exit_reason::user_shutdown);
}
