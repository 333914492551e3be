// Supervision: every supervisor restarts what it supervises (actors/actors.hpp). An actor
// is ended here with the exit reason an uncaught exception gives it in CAF 0.17
// (sec::runtime_error), which its supervisor cannot tell from a real one.
#include "actors/storage_router.hpp"
#include "support/http_sink.hpp"
#include "support/policies.hpp"
#include "support/test_node.hpp"

#include <caf/send.hpp>
#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

void crash(const caf::actor& actor) {
  caf::anon_send(actor,
                 caf::exit_msg{caf::actor_addr{},
                               caf::make_error(caf::sec::runtime_error, "injected")});
}

template <class Handle> void crash(const Handle& actor) {
  crash(caf::actor_cast<caf::actor>(actor));
}

struct supervision_fixture {
  test::test_database db;
  test::http_sink sink;
  int64_t org = 0;

  supervision_fixture() {
    db.provision(test::ladder_org(sink.url("/hook")));
    org = db.org_id("acme");
  }
  size_t pages_to(const std::string& target) {
    size_t n = 0;
    for (auto& r : sink.requests())
      if (r.body.find("\"target\":\"" + target + "\"") != std::string::npos)
        ++n;
    return n;
  }
};

} // namespace

TEST_CASE_METHOD(supervision_fixture,
                 "a storage worker that dies is replaced, and triggers and pages go on") {
  test::test_node node{db};
  auto workers =
      node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
  REQUIRE(workers.size() == 2); // one in the incident lane, one in the other
  auto lane_worker = node.n.triggers.worker_for(org, "after-crash");
  for (auto& w : workers)
    crash(w);
  node.run();

  auto after =
      node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
  REQUIRE(after.size() == 2);
  for (size_t i = 0; i < after.size(); ++i)
    CHECK(after[i] != workers[i]);
  CHECK(node.n.triggers.worker_for(org, "after-crash") != lane_worker);

  // The fresh lane worker joined the registry: it takes triggers, and the registry holds
  // what it wrote, so the ladder runs (its steps use the incident lane, its pages the
  // other lane's claims and outcomes).
  auto r = node.trigger(org, "after-crash");
  REQUIRE(r.code == reply_code::ok);
  CHECK(r.created);
  CHECK(node.ask<registry_stats>(node.n.registry, atom::stats_v).held == 1);
  REQUIRE(sink.wait_for(1, 5s));
  CHECK(pages_to("#ops") == 1);
  node.advance(300s);
  REQUIRE(sink.wait_for(2, 5s));
  CHECK(pages_to("oncall") == 1);
}

TEST_CASE_METHOD(supervision_fixture,
                 "a channel actor that dies is started again from its configuration") {
  test::test_node node{db};
  auto channels =
      node.ask<std::vector<channel_actor>>(node.n.dispatcher, atom::children_v);
  REQUIRE(channels.size() == 1);
  crash(channels[0]);
  node.run();

  auto after = node.ask<std::vector<channel_actor>>(node.n.dispatcher, atom::children_v);
  REQUIRE(after.size() == 1);
  CHECK(after[0] != channels[0]);
  CHECK(node.ask<channel_view>(after[0], atom::view_v).config.name == "hook");

  node.trigger(org, "paged-after-crash");
  REQUIRE(sink.wait_for(1, 5s));
  CHECK(pages_to("#ops") == 1);
}
