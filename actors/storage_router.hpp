// The storage router (storage_router_actor in actors/actors.hpp): the storage actor the
// rest of the node talks to. It hands each operation to a worker by the lane of its row
// in actors/storage_operations.def, and monitors its workers and replaces one that dies.
// Operations about incidents (sharded: steps, acks, loads) go to the incident lane, the
// rest (deliveries, adoption, leases) to the other lane. Ingest thus gets bigger
// batches, which is where group commit pays (one statement for many triggers), and an
// outbox being drained does not queue triggers behind its outcomes.
#pragma once

#include "actors/actors.hpp"
#include "actors/trigger_lane.hpp"

#include <caf/actor_addr.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace belay {

struct storage_router_state {
  static inline const char* name = "storage router";
  std::string url;
  bool detached = false;
  caf::timespan linger{0}; // the incident lane's workers' (storage_worker_state::linger)
  trigger_lane lane;       // shared with every caller of triggers
  std::vector<storage_worker_actor> others; // the other lane; may be the incident lane
  bool others_are_lane = false;
  size_t next = 0;
  std::optional<trigger_owner> owner;
  std::map<caf::actor_addr, size_t> lane_index, other_index;
  bool stopping = false;
};

// Which of the other lane's `workers` takes an org's outcomes, and which takes the
// `turn`th re-check of one: never the same while there are two or more.
size_t outcome_worker(int64_t org_id, size_t workers);
size_t recheck_worker(int64_t org_id, size_t turn, size_t workers);

storage_router_actor::behavior_type
storage_router(storage_router_actor::stateful_pointer<storage_router_state> self,
               std::string url, bool detached, caf::timespan linger, trigger_lane lane,
               std::vector<storage_worker_actor> others);

struct storage_actors {
  storage_router_actor router; // every operation but triggers
  trigger_lane triggers;
};

// `workers` workers on connections to `database_url` (half of them the incident lane:
// incident_lane_size), detached or not, the incident lane lingering `linger` before a
// commit when it is a lane of its own, and their router.
storage_actors spawn_storage(caf::actor_system& sys, const std::string& database_url,
                             size_t workers, bool detached, caf::timespan linger = {});

} // namespace belay
