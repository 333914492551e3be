// One belay node: the actor system's long-lived actors, wired together.
#pragma once

#include "actors/deps.hpp"
#include "actors/dispatcher.hpp"
#include "actors/storage_router.hpp"
#include "storage/listener.hpp"

#include <caf/actor_system_config.hpp>
#include <chrono>
#include <memory>
#include <string>

namespace belay {

// Every default is the one of the part that takes the option (deps, the delivery and
// dispatcher options, the NOTIFY listener), so each is written once; the settings take
// theirs from here (config/settings.hpp).
struct node_options {
  std::string database_url;
  std::string node_id;
  size_t storage_workers = 4; // database connections, half of them the incident lane
  double lease_seconds = deps{}.lease_seconds;
  bool detached_io = true;        // false in tests: everything runs on the test scheduler
  caf::timespan commit_linger{0}; // belay serve: storage_commit_linger
  // Per channel: threads making its blocking transport calls.
  size_t senders = delivery_options{}.concurrency;
  double claim_lease_seconds = delivery_options{}.claim_lease_seconds;
  // How often lapsed claims are released and channels polled.
  double poll_seconds =
      std::chrono::duration<double>{dispatcher_options{}.poll_interval}.count();
  // How often overdue incidents without an actor are looked for
  // (docs/guarantees.md#every-accepted-event-pages); 0: never.
  double orphan_sweep_seconds = deps{}.orphan_sweep_seconds;
  caf::timespan request_timeout = deps{}.request_timeout; // deadline of every request
  int adopt_page_size = deps{}.adopt_page_size; // incidents per page of the adoption
  // A silent NOTIFY connection counts as lost after this long.
  double listener_grace_seconds =
      std::chrono::duration<double>{storage::listener_timing{}.grace}.count();
  // Resolved incidents older are deleted by the sweep; 0: never.
  double retention_days = deps{}.retention_days;
  double audit_retention_days = deps{}.audit_retention_days;
  // The public URL and signing secret of the links in every page
  // (docs/guarantees.md#answering-the-page); without a secret pages carry no link.
  transport::answer_links answers;
};

// Registers belay's message types and quiets CAF's own logger.
void configure(caf::actor_system_config& cfg);

struct node {
  storage_router_actor storage; // every storage operation but triggers
  trigger_lane triggers;        // where triggers go (actors/trigger_lane.hpp)
  dispatcher_actor dispatcher;
  registry_actor registry;
  heartbeat_actor heartbeats; // the heartbeat monitors this node holds
  // Hears acknowledges and resolves committed through other nodes (none in tests on
  // the test scheduler).
  std::shared_ptr<storage::listener> listener;
  deps d;
};

node start_node(caf::actor_system& sys, const node_options& opts, wall_clock clock);

// Stops the node's actors; in-flight work ends with them.
void stop_node(caf::actor_system& sys, node& n);

} // namespace belay
