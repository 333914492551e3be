// The storage actor: a router in front of workers, each with its own PostgreSQL
// connection, that run blocking database jobs off CAF's cooperative threads.
// Production spawns the workers detached (a thread each); tests spawn them inline so
// the simulated clock and the deterministic scheduler drive everything.
//
//   (atom::run, db_job) -> <the job's result>                  any worker
//   (atom::run, uint64_t shard, db_job) -> <the job's result>  always the same worker
//   (atom::fire, uint64_t shard, storage::fire_event) -> std::optional<incident_record>
//   (atom::outcome, storage::outcome_event) -> storage::recorded_outcome   any worker
//
// Triggers skip the router and the registry: callers send them straight to the worker
// of their shard (trigger_lane), which stamps them with the node's clock and lease,
// writes them in its next batch and, after COMMIT and before answering anyone, tells
// the registry what the batch wrote, so the registry holds every new incident before
// its creator can act on it. Skipping those hops gained 12-13% on ingest
// (bench/README.md).
//
//   worker: (atom::join, trigger_owner)                 from start_node, before any
//   trigger worker: (atom::trigger, trigger_command) -> trigger_reply     after the write
//   committed registry is told: (atom::trigger, std::vector<storage::upsert_result>)
//   every ok one
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

#include "actors/clock.hpp"
#include "actors/fwd.hpp"

#include <algorithm>
#include <caf/actor.hpp>
#include <caf/message.hpp>
#include <functional>
#include <string>
#include <vector>

namespace belay {

// What the workers of the incident lane need to take triggers from their callers: how
// to stamp them, and whom to tell what each batch wrote.
struct trigger_owner {
  caf::actor registry;
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;
};

// The workers that write everything about incidents, one shard each: a trigger goes to
// the worker of its shard, as do that incident's steps and its transitions by key.
struct trigger_lane {
  std::vector<caf::actor> workers;

  const caf::actor& worker_for(uint64_t shard) const {
    return workers[shard % workers.size()];
  }
  const caf::actor& worker_for(int64_t org_id, const std::string& dedup_key) const;
};

struct storage_actors {
  caf::actor router; // every message above but triggers
  trigger_lane triggers;
};

storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached);

// How many of `workers` database connections the incident lane gets: half, at least one.
inline size_t incident_lane_size(size_t workers) {
  return std::max<size_t>(1, workers / 2);
}

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

inline const caf::actor& trigger_lane::worker_for(int64_t org_id,
                                                  const std::string& dedup_key) const {
  return worker_for(incident_shard(org_id, dedup_key));
}

} // namespace belay

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::trigger_owner)
