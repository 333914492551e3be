// docs/guarantees.md#one-bad-endpoint, through the
// real binary: webhooks that answer slowly or never, beside a healthy channel, with real
// HTTP sinks.
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Org "alpha": channel "slow" -> `slow` (timeout `timeout` s), "fast" -> `fast`; policy
// "slow" pages "#slow" on the slow channel at once, "fast" pages "#fast" on the other.
std::string slow_and_fast(const test::http_sink& slow, const test::http_sink& fast,
                          double timeout) {
  auto t = std::to_string(timeout);
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[
      {"name":"slow","type":"webhook","url":")" +
         slow.url("/slow") + R"(","timeoutSeconds":)" + t + R"(},
      {"name":"fast","type":"webhook","url":")" +
         fast.url("/fast") + R"("}],
    "policies":[
      {"name":"slow","steps":[{"delaySeconds":0,"targets":[{"channel":"slow","to":"#slow"}]}]},
      {"name":"fast","steps":[{"delaySeconds":0,"targets":[{"channel":"fast","to":"#fast"}]}]}]}]})";
}

} // namespace

TEST_CASE("a hung webhook costs another channel nothing: its page leaves within 2 s") {
  test::http_sink slow, fast;
  slow.set_delay(4s); // far longer than any healthy endpoint, shorter than its timeout
  test::served_belay b{slow_and_fast(slow, fast, 10)};
  for (int i = 0; i < 30; ++i)
    b.open("hung-" + std::to_string(i), "slow");
  REQUIRE(slow.wait_for(1, 5s)); // the slow channel is busy now
  auto asked = std::chrono::steady_clock::now();
  b.open("healthy", "fast");
  REQUIRE(fast.wait_for(1, 10s));
  auto took = fast.requests()[0].at - asked;
  INFO("the healthy page left after "
       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  CHECK(took < 2s);
}

TEST_CASE("pages queued behind a slow endpoint for longer than the claim lease are each "
          "sent once") {
  test::http_sink slow, fast;
  slow.set_delay(1500ms);
  // Two senders and a 2 s lease: ten pages take 7.5 s, most of them start after the
  // lease their claim took would have lapsed.
  test::served_belay b{
      slow_and_fast(slow, fast, 2),
      1,
      {"--senders", "2", "--claim-lease-seconds", "2", "--poll-seconds", "0.5"}};
  for (int i = 0; i < 10; ++i)
    b.open("queued-" + std::to_string(i), "slow");
  REQUIRE(test::eventually(
      [&] {
        return b.count("SELECT count(*) FROM delivery WHERE status = 'SENT'") == 10;
      },
      30s));
  std::this_thread::sleep_for(2s); // a duplicate would be on its way by now
  std::map<std::string, int> sends;
  for (auto& r : slow.requests())
    ++sends[r.header("Idempotency-Key")];
  CHECK(sends.size() == 10);
  for (auto& [key, n] : sends) {
    INFO(key);
    CHECK(n == 1);
  }
}

TEST_CASE("a page claimed before an acknowledge is re-checked and never sent after it") {
  test::http_sink slow, fast;
  slow.set_delay(1s);
  test::served_belay b{slow_and_fast(slow, fast, 5), 1, {"--senders", "1"}};
  auto first = b.open("claimed-1", "slow");
  auto second = b.open("claimed-2", "slow");
  auto third = b.open("claimed-3", "slow");
  // All three claimed by the channel, the first on the wire, two waiting their turn.
  REQUIRE(test::eventually(
      [&] {
        return b.count("SELECT count(*) FROM delivery WHERE status = 'CLAIMED'") == 3;
      },
      5s));
  for (auto id : {second, third})
    REQUIRE(b.post("/api/v1/incidents/" + std::to_string(id) + "/ack",
                   R"({"by":"alice"})", "alpha-key")
                .status == 200);
  REQUIRE(test::eventually(
      [&] {
        return b.count("SELECT count(*) FROM delivery WHERE status = 'CANCELLED'") == 2;
      },
      10s));
  std::this_thread::sleep_for(1500ms); // a page that slipped through would be here now
  REQUIRE(slow.count() == 1);
  CHECK(slow.requests()[0].header("Idempotency-Key") ==
        std::to_string(first) + ":0:0:slow:#slow");
  CHECK(b.count("SELECT count(*) FROM timeline WHERE kind = 'delivery_cancelled'") == 2);
}

// Pages that waited for a sender longer than the re-check interval (250 ms) are checked
// against their incidents together, not one statement per send: one per send cost more
// than the send and kept a loaded node's drain at a tenth of its speed.
TEST_CASE("pages that waited for a sender are re-checked together, not one by one") {
  test::http_sink slow, fast;
  slow.set_delay(100ms);
  test::served_belay b{slow_and_fast(slow, fast, 5), 1, {"--senders", "2"}};
  for (int i = 0; i < 40; ++i)
    b.open("waiting-" + std::to_string(i), "slow");
  REQUIRE(slow.wait_for(40, 30s));
  const std::string channel = "{channel=\"slow\"}";
  auto statements = b.metric("belay_delivery_rechecks_total" + channel);
  auto rows = b.metric("belay_deliveries_rechecked_total" + channel);
  INFO(rows << " rows re-checked in " << statements << " statements");
  // Two senders take 2 s for forty pages: most of them wait more than 250 ms.
  CHECK(rows >= 20);
  CHECK(rows >= 3 * statements);
  std::map<std::string, int> sends;
  for (auto& r : slow.requests())
    ++sends[r.header("Idempotency-Key")];
  CHECK(sends.size() == 40);
}
