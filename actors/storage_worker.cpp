#include "actors/storage_worker.hpp"

#include "actors/metrics.hpp"
#include "actors/storage_functions.hpp"
#include "actors/test_hooks.hpp"
#include "storage/db.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>
#include <tuple>

namespace belay {

namespace {

using worker_ptr = storage_worker_actor::stateful_pointer<storage_worker_state>;

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
    self->send(self->state.owner->registry, atom::written_v, std::move(written));
  for (size_t i = 0; i < q.size(); ++i) {
    auto& r = q.results[i];
    if (r.code == reply_code::ok) // unknown policies are counted where they are answered
      metrics::count(metrics::name::events_total,
                     {{"format", q.items[i].cmd.source},
                      {"outcome", r.created ? "created" : "deduplicated"}});
    q.promises[i].deliver(
        trigger_reply{r.code, r.created, std::move(r.held.incident), r.joined});
  }
}

// One failed attempt to connect stands for all that is queued now: with the database
// out of reach (blackholed, each attempt waiting its connect timeout) every operation of
// the round fails at once, and its caller retries on its own schedule (ingest answers
// 503), instead of each one paying the timeout in turn (256 of them: 21 minutes).
storage::connection& connection(worker_ptr self) {
  auto& st = self->state;
  if (!st.conn && st.unreachable)
    throw storage::db_error(*st.unreachable, "");
  if (!st.conn) {
    try {
      st.conn = std::make_unique<storage::connection>(st.url);
    } catch (const storage::db_error& e) {
      st.unreachable = e.what();
      throw;
    }
  }
  return *st.conn;
}

// Whether the connection broke under the last statement: then whatever it sent last may
// or may not have committed.
bool connection_lost(worker_ptr self) {
  return self->state.conn && !self->state.conn->healthy();
}

void forget_broken_connection(worker_ptr self) {
  if (connection_lost(self))
    self->state.conn.reset();
}

caf::error storage_error(const storage::db_error& e) {
  return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
}

// A bug, not the database: an exception other than a database error in the middle of a
// request (docs/guarantees.md#nothing-waits-for-ever). The request fails and its caller
// retries, as after a database error, instead of waiting for an answer that no one
// holds any more; the connection is dropped, so nothing half-written stays open on it,
// and the worker goes on with the next request.
caf::error bug(worker_ptr self, const std::exception& e) {
  spdlog::error("storage: a request failed on a bug: {}", e.what());
  self->state.conn.reset();
  return caf::make_error(caf::sec::runtime_error, "storage: " + std::string{e.what()});
}

const char* lane_name(const fire_queue&) {
  return "steps";
}
const char* lane_name(const outcome_queue&) {
  return "outcomes";
}

template <class Queue> void write(Queue& q, storage::connection& c) {
  if (q.size() > 0 && test_hooks::before_storage_write)
    test_hooks::before_storage_write(lane_name(q));
  q.write(c);
}

// Runs one operation in autocommit mode and answers it, or with the error. One failed
// already (a claim of a batch whose fate is unknown) is left alone.
void run_alone(worker_ptr self, queued_job& job) {
  if (!job.promise.pending())
    return;
  try {
    job.promise.deliver(job.run(connection(self)));
  } catch (const storage::db_error& e) {
    forget_broken_connection(self);
    spdlog::warn("storage: {}", e.what());
    job.promise.deliver(storage_error(e));
  } catch (const std::exception& e) {
    job.promise.deliver(bug(self, e));
  }
}

// The request taken out of `q` is answered here whatever is thrown: it is in no queue
// that the worker's exception handler fails.
template <class Queue> void run_each_alone(worker_ptr self, Queue& q) {
  while (q.size() > 0) {
    Queue one;
    one.take_from(q, 1);
    try {
      write(one, connection(self));
    } catch (const storage::db_error& e) {
      forget_broken_connection(self);
      spdlog::warn("storage: {}", e.what());
      one.fail(storage_error(e));
      continue;
    } catch (const std::exception& e) {
      one.fail(bug(self, e));
      continue;
    }
    answer(self, one);
  }
}

storage::trigger_mark next_mark(worker_ptr self, const trigger_queue& q) {
  auto& st = self->state;
  auto id = static_cast<int64_t>(st.mark_ids() >> 1);
  return {id == 0 ? 1 : id, q.items.front().at, st.last_mark};
}

// The triggers' write lost its connection: read back whether it committed, never assume
// (docs/guarantees.md#every-accepted-event-pages). Committed, they are answered with what
// was written, and the registry holds the incidents they opened; if the database cannot
// tell, they fail (no 2xx), and should they have committed, the orphan sweep holds their
// incidents later. Returns false when nothing was written: the triggers are still to be
// written.
bool settle_lost_write(worker_ptr self, trigger_queue& q,
                       const storage::trigger_mark& mark) {
  std::optional<std::vector<storage::upsert_result>> written;
  try {
    written = storage::read_back_triggers(connection(self), q.items, mark);
  } catch (const storage::db_error& e) {
    forget_broken_connection(self);
    spdlog::warn("storage: cannot tell whether {} triggers committed: {}", q.size(),
                 e.what());
    metrics::count(metrics::name::lost_commits_total, {{"outcome", "unknown"}});
    q.fail(storage_error(e));
    return true;
  }
  metrics::count(metrics::name::lost_commits_total,
                 {{"outcome", written ? "committed" : "not_committed"}});
  spdlog::warn("storage: the connection was lost writing {} triggers; read back: {}",
               q.size(), written ? "committed" : "not committed");
  if (!written)
    return false;
  self->state.last_mark = mark.id;
  q.results = std::move(*written);
  answer(self, q);
  return true;
}

// Each trigger on its own, with its own mark. One whose write lost its connection and
// never committed, or lost a race for a unique key, is written again (at most twice).
void run_each_alone(worker_ptr self, trigger_queue& q) {
  while (q.size() > 0) {
    trigger_queue one;
    one.take_from(q, 1);
    for (int attempt = 1;; ++attempt) {
      auto mark = next_mark(self, one);
      try {
        one.results = storage::upsert_triggers(connection(self), one.items, mark,
                                               self->state.hints);
      } catch (const storage::db_error& e) {
        spdlog::warn("storage: {}", e.what());
        bool lost = connection_lost(self);
        forget_broken_connection(self);
        if (lost && settle_lost_write(self, one, mark))
          break; // answered from what was read back, or failed if it cannot be told
        // A unique violation is another writer's alert or incident committed between
        // this statement's look-up and its insert (alerts of a grouping integration,
        // written by two nodes at once): written again, the trigger finds it.
        bool raced = e.sqlstate == "23505";
        if ((lost && attempt == 1) || (raced && attempt <= 2))
          continue;
        one.fail(storage_error(e));
        break;
      } catch (const std::exception& e) {
        // Should it have committed, the orphan sweep holds its incident.
        one.fail(bug(self, e));
        break;
      }
      self->state.last_mark = mark.id;
      answer(self, one);
      break;
    }
  }
}

void run_each_alone(worker_ptr self, batch& b) {
  run_each_alone(self, b.triggers);
  run_each_alone(self, b.fires);
  run_each_alone(self, b.outcomes);
  for (auto& job : b.jobs)
    run_alone(self, job);
}

// A batch that may have committed unseen (its connection broke, or a bug threw after its
// statement or COMMIT went out): its triggers are settled by reading back. A claim fails
// (rerun_if_lost in actors/storage_batch.hpp); the other operations run again on their
// own: each is a compare-and-set that finds its work done (a step, an acknowledge) or
// harmless to repeat (a read).
void settle_unknown_batch(worker_ptr self, batch& b, const storage::trigger_mark& mark) {
  if (test_hooks::trust_unknown_batch && b.triggers.results.size() == b.triggers.size()) {
    answer(self, b.triggers);
    b.triggers = {};
  }
  if (b.triggers.size() > 0 && settle_lost_write(self, b.triggers, mark))
    b.triggers = {};
  for (auto& job : b.jobs)
    if (!job.rerun_if_lost)
      job.promise.deliver(caf::make_error(
          caf::sec::runtime_error,
          "storage: the batch's connection was lost: it may have committed"));
  run_each_alone(self, b);
}

void run_batch(worker_ptr self, batch& b) {
  if (b.size() == 1)
    return run_each_alone(self, b);
  std::vector<caf::message> results;
  results.reserve(b.jobs.size());
  bool transaction = !b.one_statement();
  storage::trigger_mark mark;
  if (b.triggers.size() > 0)
    mark = next_mark(self, b.triggers);
  try {
    auto& c = connection(self);
    if (transaction)
      c.exec("BEGIN");
    if (b.triggers.size() > 0)
      b.triggers.results =
          storage::upsert_triggers(c, b.triggers.items, mark, self->state.hints);
    write(b.fires, c);
    write(b.outcomes, c);
    for (auto& job : b.jobs)
      results.push_back(job.run(c));
    if (transaction)
      c.exec("COMMIT");
  } catch (const storage::db_error& e) {
    spdlog::debug("storage: batch of {} failed ({}), running its operations one by one",
                  b.size(), e.what());
    if (connection_lost(self)) {
      forget_broken_connection(self);
      return settle_unknown_batch(self, b, mark);
    }
    // A statement failed: the transaction is rolled back and nothing of it happened.
    if (self->state.conn && self->state.conn->in_transaction()) {
      try {
        self->state.conn->exec("ROLLBACK");
      } catch (const storage::db_error&) {
      }
    }
    forget_broken_connection(self);
    return run_each_alone(self, b);
  } catch (const std::exception& e) {
    bug(self, e);
    return settle_unknown_batch(self, b, mark);
  }
  if (b.triggers.size() > 0)
    self->state.last_mark = mark.id;
  answer(self, b.triggers);
  answer(self, b.fires);
  answer(self, b.outcomes);
  for (size_t i = 0; i < b.jobs.size(); ++i)
    b.jobs[i].promise.deliver(std::move(results[i]));
}

// Everything already in the mailbox is queued before the commit it asked for arrives,
// and with a linger, whatever arrives until it is over.
void commit_soon(worker_ptr self) {
  auto& st = self->state;
  if (st.commit_pending)
    return;
  st.commit_pending = true;
  if (st.linger.count() > 0)
    self->delayed_send(self, st.linger, atom::commit_v);
  else
    self->send(self, atom::commit_v);
}

void commit(worker_ptr self) {
  auto& st = self->state;
  st.commit_pending = false;
  st.unreachable.reset(); // each round tries to connect again, once
  auto all = std::move(st.queued);
  st.queued = {};
  while (all.size() > 0) {
    st.running = {};
    st.running.take_from(all);
    // Until the batch is written, what is left waits where a dying worker fails it too.
    st.queued = std::move(all);
    run_batch(self, st.running);
    all = std::move(st.queued);
    st.queued = {};
  }
  st.running = {};
}

// Past the queue's limit, an operation is refused at once rather than queued without
// bound, and its caller retries.
std::optional<caf::error> refused(worker_ptr self) {
  if (self->state.queued.size() < storage_queue_limit)
    return std::nullopt;
  metrics::count(metrics::name::storage_refused_total);
  return caf::make_error(caf::sec::runtime_error,
                         "the storage queue is full: the database is too slow or out of "
                         "reach; retry");
}

template <class Item, class Result, class Reply>
caf::result<Reply> enqueue(worker_ptr self, statement_queue<Item, Result, Reply>& q,
                           Item item) {
  if (auto err = refused(self))
    return *err;
  auto rp = self->make_response_promise<Reply>();
  q.items.push_back(std::move(item));
  q.promises.push_back(rp);
  commit_soon(self);
  return rp;
}

// Queues an operation that runs on its own within the next batch.
template <class Reply, class Operation>
caf::result<Reply> enqueue(worker_ptr self, Operation op, bool rerun_if_lost) {
  if (auto err = refused(self))
    return *err;
  auto rp = self->make_response_promise<Reply>();
  self->state.queued.jobs.push_back(
      {[op = std::move(op)](storage::connection& c) { return caf::make_message(op(c)); },
       rp, rerun_if_lost});
  commit_soon(self);
  return rp;
}

// A claim is not run again after a batch whose fate is unknown: committed unseen, it
// holds rows that nobody here knows of (a rerun claims others, or none) until their
// lease lapses, 300 s on. Failed, it has its channel release them at its next claim
// (claim_lost in actors/channel.hpp).
template <class... Args> constexpr bool rerun_after_unknown_commit = true;
template <> constexpr bool rerun_after_unknown_commit<storage::claim_request> = false;
template <> constexpr bool rerun_after_unknown_commit<storage::contact_request> = false;

// A row's function with the message's arguments, on its own within the next batch.
template <class Reply, class Function, class... Args>
caf::result<Reply> run_later(worker_ptr self, Function function, Args&... args) {
  return enqueue<Reply>(
      self,
      [function, args = std::make_tuple(std::move(args)...)](storage::connection& c) {
        return std::apply([&](const auto&... xs) { return function(c, xs...); }, args);
      },
      rerun_after_unknown_commit<Args...>);
}

// A row's item, written with the others of its lane by one call of its function.
template <class Lane, class Function, class Item>
auto join_statement(worker_ptr self, Lane lane, Function function, Item& item) {
  auto& q = queue_of(self->state.queued, lane);
  q.write_with = function;
  return enqueue(self, q, std::move(item));
}

// Where each lane queues its operations (actors/storage_operations.hpp); the shard has
// brought the operation to this worker already.
template <class Reply, class Function, class... Args>
caf::result<Reply> queue(worker_ptr self, lane::incident, Function f, uint64_t,
                         Args&... args) {
  return run_later<Reply>(self, f, args...);
}
template <class Reply, class Function, class... Args>
caf::result<Reply> queue(worker_ptr self, lane::other, Function f, Args&... args) {
  return run_later<Reply>(self, f, args...);
}
template <class Reply, class Function, class Item>
caf::result<Reply> queue(worker_ptr self, lane::steps lane, Function f, uint64_t,
                         Item& step) {
  return join_statement(self, lane, f, step);
}
template <class Reply, class Function, class Item>
caf::result<Reply> queue(worker_ptr self, lane::outcomes lane, Function f,
                         Item& outcome) {
  return join_statement(self, lane, f, outcome);
}

// The worker's handler of one row of actors/storage_operations.def.
template <class Lane, class Atom, class Signature> struct operation_handler;

template <class Lane, class Atom, class Reply, class... Args>
struct operation_handler<Lane, Atom, Reply(Args...)> {
  template <class Function> static auto make(worker_ptr self, Function function) {
    return [self, function](Atom, Args&... args) -> caf::result<Reply> {
      return queue<Reply>(self, Lane{}, function, args...);
    };
  }
};

} // namespace

