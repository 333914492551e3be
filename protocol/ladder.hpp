// Escalation arithmetic, free of actors and I/O. Step i fires at fire(i-1) + delay(i),
// counted from scheduled times, so the schedule never drifts with slow sends. Step 0's
// time is written by the trigger statement itself (storage/triggers.cpp), which reads
// the policy where it writes the incident.
#pragma once

#include "protocol/model.hpp"

#include <optional>

namespace belay {

struct ladder_position {
  int step = 0; // == steps.size() once the last loop is done (the grace period runs)
  int loop = 0;
  micros fire_at = 0;
  std::optional<micros> exhausted_at;
};

// Where the ladder stands after (step, loop) fired at its scheduled time `fired_at`.
ladder_position advance(const policy& p, int step, int loop, micros fired_at);

micros seconds_to_micros(double s);

} // namespace belay
