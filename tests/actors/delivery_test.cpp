// Delivery through channel actors to real local servers, on the simulated clock.
#include "actors/registry.hpp"
#include "protocol/hash.hpp"
#include "storage/deliveries.hpp"
#include "storage/incidents.hpp"
#include "support/database_fixture.hpp"
#include "support/http_sink.hpp"
#include "support/test_node.hpp"

#include <algorithm>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;

namespace {

// Org "acme": channel "hook" -> `sink`, "backup" -> `backup`; policy "default" pages
// #ops at once and "oncall" 300 s later; policy "five" pages five people at once.
std::string delivery_org(const test::http_sink& sink, const test::http_sink& backup,
                         const std::string& hook_extra = "") {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[
      {"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"(","secret":"s3cret","timeoutSeconds":0.3)" + hook_extra +
         R"(},
      {"name":"backup","type":"webhook","url":")" +
         backup.url("/backup") + R"("}],
    "policies":[
      {"name":"default","graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
        {"delaySeconds":300,"targets":[{"channel":"hook","to":"oncall"}]}]},
      {"name":"five","steps":[{"delaySeconds":0,"targets":[
        {"channel":"hook","to":"p1"},{"channel":"hook","to":"p2"},{"channel":"hook","to":"p3"},
        {"channel":"hook","to":"p4"},{"channel":"hook","to":"p5"}]}]}]}]})";
}

struct delivery_fixture : test::database_fixture {
  test::http_sink sink;
  test::http_sink backup;

  void provision(const std::string& hook_extra = "") {
    db.provision(delivery_org(sink, backup, hook_extra));
    org = db.org_id("acme");
  }
  std::vector<test::recorded_request> requests_for(const std::string& key) {
    std::vector<test::recorded_request> out;
    for (auto& r : sink.requests())
      if (r.header("Idempotency-Key") == key)
        out.push_back(r);
    return out;
  }
  storage::result delivery(int64_t incident, const std::string& target) {
    return db.sql().query(
        "SELECT status, attempts, ambiguous, last_error, id FROM delivery "
        "WHERE incident_id = $1 AND target = $2 AND channel = 'hook'",
        incident, target);
  }
};

} // namespace

TEST_CASE_METHOD(
    delivery_fixture,
    "two 500s then success: retried at base and 2*base with one key, signed") {
  provision();
  sink.script({500, 500});
  test::test_node node{db};
  auto inc = node.trigger(org, "flaky").incident;
  auto key = std::to_string(inc.id) + ":0:0:hook:#ops";
  CHECK(requests_for(key).size() == 1);
  node.advance(29s);
  CHECK(requests_for(key).size() == 1);
  node.advance(1s); // base = 30 s
  CHECK(requests_for(key).size() == 2);
  node.advance(59s);
  CHECK(requests_for(key).size() == 2);
  node.advance(1s); // 2 * base = 60 s later
  auto seen = requests_for(key);
  REQUIRE(seen.size() == 3);
  for (auto& r : seen) {
    CHECK(r.header("X-Belay-Signature") == "sha256=" + hmac_sha256_hex("s3cret", r.body));
  }
  auto row = delivery(inc.id, "#ops");
  CHECK(row.str(0, 0) == "SENT");
  CHECK(row.int64(0, 1) == 3);
  CHECK(count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
              "'delivery_failed'",
              inc.id) == 2);
  CHECK(count("SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = "
              "'delivery_sent'",
              inc.id) == 1);
}

