// A belay node on the simulated clock against a real, private database schema:
// storage workers run inline on the test scheduler, so time is fully controlled.
#pragma once

#include "actors/actors.hpp"
#include "actors/node.hpp"
#include "protocol/network.hpp"
#include "storage/actions.hpp"
#include "support/simulated_system.hpp"
#include "support/test_database.hpp"

#include <caf/event_based_actor.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

namespace belay::test {

// 127.0.0.0/8 and ::1: what the tests' sinks listen on, allowed as outbound targets
// (docs/guarantees.md#outbound-targets) by the fixtures that send to them.
std::vector<protocol::cidr> loopback_networks();

class test_node : public simulated_system {
public:
  // `db` must outlive the node; several nodes (one after another) may share it. `tune`
  // may change the options before the node starts (e.g. reach the database through a
  // fault_proxy).
  explicit test_node(test_database& db, micros wall_start = simulated_epoch,
                     std::string node_id = "test-node",
                     const std::function<void(node_options&)>& tune = {});
  ~test_node();

  trigger_reply trigger(trigger_command cmd);
  trigger_reply trigger(int64_t org, const std::string& key,
                        const std::string& policy = "default");
  transition_reply ack(int64_t org, int64_t id, const std::string& by = "alice");
  transition_reply resolve(int64_t org, int64_t id, const std::string& by = "bob");
  // A note, escalate, snooze, reassign or priority (storage/actions.hpp), by "alice"
  // through the API unless `action.who` says otherwise.
  storage::action_reply act(incident_action action);
  size_t adopt();
  // What the registry holds and has done so far.
  registry_stats stats() { return ask<registry_stats>(n.registry, atom::stats_v); }

  // Sends a request from a short-lived actor on the test scheduler, runs the
  // scheduler until everything settles, and returns the answer.
  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& whom, Ts&&... xs) {
    auto out = std::make_shared<std::optional<Reply>>();
    auto failure = std::make_shared<std::string>();
    auto msg = caf::make_message(std::forward<Ts>(xs)...);
    // The target travels as an argument: CAF 0.17 trips UBSan on argument-less spawns.
    sys.spawn(
        [out, failure](caf::event_based_actor* self, caf::actor target, caf::message m) {
          self->request(target, caf::infinite, std::move(m))
              .then([out](Reply& r) { *out = std::move(r); },
                    [failure](caf::error& e) { *failure = to_string(e); });
        },
        caf::actor_cast<caf::actor>(whom), std::move(msg));
    run();
    if (!failure->empty())
      throw std::runtime_error("request failed: " + *failure);
    if (!*out)
      throw std::runtime_error("no answer after running the scheduler");
    return std::move(**out);
  }

  void stop();

  test_database& db;
  node n;
  bool stopped = false;
};

} // namespace belay::test
