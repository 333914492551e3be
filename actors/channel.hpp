// One actor per configured channel (channel_actor in actors/actors.hpp): it claims due
// deliveries from the outbox, hands each to a sender (a blocking transport call on its
// own thread), records the outcome, schedules retries with backoff and writes dead
// letters. The ladder never waits on any of this (G7).
#pragma once

#include "actors/deps.hpp"

#include <map>

namespace belay {

struct delivery_options {
  double claim_lease_seconds = 300;
  int claim_batch = 64;
};

struct channel_state {
  static inline const char* name = "channel";
  channel_config config;
  sender_actor senders;
  dispatcher_actor dispatcher;
  delivery_options opts;
  deps d;
  bool claiming = false;
  bool again = false;
  size_t waiting = 0;
  size_t sending = 0;
  uint64_t sent = 0, failed = 0, dead = 0, ambiguous = 0;
  std::map<int64_t, scheduled_retry> retries;
};

channel_actor::behavior_type channel(channel_actor::stateful_pointer<channel_state> self,
                                     channel_config config, sender_actor senders,
                                     dispatcher_actor dispatcher, delivery_options opts,
                                     deps d);

// A pool of workers that make the blocking transport calls, round robin. CAF 0.17's
// actor_pool is untyped; the handle says what every worker of it accepts.
sender_actor spawn_senders(caf::actor_system& sys, size_t workers, bool detached);

} // namespace belay
