// The storage actor's group commit: a failing operation never takes its neighbours down
// with it. (That answers come only after COMMIT is tested through the real binary, where
// workers have threads of their own: tests/http/commit_test.cpp.)
#include "actors/storage_router.hpp"
#include "storage/incidents.hpp"
#include "support/policies.hpp"
#include "support/test_node.hpp"

#include <algorithm>
#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>

using namespace belay;

namespace {

struct outcome {
  int ok = 0;
  int failed = 0;
};

// What a stand-in registry was told, in the order its mailbox had it.
struct registry_log {
  std::vector<int64_t> created;                 // incidents written new
  std::vector<std::pair<int64_t, bool>> checks; // incident, already told of
};

// A registry stand-in: records what storage tells it, and on (atom::holder, id) whether
// it had been told of that incident by then.
caf::behavior registry_stand_in(caf::event_based_actor*,
                                std::shared_ptr<registry_log> log) {
  return {
      [log](atom::written, std::vector<storage::upsert_result>& written) {
        for (auto& r : written)
          if (r.created)
            log->created.push_back(r.held.incident.id);
      },
      [log](atom::holder, int64_t id) {
        auto& c = log->created;
        log->checks.emplace_back(id, std::find(c.begin(), c.end(), id) != c.end());
      },
  };
}

// One storage worker on a provisioned database, under the test scheduler, joined to a
// registry stand-in.
struct trigger_fixture {
  test::test_database db;
  int64_t org;
  test::simulated_system s;
  storage_actors storage;
  std::shared_ptr<registry_log> told = std::make_shared<registry_log>();
  caf::actor registry;

