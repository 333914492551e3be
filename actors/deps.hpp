// What every actor of a node is given at spawn time. The defaults here are the node's
// (node_options and the settings take theirs from these).
#pragma once

#include "actors/actors.hpp"
#include "actors/clock.hpp"

#include <caf/timespan.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace belay {

struct deps {
  storage_actor storage; // the storage router (actors/storage_router.hpp)
  dispatcher_actor
      dispatcher; // delivery: nudged when a step inserts deliveries; may be empty
  wall_clock clock;
  std::string node_id;
  double lease_seconds = 30;       // renewed every third of it
  double orphan_sweep_seconds = 5; // how often the registry sweeps for orphans; 0: never
  // Resolved incidents older than this are deleted, a batch a minute, by the sweep
  // (docs/guarantees.md#retention); 0: kept for ever.
  double retention_days = 90;
  // Audit log rows older than this are deleted with the same sweep
  // (docs/security.md#audit-log); 0: kept for ever.
  double audit_retention_days = 400;
  caf::timespan db_retry = std::chrono::seconds{1}; // back-off after a storage error
  // How often an incident held by a maintenance window asks whether the window ended
  // early (deleted, on any node); at its end it asks at once
  // (docs/guarantees.md#maintenance-windows).
  caf::timespan maintenance_poll = std::chrono::seconds{10};
  // Every request to another actor has a deadline
  // (docs/guarantees.md#nothing-waits-for-ever): a storage operation answers within the
  // statement timeout plus the reply timeout's margin. The hot paths (a step's write, a
  // claim, an outcome) have it too: a worker that dies holding one may never answer it,
  // and without a deadline the incident or the claim waited for ever (a timer each:
  // 20,000 steps at once cost +6 MiB of RSS). Whoever waited retries; each of those
  // writes is a compare-and-set, so a retry of one that committed unseen finds its work
  // done.
  caf::timespan request_timeout = std::chrono::seconds{35};
  // A send's deadline is its channel's timeout plus this: the transport gives up first
  // (libcurl's CURLOPT_TIMEOUT_MS); a sender that still has not answered is given up
  // on, its page recorded as an ambiguous attempt and retried.
  caf::timespan send_margin = std::chrono::seconds{5};
  int adopt_page_size = 10000; // incidents per page of the adoption at start
  // The way back every page carries (docs/guarantees.md#answering-the-page); shared,
  // since every actor has a copy of these deps and only channels read it. Null: pages
  // carry no link.
  std::shared_ptr<const transport::answer_links> answers;
};

} // namespace belay
