// Wall-clock time as the logic sees it. Under test it is derived from the actor
// system's clock, the simulated one, so every timestamp the logic writes follows
// simulated time. In production it is the operating system's clock, read each time:
// anchored once at start, an NTP step or a paused VM would skew every fire time and
// lease of the process for the rest of its life, and leases are compared across nodes.
#pragma once

#include "protocol/model.hpp"

#include <caf/actor_clock.hpp>

namespace belay {

struct wall_clock {
  micros anchor_wall = 0; // wall time at anchor_steady
  caf::actor_clock::time_point anchor_steady{};
  // When set, the wall time is this source's, whatever `t` says (production).
  micros (*source)() = nullptr;

  // Wall time at actor-clock time `t` (every caller passes the actor clock's now).
  micros at(caf::actor_clock::time_point t) const {
    using namespace std::chrono;
    if (source)
      return source();
    return anchor_wall + duration_cast<microseconds>(t - anchor_steady).count();
  }
  // How long from `now` until wall time `when` (zero when already due).
  caf::timespan until(micros when, caf::actor_clock::time_point now) const {
    auto wait = when - at(now);
    return std::chrono::microseconds{wait > 0 ? wait : 0};
  }
};

// The operating system's wall clock, in microseconds since the epoch.
micros system_micros();

// Production: wall time read from the operating system each time.
wall_clock system_wall_clock();

// Anchors wall time to `now` on the given actor clock using the operating system's
// clock once (tests on the simulated clock build theirs from an epoch instead).
wall_clock anchor_to_system_time(caf::actor_clock::time_point now);

} // namespace belay
