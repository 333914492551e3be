#include "actors/node.hpp"

#include "actors/channel.hpp"
#include "actors/dispatcher.hpp"
#include "actors/heartbeats.hpp"
#include "actors/registry.hpp"
#include "storage/incidents.hpp"
#include "storage/listener.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <sstream>

namespace belay {

void configure(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::belay>();
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
}

node start_node(caf::actor_system& sys, const node_options& opts, wall_clock clock) {
  node n;
  auto storage = spawn_storage(sys, opts.database_url, opts.storage_workers,
                               opts.detached_io, opts.commit_linger);
  n.storage = storage.router;
  n.triggers = storage.triggers;
  n.d.storage = n.storage;
  n.d.clock = clock;
  n.d.node_id = opts.node_id;
  n.d.lease_seconds = opts.lease_seconds;
  n.d.orphan_sweep_seconds = opts.orphan_sweep_seconds;
  n.d.request_timeout = opts.request_timeout;
  n.d.adopt_page_size = std::max(1, opts.adopt_page_size);
  n.d.retention_days = opts.retention_days;
  n.d.audit_retention_days = opts.audit_retention_days;
  n.d.answers = std::make_shared<const transport::answer_links>(opts.answers);
  dispatcher_options dopts;
  dopts.delivery.claim_lease_seconds = opts.claim_lease_seconds;
  dopts.delivery.concurrency = std::max<size_t>(1, opts.senders);
  dopts.delivery.detached = opts.detached_io;
  dopts.poll_interval =
      std::chrono::microseconds{static_cast<int64_t>(opts.poll_seconds * 1e6)};
  n.dispatcher = sys.spawn(dispatcher, dopts, n.d);
  n.d.dispatcher = n.dispatcher;
  n.registry = sys.spawn(registry, n.d);
  // Sent before start_node returns, so each worker's mailbox holds it ahead of any
  // trigger: nothing can send one before there is a node to send it to. The router
  // keeps it for the workers it starts in place of ones that die.
  trigger_owner owner{n.registry, clock, opts.node_id, opts.lease_seconds};
  for (auto& worker : n.triggers.workers())
    caf::anon_send(worker, atom::join_lane_v, owner);
  caf::anon_send(n.storage, atom::join_lane_v, owner);
  // After the joins: its incidents go through the trigger lane.
  n.heartbeats = sys.spawn(heartbeats, n.d, n.registry, n.triggers);
  storage::listener_timing timing;
  timing.grace =
      std::chrono::milliseconds{static_cast<int64_t>(opts.listener_grace_seconds * 1000)};
  if (opts.detached_io)
    n.listener = std::make_shared<storage::listener>(
        opts.database_url, storage::incident_channel,
        [registry = n.registry](const std::string& payload) {
          int64_t org = 0, id = 0;
          if (std::istringstream{payload} >> org >> id)
            caf::anon_send(registry, atom::settled_v, org, id);
        },
        [registry = n.registry] { caf::anon_send(registry, atom::catch_up_v); }, timing);
  return n;
}

void stop_node(caf::actor_system&, node& n) {
  n.listener.reset();
  caf::anon_send_exit(n.heartbeats, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(n.registry, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(n.dispatcher, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(n.storage, caf::exit_reason::user_shutdown);
}

} // namespace belay
