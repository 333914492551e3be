#include "actors/storage.hpp"

#include "storage/db.hpp"
#include "storage/incidents.hpp"

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

struct queued_trigger {
  storage::trigger_event event;
  caf::typed_response_promise<storage::upsert_result> promise;
};

// What one transaction runs: the triggers as one statement, then the other jobs.
struct batch {
  std::vector<queued_trigger> triggers;
  std::vector<queued_job> jobs;
  size_t size() const { return triggers.size() + jobs.size(); }
};

struct storage_worker_state {
  static inline const char* name = "storage";
  std::unique_ptr<storage::connection> conn;
  batch queued;
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

// Runs `work` in autocommit mode and answers through `deliver`, or with the error.
template <class Promise, class Work>
void run_alone(worker_ptr self, const std::string& url, Promise& promise, Work work) {
  try {
    promise.deliver(work(connection(self, url)));
  } catch (const storage::db_error& e) {
    forget_broken_connection(self);
    spdlog::warn("storage: {}", e.what());
    promise.deliver(caf::make_error(caf::sec::runtime_error, std::string{e.what()}));
  }
}

void run_alone(worker_ptr self, const std::string& url, queued_job& q) {
  run_alone(self, url, q.promise, q.job);
}

void run_alone(worker_ptr self, const std::string& url, queued_trigger& q) {
  run_alone(self, url, q.promise, [&q](storage::connection& c) {
    return std::move(storage::upsert_triggers(c, {q.event}).front());
  });
}

void run_each_alone(worker_ptr self, const std::string& url, batch& b) {
  for (auto& q : b.triggers)
    run_alone(self, url, q);
  for (auto& q : b.jobs)
    run_alone(self, url, q);
}

void run_batch(worker_ptr self, const std::string& url, batch& b) {
  if (b.size() == 1)
    return run_each_alone(self, url, b);
  std::vector<storage::upsert_result> upserted;
  std::vector<caf::message> results;
  results.reserve(b.jobs.size());
  // Triggers alone are atomic without BEGIN and COMMIT: two round trips fewer.
  bool transaction = !b.jobs.empty();
  try {
    auto& c = connection(self, url);
    if (transaction)
      c.exec("BEGIN");
    if (!b.triggers.empty()) {
      std::vector<storage::trigger_event> events;
      events.reserve(b.triggers.size());
      for (auto& q : b.triggers)
        events.push_back(std::move(q.event));
      upserted = storage::upsert_triggers(c, events);
      for (size_t i = 0; i < events.size(); ++i) // kept for a retry one by one
        b.triggers[i].event = std::move(events[i]);
    }
    for (auto& q : b.jobs)
      results.push_back(q.job(c));
    if (transaction)
      c.exec("COMMIT");
  } catch (const storage::db_error& e) {
    // Nothing of the batch happened: run each job on its own, as if never batched.
    if (self->state.conn && self->state.conn->in_transaction()) {
      try {
        self->state.conn->exec("ROLLBACK");
      } catch (const storage::db_error&) {
      }
    }
    forget_broken_connection(self);
    spdlog::debug("storage: batch of {} failed ({}), running its jobs one by one",
                  b.size(), e.what());
    return run_each_alone(self, url, b);
  }
  for (size_t i = 0; i < b.triggers.size(); ++i)
    b.triggers[i].promise.deliver(std::move(upserted[i]));
  for (size_t i = 0; i < b.jobs.size(); ++i)
    b.jobs[i].promise.deliver(std::move(results[i]));
}

// Moves up to `n` items from the front of `from` to the back of `to`.
template <class T> void take(std::vector<T>& from, std::vector<T>& to, size_t n) {
  n = std::min(n, from.size());
  to.insert(to.end(), std::make_move_iterator(from.begin()),
            std::make_move_iterator(from.begin() + n));
  from.erase(from.begin(), from.begin() + n);
}

// Everything already in the mailbox is queued before the flush it asked for arrives.
void flush_soon(worker_ptr self) {
  if (!self->state.flush_pending) {
    self->state.flush_pending = true;
    self->send(self, atom::flush_v);
  }
}

caf::behavior storage_worker(worker_ptr self, std::string url) {
  return {
      [self](atom::run, db_job& job) {
        auto rp = self->make_response_promise();
        self->state.queued.jobs.push_back({std::move(job), rp});
        flush_soon(self);
        return rp;
      },
      [self](atom::trigger,
             storage::trigger_event& event) -> caf::result<storage::upsert_result> {
        auto rp = self->make_response_promise<storage::upsert_result>();
        self->state.queued.triggers.push_back({std::move(event), rp});
        flush_soon(self);
        return rp;
      },
      [self, url](atom::flush) {
        auto& st = self->state;
        st.flush_pending = false;
        auto all = std::move(st.queued);
        st.queued = {};
        while (all.size() > 0) {
          batch b;
          take(all.triggers, b.triggers, max_batch);
          take(all.jobs, b.jobs, max_batch - b.triggers.size());
          run_batch(self, url, b);
        }
      },
  };
}

// Two lanes. Jobs about incidents (sharded: triggers, acks, steps) go to the first half
// of the workers, the rest (deliveries, adoption) to the second half. Ingest thus gets
// bigger batches, which is where group commit pays (one statement for many triggers),
// and an outbox being drained does not queue triggers behind its outcomes.
caf::behavior storage_router(caf::event_based_actor* self,
                             std::vector<caf::actor> workers) {
  auto incident_lane = std::max<size_t>(1, workers.size() / 2);
  auto other_lane = workers.size() - incident_lane;
  auto sharded = [workers, incident_lane](uint64_t shard) {
    return workers[shard % incident_lane];
  };
  auto next = std::make_shared<size_t>(0);
  auto any = [workers, incident_lane, other_lane, next] {
    return other_lane == 0 ? workers[(*next)++ % workers.size()]
                           : workers[incident_lane + (*next)++ % other_lane];
  };
  return {
      [self, any](atom::run, db_job& job) {
        return self->delegate(any(), atom::run_v, std::move(job));
      },
      [self, sharded](atom::run, uint64_t shard, db_job& job) {
        return self->delegate(sharded(shard), atom::run_v, std::move(job));
      },
      [self, sharded](atom::trigger, uint64_t shard, storage::trigger_event& event) {
        return self->delegate(sharded(shard), atom::trigger_v, std::move(event));
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
