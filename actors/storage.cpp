#include "actors/storage.hpp"

#include "storage/db.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

// Enough to amortise a commit, small enough to keep row locks short.
constexpr size_t max_batch = 256;

struct queued_job {
  db_job job;
  caf::response_promise promise;
};

struct storage_worker_state {
  static inline const char* name = "storage";
  std::unique_ptr<storage::connection> conn;
  std::vector<queued_job> queue;
  bool flush_pending = false;
};

using worker_ptr = caf::stateful_actor<storage_worker_state>*;

storage::connection& connection(worker_ptr self, const std::string& url) {
  if (!self->state.conn)
    self->state.conn = std::make_unique<storage::connection>(url);
  return *self->state.conn;
}

void forget_broken_connection(worker_ptr self) {
  if (self->state.conn && !self->state.conn->healthy())
    self->state.conn.reset();
}

// Runs one job in autocommit mode and answers it.
void run_alone(worker_ptr self, const std::string& url, queued_job& q) {
  try {
    q.promise.deliver(q.job(connection(self, url)));
  } catch (const storage::db_error& e) {
    forget_broken_connection(self);
    spdlog::warn("storage: {}", e.what());
    q.promise.deliver(caf::make_error(caf::sec::runtime_error, std::string{e.what()}));
  }
}

void run_batch(worker_ptr self, const std::string& url, std::vector<queued_job>& batch) {
  if (batch.size() == 1)
    return run_alone(self, url, batch.front());
  std::vector<caf::message> results;
  results.reserve(batch.size());
  try {
    auto& c = connection(self, url);
    c.exec("BEGIN");
    for (auto& q : batch)
      results.push_back(q.job(c));
    c.exec("COMMIT");
  } catch (const storage::db_error& e) {
    // Nothing of the batch happened: run each job on its own, as if never batched.
    if (self->state.conn && self->state.conn->healthy()) {
      try {
        self->state.conn->exec("ROLLBACK");
      } catch (const storage::db_error&) {
      }
    }
    forget_broken_connection(self);
    spdlog::debug("storage: batch of {} failed ({}), running its jobs one by one",
                  batch.size(), e.what());
    for (auto& q : batch)
      run_alone(self, url, q);
    return;
  }
  for (size_t i = 0; i < batch.size(); ++i)
    batch[i].promise.deliver(std::move(results[i]));
}

caf::behavior storage_worker(worker_ptr self, std::string url) {
  return {
      [self](atom::run, db_job& job) {
        auto rp = self->make_response_promise();
        self->state.queue.push_back({std::move(job), rp});
        // Everything already in the mailbox is queued before this flush arrives.
        if (!self->state.flush_pending) {
          self->state.flush_pending = true;
          self->send(self, atom::flush_v);
        }
        return rp;
      },
      [self, url](atom::flush) {
        auto& st = self->state;
        st.flush_pending = false;
        auto all = std::move(st.queue);
        st.queue.clear();
        for (size_t from = 0; from < all.size(); from += max_batch) {
          auto to = std::min(all.size(), from + max_batch);
          std::vector<queued_job> batch{std::make_move_iterator(all.begin() + from),
                                        std::make_move_iterator(all.begin() + to)};
          run_batch(self, url, batch);
        }
      },
  };
}

caf::behavior storage_router(caf::event_based_actor* self,
                             std::vector<caf::actor> workers) {
  auto next = std::make_shared<size_t>(0);
  return {
      [self, workers, next](atom::run, db_job& job) {
        auto& w = workers[(*next)++ % workers.size()];
        return self->delegate(w, atom::run_v, std::move(job));
      },
      [self, workers](atom::run, uint64_t shard, db_job& job) {
        return self->delegate(workers[shard % workers.size()], atom::run_v,
                              std::move(job));
      },
  };
}

} // namespace

caf::actor spawn_storage(caf::actor_system& sys, const std::string& database_url,
                         size_t workers, bool detached) {
  std::vector<caf::actor> all;
  for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i)
    all.push_back(detached ? sys.spawn<caf::detached>(storage_worker, database_url)
                           : sys.spawn(storage_worker, database_url));
  auto router = sys.spawn(storage_router, all);
  // The workers end with the router.
  for (auto& w : all)
    router->attach_functor(
        [w] { caf::anon_send_exit(w, caf::exit_reason::user_shutdown); });
  return router;
}

} // namespace belay
