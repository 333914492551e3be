// The dispatcher (dispatcher_actor in actors/actors.hpp): spawns one channel actor per
// configured channel and restarts one that dies from its configuration, routes nudges to
// them, and periodically returns lapsed claims to the pool and polls every channel
// (deliveries created by another node, replays, anything a lost nudge left behind).
// Every poll also reloads the channel configuration, so that a channel changed or
// removed by provisioning on any node is sent with its new settings, or stops, here
// within one poll interval.
#pragma once

#include "actors/channel.hpp"
#include "actors/deps.hpp"

#include <caf/actor_addr.hpp>
#include <map>
#include <utility>

namespace belay {

struct dispatcher_options {
  delivery_options delivery;
  caf::timespan poll_interval = std::chrono::seconds{5};
};

struct supervised_channel {
  channel_config config;
  channel_actor actor;
};

struct dispatcher_state {
  static inline const char* name = "dispatcher";
  std::map<std::pair<int64_t, std::string>, supervised_channel> channels;
  std::map<caf::actor_addr, std::pair<int64_t, std::string>> key_of; // for down messages
  dispatcher_options opts;
  deps d;
  bool loaded = false;
  bool stopping = false;
};

dispatcher_actor::behavior_type
dispatcher(dispatcher_actor::stateful_pointer<dispatcher_state> self,
           dispatcher_options opts, deps d);

} // namespace belay
