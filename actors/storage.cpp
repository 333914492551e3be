#include "actors/storage.hpp"

#include "actors/metrics.hpp"
#include "storage/db.hpp"
#include "storage/deliveries.hpp"
#include "storage/heartbeats.hpp"
#include "storage/incidents.hpp"
#include "storage/schedules.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <map>
#include <optional>
#include <random>
#include <spdlog/spdlog.h>

namespace belay {

trigger_lane::trigger_lane(std::vector<storage_worker_actor> workers) {
  shared_->workers = std::move(workers);
}

storage_worker_actor trigger_lane::worker_for(uint64_t shard) const {
  std::lock_guard lock{shared_->mutex};
  return shared_->workers[shard % shared_->workers.size()];
}

storage_worker_actor trigger_lane::worker_for(int64_t org_id,
                                              const std::string& dedup_key) const {
  return worker_for(incident_shard(org_id, dedup_key));
}

std::vector<storage_worker_actor> trigger_lane::workers() const {
  std::lock_guard lock{shared_->mutex};
  return shared_->workers;
}

void trigger_lane::replace(size_t index, storage_worker_actor worker) {
  std::lock_guard lock{shared_->mutex};
  shared_->workers.at(index) = std::move(worker);
}

namespace {

// Enough to amortise a commit, small enough to keep row locks short.
constexpr size_t max_batch = 256;

// How long a trigger mark is kept once written: far longer than any read-back waits.
constexpr micros trigger_mark_lifetime = 600'000'000;

// An operation that is not batched into a shared statement: it runs in the batch's
// transaction on its own, and its result answers `promise`.
struct queued_job {
  std::function<caf::message(storage::connection&)> run;
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
      if (p.pending())
        p.deliver(err);
  }
};

using trigger_queue =
    statement_queue<storage::trigger_event, storage::upsert_result, trigger_reply>;
using outcome_queue = statement_queue<storage::outcome_event, storage::recorded_outcome>;
using fire_queue = statement_queue<storage::fire_event, std::optional<incident_record>>;

// What one transaction runs: a statement for the triggers, one for the steps, one for
// the outcomes, then the other operations.
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
  void fail(const caf::error& err) {
    triggers.fail(err);
    fires.fail(err);
    outcomes.fail(err);
    for (auto& j : jobs)
      if (j.promise.pending())
        j.promise.deliver(err);
  }
};

struct storage_worker_state {
  static inline const char* name = "storage";
  std::string url;
  std::unique_ptr<storage::connection> conn;
  batch queued;
  batch running; // the batch being written now (failed whole if the worker dies)
  bool flush_pending = false;
  std::optional<trigger_owner> owner; // workers of the incident lane only
  std::mt19937_64 mark_ids{std::random_device{}()};
  int64_t last_mark = 0;        // the mark of the last trigger write that committed
  storage::trigger_hints hints; // which trigger statement to try first
};

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

