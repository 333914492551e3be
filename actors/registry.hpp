// The registry: one per node. It arbitrates incident creation through the database
// unique index (G1): a trigger is written by the storage worker of its shard, which
// tells the registry what each batch wrote before answering anyone, and the registry
// holds each new incident. It spawns and supervises one incident actor per
// non-resolved incident, routes acks and resolves to them, re-adopts incidents on start
// (G5), and from then on renews this node's lease and takes over those of nodes whose
// leases lapsed (DESIGN.md section 9).
//
//   (atom::trigger, std::vector<storage::upsert_result>)     what a storage worker wrote
//                                                            for triggers sent to it
//                                                            (actors/storage.hpp)
//   (atom::transit, transition_command) -> transition_reply  after the write committed
//   (atom::adopt) -> size_t                                  incidents adopted
//   (atom::get) -> registry_stats
//   (atom::get, int64_t incident_id) -> caf::actor          the live actor, or none
//   (atom::views, int64_t org) -> std::vector<incident_view>  asks each of the org's
//   actors
//   (atom::transit, int64_t org, int64_t id)  the incident was acknowledged or resolved
//                                             (NOTIFY): its holder here takes the row
//   (atom::transit)                           the listener missed notifications: every
//                                             holder here of a settled incident does
//   (atom::renew)                             renews the lease (every third of it)
#pragma once

#include "actors/deps.hpp"
#include "actors/fwd.hpp"

#include <caf/actor_addr.hpp>
#include <caf/stateful_actor.hpp>
#include <map>
#include <utility>

namespace belay {

struct held_incident_actor {
  caf::actor actor;
  int64_t org_id = 0;
};

struct registry_state {
  static inline const char* name = "registry";
  std::map<int64_t, held_incident_actor> by_id;
  std::map<caf::actor_addr, int64_t> id_of; // for down messages
  registry_stats stats;
  bool stopping = false;
  bool renewing = false; // the lease renewal runs from the first adoption on
  deps d;
};

caf::behavior registry(caf::stateful_actor<registry_state>* self, deps d);

} // namespace belay
