// What the tests of requests lost inside a node share
// (tests/actors/lost_request_test.cpp, tests/actors/claim_faults_test.cpp): org "acme"'s
// ladder (tests/support/policies.hpp) paging a webhook sink, and ways to run a node's
// scheduler message by message up to the instant a fault is injected.
#pragma once

#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/policies.hpp"
#include "support/test_node.hpp"

#include <caf/scheduled_actor.hpp>
#include <caf/send.hpp>
#include <functional>
#include <string>
#include <vector>

namespace belay::test {

struct lost_request_fixture : database_fixture {
  http_sink sink;

  lost_request_fixture()
      : lost_request_fixture(
            [](const http_sink& s) { return ladder_org(s.url("/hook")); }) {}
  // Org "acme" as `document` provisions it, given the sink.
  explicit lost_request_fixture(
      const std::function<std::string(const http_sink&)>& document) {
    db.provision(document(sink));
    org = db.org_id("acme");
  }
  size_t pages_to(const std::string& target) {
    size_t n = 0;
    for (auto& r : sink.requests())
      n += r.body.find("\"target\":\"" + target + "\"") != std::string::npos;
    return n;
  }
  // The worker that is not `lane`'s: claims and outcomes. Runs the scheduler.
  storage_worker_actor other_worker(test_node& node, const storage_worker_actor& lane) {
    auto all =
        node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
    return all[0] == lane ? all[1] : all[0];
  }
  // A trigger sent without running the scheduler: the test runs it message by message.
  void send_trigger(test_node& node, const std::string& key) {
    trigger_command cmd;
    cmd.org_id = org;
    cmd.dedup_key = key;
    cmd.title = "incident " + key;
    cmd.policy = "default";
    caf::anon_send(node.n.triggers.worker_for(org, key), atom::trigger_v, std::move(cmd));
  }
  std::string delivery_status(const std::string& target) {
    return db.sql()
        .query("SELECT status FROM delivery WHERE target = $1", target)
        .str(0, 0);
  }
};

// Runs `node`'s scheduler message by message until the actor about to run next makes
// `stop` true (it is left to run); false if nothing was left to run before that.
template <class Stop> bool run_until(test_node& node, Stop stop) {
  while (node.sched.has_job()) {
    if (stop(node.sched.next_job<caf::scheduled_actor>()))
      return true;
    node.sched.run_once();
  }
  return false;
}

template <class Handle> bool is(const caf::scheduled_actor& actor, const Handle& handle) {
  return static_cast<const caf::abstract_actor*>(&actor) ==
         caf::actor_cast<caf::abstract_actor*>(handle);
}

} // namespace belay::test