TEST_CASE_METHOD(
    delivery_fixture,
    "a dead channel: dead letter after maxAttempts, ladder on time, failover") {
  provision(R"(,"failoverTo":"backup")");
  sink.set_default_status(503);
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "dead").incident;
  node.advance(209s); // attempts at 0, 30, 90; the 4th is due at 210
  CHECK(delivery(inc.id, "#ops").str(0, 0) == "PENDING");
  node.advance(1s);
  auto row = delivery(inc.id, "#ops");
  CHECK(row.str(0, 0) == "DEAD");
  CHECK(row.int64(0, 1) == 4);
  auto dead = storage::list_dead_letters(db.sql(), org, 10);
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].reason.find("503") != std::string::npos);
  CHECK(dead[0].delivery_id == row.int64(0, 4));
  // The failover delivery went to the backup channel, pointing at the dead one.
  auto fo =
      db.sql().query("SELECT failover_from, status FROM delivery WHERE incident_id = $1 "
                     "AND channel = 'backup'",
                     inc.id);
  REQUIRE(fo.rows() == 1);
  CHECK(fo.int64(0, 0) == row.int64(0, 4));
  CHECK(fo.str(0, 1) == "SENT");
  CHECK(backup.count() == 1);
  // Step 1 fired at t0 + 300 s exactly, whatever became of step 0's page.
  node.advance(90s);
  auto step1 =
      db.sql().query("SELECT belay_us(created_at) FROM delivery WHERE incident_id = $1 "
                     "AND step = 1 AND channel = 'hook'",
                     inc.id);
  REQUIRE(step1.rows() == 1);
  CHECK(step1.int64(0, 0) == t0 + 300'000'000);
}

TEST_CASE_METHOD(delivery_fixture, "a 400 is a dead letter at once, with no retries") {
  provision();
  sink.script({400});
  test::test_node node{db};
  auto inc = node.trigger(org, "bad-request").incident;
  node.advance(1h);
  auto key = std::to_string(inc.id) + ":0:0:hook:#ops";
  CHECK(requests_for(key).size() == 1);
  CHECK(delivery(inc.id, "#ops").str(0, 0) == "DEAD");
  CHECK(storage::list_dead_letters(db.sql(), org, 10).size() == 1);
}

TEST_CASE_METHOD(delivery_fixture,
                 "a timeout after the request was sent is ambiguous and retried") {
  provision();
  test::sink_response slow;
  slow.delay = 1000ms; // the channel's timeout is 0.3 s
  sink.script_response(slow);
  test::test_node node{db};
  auto inc = node.trigger(org, "slow").incident;
  auto row = delivery(inc.id, "#ops");
  CHECK(row.str(0, 0) == "PENDING");
  CHECK(row.boolean(0, 2)); // ambiguous
  node.advance(30s);
  row = delivery(inc.id, "#ops");
  CHECK(row.str(0, 0) == "SENT");
  CHECK(row.boolean(0, 2)); // the record keeps showing that a page may have gone twice
  CHECK(requests_for(std::to_string(inc.id) + ":0:0:hook:#ops").size() == 2);
}

TEST_CASE_METHOD(delivery_fixture,
                 "an ack while a delivery waits for its retry cancels it") {
  provision();
  sink.set_default_status(500);
  test::test_node node{db};
  auto inc = node.trigger(org, "ack-me").incident;
  node.advance(10s);
  node.ack(org, inc.id);
  node.advance(2h);
  CHECK(sink.count() == 1);
  CHECK(delivery(inc.id, "#ops").str(0, 0) == "CANCELLED");
}

TEST_CASE_METHOD(delivery_fixture,
                 "a claim lapsed by a crashed node is sent again once; nothing else is") {
  provision();
  test::test_node node{db};
  auto inc = node.trigger(org, "crash").incident;
  auto sent_key = std::to_string(inc.id) + ":0:0:hook:#ops";
  REQUIRE(requests_for(sent_key).size() == 1);
  // Another node claimed this delivery and died mid-send: its lease ends in 300 s.
  auto ghost_key = std::to_string(inc.id) + ":0:0:hook:ghost";
  db.sql().query(
      "INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, "
      "idempotency_key, status, attempts, claimed_by, claim_expires_at, created_at) "
      "VALUES ($1, $2, 0, 0, 'hook', 'ghost', $3, 'CLAIMED', 1, 'dead-node', "
      "belay_ts($4), belay_ts($5))",
      org, inc.id, ghost_key, node.now() + 300'000'000, node.now());
  node.advance(200s);
  CHECK(requests_for(ghost_key).empty());
  node.advance(200s); // lease lapsed at 300 s; the 60 s poll released and sent it
  CHECK(requests_for(ghost_key).size() == 1);
  CHECK(requests_for(sent_key).size() == 1);
  node.advance(2h);
  CHECK(requests_for(ghost_key).size() == 1);
}

