#include "actors/clock.hpp"

#include <chrono>

namespace belay {

micros system_micros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

wall_clock system_wall_clock() {
  wall_clock c;
  c.source = &system_micros;
  return c;
}

wall_clock anchor_to_system_time(caf::actor_clock::time_point now) {
  return wall_clock{system_micros(), now, nullptr};
}

} // namespace belay
