// Wall-clock time derived from the actor system's clock. In production the actor
// clock is steady_clock; under test it is the simulated clock, so every timestamp
// the logic writes follows simulated time.
#pragma once

#include "protocol/model.hpp"

#include <caf/actor_clock.hpp>

namespace belay {

struct wall_clock {
  micros anchor_wall = 0; // wall time at anchor_steady
  caf::actor_clock::time_point anchor_steady{};

  micros at(caf::actor_clock::time_point t) const {
    using namespace std::chrono;
    return anchor_wall + duration_cast<microseconds>(t - anchor_steady).count();
  }
  // How long from `now` until wall time `when` (zero when already due).
  caf::timespan until(micros when, caf::actor_clock::time_point now) const {
    auto wait = when - at(now);
    return std::chrono::microseconds{wait > 0 ? wait : 0};
  }
};

// Anchors wall time to `now` on the given actor clock using the operating system's
// clock once, at start-up.
wall_clock anchor_to_system_time(caf::actor_clock::time_point now);

} // namespace belay
