#include "protocol/ladder.hpp"

#include <cmath>

namespace belay {

micros seconds_to_micros(double s) {
  return static_cast<micros>(std::llround(s * 1e6));
}

ladder_position advance(const policy& p, int step, int loop, micros fired_at) {
  auto steps = static_cast<int>(p.steps.size());
  if (step + 1 < steps)
    return {step + 1,
            loop,
            fired_at + seconds_to_micros(p.steps[step + 1].delay_seconds),
            {}};
  if (loop < p.repeat) {
    auto gap = p.repeat_delay_seconds.value_or(p.steps.back().delay_seconds);
    return {0, loop + 1, fired_at + seconds_to_micros(gap), {}};
  }
  return {steps, loop, fired_at + seconds_to_micros(p.grace_seconds), fired_at};
}

} // namespace belay
