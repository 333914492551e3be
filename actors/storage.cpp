#include "actors/storage.hpp"

#include "actors/metrics.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"
#include "storage/incidents.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <optional>
#include <spdlog/spdlog.h>

namespace belay {

namespace {

// Enough to amortise a commit, small enough to keep row locks short.
constexpr size_t max_batch = 256;

struct queued_job {
  db_job job;
  caf::response_promise promise;
};

// Moves the first `n` elements of `from` (at most all) to the back of `to`.
template <class T> void move_front(std::vector<T>& from, std::vector<T>& to, size_t n) {
  n = std::min(n, from.size());
  to.insert(to.end(), std::make_move_iterator(from.begin()),
            std::make_move_iterator(from.begin() + n));
  from.erase(from.begin(), from.begin() + n);
}

// Requests of one kind that a batch writes with one statement: `write` takes them all
// (storage::upsert_triggers, fire_steps, record_outcomes), then each is answered.
template <class Item, class Result, class Reply = Result> struct statement_queue {
  using write_fn = std::vector<Result> (*)(storage::connection&,
                                           const std::vector<Item>&);
  std::vector<Item> items;
  std::vector<caf::typed_response_promise<Reply>> promises;
  std::vector<Result> results;

  size_t size() const { return items.size(); }
  void take_from(statement_queue& from, size_t n) {
    move_front(from.items, items, n);
    move_front(from.promises, promises, n);
  }
  void write(storage::connection& c, write_fn f) {
    if (!items.empty())
      results = f(c, items);
  }
  void fail(const caf::error& err) {
    for (auto& p : promises)
      p.deliver(err);
  }
};

using trigger_queue =
    statement_queue<storage::trigger_event, storage::upsert_result, trigger_reply>;
using outcome_queue = statement_queue<storage::outcome_event, storage::recorded_outcome>;
using fire_queue = statement_queue<storage::fire_event, std::optional<incident_record>>;

// What one transaction runs: a statement for the triggers, one for the steps, one for
// the outcomes, then the other jobs.
struct batch {
  trigger_queue triggers;
  fire_queue fires;
  outcome_queue outcomes;
  std::vector<queued_job> jobs;
  size_t size() const {
    return triggers.size() + fires.size() + outcomes.size() + jobs.size();
  }
  // One statement is atomic on its own: no BEGIN and COMMIT, two round trips fewer.
  bool one_statement() const {
    return (triggers.size() > 0) + (fires.size() > 0) + (outcomes.size() > 0) +
               jobs.size() <=
           1;
  }
};

struct storage_worker_state {
  static inline const char* name = "storage";
  std::unique_ptr<storage::connection> conn;
  batch queued;
  bool flush_pending = false;
  std::optional<trigger_owner> owner; // workers of the incident lane only
};

using worker_ptr = caf::stateful_actor<storage_worker_state>*;

// Answers each request of `q` with its result, once its statement committed.
template <class Item, class Result>
void answer(worker_ptr, statement_queue<Item, Result>& q) {
  for (size_t i = 0; i < q.size(); ++i)
    q.promises[i].deliver(std::move(q.results[i]));
}

// The registry learns what the statement wrote before any caller gets its answer: its
// mailbox then holds the news ahead of anything a caller sends it after its 2xx (an
// acknowledge finds the new incident's actor).
void answer(worker_ptr self, trigger_queue& q) {
  std::vector<storage::upsert_result> written;
  for (auto& r : q.results)
    if (r.code == reply_code::ok)
      written.push_back(r);
  if (!written.empty())
    self->send(self->state.owner->registry, atom::trigger_v, std::move(written));
  for (size_t i = 0; i < q.size(); ++i) {
    auto& r = q.results[i];
    if (r.code == reply_code::ok) // unknown policies are counted where they are answered
      metrics::count("belay_events_total",
                     {{"format", q.items[i].cmd.source},
                      {"outcome", r.created ? "created" : "deduplicated"}});
    q.promises[i].deliver(trigger_reply{r.code, r.created, std::move(r.held.incident)});
  }
}

storage::connection& connection(worker_ptr self, const std::string& url) {
  if (!self->state.conn)
    self->state.conn = std::make_unique<storage::connection>(url);
  return *self->state.conn;
}

void forget_broken_connection(worker_ptr self) {
  if (self->state.conn && !self->state.conn->healthy())
    self->state.conn.reset();
}

// Runs `work` in autocommit mode and answers through `promise`, or with the error.
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

template <class Queue>
void run_each_alone(worker_ptr self, const std::string& url, Queue& q,
                    typename Queue::write_fn write) {
  while (q.size() > 0) {
    Queue one;
    one.take_from(q, 1);
    try {
      one.write(connection(self, url), write);
    } catch (const storage::db_error& e) {
      forget_broken_connection(self);
      spdlog::warn("storage: {}", e.what());
      one.fail(caf::make_error(caf::sec::runtime_error, std::string{e.what()}));
      continue;
    }
    answer(self, one);
  }
}

void run_each_alone(worker_ptr self, const std::string& url, batch& b) {
  run_each_alone(self, url, b.triggers, storage::upsert_triggers);
  run_each_alone(self, url, b.fires, storage::fire_steps);
  run_each_alone(self, url, b.outcomes, storage::record_outcomes);
  for (auto& q : b.jobs)
    run_alone(self, url, q.promise, q.job);
}

void run_batch(worker_ptr self, const std::string& url, batch& b) {
  if (b.size() == 1)
    return run_each_alone(self, url, b);
  std::vector<caf::message> results;
  results.reserve(b.jobs.size());
  bool transaction = !b.one_statement();
  try {
    auto& c = connection(self, url);
    if (transaction)
      c.exec("BEGIN");
    b.triggers.write(c, storage::upsert_triggers);
    b.fires.write(c, storage::fire_steps);
    b.outcomes.write(c, storage::record_outcomes);
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
  answer(self, b.triggers);
  answer(self, b.fires);
  answer(self, b.outcomes);
  for (size_t i = 0; i < b.jobs.size(); ++i)
    b.jobs[i].promise.deliver(std::move(results[i]));
}

// Everything already in the mailbox is queued before the flush it asked for arrives.
void flush_soon(worker_ptr self) {
  if (!self->state.flush_pending) {
    self->state.flush_pending = true;
    self->send(self, atom::flush_v);
  }
}

template <class Item, class Result, class Reply>
caf::result<Reply> enqueue(worker_ptr self, statement_queue<Item, Result, Reply>& q,
                           Item& item) {
  auto rp = self->make_response_promise<Reply>();
  q.items.push_back(std::move(item));
  q.promises.push_back(rp);
  flush_soon(self);
  return rp;
}

caf::behavior storage_worker(worker_ptr self, std::string url) {
  return {
      [self](atom::run, db_job& job) {
        auto rp = self->make_response_promise();
        self->state.queued.jobs.push_back({std::move(job), rp});
        flush_soon(self);
        return rp;
      },
      [self](atom::join, trigger_owner& owner) { self->state.owner = std::move(owner); },
      [self](atom::trigger, trigger_command& cmd) -> caf::result<trigger_reply> {
        auto& st = self->state;
        if (!st.owner) // start_node joins every worker of the lane before it returns
          return caf::make_error(caf::sec::runtime_error,
                                 "this storage worker takes no triggers: it has not "
                                 "joined a registry");
        auto at = st.owner->clock.at(self->clock().now());
        auto lease = static_cast<micros>(st.owner->lease_seconds * 1e6);
        storage::trigger_event event{std::move(cmd), at, {st.owner->node_id, at + lease}};
        return enqueue(self, st.queued.triggers, event);
      },
      [self](atom::fire, storage::fire_event& event) {
        return enqueue(self, self->state.queued.fires, event);
      },
      [self](atom::outcome, storage::outcome_event& event) {
        return enqueue(self, self->state.queued.outcomes, event);
      },
      [self, url](atom::flush) {
        auto& st = self->state;
        st.flush_pending = false;
        auto all = std::move(st.queued);
        st.queued = {};
        while (all.size() > 0) {
          batch b;
          b.triggers.take_from(all.triggers, max_batch);
          b.fires.take_from(all.fires, max_batch);
          b.outcomes.take_from(all.outcomes, max_batch);
          move_front(all.jobs, b.jobs, max_batch);
          run_batch(self, url, b);
        }
      },
  };
}

// Two lanes. Jobs about incidents (sharded: triggers, acks, steps) go to the first half
// of the workers, the rest (deliveries, adoption) to the second half. Ingest thus gets
// bigger batches, which is where group commit pays (one statement for many triggers),
// and an outbox being drained does not queue triggers behind its outcomes. With one
// worker, the other lane is empty and everything goes to it.
caf::behavior storage_router(caf::event_based_actor* self,
                             std::vector<caf::actor> incident_lane,
                             std::vector<caf::actor> other_lane) {
  auto sharded = [lane = trigger_lane{incident_lane}](uint64_t shard) {
    return lane.worker_for(shard);
  };
  if (other_lane.empty())
    other_lane = incident_lane;
  auto next = std::make_shared<size_t>(0);
  auto any = [other_lane, next] { return other_lane[(*next)++ % other_lane.size()]; };
  return {
      [self, any](atom::run, db_job& job) {
        return self->delegate(any(), atom::run_v, std::move(job));
      },
      [self, sharded](atom::run, uint64_t shard, db_job& job) {
        return self->delegate(sharded(shard), atom::run_v, std::move(job));
      },
      [self, sharded](atom::fire, uint64_t shard, storage::fire_event& event) {
        return self->delegate(sharded(shard), atom::fire_v, std::move(event));
      },
      [self, any](atom::outcome, storage::outcome_event& event) {
        return self->delegate(any(), atom::outcome_v, std::move(event));
      },
  };
}

} // namespace

storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached) {
  std::vector<caf::actor> all;
  for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i)
    all.push_back(detached ? sys.spawn<caf::detached>(storage_worker, database_url)
                           : sys.spawn(storage_worker, database_url));
  auto half = all.begin() + incident_lane_size(all.size());
  std::vector<caf::actor> incident_lane{all.begin(), half};
  auto router =
      sys.spawn(storage_router, incident_lane, std::vector<caf::actor>{half, all.end()});
  // The workers end with the router.
  for (auto& w : all)
    router->attach_functor(
        [w] { caf::anon_send_exit(w, caf::exit_reason::user_shutdown); });
  return {router, {std::move(incident_lane)}};
}

} // namespace belay
