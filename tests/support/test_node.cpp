#include "support/test_node.hpp"

#include "actors/transport/transport.hpp"

namespace belay::test {

std::vector<protocol::cidr> loopback_networks() {
  return std::get<std::vector<protocol::cidr>>(
      protocol::parse_cidr_list("127.0.0.0/8,::1"));
}

test_node::test_node(test_database& database, micros wall_start, std::string node_id,
                     const std::function<void(node_options&)>& tune)
    : simulated_system(wall_start), db(database) {
  // The tests' sinks listen on loopback, which outbound targets may not be otherwise.
  transport::set_allowed_target_networks(loopback_networks());
  node_options opts;
  opts.database_url = db.url();
  opts.node_id = std::move(node_id);
  opts.storage_workers = 2;
  opts.detached_io = false;
  opts.senders = 2;
  opts.poll_seconds = 60; // simulated hours stay cheap
  opts.orphan_sweep_seconds = 60;
  if (tune)
    tune(opts);
  n = start_node(sys, opts, clock);
  run();
}

test_node::~test_node() {
  stop();
}

void test_node::stop() {
  if (stopped)
    return;
  stopped = true;
  stop_node(sys, n);
  run();
}

trigger_reply test_node::trigger(trigger_command cmd) {
  auto worker = n.triggers.worker_for(cmd.org_id, cmd.dedup_key);
  return ask<trigger_reply>(worker, atom::trigger_v, std::move(cmd));
}

trigger_reply test_node::trigger(int64_t org, const std::string& key,
                                 const std::string& policy) {
  trigger_command cmd;
  cmd.org_id = org;
  cmd.dedup_key = key;
  cmd.title = "incident " + key;
  cmd.policy = policy;
  return trigger(std::move(cmd));
}

transition_reply test_node::ack(int64_t org, int64_t id, const std::string& by) {
  return ask<transition_reply>(n.registry, atom::transition_v,
                               transition_command{org, id, {}, transition::ack, by});
}

transition_reply test_node::resolve(int64_t org, int64_t id, const std::string& by) {
  return ask<transition_reply>(n.registry, atom::transition_v,
                               transition_command{org, id, {}, transition::resolve, by});
}

storage::action_reply test_node::act(incident_action action) {
  if (action.who.actor.empty())
    action.who = {"alice", "api", "127.0.0.1"};
  return ask<storage::action_reply>(n.registry, atom::act_v, std::move(action));
}

size_t test_node::adopt() {
  return ask<size_t>(n.registry, atom::adopt_v);
}

} // namespace belay::test
