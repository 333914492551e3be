// The watchdog (watchdog_actor in actors/actors.hpp): watches the node's top-level
// actors, which nothing above them could restart with their state. The registry, the
// dispatcher and the storage router each supervise what they spawned; when one of them
// (or the heartbeat holder) dies, the whole node stops: the watchdog logs which and
// calls `on_death`, with which `belay serve` stops and exits non-zero, so that its
// service manager starts it again (another node holds its incidents meanwhile).
#pragma once

#include "actors/actors.hpp"

#include <caf/actor_addr.hpp>
#include <functional>
#include <map>
#include <string>

namespace belay {

struct node;

struct watchdog_state {
  static inline const char* name = "watchdog";
  std::map<caf::actor_addr, std::string> watched; // by address, its name
  std::function<void()> on_death;                 // called once, at the first death
};

watchdog_actor::behavior_type
watchdog(watchdog_actor::stateful_pointer<watchdog_state> self,
         std::function<void()> on_death);

// A watchdog of the node's registry, dispatcher, storage router and heartbeat holder.
watchdog_actor watch_node(caf::actor_system& sys, const node& n,
                          std::function<void()> on_death);

} // namespace belay