TEST_CASE_METHOD(delivery_fixture, "concurrent claimers never take the same row") {
  provision();
  {
    test::test_node node{db};
    for (int i = 0; i < 40; ++i) {
      trigger_command cmd{
          org, "race-" + std::to_string(i), "race", "critical", "default", "{}", "{}",
          true}; // shadow: rows exist, nothing is sent
      node.trigger(cmd);
    }
  }
  db.sql().exec("UPDATE delivery SET status = 'PENDING', next_attempt_at = created_at");
  std::vector<std::vector<int64_t>> claimed(4);
  std::vector<std::thread> claimers;
  for (int t = 0; t < 4; ++t)
    claimers.emplace_back([&, t] {
      storage::connection c{db.url()};
      storage::claim_request req{org,
                                 "hook",
                                 "node-" + std::to_string(t),
                                 test::simulated_epoch + 3'600'000'000,
                                 test::simulated_epoch + 7'200'000'000,
                                 3};
      for (;;) {
        auto batch = storage::claim_due(c, req);
        if (batch.empty())
          break;
        for (auto& cd : batch)
          claimed[t].push_back(cd.delivery.id);
      }
    });
  for (auto& t : claimers)
    t.join();
  std::multiset<int64_t> all;
  for (auto& ids : claimed)
    all.insert(ids.begin(), ids.end());
  CHECK(all.size() == 40);
  CHECK(std::set<int64_t>(all.begin(), all.end()).size() == 40);
}

TEST_CASE_METHOD(
    delivery_fixture,
    "five recipients, two fail: replaying the dead letters sends to those two only") {
  provision(R"(,"maxAttempts":1)");
  sink.script({200, 400, 200, 400, 200});
  test::test_node node{db};
  auto inc = node.trigger(org, "five", "five").incident;
  REQUIRE(sink.count() == 5);
  auto dead = storage::list_dead_letters(db.sql(), org, 10);
  REQUIRE(dead.size() == 2);
  std::set<std::string> failed{dead[0].target, dead[1].target};
  for (auto& d : dead)
    CHECK(storage::replay_dead_letter(db.sql(), org, d.id, node.now()).code ==
          reply_code::ok);
  CHECK(storage::replay_dead_letter(db.sql(), org, dead[0].id, node.now()).code ==
        reply_code::conflict);
  caf::anon_send(node.n.dispatcher, atom::nudge_v, org, std::string{"hook"});
  node.run();
  auto all = sink.requests();
  REQUIRE(all.size() == 7);
  std::set<std::string> replayed;
  for (size_t i = 5; i < all.size(); ++i)
    for (auto& t : failed)
      if (all[i].body.find("\"target\":\"" + t + "\"") != std::string::npos)
        replayed.insert(t);
  CHECK(replayed == failed);
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'SENT'",
              inc.id) == 5);
}

TEST_CASE_METHOD(delivery_fixture,
                 "shadow mode records the whole path and sends nothing") {
  provision();
  test::test_node node{db};
  trigger_command cmd{org, "shadowed", "shadow", "critical", "default", "{}", "{}", true};
  auto inc = node.trigger(cmd).incident;
  node.advance(2h);
  CHECK(sink.count() == 0);
  CHECK(
      count(
          "SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = 'SHADOWED'",
          inc.id) == 2);
  CHECK(
      count(
          "SELECT count(*) FROM timeline WHERE incident_id = $1 AND kind = 'step_fired'",
          inc.id) == 2);
}

