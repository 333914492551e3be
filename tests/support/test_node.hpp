// A belay node on the simulated clock against a real, private database schema:
// storage workers run inline on the test scheduler, so time is fully controlled.
#pragma once

#include "actors/fwd.hpp"
#include "actors/node.hpp"
#include "support/simulated_system.hpp"
#include "support/test_database.hpp"

#include <caf/scoped_actor.hpp>

#include <stdexcept>

namespace belay::test {

class test_node : public simulated_system {
public:
  // `db` must outlive the node; several nodes (one after another) may share it.
  explicit test_node(test_database& db, micros wall_start = simulated_epoch,
                     std::string node_id = "test-node");
  ~test_node();

  trigger_reply trigger(trigger_command cmd);
  trigger_reply trigger(int64_t org, const std::string& key,
                        const std::string& policy = "default");
  transition_reply ack(int64_t org, int64_t id, const std::string& by = "alice");
  transition_reply resolve(int64_t org, int64_t id, const std::string& by = "bob");
  size_t adopt();

  // Sends a request, runs the scheduler until it is answered, returns the answer.
  template <class Reply, class... Ts>
  Reply ask(const caf::actor& whom, Ts&&... xs) {
    caf::scoped_actor self{sys};
    self->request(whom, caf::infinite, std::forward<Ts>(xs)...);
    run();
    Reply out{};
    bool answered = false;
    self->receive([&](Reply& r) { out = std::move(r), answered = true; },
                  [&](caf::error& e) { throw std::runtime_error(to_string(e)); },
                  caf::after(std::chrono::seconds{0}) >> [] {});
    if (!answered)
      throw std::runtime_error("no answer after running the scheduler");
    return out;
  }

  void stop();

  test_database& db;
  node n;
  bool stopped = false;
};

} // namespace belay::test
