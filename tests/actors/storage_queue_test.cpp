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