TEST_CASE_METHOD(delivery_fixture,
                 "a node restarting under its own name re-sends its old claims at once") {
  provision();
  int64_t id;
  {
    test::test_node before{db};
    id = before.trigger(org, "restarted").incident.id;
  }
  // The previous life of "test-node" claimed this page and died mid-send.
  auto key = std::to_string(id) + ":0:0:hook:mid-send";
  db.sql().query(
      "INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, "
      "idempotency_key, status, attempts, claimed_by, claim_expires_at, created_at) "
      "VALUES ($1, $2, 0, 0, 'hook', 'mid-send', $3, 'CLAIMED', 1, 'test-node', "
      "belay_ts($4), belay_ts($4))",
      org, id, key, test::simulated_epoch + 300'000'000);
  test::test_node after{db, test::simulated_epoch + 1'000'000};
  after.run(); // no lease had to lapse
  CHECK(requests_for(key).size() == 1);
}

TEST_CASE_METHOD(delivery_fixture,
                 "outcomes recorded in one statement settle each claim on its own") {
  provision();
  {
    test::test_node node{db};
    for (int i = 0; i < 4; ++i)
      node.trigger({org, "batch-" + std::to_string(i), "batch", "critical", "default",
                    "{}", "{}", true}); // shadow: the rows exist, nothing is sent
  }
  db.sql().exec("UPDATE delivery SET status = 'PENDING', next_attempt_at = created_at");
  auto now = test::simulated_epoch + 3'600'000'000;
  storage::claim_request req{org, "hook", "node-a", now, now + 300'000'000, 10};
  auto claimed = storage::claim_due(db.sql(), req);
  REQUIRE(claimed.size() == 4);
  // Another node took over the fourth claim after its lease lapsed.
  db.sql().query("UPDATE delivery SET claimed_by = 'node-b' WHERE id = $1",
                 claimed[3].delivery.id);
  channel_config ch;
  ch.org_id = org;
  ch.name = "hook";
  ch.max_attempts = 4;
  ch.retry_base_seconds = 10;
  ch.failover_to = "backup";
  std::vector<storage::outcome_event> events{
      storage::outcome_of(claimed[0], ch, "node-a", {true, false, false, ""}, now),
      storage::outcome_of(claimed[1], ch, "node-a", {false, false, true, "timeout"}, now),
      storage::outcome_of(claimed[2], ch, "node-a", {false, true, false, "HTTP 400"},
                          now),
      storage::outcome_of(claimed[3], ch, "node-a", {true, false, false, ""}, now)};
  auto out = storage::record_outcomes(db.sql(), events);
  REQUIRE(out.size() == 4);
  CHECK(out[0].status == "SENT");
  CHECK(out[1].status == "PENDING");
  CHECK(out[1].next_attempt_at == now + 10'000'000);
  CHECK(out[2].status == "DEAD");
  CHECK(out[2].dead_letter_id.has_value());
  REQUIRE(out[2].failover_delivery_id.has_value());
  CHECK(out[3].status.empty()); // not ours any more: untouched
  CHECK(count("SELECT count(*) FROM delivery WHERE id = $1 AND status = 'CLAIMED' "
              "AND claimed_by = 'node-b'",
              claimed[3].delivery.id) == 1);
  CHECK(count("SELECT count(*) FROM delivery WHERE failover_from = $1 AND channel = "
              "'backup' AND status = 'PENDING'",
              claimed[2].delivery.id) == 1);
  CHECK(count("SELECT count(*) FROM timeline WHERE kind IN ('delivery_sent', "
              "'delivery_failed', 'dead_lettered') AND org_id = $1",
              org) == 3);
  CHECK(count("SELECT count(*) FROM delivery WHERE ambiguous AND org_id = $1", org) == 1);
}

