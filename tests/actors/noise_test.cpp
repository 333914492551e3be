// Noise control on the simulated clock (docs/guarantees.md#maintenance-windows): the
// reopen window for flapping alerts, and maintenance windows that hold ladders and
// deliveries.
#include "actors/registry.hpp"
#include "storage/incidents.hpp"
#include "storage/maintenance.hpp"
#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>

using namespace belay;
using namespace std::chrono_literals;

namespace {

constexpr micros second = 1'000'000;

// Org "acme", channel "hook" -> `sink` (retries after 10 s). Policy "flappy" reopens
// within 600 s and pages #ops at once, oncall 120 s and lead 240 s after the step
// before; "default" pages #ops at once and oncall 300 s later. Integration "pd" pages
// through "default".
std::string noise_org(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") +
         R"(","secret":"s","retryBaseSeconds":10,"retryCapSeconds":10}],
    "policies":[
      {"name":"flappy","reopenSeconds":600,"graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
        {"delaySeconds":120,"targets":[{"channel":"hook","to":"oncall"}]},
        {"delaySeconds":240,"targets":[{"channel":"hook","to":"lead"}]}]},
      {"name":"default","graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
        {"delaySeconds":300,"targets":[{"channel":"hook","to":"oncall"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":"acme-routing","policy":"default"}]}]})";
}

struct noise_fixture : test::database_fixture {
  test::http_sink sink;
  noise_fixture() {
    db.provision(noise_org(sink));
    org = db.org_id("acme");
  }
  // How many requests the sink got for each target.
  std::map<std::string, int> pages() {
    std::map<std::string, int> out;
    for (auto& r : sink.requests()) {
      auto key = r.header("Idempotency-Key");
      auto target = key.substr(key.find(":hook:") + 6);
      ++out[target.substr(0, target.find(':'))];
    }
    return out;
  }
  int64_t window(const std::string& target_kind, const std::string& name, micros start,
                 micros end) {
    protocol::maintenance_window m;
    (target_kind == "policy" ? m.policy : m.integration) = name;
    m.start = start;
    m.end = end;
    auto stored = storage::add_maintenance(db.sql(), org, m, start);
    REQUIRE(stored);
    return stored->id;
  }
  trigger_reply trigger_via_pd(test::test_node& node, const std::string& key) {
    trigger_command cmd;
    cmd.org_id = org;
    cmd.dedup_key = key;
    cmd.title = key;
    cmd.policy = "default";
    cmd.source = "events";
    cmd.integration = "pd";
    return node.trigger(std::move(cmd));
  }
};

} // namespace

TEST_CASE_METHOD(noise_fixture,
                 "a flapping alert within reopenSeconds is one incident whose every step "
                 "pages once") {
  test::test_node node{db};
  std::set<int64_t> ids;
  // Fires at every minute, resolves half a minute later, ten times.
  for (int flap = 0; flap < 10; ++flap) {
    auto r = node.trigger(org, "flapping", "flappy");
    CHECK(r.code == reply_code::ok);
    ids.insert(r.incident.id);
    CHECK(r.incident.reopen_count == flap);
    CHECK(r.incident.status == "OPEN");
    node.advance(30s);
    CHECK(node.resolve(org, r.incident.id).code == reply_code::ok);
    node.advance(30s);
  }
  CHECK(ids.size() == 1);
  CHECK(count("SELECT count(*) FROM incident") == 1);
  CHECK(count("SELECT reopen_count FROM incident") == 9);
  CHECK(count("SELECT count(*) FROM timeline WHERE kind = 'reopened'") == 9);
  // Step 0 at 0 s; step 1 was due at 120 s and step 2 at 360 s: each fired once, at the
  // first moment it was due with the incident open.
  node.advance(1h);
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}, {"oncall", 1}, {"lead", 1}});
  CHECK(count("SELECT count(*) FROM delivery") == 3);
}

TEST_CASE_METHOD(noise_fixture,
                 "a reopened incident's ladder goes on where it stood, on its schedule") {
  test::test_node node{db};
  auto t0 = node.now();
  auto first = node.trigger(org, "flap", "flappy").incident;
  node.advance(10s);
  node.resolve(org, first.id);
  node.advance(20s);
  auto again = node.trigger(org, "flap", "flappy");
  CHECK(again.created); // a ladder to run: reported as written like a new one
  CHECK(again.incident.id == first.id);
  CHECK(again.incident.reopen_count == 1);
  CHECK(again.incident.current_step == 1);
  CHECK(again.incident.next_fire_at == t0 + 120 * second);
  CHECK_FALSE(again.incident.resolved_at);
  node.advance(89s);
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}});
  node.advance(1s); // 120 s: step 1, as if it had never been resolved
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}, {"oncall", 1}});
  // The registry holds it again: an ack through it reaches its actor.
  CHECK(node.ack(org, first.id).code == reply_code::ok);
  node.advance(1h);
  CHECK(pages().size() == 2);
}

