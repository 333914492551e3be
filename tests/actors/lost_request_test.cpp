// Every internal request has a deadline (docs/guarantees.md#nothing-waits-for-ever), the
// busiest ones too: a step's write, a claim and an outcome whose storage worker died
// holding them are given up after deps::request_timeout (35 s) and written again. Each
// write is a compare-and-set, so nothing is paged twice for it. A worker whose write
// meets a bug fails the request at once and lives on.
#include "actors/test_hooks.hpp"
#include "support/crash_worker.hpp"
#include "support/lost_request_fixture.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace belay;
using namespace std::chrono_literals;
using test::lost_request_fixture;

namespace {

// A storage worker meets a bug (an exception that is not a database error) right before
// it writes the ladder's next step, once; the hook is cleared when the test ends.
struct step_write_bug {
  int thrown = 0;
  step_write_bug() {
    test_hooks::before_storage_write = [this](std::string_view lane) {
      if (lane == "steps" && thrown++ == 0)
        throw std::logic_error("injected: a bug in the step's write");
    };
  }
  ~step_write_bug() { test_hooks::before_storage_write = {}; }
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

TEST_CASE_METHOD(lost_request_fixture,
                 "a step write that a storage worker's bug throws out of fails at once, "
                 "and the ladder goes on with the same worker") {
  test::test_node node{db};
  node.trigger(org, "step-bug");
  REQUIRE(pages_to("#ops") == 1);
  auto workers =
      node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
  {
    step_write_bug bug;
    node.advance(300s); // the second step is due: its write throws
    REQUIRE(bug.thrown == 1);
  }
  REQUIRE(pages_to("oncall") == 0);
  // Failed, the write is made again after the incident's back-off (1 s), well before
  // its deadline (35 s) would have given up waiting for an answer.
  node.advance(5s);
  CHECK(pages_to("oncall") == 1);
  CHECK(node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v) ==
        workers);
  node.advance(900s);
  CHECK(pages_to("lead") == 1);
  CHECK(pages_to("oncall") == 1);
}