  explicit trigger_fixture(caf::timespan linger = {}, size_t workers = 1) {
    db.provision(test::ladder_org());
    org = db.org_id("acme");
    storage = spawn_storage(s.sys, db.url(), workers, false, linger);
    registry = s.sys.spawn(registry_stand_in, told);
    caf::anon_send(
        storage.triggers.worker_for(0), atom::join_lane_v,
        trigger_owner{caf::actor_cast<registry_actor>(registry), s.clock, "node", 30});
  }
  ~trigger_fixture() {
    caf::anon_send_exit(storage.router, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(registry, caf::exit_reason::user_shutdown);
  }

  // Queues `commands` in one go (so that they share a batch) and counts the answers.
  // Each caller, once answered, asks the registry whether it knows the new incident yet,
  // as an acknowledge sent after a 201 would.
  std::shared_ptr<outcome> trigger_all(std::vector<trigger_command> commands) {
    auto result = send_all(std::move(commands));
    s.run();
    return result;
  }

  // Queues `commands` in one go and runs nothing yet; the answers count as they come.
  std::shared_ptr<outcome> send_all(std::vector<trigger_command> commands) {
    auto result = std::make_shared<outcome>();
    s.sys.spawn(
        [result, commands](caf::event_based_actor* self, storage_worker_actor worker,
                           caf::actor registry) {
          for (auto& cmd : commands)
            self->request(worker, caf::infinite, atom::trigger_v, cmd)
                .then(
                    [self, result, registry](trigger_reply& r) {
                      ++result->ok;
                      if (r.created)
                        self->send(registry, atom::holder_v, r.incident.id);
                    },
                    [result](caf::error&) { ++result->failed; });
        },
        storage.triggers.worker_for(0), registry);
    return result;
  }

  int64_t incidents() {
    return db.sql().exec("SELECT count(*) FROM incident").int64(0, 0);
  }
};

} // namespace

TEST_CASE_METHOD(trigger_fixture,
                 "a failing operation in a batch fails alone, and the rest commit") {
  std::vector<trigger_command> commands;
  for (int n = 0; n < 10; ++n)
    commands.push_back({org, "k" + std::to_string(n), "t", "critical", "default"});
  REQUIRE(trigger_all(commands)->ok == 10);
  auto rows = db.sql().exec("SELECT id FROM incident ORDER BY id");
  std::vector<int64_t> ids;
  for (int i = 0; i < rows.rows(); ++i)
    ids.push_back(rows.int64(i, 0));
  auto result = std::make_shared<outcome>();
  s.sys.spawn(
      [result, ids](caf::event_based_actor* self, storage_worker_actor worker,
                    int64_t org) {
        for (size_t n = 0; n < ids.size(); ++n) {
          // PostgreSQL refuses the fifth's name: it is not UTF-8.
          transition_command cmd{
              org, ids[n], {}, transition::ack, n == 4 ? "\xff" : "alice"};
          self->request(worker, caf::infinite, atom::apply_transition_v, uint64_t{0}, cmd,
                        micros{1})
              .then([result](transition_reply&) { ++result->ok; },
                    [result](caf::error&) { ++result->failed; });
        }
      },
      storage.triggers.worker_for(0), org);
  s.run(); // all ten are queued before the worker's flush: one batch
  CHECK(result->ok == 9);
  CHECK(result->failed == 1);
  CHECK(db.sql()
            .exec("SELECT count(*) FROM incident WHERE status = 'ACKNOWLEDGED'")
            .int64(0, 0) == 9);
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

TEST_CASE(
    "a worker's linger lets operations arriving behind the first share its commit") {
  // Two connections: the incident lane is a lane of its own, and lingers.
  trigger_fixture f{std::chrono::milliseconds{5}, 2};
  auto first = f.send_all({{f.org, "first", "t", "critical", "default"}});
  f.s.run();
  CHECK(f.incidents() == 0); // waiting for company, not written, not answered
  CHECK(first->ok == 0);
  f.s.advance(std::chrono::milliseconds{3});
  auto second = f.send_all({{f.org, "second", "t", "critical", "default"}});
  f.s.run();
  CHECK(f.incidents() == 0);
  f.s.advance(std::chrono::milliseconds{2}); // the first's linger is over: both go
  CHECK(first->ok == 1);
  CHECK(second->ok == 1);
  CHECK(f.db.sql().exec("SELECT count(DISTINCT xmin::text) FROM incident").int64(0, 0) ==
        1);
  // The next operation lingers anew: written 5 ms after it came, not at once.
  auto third = f.send_all({{f.org, "third", "t", "critical", "default"}});
  f.s.run();
  f.s.advance(std::chrono::milliseconds{4});
  CHECK(third->ok == 0);
  f.s.advance(std::chrono::milliseconds{1});
  CHECK(third->ok == 1);
  CHECK(f.incidents() == 3);
}

TEST_CASE_METHOD(trigger_fixture,
                 "without a linger, a lone operation is written at once") {
  auto lone = send_all({{org, "lone", "t", "critical", "default"}});
  s.run(); // no time passes
  CHECK(lone->ok == 1);
  CHECK(incidents() == 1);
}

TEST_CASE(
    "on one connection the incident lane is the outbox's too, and does not linger") {
  // Its claims and re-checks wait on each other: a linger would slow every page.
  trigger_fixture f{std::chrono::milliseconds{5}, 1};
  auto lone = f.send_all({{f.org, "lone", "t", "critical", "default"}});
  f.s.run(); // no time passes
  CHECK(lone->ok == 1);
  CHECK(f.incidents() == 1);
}

TEST_CASE_METHOD(
    trigger_fixture,
    "the registry knows each new incident before its creator can ask about it") {
  std::vector<trigger_command> commands;
  for (int n = 0; n < 20; ++n)
    commands.push_back({org, "k" + std::to_string(n % 10), "t", "critical", "default"});
  CHECK(trigger_all(commands)->ok == 20);
  CHECK(told->created.size() == 10);
  REQUIRE(told->checks.size() == 10);
  for (auto& [id, known] : told->checks) {
    INFO("incident " << id);
    CHECK(known);
  }
}

TEST_CASE(
    "a storage worker that joined no registry refuses triggers and writes nothing") {
  test::test_database db;
  db.provision(test::ladder_org());
  test::simulated_system s;
  auto storage = spawn_storage(s.sys, db.url(), 1, false);
  auto failed = std::make_shared<bool>(false);
  s.sys.spawn(
      [failed](caf::event_based_actor* self, storage_worker_actor worker, int64_t org) {
        self->request(worker, caf::infinite, atom::trigger_v,
                      trigger_command{org, "k", "t", "critical", "default"})
            .then([](trigger_reply&) {}, [failed](caf::error&) { *failed = true; });
      },
      storage.triggers.worker_for(0), db.org_id("acme"));
  s.run();
  CHECK(*failed);
  CHECK(db.sql().exec("SELECT count(*) FROM incident").int64(0, 0) == 0);
  caf::anon_send_exit(storage.router, caf::exit_reason::user_shutdown);
}
