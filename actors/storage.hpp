// The storage actor: a router in front of workers, each with its own PostgreSQL
// connection, that run blocking database jobs off CAF's cooperative threads.
// Production spawns the workers detached (a thread each); tests spawn them inline so
// the simulated clock and the deterministic scheduler drive everything.
//
//   (atom::run, db_job) -> <the job's result>                  any worker
//   (atom::run, uint64_t shard, db_job) -> <the job's result>  always the same worker
//   (atom::trigger, uint64_t shard, storage::trigger_event) -> storage::upsert_result
//   (atom::fire, uint64_t shard, storage::fire_event) -> std::optional<incident_record>
//   (atom::outcome, storage::outcome_event) -> storage::recorded_outcome   any worker
//
// Group commit: a worker runs every job that queued up while it was busy in one
// transaction and answers only after COMMIT (G3 holds). Jobs are single statements
// that do not manage transactions themselves. The triggers of a batch are written by
// one statement (storage::upsert_triggers), and so are its ladder steps
// (storage::fire_steps) and its delivery outcomes (storage::record_outcomes): a statement
// costs PostgreSQL ~260 us however few rows it writes, and ~70 us more per row (measured
// in bench/README.md). When a batch fails, it is rolled back and each job runs again on
// its own, so one bad job cannot fail its neighbours. Jobs about one incident share a
// shard, so batches on different workers do not wait on each other's row locks. Sharded
// jobs run on the first half of the workers, the others on the second half (with one
// worker, on it).
#pragma once

#include "actors/fwd.hpp"

#include <caf/actor.hpp>
#include <caf/message.hpp>
#include <functional>
#include <string>

namespace belay {

caf::actor spawn_storage(caf::actor_system& sys, const std::string& database_url,
                         size_t workers, bool detached);

// Wraps a typed job (R(storage::connection&)) for the storage actor.
template <class Job> db_job make_db_job(Job job) {
  return [job = std::move(job)](storage::connection& c) {
    return caf::make_message(job(c));
  };
}

// The shard of everything about one incident.
inline uint64_t incident_shard(int64_t org_id, const std::string& dedup_key) {
  return std::hash<std::string>{}(dedup_key) ^ static_cast<uint64_t>(org_id);
}

} // namespace belay
