#include "http/callers.hpp"

namespace belay {

caller_pool::caller caller_pool::take(caf::actor_system& sys) {
  {
    std::lock_guard lock{mutex_};
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  return std::make_unique<caf::scoped_actor>(sys);
}

void caller_pool::give_back(caller c) {
  std::lock_guard lock{mutex_};
  idle_.push_back(std::move(c));
}

} // namespace belay