storage::connection& connection(worker_ptr self) {
  if (!self->state.conn)
    self->state.conn = std::make_unique<storage::connection>(self->state.url);
  return *self->state.conn;
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

// Runs one operation in autocommit mode and answers it, or with the error.
void run_alone(worker_ptr self, queued_job& job) {
  try {
    job.promise.deliver(job.run(connection(self)));
  } catch (const storage::db_error& e) {
    forget_broken_connection(self);
    spdlog::warn("storage: {}", e.what());
    job.promise.deliver(storage_error(e));
  }
}

template <class Queue>
void run_each_alone(worker_ptr self, Queue& q, typename Queue::write_fn write) {
  while (q.size() > 0) {
    Queue one;
    one.take_from(q, 1);
    try {
      one.write(connection(self), write);
    } catch (const storage::db_error& e) {
      forget_broken_connection(self);
      spdlog::warn("storage: {}", e.what());
      one.fail(storage_error(e));
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
// (DESIGN.md section 13). Committed, they are answered with what was written, and the
// registry holds the incidents they opened; if the database cannot tell, they fail (no
// 2xx), and should they have committed, the orphan sweep holds their incidents later.
// Returns false when nothing was written: the triggers are still to be written.
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
// never committed is written once more, on a fresh connection.
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
        if (lost && attempt == 1)
          continue;
        one.fail(storage_error(e));
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
  run_each_alone(self, b.fires, storage::fire_steps);
  run_each_alone(self, b.outcomes, storage::record_outcomes);
  for (auto& job : b.jobs)
    run_alone(self, job);
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
    b.fires.write(c, storage::fire_steps);
    b.outcomes.write(c, storage::record_outcomes);
    for (auto& job : b.jobs)
      results.push_back(job.run(c));
    if (transaction)
      c.exec("COMMIT");
  } catch (const storage::db_error& e) {
    spdlog::debug("storage: batch of {} failed ({}), running its operations one by one",
                  b.size(), e.what());
    // A lost connection may have committed the batch: its triggers are settled by
    // reading back. The other operations run again on their own either way: each is a
    // compare-and-set that finds its work done (a step, an acknowledge) or harmless
    // to repeat (a read).
    if (connection_lost(self)) {
      forget_broken_connection(self);
      if (b.triggers.size() > 0 && settle_lost_write(self, b.triggers, mark))
        b.triggers = {};
      return run_each_alone(self, b);
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
  }
  if (b.triggers.size() > 0)
    self->state.last_mark = mark.id;
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
                           Item item) {
  auto rp = self->make_response_promise<Reply>();
  q.items.push_back(std::move(item));
  q.promises.push_back(rp);
  flush_soon(self);
  return rp;
}

// Queues an operation that runs on its own within the next batch.
template <class Reply, class Operation>
caf::result<Reply> enqueue(worker_ptr self, Operation op) {
  auto rp = self->make_response_promise<Reply>();
  self->state.queued.jobs.push_back(
      {[op = std::move(op)](storage::connection& c) { return caf::make_message(op(c)); },
       rp});
  flush_soon(self);
  return rp;
}

void flush(worker_ptr self) {
  auto& st = self->state;
  st.flush_pending = false;
  auto all = std::move(st.queued);
  st.queued = {};
  while (all.size() > 0) {
    st.running = {};
    st.running.triggers.take_from(all.triggers, max_batch);
    st.running.fires.take_from(all.fires, max_batch);
    st.running.outcomes.take_from(all.outcomes, max_batch);
    move_front(all.jobs, st.running.jobs, max_batch);
    // Until the batch is written, what is left waits where a dying worker fails it too.
    st.queued = std::move(all);
    run_batch(self, st.running);
    all = std::move(st.queued);
    st.queued = {};
  }
  st.running = {};
}

storage_worker_actor::behavior_type storage_worker(worker_ptr self, std::string url) {
  self->state.url = std::move(url);
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
  auto now_of = [self] {
    auto& o = *self->state.owner;
    return o.clock.at(self->clock().now());
  };
  return {
      [self](atom::load, uint64_t, int64_t org, int64_t id) {
        return enqueue<std::optional<storage::held_incident>>(
            self, [org, id](storage::connection& c) {
              return storage::load_incident(c, org, id);
            });
      },
      [self](atom::transition, uint64_t, transition_command& cmd, micros at) {
        return enqueue<transition_reply>(
            self, [cmd = std::move(cmd), at](storage::connection& c) {
              return storage::apply_transition(c, cmd, at);
            });
      },
      [self](atom::fire_step, uint64_t, storage::fire_event& event) {
        return enqueue(self, self->state.queued.fires, std::move(event));
      },
      [self](atom::people, int64_t org, micros at) {
        return enqueue<protocol::org_people>(self, [org, at](storage::connection& c) {
          return storage::load_people(c, org, at);
        });
      },
      [self](atom::exhaust, uint64_t, incident_record& expected, micros at) {
        return enqueue<std::optional<incident_record>>(
            self, [expected = std::move(expected), at](storage::connection& c) {
              return storage::exhaust(c, expected, at);
            });
      },
      [self](atom::resume, uint64_t, storage::resume_event& e) {
        return enqueue<std::optional<incident_record>>(
            self, [e = std::move(e)](storage::connection& c) {
              return storage::resume_held(c, e);
            });
      },
      [self](atom::adopt, storage::adoption_page& page) {
        return enqueue<storage::adopted>(
            self, [page = std::move(page)](storage::connection& c) {
              return storage::adopt_unresolved(c, page);
            });
      },
      [self](atom::renew, storage::ownership& owner, micros at) {
        return enqueue<storage::lease_renewal>(
            self, [owner = std::move(owner), at](storage::connection& c) {
              return storage::renew_lease(c, owner, at);
            });
      },
      [self](atom::sweep, storage::orphan_sweep& sweep) {
        return enqueue<std::vector<storage::held_incident>>(
            self, [sweep = std::move(sweep)](storage::connection& c) {
              storage::prune_trigger_marks(c, sweep.now - trigger_mark_lifetime);
              storage::sweep_retention(c, sweep);
              return storage::adopt_orphans(c, sweep);
            });
      },
      [self](atom::settled, storage::incident_keys& keys) {
        return enqueue<std::vector<storage::held_incident>>(
            self, [keys = std::move(keys)](storage::connection& c) {
              return storage::settled_among(c, keys);
            });
      },
      [self](atom::moved, std::string& node, storage::incident_keys& keys) {
        return enqueue<std::vector<int64_t>>(
            self,
            [node = std::move(node), keys = std::move(keys)](storage::connection& c) {
              return storage::owned_elsewhere(c, node, keys);
            });
      },
      [self](atom::claim, storage::claim_request& req) {
        return enqueue<std::vector<storage::claimed_delivery>>(
            self, [req = std::move(req)](storage::connection& c) {
              return storage::claim_due(c, req);
            });
      },
      [self](atom::recheck, storage::recheck_request& req) {
        return enqueue<std::vector<storage::recheck_result>>(
            self, [req = std::move(req)](storage::connection& c) {
              return storage::recheck_claims(c, req);
            });
      },
      [self](atom::claim_contacts, storage::contact_request& req) {
        return enqueue<storage::contact_claim>(
            self, [req = std::move(req)](storage::connection& c) {
              return storage::claim_contacts(c, req);
            });
      },
      [self](atom::recheck_bundle, storage::bundle_recheck& req) {
        return enqueue<storage::checked_bundle>(
            self, [req = std::move(req)](storage::connection& c) {
              return storage::recheck_bundle(c, req);
            });
      },
      [self](atom::bundle_outcome, storage::bundle_outcome& o) {
        return enqueue<std::vector<storage::recorded_outcome>>(
            self, [o = std::move(o)](storage::connection& c) {
              return storage::record_bundle_outcome(c, o);
            });
      },
      [self](atom::release, std::string& node, micros at) {
        return enqueue<storage::released_claims>(
            self, [node = std::move(node), at](storage::connection& c) {
              return storage::release_claims_of(c, node, at);
            });
      },
      [self](atom::lapsed, micros at) {
        return enqueue<storage::released_claims>(self, [at](storage::connection& c) {
          return storage::release_expired_claims(c, at);
        });
      },
      [self](atom::outcome, storage::outcome_event& event) {
        return enqueue(self, self->state.queued.outcomes, std::move(event));
      },
      [self](atom::replay, int64_t org, int64_t dead_letter, micros at) {
        return enqueue<storage::replay_result>(
            self, [org, dead_letter, at](storage::connection& c) {
              return storage::replay_dead_letter(c, org, dead_letter, at);
            });
      },
      [self](atom::channels) {
        return enqueue<std::vector<channel_config>>(
            self, [](storage::connection& c) { return storage::load_channels(c); });
      },
      [self](atom::ping, std::vector<storage::heartbeat_ping>& pings) {
        return enqueue<std::vector<std::optional<heartbeat_record>>>(
            self, [pings = std::move(pings)](storage::connection& c) {
              return storage::record_pings(c, pings);
            });
      },
      [self](atom::heartbeat, storage::heartbeat_change& change) {
        return enqueue<storage::heartbeat_changed>(
            self, [change = std::move(change)](storage::connection& c) {
              return storage::change_heartbeat(c, change);
            });
      },
      [self](atom::sweep, storage::heartbeat_sweep& sweep) {
        return enqueue<storage::heartbeat_holdings>(
            self, [sweep = std::move(sweep)](storage::connection& c) {
              return storage::sweep_heartbeats(c, sweep);
            });
      },
      [self](atom::join, trigger_owner& owner) { self->state.owner = std::move(owner); },
      [self, now_of](atom::trigger, trigger_command& cmd) -> caf::result<trigger_reply> {
        auto& st = self->state;
        if (!st.owner) // start_node joins every worker of the lane before it returns
          return caf::make_error(caf::sec::runtime_error,
                                 "this storage worker takes no triggers: it has not "
                                 "joined a registry");
        auto at = now_of();
        auto lease = static_cast<micros>(st.owner->lease_seconds * 1e6);
        return enqueue(
            self, st.queued.triggers,
            storage::trigger_event{std::move(cmd), at, {st.owner->node_id, at + lease}});
      },
      [self](atom::flush) { flush(self); },
  };
}

struct storage_router_state {
  static inline const char* name = "storage router";
  std::string url;
  bool detached = false;
  trigger_lane lane;                        // shared with every caller of triggers
  std::vector<storage_worker_actor> others; // the other lane; may be the incident lane
  bool others_are_lane = false;
  size_t next = 0;
  std::optional<trigger_owner> owner;
  std::map<caf::actor_addr, size_t> lane_index, other_index;
  bool stopping = false;
};

using router_ptr = storage_router_actor::stateful_pointer<storage_router_state>;

storage_worker_actor spawn_worker(caf::actor_system& sys, const std::string& url,
                                  bool detached) {
  return detached ? sys.spawn<caf::detached>(storage_worker, url)
                  : sys.spawn(storage_worker, url);
}

void watch(router_ptr self) {
  auto& st = self->state;
  auto lane = st.lane.workers();
  for (size_t i = 0; i < lane.size(); ++i) {
    self->monitor(lane[i]);
    st.lane_index[lane[i].address()] = i;
  }
  if (!st.others_are_lane)
    for (size_t i = 0; i < st.others.size(); ++i) {
      self->monitor(st.others[i]);
      st.other_index[st.others[i].address()] = i;
    }
}

// A worker died: a fresh one takes its place (and, in the incident lane, joins the
// registry before any trigger can reach it).
void replace_worker(router_ptr self, const caf::actor_addr& dead) {
  auto& st = self->state;
  auto fresh = spawn_worker(self->system(), st.url, st.detached);
  self->monitor(fresh);
  if (auto it = st.lane_index.find(dead); it != st.lane_index.end()) {
    auto i = it->second;
    st.lane_index.erase(it);
    if (st.owner)
      self->send(fresh, atom::join_v, *st.owner);
    st.lane.replace(i, fresh);
    st.lane_index[fresh.address()] = i;
    if (st.others_are_lane)
      st.others[i] = fresh;
  } else if (auto it = st.other_index.find(dead); it != st.other_index.end()) {
    auto i = it->second;
    st.other_index.erase(it);
    st.others[i] = fresh;
    st.other_index[fresh.address()] = i;
  }
}

// Operations about incidents (sharded: steps, acks, loads) go to the incident lane, the
// rest (deliveries, adoption, leases) to the other lane. Ingest thus gets bigger
// batches, which is where group commit pays (one statement for many triggers), and an
// outbox being drained does not queue triggers behind its outcomes.
storage_router_actor::behavior_type
storage_router(router_ptr self, std::string url, bool detached, trigger_lane lane,
               std::vector<storage_worker_actor> others) {
  auto& st = self->state;
  st.url = std::move(url);
  st.detached = detached;
  st.lane = std::move(lane);
  st.others_are_lane = others.empty();
  st.others = st.others_are_lane ? st.lane.workers() : std::move(others);
  watch(self);
  self->set_down_handler([self](caf::down_msg& msg) {
    if (self->state.stopping)
      return;
    spdlog::warn("storage: a worker stopped ({}); starting another",
                 to_string(msg.reason));
    replace_worker(self, msg.source);
  });
  self->set_exit_handler([self](caf::exit_msg& msg) {
    auto& st = self->state;
    st.stopping = true;
    for (auto& w : st.lane.workers())
      self->send_exit(w, msg.reason);
    if (!st.others_are_lane)
      for (auto& w : st.others)
        self->send_exit(w, msg.reason);
    self->quit(msg.reason);
  });
  auto any = [self] {
    auto& st = self->state;
    return st.others[st.next++ % st.others.size()];
  };
  auto sharded = [self](uint64_t shard) { return self->state.lane.worker_for(shard); };
  return {
      [self, sharded](atom::load, uint64_t shard, int64_t org, int64_t id) {
        return self->delegate(sharded(shard), atom::load_v, shard, org, id);
      },
      [self, sharded](atom::transition, uint64_t shard, transition_command& cmd,
                      micros at) {
        return self->delegate(sharded(shard), atom::transition_v, shard, std::move(cmd),
                              at);
      },
      [self, sharded](atom::fire_step, uint64_t shard, storage::fire_event& event) {
        return self->delegate(sharded(shard), atom::fire_step_v, shard, std::move(event));
      },
      [self, sharded](atom::exhaust, uint64_t shard, incident_record& expected,
                      micros at) {
        return self->delegate(sharded(shard), atom::exhaust_v, shard, std::move(expected),
                              at);
      },
      [self, sharded](atom::resume, uint64_t shard, storage::resume_event& e) {
        return self->delegate(sharded(shard), atom::resume_v, shard, std::move(e));
      },
      [self, any](atom::people, int64_t org, micros at) {
        return self->delegate(any(), atom::people_v, org, at);
      },
      [self, any](atom::adopt, storage::adoption_page& page) {
        return self->delegate(any(), atom::adopt_v, std::move(page));
      },
      [self, any](atom::renew, storage::ownership& owner, micros at) {
        return self->delegate(any(), atom::renew_v, std::move(owner), at);
      },
      [self, any](atom::sweep, storage::orphan_sweep& sweep) {
        return self->delegate(any(), atom::sweep_v, std::move(sweep));
      },
      [self, any](atom::settled, storage::incident_keys& keys) {
        return self->delegate(any(), atom::settled_v, std::move(keys));
      },
      [self, any](atom::moved, std::string& node, storage::incident_keys& keys) {
        return self->delegate(any(), atom::moved_v, std::move(node), std::move(keys));
      },
      [self, any](atom::claim, storage::claim_request& req) {
        return self->delegate(any(), atom::claim_v, std::move(req));
      },
      [self, any](atom::recheck, storage::recheck_request& req) {
        return self->delegate(any(), atom::recheck_v, std::move(req));
      },
      [self, any](atom::claim_contacts, storage::contact_request& req) {
        return self->delegate(any(), atom::claim_contacts_v, std::move(req));
      },
      [self, any](atom::recheck_bundle, storage::bundle_recheck& req) {
        return self->delegate(any(), atom::recheck_bundle_v, std::move(req));
      },
      [self, any](atom::bundle_outcome, storage::bundle_outcome& o) {
        return self->delegate(any(), atom::bundle_outcome_v, std::move(o));
      },
      [self, any](atom::release, std::string& node, micros at) {
        return self->delegate(any(), atom::release_v, std::move(node), at);
      },
      [self, any](atom::lapsed, micros at) {
        return self->delegate(any(), atom::lapsed_v, at);
      },
      [self](atom::outcome, storage::outcome_event& event) {
        // One worker per org: an org's outcomes batch together, as many to a statement
        // as arrive while its previous statement runs.
        auto& others = self->state.others;
        auto& worker = others[static_cast<uint64_t>(event.org_id) % others.size()];
        return self->delegate(worker, atom::outcome_v, std::move(event));
      },
      [self, any](atom::replay, int64_t org, int64_t dead_letter, micros at) {
        return self->delegate(any(), atom::replay_v, org, dead_letter, at);
      },
      [self, any](atom::channels) { return self->delegate(any(), atom::channels_v); },
      [self, any](atom::ping, std::vector<storage::heartbeat_ping>& pings) {
        return self->delegate(any(), atom::ping_v, std::move(pings));
      },
      [self, any](atom::heartbeat, storage::heartbeat_change& change) {
        return self->delegate(any(), atom::heartbeat_v, std::move(change));
      },
      [self, any](atom::sweep, storage::heartbeat_sweep& sweep) {
        return self->delegate(any(), atom::sweep_v, std::move(sweep));
      },
      // start_node joins the current workers itself; this is for the ones started later.
      [self](atom::join, trigger_owner& owner) { self->state.owner = std::move(owner); },
      [self](atom::children) {
        auto& st = self->state;
        auto all = st.lane.workers();
        if (!st.others_are_lane)
          all.insert(all.end(), st.others.begin(), st.others.end());
        return all;
      },
  };
}

} // namespace

storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached) {
  std::vector<storage_worker_actor> all;
  for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i)
    all.push_back(spawn_worker(sys, database_url, detached));
  auto half = all.begin() + incident_lane_size(all.size());
  trigger_lane lane{{all.begin(), half}};
  auto router = sys.spawn(storage_router, database_url, detached, lane,
                          std::vector<storage_worker_actor>{half, all.end()});
  return {router, lane};
}

} // namespace belay
