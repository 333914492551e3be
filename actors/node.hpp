// One belay node: the actor system's long-lived actors, wired together.
#pragma once

#include "actors/deps.hpp"
#include "actors/storage.hpp"

#include <caf/actor_system_config.hpp>
#include <memory>
#include <string>

namespace belay::storage {
class listener;
}

namespace belay {

struct node_options {
  std::string database_url;
  std::string node_id;
  size_t storage_workers = 4;
  double lease_seconds = 30;
  bool detached_io = true; // false in tests: everything runs on the test scheduler
  size_t senders = 8;      // per channel: threads making its blocking transport calls
  double claim_lease_seconds = 300;
  double poll_seconds = 5; // how often lapsed claims are released and channels polled
  double orphan_sweep_seconds = 5; // how often overdue incidents without an actor are
                                   // looked for (DESIGN.md section 13); 0: never
  caf::timespan request_timeout = std::chrono::seconds{35}; // deadline of every request
  int adopt_page_size = 10000;        // incidents per page of the adoption at start
  double listener_grace_seconds = 10; // a silent NOTIFY connection counts as lost
  double retention_days =
      90; // resolved incidents older are deleted by the sweep; 0: never
  // The public URL and signing secret of the links in every page (DESIGN.md section
  // 11); without a secret pages carry no link.
  transport::answer_links answers;
};

// Registers belay's message types and quiets CAF's own logger.
void configure(caf::actor_system_config& cfg);

struct node {
  storage_router_actor storage; // every storage operation but triggers
  trigger_lane triggers;        // where triggers go (actors/storage.hpp)
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
