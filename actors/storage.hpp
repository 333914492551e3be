// The storage actor: a router in front of workers, each with its own PostgreSQL
// connection, that run the storage operations (storage_actor in actors/actors.hpp) off
// CAF's cooperative threads. Production spawns the workers detached (a thread each);
// tests spawn them inline so the simulated clock and the deterministic scheduler drive
// everything. The router monitors its workers and replaces one that dies.
//
// Triggers skip the router and the registry: callers send them straight to the worker
// of their shard (trigger_lane), which stamps them with the node's clock and lease,
// writes them in its next batch and, after COMMIT and before answering anyone, tells
// the registry what the batch wrote, so the registry holds every new incident before
// its creator can act on it (bench/README.md measures what skipping those hops gained).
//
// Group commit: a worker runs every operation that queued up while it was busy in one
// transaction and answers only after COMMIT (G3 holds). The triggers of a batch are
// written by one statement (storage::upsert_triggers), and so are its ladder steps
// (storage::fire_steps) and its delivery outcomes (storage::record_outcomes): a
// statement has a fixed cost however few rows it writes. When a batch fails, it is
// rolled back and each operation runs again on its own, so one bad operation cannot
// fail its neighbours. Operations about one incident share a shard, so batches on
// different workers do not wait on each other's row locks. Sharded operations run on
// the first half of the workers (the incident lane), the others on the second half
// (with one worker, on it).
#pragma once

#include "actors/actors.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace belay {

// The workers that write everything about incidents, one shard each: a trigger goes to
// the worker of its shard, as do that incident's steps and its transitions by key.
// Shared by every caller and by the router, which puts a fresh worker in the place of
// one that died.
class trigger_lane {
public:
  trigger_lane() = default;
  explicit trigger_lane(std::vector<storage_worker_actor> workers);

  storage_worker_actor worker_for(uint64_t shard) const;
  storage_worker_actor worker_for(int64_t org_id, const std::string& dedup_key) const;
  std::vector<storage_worker_actor> workers() const;
  void replace(size_t index, storage_worker_actor worker);

private:
  struct shared {
    mutable std::mutex mutex;
    std::vector<storage_worker_actor> workers;
  };
  std::shared_ptr<shared> shared_ = std::make_shared<shared>();
};

struct storage_actors {
  storage_router_actor router; // every operation but triggers
  trigger_lane triggers;
};

storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached);

// How many of `workers` database connections the incident lane gets: half, at least one.
inline size_t incident_lane_size(size_t workers) {
  return std::max<size_t>(1, workers / 2);
}

// The shard of everything about one incident.
inline uint64_t incident_shard(int64_t org_id, const std::string& dedup_key) {
  return std::hash<std::string>{}(dedup_key) ^ static_cast<uint64_t>(org_id);
}

} // namespace belay
