// Blocking actors for HTTP threads to wait on actors with, kept for reuse: making and
// destroying a caf::scoped_actor per request costs about as much CPU as the rest of the
// request's round trip through CAF (bench/README.md).
#pragma once

#include <caf/scoped_actor.hpp>
#include <memory>
#include <mutex>
#include <vector>

namespace belay {

class caller_pool {
public:
  using caller = std::unique_ptr<caf::scoped_actor>;

  // An idle caller, or a new one. Destroy the pool before the actor system.
  caller take(caf::actor_system& sys);
  // Only a caller whose mailbox is empty may come back: one that gave up waiting may
  // still get its late answer, so it is dropped instead.
  void give_back(caller c);

private:
  std::mutex mutex_;
  std::vector<caller> idle_;
};

} // namespace belay
