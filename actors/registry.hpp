// The registry: one per node (registry_actor in actors/actors.hpp). It arbitrates
// incident creation through the database unique index (G1): a trigger is written by the
// storage worker of its shard, which tells the registry what each batch wrote before
// answering anyone, and the registry holds each new incident. It spawns and supervises
// one incident actor per non-resolved incident, routes acks and resolves to them,
// re-adopts incidents on start (G5), and from then on renews this node's lease and takes
// over those of nodes whose leases lapsed (docs/architecture.md#ownership).
#pragma once

#include "actors/deps.hpp"
#include "protocol/views.hpp"
#include "storage/actions.hpp" // action_reply, complete where the registry is spawned

#include <caf/actor_addr.hpp>
#include <map>
#include <set>
#include <vector>

namespace belay {

struct held_incident_actor {
  incident_actor actor;
  int64_t org_id = 0;
};

struct registry_state {
  static inline const char* name = "registry";
  std::map<int64_t, held_incident_actor> by_id;
  std::map<caf::actor_addr, int64_t> id_of; // for down messages
  // Reopened while the actor of their resolve still held them (it is on its way out):
  // held again once it is down.
  std::set<int64_t> reopened;
  registry_stats stats;
  bool stopping = false;
  // While stopping: the actors to tell, in order, and the next one to tell.
  std::vector<incident_actor> to_exit;
  size_t exit_next = 0;
  caf::error exit_reason;
  bool renewing = false;        // the lease renewal runs from the first adoption on
  micros retained_at = 0;       // the last sweep that ran a retention pass
  micros audit_retained_at = 0; // … and one of the audit log's
  // Held incidents the last orphan sweep found overdue: the next one passes them over.
  std::vector<int64_t> lagging;
  std::shared_ptr<const deps> d; // shared with every incident actor it spawns
};

registry_actor::behavior_type
registry(registry_actor::stateful_pointer<registry_state> self, deps d);

} // namespace belay
