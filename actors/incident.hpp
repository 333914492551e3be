// One actor per non-resolved incident: it owns the escalation ladder and its timers.
//
//   (atom::fire, uint64_t generation)        timer: fire the due step or end the grace
//   period (atom::transit, transition_command) -> transition_reply   ack / resolve, after
//   commit (atom::transit, incident_record)         changed in the database without us:
//   follow (atom::trigger, incident_record)         a duplicate was absorbed: fresh
//   counters (atom::get) -> incident_view
//
// A step fires as one compare-and-set (storage::fire_steps, batched). Timers carry
// a generation number: CAF 0.17 cannot cancel a delayed_send, so stale ones are dropped.
#pragma once

#include "actors/deps.hpp"
#include "actors/fwd.hpp"

#include <caf/stateful_actor.hpp>

namespace belay {

struct incident_state {
  static inline const char* name = "incident";
  incident_record record;
  ladder_ptr ladder; // never null
  uint64_t generation = 0;
  micros up_since = 0;
  deps d;
};

caf::behavior incident(caf::stateful_actor<incident_state>* self, incident_record rec,
                       ladder_ptr ladder, deps d);

} // namespace belay