// docs/guarantees.md#nothing-waits-for-ever: nothing stays PENDING for ever. An
// acknowledge cancels what is pending in its own statement, which cannot see a step's
// rows committed beside it on another connection; such a row is what this inserts.
TEST_CASE_METHOD(delivery_fixture,
                 "a pending page of an acknowledged incident is cancelled by the next "
                 "claim, never sent") {
  provision();
  test::test_node node{db};
  auto inc = node.trigger(org, "zombie").incident;
  REQUIRE(sink.count() == 1);
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  auto key = std::to_string(inc.id) + ":0:1:hook:late";
  db.sql().query(
      "INSERT INTO delivery (org_id, incident_id, loop, step, channel, target, "
      "idempotency_key, status, next_attempt_at, created_at) VALUES ($1, $2, "
      "0, 1, 'hook', 'late', $3, 'PENDING', belay_ts($4), belay_ts($4))",
      org, inc.id, key, node.now());
  caf::anon_send(node.n.dispatcher, atom::nudge_v, org, std::string{"hook"});
  node.run();
  CHECK(delivery(inc.id, "late").str(0, 0) == "CANCELLED");
  CHECK(delivery(inc.id, "late").int64(0, 1) == 0); // no attempt was made
  CHECK(requests_for(key).empty());
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND status = "
              "'PENDING'",
              inc.id) == 0);
}

TEST_CASE_METHOD(delivery_fixture,
                 "a page that dead-letters after its incident was acknowledged starts no "
                 "failover delivery") {
  provision();
  {
    test::test_node node{db};
    node.trigger({org, "late-dead", "t", "critical", "default", "{}", "{}", true});
  }
  db.sql().exec("UPDATE delivery SET status = 'PENDING', next_attempt_at = created_at");
  auto now = test::simulated_epoch + 60'000'000;
  storage::claim_request req{org, "hook", "node-a", now, now + 300'000'000, 10};
  auto claimed = storage::claim_due(db.sql(), req);
  REQUIRE(claimed.size() == 1);
  // Acknowledged while the page was on the wire; then the endpoint answered 400.
  auto id = claimed[0].delivery.incident_id;
  transition_command ack{org, id, "", transition::ack, "alice", "native"};
  REQUIRE(storage::apply_transition(db.sql(), ack, now).code == reply_code::ok);
  channel_config ch;
  ch.org_id = org;
  ch.name = "hook";
  ch.failover_to = "backup";
  auto out = storage::record_outcomes(
      db.sql(), {storage::outcome_of(claimed[0], ch, "node-a",
                                     {false, true, false, "HTTP 400"}, now)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].status == "DEAD");
  CHECK(out[0].dead_letter_id.has_value()); // the failure itself is on record
  CHECK_FALSE(out[0].failover_delivery_id.has_value());
  CHECK(count("SELECT count(*) FROM delivery WHERE incident_id = $1 AND channel = "
              "'backup'",
              id) == 0);
}

TEST_CASE_METHOD(delivery_fixture,
                 "a retry that an acknowledge cancelled leaves the channel's retry "
                 "schedule once it is due") {
  provision();
  sink.script({500});
  test::test_node node{db};
  auto inc = node.trigger(org, "forgotten-retry").incident;
  auto channels =
      node.ask<std::vector<channel_actor>>(node.n.dispatcher, atom::children_v);
  auto hook = std::find_if(channels.begin(), channels.end(), [&](const channel_actor& c) {
    return node.ask<channel_view>(c, atom::view_v).config.name == "hook";
  });
  REQUIRE(hook != channels.end());
  REQUIRE(node.ask<channel_view>(*hook, atom::view_v).retries.size() == 1);
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  node.advance(31s); // the retry would have been due after 30 s
  CHECK(node.ask<channel_view>(*hook, atom::view_v).retries.empty());
  CHECK(sink.count() == 1);
}
