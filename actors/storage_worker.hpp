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
  // How long the first operation to reach an idle worker waits for others to join its
  // commit (storage_commit_linger); zero writes it at once.
  caf::timespan linger{0};
  // Why the last attempt to connect failed, within the batches being written now: they
  // fail at once rather than each waiting for its own connect timeout.
  std::optional<std::string> unreachable;
  std::optional<trigger_owner> owner; // workers of the incident lane only
  std::mt19937_64 mark_ids{std::random_device{}()};
  int64_t last_mark = 0;        // the mark of the last trigger write that committed
  storage::trigger_hints hints; // which trigger statement to try first
};

// What belay serve gives the incident lane's workers as their linger (spawn_storage).
// Below the closed-loop rate a commit carries one event or a few (1.7 at 1,600
// events/s, 4.7 at 4,200/s), and the trigger statement costs PostgreSQL ~350 µs however
// few it carries. Waiting 1 ms for company took PostgreSQL from 0.58 to 0.52 cores at
// 4,200/s and from 0.64 to 0.55 in the closed loop, and the p99 at 4,200/s from 171 to 78
// ms (medians of 3 interleaved rounds with every worker lingering; 2 ms: 74 ms, but
// ingest-new 7% lower by median; the incident lane alone: PostgreSQL −10% in ingest-new),
// for 1 ms more on a lone request (bench/JOURNAL.md, 6 December, eleventh session). Tests
// keep zero: on the simulated clock a linger would wait for the test to advance time.
inline constexpr caf::timespan storage_commit_linger = std::chrono::milliseconds{1};

storage_worker_actor::behavior_type
storage_worker(storage_worker_actor::stateful_pointer<storage_worker_state> self,
               std::string url, caf::timespan linger);

// A worker on a connection to `url`, on a thread of its own if `detached`, whose first
// operation after a commit waits `linger` for others to join it.
storage_worker_actor spawn_storage_worker(caf::actor_system& sys, const std::string& url,
                                          bool detached, caf::timespan linger = {});

} // namespace belay
