// One actor per configured channel: it claims due deliveries from the outbox, hands
// each to a sender (a blocking transport call on its own thread), records the
// outcome, schedules retries with backoff and writes dead letters. The ladder never
// waits on any of this (G7).
//
//   (atom::nudge)                 deliveries may be due: claim now
//   (atom::poll)                  timer: a retry is due
//   (atom::get) -> channel_view   for the inspector
#pragma once

#include "actors/deps.hpp"
#include "actors/fwd.hpp"
#include "actors/transport/transport.hpp"

#include <caf/stateful_actor.hpp>
#include <map>

namespace belay {

struct delivery_options {
  double claim_lease_seconds = 300;
  int claim_batch = 64;
};

struct channel_state {
  static inline const char* name = "channel";
  channel_config config;
  caf::actor senders;
  caf::actor dispatcher;
  delivery_options opts;
  deps d;
  bool claiming = false;
  bool again = false;
  size_t waiting = 0;
  size_t sending = 0;
  uint64_t sent = 0, failed = 0, dead = 0, ambiguous = 0;
  std::map<int64_t, scheduled_retry> retries;
};

caf::behavior channel(caf::stateful_actor<channel_state>* self, channel_config config,
                      caf::actor senders, caf::actor dispatcher, delivery_options opts,
                      deps d);

// A pool of workers that make the blocking transport calls:
//   (atom::run, channel_config, transport::page) -> transport::send_result
caf::actor spawn_senders(caf::actor_system& sys, size_t workers, bool detached);

} // namespace belay

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::channel_config)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transport::page)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(belay::transport::send_result)
