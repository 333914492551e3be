// G4 (docs/guarantees.md#g4) at the channel: a page that waited for a sender, however
// briefly, is checked against its incident again before it is sent. The simulated clock
// stands still while the real sink answers, so every wait here is shorter than any
// interval a check could be trusted for: only "no wait since the check" passes.
#include "storage/incidents.hpp"
#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Org "acme": policy "five" pages five people at once on channel "hook" -> `sink`.
std::string five_people(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"(","timeoutSeconds":5}],
    "policies":[{"name":"five","steps":[{"delaySeconds":0,"targets":[
      {"channel":"hook","to":"p1"},{"channel":"hook","to":"p2"},{"channel":"hook","to":"p3"},
      {"channel":"hook","to":"p4"},{"channel":"hook","to":"p5"}]}]}]}]})";
}

} // namespace

TEST_CASE_METHOD(test::database_fixture,
                 "an acknowledge committed while the first page is on the wire stops the "
                 "four claimed with it, which waited for the one sender") {
  test::http_sink sink;
  sink.set_delay(1s); // the first page's send, during which the acknowledge commits
  db.provision(five_people(sink));
  org = db.org_id("acme");
  test::test_node node{db, test::simulated_epoch, "test-node",
                       [](node_options& o) { o.senders = 1; }};
  bool acked = false;
  auto at = node.now();
  std::thread operator_([&] {
    if (!sink.wait_for(1, 20s))
      return;
    storage::connection c{db.url()};
    transition_command cmd{org, 0, "claimed-together", transition::ack, "alice"};
    acked = storage::apply_transition(c, cmd, at).code == reply_code::ok;
  });
  node.trigger(org, "claimed-together", "five");
  node.run();
  operator_.join();
  REQUIRE(acked);
  CHECK(sink.count() == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'CANCELLED'") == 4);
}
