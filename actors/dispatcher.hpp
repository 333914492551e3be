// The dispatcher: spawns one channel actor per configured channel, routes nudges to
// them, and periodically returns lapsed claims to the pool and polls every channel
// (deliveries created by another node, replays, anything a lost nudge left behind).
//
//   (atom::nudge, int64_t org, std::string channel)   a step or failover created rows
//   (atom::nudge)                                     poll every channel
//   (atom::poll)                                      periodic timer
//   (atom::get) -> std::vector<caf::actor>            the channel actors
//   (atom::views, int64_t org) -> std::vector<channel_view>
//   (atom::replay, int64_t org, int64_t dead_letter) -> storage::replay_result
#pragma once

#include "actors/channel.hpp"
#include "actors/deps.hpp"

#include <caf/stateful_actor.hpp>
#include <map>
#include <utility>

namespace belay {

struct dispatcher_options {
  delivery_options delivery;
  caf::timespan poll_interval = std::chrono::seconds{5};
};

struct dispatcher_state {
  static inline const char* name = "dispatcher";
  std::map<std::pair<int64_t, std::string>, caf::actor> channels;
  caf::actor senders;
  dispatcher_options opts;
  deps d;
  bool loaded = false;
};

caf::behavior dispatcher(caf::stateful_actor<dispatcher_state>* self, caf::actor senders,
                         dispatcher_options opts, deps d);

} // namespace belay

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<caf::actor>)
