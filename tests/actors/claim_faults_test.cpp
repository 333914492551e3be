// Claims are never left to the 300 s lease by a fault inside the node
// (docs/guarantees.md#g6, docs/guarantees.md#nothing-waits-for-ever): a claim whose batch
// lost its COMMIT reply fails rather than run again, and a channel actor started again
// after a crash releases what its last life claimed; either way its next claim takes the
// rows back at once, throttling channels (storage::claim_contacts) as the others.
#include "support/crash_worker.hpp"
#include "support/lost_request_fixture.hpp"
#include "support/postgres_proxy.hpp"
#include "support/sms_org.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;
using test::lost_request_fixture;

namespace {

// Channel "sms" is throttled: its claims are storage::claim_contacts.
struct sms_fixture : lost_request_fixture {
  sms_fixture()
      : lost_request_fixture(
            [](const test::http_sink& s) { return test::sms_org(s.url("/twilio")); }) {}
};

// Crashes the node's channel once the claim of the delivery to `target` has committed
// and its answer waits in the channel's mailbox: the actor that claimed the row is gone,
// and the row is CLAIMED by this node. The test runs the rest.
void crash_channel_holding(lost_request_fixture& f, test::test_node& node,
                           const std::string& target) {
  auto channels =
      node.ask<std::vector<channel_actor>>(node.n.dispatcher, atom::children_v);
  REQUIRE(channels.size() == 1);
  f.send_trigger(node, "claimed-then-crashed");
  REQUIRE(test::run_until(node, [&](const caf::scheduled_actor& next) {
    return test::is(next, channels[0]) &&
           f.count("SELECT count(*) FROM delivery WHERE target = $1 AND status = "
                   "'CLAIMED'",
                   target) == 1;
  }));
  test::crash_now(channels[0]);
}

// The page to `target` (`sent()` of them so far) is sent once the channel that crashed
// holding its claim is started again (within `wait`: a throttle may hold it), well before
// the lease, and never again.
template <class Sent>
void sent_once_after_restart(lost_request_fixture& f, const std::string& target,
                             Sent sent, caf::timespan wait = caf::timespan{0}) {
  test::test_node node{f.db};
  crash_channel_holding(f, node, target);
  node.run(); // the dispatcher starts the channel again
  node.advance(wait);
  CHECK(sent() == 1);
  CHECK(f.delivery_status(target) == "SENT");
  node.advance(600s); // the lease (300 s) is long over
  CHECK(sent() == 1);
}

} // namespace

TEST_CASE_METHOD(lost_request_fixture,
                 "a claim batched with other work whose COMMIT reply is lost fails, and "
                 "its rows are claimed again at once, not after the lease") {
  test::postgres_proxy pg;
  test::test_node node{db, test::simulated_epoch, "test-node",
                       [&](node_options& o) { o.database_url = pg.url(db); }};
  auto workers =
      node.ask<std::vector<storage_worker_actor>>(node.n.storage, atom::children_v);
  auto channels =
      node.ask<std::vector<channel_actor>>(node.n.dispatcher, atom::children_v);
  send_trigger(node, "claim-in-batch");
  // The channel is nudged by the step's write and asks for its claim; a read queued on
  // each worker ahead of it makes the worker write the claim in a batch with the read:
  // BEGIN, both, COMMIT, whose reply is lost.
  REQUIRE(test::run_until(node, [&](const caf::scheduled_actor& next) {
    return test::is(next, channels[0]) &&
           count("SELECT count(*) FROM delivery WHERE status = 'PENDING'") == 1;
  }));
  node.sched.run_once();
  pg.proxy.drop_after_commit();
  for (auto& w : workers)
    caf::anon_send(w, atom::load_channels_v);
  node.run();
  REQUIRE(pg.proxy.drops() == 1);
  REQUIRE(delivery_status("#ops") != "PENDING"); // the lost batch committed the claim

  node.advance(5s); // the channel's back-off after a failed claim is 1 s
  CHECK(pages_to("#ops") == 1);
  CHECK(delivery_status("#ops") == "SENT");
  node.advance(600s); // the lost claim's lease (300 s) is long over
  CHECK(pages_to("#ops") == 1);
}

TEST_CASE_METHOD(lost_request_fixture,
                 "a channel actor started again after a crash sends what its last life "
                 "claimed at once, not after the lease") {
  sent_once_after_restart(*this, "#ops", [&] { return pages_to("#ops"); });
}

TEST_CASE_METHOD(sms_fixture,
                 "a throttling channel started again after a crash sends what its last "
                 "life claimed at once, not after the lease") {
  // Released at once (PENDING), the page then waits for the throttle to open (a minute)
  // before it goes.
  sent_once_after_restart(
      *this, "+15550002222", [&] { return sink.requests().size(); }, 61s);
}
