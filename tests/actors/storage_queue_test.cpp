// docs/guarantees.md#nothing-waits-for-ever: a storage worker's queue has a bound.
// Past it an operation is refused at once, and counted, instead of queueing behind a
// database that is too slow or out of reach.
#include "actors/metrics.hpp"
#include "actors/storage_router.hpp"
#include "actors/storage_worker.hpp"
#include "support/policies.hpp"
#include "support/simulated_system.hpp"
#include "support/test_database.hpp"

#include <caf/event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <set>

using namespace belay;

TEST_CASE("a storage worker refuses operations past its queue's limit, and counts them") {
  test::test_database db;
  db.provision(test::ladder_org());
  test::simulated_system s;
  auto storage = spawn_storage(s.sys, db.url(), 1, false);
  auto refused_before = metrics::value(metrics::name::storage_refused_total);
  constexpr size_t asked = storage_queue_limit + 100;
  auto answered = std::make_shared<size_t>(0);
  auto failed = std::make_shared<size_t>(0);
  s.sys.spawn(
      [answered, failed](caf::event_based_actor* self, storage_worker_actor worker) {
        // All of them reach the mailbox before the worker's first batch is written.
        for (size_t i = 0; i < asked; ++i)
          self->request(worker, caf::infinite, atom::load_channels_v)
              .then([answered](std::vector<channel_config>&) { ++*answered; },
                    [failed](caf::error&) { ++*failed; });
      },
      storage.triggers.worker_for(0));
  s.run();
  CHECK(*answered == storage_queue_limit);
  CHECK(*failed == asked - storage_queue_limit);
  CHECK(metrics::value(metrics::name::storage_refused_total) - refused_before ==
        static_cast<double>(asked - storage_queue_limit));
  caf::anon_send_exit(storage.router, caf::exit_reason::user_shutdown);
}

// A re-check gates a send, so it never queues behind its org's outcome batch (and that
// batch's commit): actors/storage_operations.hpp's lane::rechecks.
TEST_CASE(
    "re-checks go to every worker of the other lane in turn but the org's outcome one") {
  CHECK(recheck_worker(7, 0, 1) == 0); // one worker does everything
  for (size_t workers = 2; workers <= 5; ++workers)
    for (int64_t org = 1; org <= 12; ++org) {
      INFO(workers << " workers, org " << org);
      std::set<size_t> used;
      for (size_t turn = 0; turn < 3 * workers; ++turn) {
        auto w = recheck_worker(org, turn, workers);
        CHECK(w < workers);
        CHECK(w != outcome_worker(org, workers));
        used.insert(w);
      }
      CHECK(used.size() == workers - 1);
    }
}
