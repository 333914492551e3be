// The trigger lane: the storage workers that write everything about incidents, one
// shard each. Triggers skip the router and the registry: callers send them straight to
// the worker of their shard, which stamps them with the node's clock and lease, writes
// them in its next batch and, after COMMIT and before answering anyone, tells the
// registry what the batch wrote, so the registry holds every new incident before its
// creator can act on it (bench/README.md measures what skipping those hops gained).
#pragma once

#include "actors/actors.hpp"
#include "actors/clock.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace belay {

// What the workers of the lane need to take triggers from their callers: how to stamp
// them, and whom to tell what each batch wrote (atom::join_lane).
struct trigger_owner {
  registry_actor registry;
  wall_clock clock;
  std::string node_id;
  double lease_seconds{}; // the node's (deps::lease_seconds)
};

// The workers of the lane: a trigger goes to the worker of its shard, as do that
// incident's steps and its transitions by key. Shared by every caller and by the
// router, which puts a fresh worker in the place of one that died.
class trigger_lane {
public:
  trigger_lane();
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
  std::shared_ptr<shared> shared_;
};

// How many of `workers` database connections the incident lane gets: half, at least one.
// Operations about incidents run there, the others on the rest (with one worker, on it).
inline size_t incident_lane_size(size_t workers) {
  return std::max<size_t>(1, workers / 2);
}

// The shard of everything about one incident.
inline uint64_t incident_shard(int64_t org_id, const std::string& dedup_key) {
  return std::hash<std::string>{}(dedup_key) ^ static_cast<uint64_t>(org_id);
}

} // namespace belay
