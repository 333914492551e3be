#include "actors/storage.hpp"

#include "storage/db.hpp"

#include <caf/actor_pool.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

struct storage_worker_state {
  static inline const char* name = "storage";
  std::unique_ptr<storage::connection> conn;
};

caf::behavior storage_worker(caf::stateful_actor<storage_worker_state>* self,
                             std::string url) {
  return {
    [self, url](atom::run, const db_job& job) -> caf::result<caf::message> {
      try {
        if (!self->state.conn)
          self->state.conn = std::make_unique<storage::connection>(url);
        return job(*self->state.conn);
      } catch (const storage::db_error& e) {
        // A broken connection is reopened on the next job; a failed statement has
        // already been rolled back by storage::transaction.
        if (self->state.conn && !self->state.conn->healthy())
          self->state.conn.reset();
        spdlog::warn("storage: {}", e.what());
        return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
      }
    },
  };
}

} // namespace

caf::actor spawn_storage(caf::actor_system& sys, const std::string& database_url,
                         size_t workers, bool detached) {
  auto factory = [&sys, database_url, detached] {
    return detached ? sys.spawn<caf::detached>(storage_worker, database_url)
                    : sys.spawn(storage_worker, database_url);
  };
  return caf::actor_pool::make(sys.dummy_execution_unit(), workers, factory,
                               caf::actor_pool::round_robin());
}

} // namespace belay
