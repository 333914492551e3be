// Every internal request has a deadline (docs/guarantees.md#nothing-waits-for-ever), the
// busiest ones too: a step's write, a claim and an outcome whose storage worker died
// holding them are given up after deps::request_timeout (35 s) and written again. Each
// write is a compare-and-set, so nothing is paged twice for it.
#include "support/crash_worker.hpp"
#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/policies.hpp"

#include <caf/send.hpp>
#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

struct lost_request_fixture : test::database_fixture {
  test::http_sink sink;

  lost_request_fixture() {
    db.provision(test::ladder_org(sink.url("/hook")));
    org = db.org_id("acme");
  }
  size_t pages_to(const std::string& target) {
    size_t n = 0;
    for (auto& r : sink.requests())
      n += r.body.find("\"target\":\"" + target + "\"") != std::string::npos;
    return n;
  }
  // The worker that is not `lane`'s: claims and outcomes. Runs the scheduler.
  storage_worker_actor other_worker(test::test_node& node,
                                    const storage_worker_actor& lane) {
    auto all =
        node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
    return all[0] == lane ? all[1] : all[0];
  }
  // A trigger sent without running the scheduler: the test runs it message by message.
  void send_trigger(test::test_node& node, const std::string& key) {
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

} // namespace

TEST_CASE_METHOD(lost_request_fixture,
                 "a step write whose storage worker died holding it is written again "
                 "after its deadline, and the ladder goes on") {
  test::test_node node{db};
  node.trigger(org, "step-lost");
  REQUIRE(pages_to("#ops") == 1);
  node.advance(299s);
  node.sched.advance_time(1s); // the second step is due
  // The lane worker's next message is the step's write.
  REQUIRE(test::crash_after(node, node.n.triggers.worker_for(org, "step-lost"), 1));
  node.run();
  REQUIRE(pages_to("oncall") == 0);
  REQUIRE(db.sql().query("SELECT current_step FROM incident").int64(0, 0) == 1);
  node.advance(60s);
  CHECK(pages_to("oncall") == 1);
  node.advance(900s);
  CHECK(pages_to("lead") == 1);
  CHECK(pages_to("oncall") == 1);
}

TEST_CASE_METHOD(lost_request_fixture,
                 "a claim whose storage worker died holding it is made again after its "
                 "deadline, and the page goes out") {
  test::test_node node{db};
  auto other = other_worker(node, node.n.triggers.worker_for(org, "claim-lost"));
  send_trigger(node, "claim-lost");
  // Its first message is the channel's claim.
  REQUIRE(test::crash_after(node, other, 1));
  node.run();
  REQUIRE(delivery_status("#ops") == "PENDING");
  node.advance(60s);
  CHECK(pages_to("#ops") == 1);
  CHECK(delivery_status("#ops") == "SENT");
}

TEST_CASE_METHOD(
    lost_request_fixture,
    "an outcome whose storage worker died holding it is recorded again after "
    "its deadline, and the page is not sent twice") {
  test::test_node node{db};
  auto other = other_worker(node, node.n.triggers.worker_for(org, "outcome-lost"));
  send_trigger(node, "outcome-lost");
  // The claim, the commit it sent itself, then the page's outcome.
  REQUIRE(test::crash_after(node, other, 3));
  node.run();
  REQUIRE(delivery_status("#ops") == "CLAIMED");
  REQUIRE(pages_to("#ops") == 1);
  node.advance(60s);
  CHECK(delivery_status("#ops") == "SENT");
  node.advance(600s); // the claim's lease (300 s) is long over
  CHECK(pages_to("#ops") == 1);
}
