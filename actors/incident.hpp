// One actor per non-resolved incident (incident_actor in actors/actors.hpp): it owns the
// escalation ladder and its timers. A step fires as one compare-and-set
// (storage::fire_steps, batched). Timers carry a generation number: CAF 0.17 cannot
// cancel a delayed_send, so stale ones are dropped.
#pragma once

#include "actors/deps.hpp"

namespace belay {

struct incident_state {
  static inline const char* name = "incident";
  incident_record record;
  ladder_ptr ladder; // never null
  uint64_t generation = 0;
  micros up_since = 0;
  std::vector<std::string> no_one_on_call; // at the last step, for the inspector
  // Shared by every incident of the node: a copy each was 144 bytes of every open
  // incident's memory.
  std::shared_ptr<const deps> d;
};

incident_actor::behavior_type
incident(incident_actor::stateful_pointer<incident_state> self, incident_record rec,
         ladder_ptr ladder, std::shared_ptr<const deps> d);

} // namespace belay