TEST_CASE_METHOD(noise_fixture, "a trigger past the reopen window opens a new incident") {
  test::test_node node{db};
  auto first = node.trigger(org, "flap", "flappy").incident;
  node.advance(10s);
  node.resolve(org, first.id);
  node.advance(601s);
  auto next = node.trigger(org, "flap", "flappy");
  CHECK(next.created);
  CHECK(next.incident.id != first.id);
  CHECK(next.incident.reopen_count == 0);
  CHECK(count("SELECT count(*) FROM incident WHERE status = 'RESOLVED'") == 1);
  node.advance(1s);
  CHECK(pages() == std::map<std::string, int>{{"#ops", 2}}); // G2: it pages again
}

TEST_CASE_METHOD(noise_fixture,
                 "without reopenSeconds a resolved key opens a new incident") {
  test::test_node node{db};
  auto first = node.trigger(org, "k").incident;
  node.resolve(org, first.id);
  node.advance(1s);
  CHECK(node.trigger(org, "k").incident.id != first.id);
}

TEST_CASE_METHOD(
    noise_fixture,
    "a page due inside a maintenance window is not sent, and fires after it") {
  test::test_node node{db};
  auto t0 = node.now();
  window("policy", "default", t0 + 60 * second, t0 + 600 * second);
  auto inc = node.trigger(org, "disk").incident;
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}}); // before the window
  node.advance(300s); // step 1 due at 300 s, inside the window: held
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}});
  CHECK(count("SELECT count(*) FROM delivery") == 1);
  CHECK(count("SELECT count(*) FROM timeline WHERE kind = 'maintenance_hold'") == 1);
  CHECK(count("SELECT count(*) FROM incident WHERE held_until IS NOT NULL") == 1);
  node.advance(299s);
  CHECK(pages().size() == 1);
  node.advance(1s); // the window ends at 600 s: the ladder starts again from step 1
  CHECK(pages() == std::map<std::string, int>{{"#ops", 2}});
  node.advance(300s);
  CHECK(pages() == std::map<std::string, int>{{"#ops", 2}, {"oncall", 1}});
  CHECK(count("SELECT count(*) FROM timeline WHERE kind = 'maintenance_ended'") == 1);
  CHECK(count("SELECT count(*) FROM incident WHERE held_until IS NOT NULL") == 0);
  (void)inc;
}

TEST_CASE_METHOD(noise_fixture,
                 "during maintenance events are recorded and acks work, and an incident "
                 "resolved meanwhile never pages") {
  test::test_node node{db};
  auto t0 = node.now();
  window("policy", "default", t0, t0 + 600 * second);
  auto first = node.trigger(org, "a");
  CHECK(first.created);
  CHECK(first.incident.held_until == t0 + 600 * second);
  auto dup = node.trigger(org, "a");
  CHECK_FALSE(dup.created);
  CHECK(dup.incident.event_count == 2);
  auto second_one = node.trigger(org, "b").incident;
  auto third = node.trigger(org, "c").incident;
  node.advance(100s);
  CHECK(node.ack(org, first.incident.id).incident.status == "ACKNOWLEDGED");
  CHECK(node.resolve(org, second_one.id).incident.status == "RESOLVED");
  node.advance(400s);
  CHECK(sink.count() == 0);
  CHECK(count("SELECT count(*) FROM delivery") == 0);
  node.advance(100s); // the window is over: only "c", still open, pages
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}});
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = " +
              std::to_string(third.id)) == 1);
  node.advance(2h);
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id <> " +
              std::to_string(third.id)) == 0);
}

TEST_CASE_METHOD(noise_fixture,
                 "a pending delivery is held, not lost, while maintenance covers its "
                 "integration") {
  sink.script({500}); // the first send fails: a retry is pending 10 s later
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = trigger_via_pd(node, "via-pd").incident;
  CHECK(inc.integration == "pd");
  CHECK(sink.count() == 1);
  window("integration", "pd", t0 + 5 * second, t0 + 200 * second);
  node.advance(150s); // the retry came due at 10 s, inside the window
  CHECK(sink.count() == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'PENDING'") == 1);
  // A native incident of the same policy is not covered by the integration's window.
  node.trigger(org, "native");
  CHECK(sink.count() == 2);
  node.advance(90s); // the window ended at 200 s; the channel polls every 60 s here
  CHECK(count("SELECT count(*) FROM delivery WHERE status = 'SENT'") == 2);
  CHECK(sink.count() == 3);
}

TEST_CASE_METHOD(noise_fixture,
                 "a maintenance window ended early lets its held ladders go within the "
                 "poll") {
  test::test_node node{db};
  auto t0 = node.now();
  auto id = window("policy", "default", t0, t0 + 3600 * second);
  node.trigger(org, "x");
  node.advance(60s);
  CHECK(sink.count() == 0);
  CHECK(storage::end_maintenance(db.sql(), org, id, node.now()));
  CHECK_FALSE(storage::end_maintenance(db.sql(), org, id, node.now())); // over already
  node.advance(10s);
  CHECK(pages() == std::map<std::string, int>{{"#ops", 1}});
}
