// A claim's lease on the way to its send (docs/guarantees.md#g6): a page re-checked with
// less than half of its lease left has the lease renewed (storage::recheck_claims), so
// that it cannot lapse while the page is on the wire and another node, whose poll
// releases lapsed claims (storage::release_expired_claims), claims and sends it again.
// Two nodes on the simulated clock share one database; each runs only when the test runs
// it, so which node holds what at each instant is the test's to say.
#include "support/lost_request_fixture.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string_view>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Org "acme": policy "default" pages two people at once on webhook channel "hook" ->
// `url`, whose sends give up after 5 s.
std::string two_people(const std::string& url) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         url + R"(","timeoutSeconds":5}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[
      {"channel":"hook","to":"p1"},{"channel":"hook","to":"p2"}]}]}]}]})";
}

struct renewal_fixture : test::lost_request_fixture {
  renewal_fixture()
      : lost_request_fixture(
            [](const test::http_sink& s) { return two_people(s.url()); }) {}
  // Requests the sink received, by Idempotency-Key.
  std::map<std::string, int> sends() {
    std::map<std::string, int> out;
    for (auto& r : sink.requests())
      ++out[r.header("Idempotency-Key")];
    return out;
  }
};

// Both nodes alike: one sender, a 12 s claim lease, lapsed claims released every second.
// A channel then holds two claims at most (claim_capacity(): a 12 s lease is two sends of
// the 5 s timeout and a second each), the second waiting for the sender.
void tune(node_options& o) {
  o.senders = 1;
  o.claim_lease_seconds = 12;
  o.poll_seconds = 1;
}

bool is_sender(const caf::scheduled_actor& actor) {
  return std::string_view{actor.name()} == "sender";
}

} // namespace

// The wait behind one send alone cannot use up half a lease: a channel claims only what
// its senders can start before the lease ends (claim_capacity()), so a page waits at most
// for sends its lease was sized for. What the renewal's margin is for is a wait that was
// not planned: here node A pauses for 9 s (a stopped VM, a starved process) the instant
// its first send returns, while the second page waits for the sender. Checked at 9 s, the
// second page has 3 s of its 12 s lease left, less than half: renewed, it is A's until
// 21 s. Its send then takes 4 s (the channel allows 5), during which node B polls every
// second; at 12 s, an unrenewed claim would have lapsed and B would release it, claim it
// and send the page again. A runs only when the test runs it, so A makes every claim and
// B, started with nothing due, finds nothing to claim but a lapsed claim of A's.
TEST_CASE_METHOD(renewal_fixture,
                 "a page whose lease would lapse on the wire is renewed at its re-check, "
                 "and a second node never sends it again") {
  test::test_node a{db, test::simulated_epoch, "node-a", tune};
  test::test_node b{db, test::simulated_epoch, "node-b", tune};
  auto channels = a.ask<std::vector<channel_actor>>(a.n.dispatcher, atom::children_v);
  REQUIRE(channels.size() == 1);
  send_trigger(a, "renewed");
  // The first page goes out in its claim's round, the second waits: A stops the moment
  // the first send has reached the sink, before its channel hears of it.
  REQUIRE(test::run_until(a, [&](const caf::scheduled_actor& next) {
    return test::is(next, channels[0]) && sink.count() == 1;
  }));
  REQUIRE(count("SELECT count(*) FROM delivery WHERE status = 'CLAIMED' AND "
                "claimed_by = 'node-a'") == 2);
  b.advance(9s); // B runs on through A's pause; nothing of A's has lapsed yet
  a.sched.advance_time(9s);
  // A resumes: the second page is re-checked at 9 s and handed to the sender.
  REQUIRE(test::run_until(a, is_sender));
  REQUIRE(sink.count() == 1);
  b.advance(4s);            // the second page's send takes 4 s, B polling throughout
  a.sched.advance_time(4s); // on A's clock too, where it then reaches the sink
  a.run();
  for (int i = 0; i < 30; ++i) { // both run on, well past every lease
    a.advance(1s);
    b.advance(1s);
  }
  auto sent = sends();
  CHECK(sent.size() == 2);
  for (auto& [key, n] : sent) {
    INFO(key);
    CHECK(n == 1);
  }
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'SENT'") == 2);
}
