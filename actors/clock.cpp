#include "actors/clock.hpp"

#include <chrono>

namespace belay {

wall_clock anchor_to_system_time(caf::actor_clock::time_point now) {
  using namespace std::chrono;
  auto wall = duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
  return wall_clock{wall, now};
}

} // namespace belay
