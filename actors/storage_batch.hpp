// What a storage worker writes in one transaction (group commit): every operation that
// queued up while it was busy, answered only after COMMIT (G3 holds). The triggers of a
// batch are written by one statement (storage::upsert_triggers), and so are its ladder
// steps and its delivery outcomes (the batched lanes of actors/storage_operations.hpp):
// a statement has a fixed cost however few rows it writes.
#pragma once

#include "actors/fwd.hpp"
#include "actors/storage_operations.hpp"
#include "protocol/commands.hpp"
#include "storage/deliveries.hpp"
#include "storage/incidents.hpp"

#include <algorithm>
#include <caf/message.hpp>
#include <caf/response_promise.hpp>
#include <caf/typed_response_promise.hpp>
#include <functional>
#include <iterator>
#include <optional>
#include <vector>

namespace belay {

// Enough to amortise a commit, small enough to keep row locks short.
constexpr size_t max_batch = 256;

// An operation that is not batched into a shared statement: it runs in the batch's
// transaction on its own, and its result answers `promise`.
struct queued_job {
  std::function<caf::message(storage::connection&)> run;
  caf::response_promise promise;
  // Whether it may run again after a batch whose fate is unknown (a lost COMMIT reply):
  // a claim may not, see rerun_after_unknown_commit in actors/storage_worker.cpp.
  bool rerun_if_lost = true;
};

// Moves the first `n` elements of `from` (at most all) to the back of `to`.
template <class T> void move_front(std::vector<T>& from, std::vector<T>& to, size_t n) {
  n = std::min(n, from.size());
  to.insert(to.end(), std::make_move_iterator(from.begin()),
            std::make_move_iterator(from.begin() + n));
  from.erase(from.begin(), from.begin() + n);
}

// Requests of one kind that a batch writes with one call of `write_with`, the function
// of their row (storage::fire_steps, record_outcomes), which takes them all; then each
// is answered.
template <class Item, class Result, class Reply = Result> struct statement_queue {
  using write_fn = std::vector<Result> (*)(storage::connection&,
                                           const std::vector<Item>&);
  write_fn write_with = nullptr;
  std::vector<Item> items;
  std::vector<caf::typed_response_promise<Reply>> promises;
  std::vector<Result> results;

  size_t size() const { return items.size(); }
  void take_from(statement_queue& from, size_t n) {
    write_with = from.write_with;
    move_front(from.items, items, n);
    move_front(from.promises, promises, n);
  }
  void write(storage::connection& c) {
    if (!items.empty())
      results = write_with(c, items);
  }
  void fail(const caf::error& err) {
    for (auto& p : promises)
      if (p.pending())
        p.deliver(err);
  }
};

// The triggers are written by storage::upsert_triggers with a mark to read back by.
using trigger_queue =
    statement_queue<storage::trigger_event, storage::upsert_result, trigger_reply>;
using fire_queue = statement_queue<storage::fire_event, std::optional<incident_record>>;
using outcome_queue = statement_queue<storage::outcome_event, storage::recorded_outcome>;

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
  // Moves up to max_batch of each kind from `from`.
  void take_from(batch& from) {
    triggers.take_from(from.triggers, max_batch);
    fires.take_from(from.fires, max_batch);
    outcomes.take_from(from.outcomes, max_batch);
    move_front(from.jobs, jobs, max_batch);
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

// The queue of a batched lane in `b`.
inline fire_queue& queue_of(batch& b, lane::steps) {
  return b.fires;
}
inline outcome_queue& queue_of(batch& b, lane::outcomes) {
  return b.outcomes;
}

} // namespace belay
