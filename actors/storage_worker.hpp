// A storage worker (storage_worker_actor in actors/actors.hpp): the storage operations
// on its own PostgreSQL connection, off CAF's cooperative threads. Production spawns the
// workers detached (a thread each); tests spawn them inline so the simulated clock and
// the deterministic scheduler drive everything. The storage router spawns them and
// replaces one that dies.
//
// Group commit (actors/storage_batch.hpp): a worker runs every operation that queued up
// while it was busy in one transaction and answers only after COMMIT. When a batch
// fails, it is rolled back and each operation runs again on its own, so one bad
// operation cannot fail its neighbours. The workers of the incident lane also take the
// triggers of their shard (actors/trigger_lane.hpp).
#pragma once

#include "actors/actors.hpp"
#include "actors/storage_batch.hpp"
#include "actors/trigger_lane.hpp"

#include <memory>
#include <optional>
#include <random>
#include <string>

namespace belay {

// The most operations a worker queues: 16 full batches, written in well under a second
// by a healthy database; with one too slow or out of reach, more are refused at once
// (belay_storage_refused_total) rather than waiting without bound.
inline constexpr size_t storage_queue_limit = 16 * max_batch;

struct storage_worker_state {
  static inline const char* name = "storage";
  std::string url;
  std::unique_ptr<storage::connection> conn;
  batch queued;
  batch running; // the batch being written now (failed whole if the worker dies)
  bool commit_pending = false;
  // Why the last attempt to connect failed, within the batches being written now: they
  // fail at once rather than each waiting for its own connect timeout.
  std::optional<std::string> unreachable;
  std::optional<trigger_owner> owner; // workers of the incident lane only
  std::mt19937_64 mark_ids{std::random_device{}()};
  int64_t last_mark = 0;        // the mark of the last trigger write that committed
  storage::trigger_hints hints; // which trigger statement to try first
};

storage_worker_actor::behavior_type
storage_worker(storage_worker_actor::stateful_pointer<storage_worker_state> self,
               std::string url);

// A worker on a connection to `url`, on a thread of its own if `detached`.
storage_worker_actor spawn_storage_worker(caf::actor_system& sys, const std::string& url,
                                          bool detached);

} // namespace belay
