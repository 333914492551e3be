// The heartbeat holder: one per node (heartbeat_actor in actors/actors.hpp). It holds
// the monitors this node owns on one timer set, ordered by their next deadline, with
// one CAF timer armed for the earliest; a ping moves a deadline in the set and arms
// nothing unless it came first. One actor rather than one per monitor: 10,000 monitors
// are 10,000 set entries instead of 10,000 actors with a mailbox and a timer each, and
// a ping costs one message to an actor that already runs (the bench scenario heartbeats
// measures it).
//
// Pings are group-committed: the pings that arrive while a write is in flight go in the
// next one, one statement for all (storage::record_pings), and each is answered after
// its COMMIT. Any node records the pings it is sent; the monitor's holder alone makes
// the changes silence makes (late, down), as compare-and-sets on the row's version, so
// a ping through another node is seen, not overwritten (it is read again at the next
// sweep, or when the compare-and-set fails). An incident to open or resolve is written
// into the row by the change that calls for it, made through the trigger lane or the
// registry, then cleared: a node that dies in between leaves it to the next holder.
//
// Every lease_seconds / 3 the holder sweeps (storage::sweep_heartbeats): it takes the
// monitors nobody holds (new ones, those of nodes whose leases lapsed), reads again
// those that changed elsewhere, drops those gone, and makes what is still pending.
#pragma once

#include "actors/deps.hpp"
#include "actors/trigger_lane.hpp"
#include "protocol/heartbeat.hpp"
#include "storage/heartbeats.hpp"

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace belay {

struct held_monitor {
  heartbeat_record row;
  std::optional<micros> deadline; // its entry in heartbeats_state::deadlines
};

struct queued_ping {
  storage::heartbeat_ping ping;
  caf::typed_response_promise<reply_code> promise;
};

struct heartbeats_state {
  static inline const char* name = "heartbeats";
  deps d;
  registry_actor registry;
  trigger_lane lane;
  std::unordered_map<int64_t, held_monitor> held;    // by monitor id
  std::set<std::pair<micros, int64_t>> deadlines;    // (due, monitor id)
  std::set<int64_t> deciding;                        // a compare-and-set in flight
  std::set<std::pair<int64_t, std::string>> effects; // (monitor id, pending) in flight
  uint64_t generation = 0;
  std::optional<micros> armed_at; // when the armed timer fires
  std::vector<queued_ping> queued;
  bool writing = false; // a group commit of pings is in flight
};

heartbeat_actor::behavior_type
heartbeats(heartbeat_actor::stateful_pointer<heartbeats_state> self, deps d,
           registry_actor registry, trigger_lane lane);

} // namespace belay
