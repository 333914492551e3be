// The storage actor: a pool of workers, each with its own PostgreSQL connection,
// that run blocking database jobs off CAF's cooperative threads. Production spawns
// the workers detached (a thread each); tests spawn them inline so the simulated
// clock and the deterministic scheduler drive everything.
#pragma once

#include "actors/fwd.hpp"

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/message.hpp>

#include <string>
#include <type_traits>

namespace belay {

caf::actor spawn_storage(caf::actor_system& sys, const std::string& database_url,
                         size_t workers, bool detached);

// Wraps a typed job (R(storage::connection&)) for the storage actor.
template <class Job>
db_job make_db_job(Job job) {
  return [job = std::move(job)](storage::connection& c) { return caf::make_message(job(c)); };
}

} // namespace belay
