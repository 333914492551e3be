// The storage actor's group commit: a failing job never takes its neighbours down with
// it. (That answers come only after COMMIT is tested through the real binary, where
// workers have threads of their own: tests/http/commit_test.cpp.)
#include "actors/storage.hpp"
#include "storage/incidents.hpp"
#include "support/policies.hpp"
#include "support/test_node.hpp"

#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>

using namespace belay;

namespace {

struct outcome {
  int ok = 0;
  int failed = 0;
};

// One storage worker on a provisioned database, under the test scheduler.
struct trigger_fixture {
  test::test_database db;
  int64_t org;
  test::simulated_system s;
  caf::actor storage;

  trigger_fixture() {
    db.provision(test::ladder_org());
    org = db.org_id("acme");
    storage = spawn_storage(s.sys, db.url(), 1, false);
  }
  ~trigger_fixture() { caf::anon_send_exit(storage, caf::exit_reason::user_shutdown); }

  // Queues `commands` in one go (so that they share a batch) and counts the answers.
  std::shared_ptr<outcome> trigger_all(std::vector<trigger_command> commands) {
    auto result = std::make_shared<outcome>();
    s.sys.spawn(
        [result, commands](caf::event_based_actor* self, caf::actor storage) {
          for (auto& cmd : commands) {
            storage::trigger_event event{cmd, 1'000'000, {"node", 2'000'000}};
            self->request(storage, caf::infinite, atom::trigger_v, uint64_t{0}, event)
                .then([result](storage::upsert_result&) { ++result->ok; },
                      [result](caf::error&) { ++result->failed; });
          }
        },
        storage);
    s.run();
    return result;
  }
};

} // namespace

TEST_CASE("a failing job in a batch fails alone, and the rest commit") {
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

TEST_CASE_METHOD(
    trigger_fixture,
    "triggers queued together are written together, and a bad one fails alone") {
  std::vector<trigger_command> commands;
  // The database refuses the fifth's severity (CHECK). It opens a key of its own: the
  // events of one key share their first event's severity.
  for (int n = 0; n < 10; ++n)
    commands.push_back({org, n == 4 ? "bad" : "k" + std::to_string(n % 3), "t",
                        n == 4 ? "bogus" : "critical", "default"});
  auto result = trigger_all(commands);
  CHECK(result->ok == 9);
  CHECK(result->failed == 1);
  CHECK(db.sql().exec("SELECT sum(event_count) FROM incident").int64(0, 0) == 9);
  CHECK(db.sql().exec("SELECT count(*) FROM timeline").int64(0, 0) == 9);
}

TEST_CASE_METHOD(trigger_fixture, "a batch of triggers is one statement") {
  std::vector<trigger_command> commands;
  for (int n = 0; n < 50; ++n)
    commands.push_back({org, "k" + std::to_string(n), "t", "critical", "default"});
  CHECK(trigger_all(commands)->ok == 50);
  CHECK(db.sql().exec("SELECT count(*) FROM incident").int64(0, 0) == 50);
  // All fifty rows were written by one transaction: one statement, one commit.
  auto r = db.sql().exec("SELECT count(DISTINCT xmin::text) FROM incident");
  CHECK(r.int64(0, 0) == 1);
}