storage_worker_actor::behavior_type storage_worker(worker_ptr self, std::string url,
                                                   caf::timespan linger) {
  self->state.url = std::move(url);
  self->state.linger = linger;
  // A bug (any exception but a database error) ends the worker, and its router starts
  // another. Nobody waits for ever meanwhile: every request it held fails now.
  self->set_exception_handler([self](std::exception_ptr& ptr) -> caf::error {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ptr);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    spdlog::error("storage: worker failed: {}", what);
    auto err = caf::make_error(caf::sec::runtime_error, "storage worker failed: " + what);
    self->state.running.fail(err);
    self->state.queued.fail(err);
    return err;
  });
  return {
#define BELAY_STORAGE_OPERATION(atom_name, text, lane_name, function, signature)         \
  operation_handler<lane::lane_name, atom::atom_name, signature>::make(self, function),
#include "actors/storage_operations.def"
#undef BELAY_STORAGE_OPERATION
      [self](atom::join_lane, trigger_owner& owner) {
        self->state.owner = std::move(owner);
      },
      [self](atom::trigger, trigger_command& cmd) -> caf::result<trigger_reply> {
        auto& st = self->state;
        if (!st.owner) // start_node joins every worker of the lane before it returns
          return caf::make_error(caf::sec::runtime_error,
                                 "this storage worker takes no triggers: it has not "
                                 "joined a registry");
        auto at = st.owner->clock.at(self->clock().now());
        auto lease = static_cast<micros>(st.owner->lease_seconds * 1e6);
        return enqueue(
            self, st.queued.triggers,
            storage::trigger_event{std::move(cmd), at, {st.owner->node_id, at + lease}});
      },
      [self](atom::commit) { commit(self); },
  };
}

storage_worker_actor spawn_storage_worker(caf::actor_system& sys, const std::string& url,
                                          bool detached, caf::timespan linger) {
  return detached ? sys.spawn<caf::detached>(storage_worker, url, linger)
                  : sys.spawn(storage_worker, url, linger);
}

} // namespace belay
