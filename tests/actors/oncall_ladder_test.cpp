// Steps that page people and schedules (docs/guarantees.md#on-call), on the simulated
// clock against a real PostgreSQL: who is on call is decided at each step's scheduled
// time, and each person is reached through their own rules.
#include "actors/metrics.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

constexpr micros second = 1'000'000;

// alice and bob hand over daily at 00:00 UTC from 2026-01-01 (the simulated epoch),
// alice first; each is mailed at once and texted 120 s later. "primary" pages the
// schedule now and again 20 minutes later; "nobody" pages a schedule that starts in 2027.
std::string people_org() {
  auto user = [](const std::string& name) {
    return R"({"name":")" + name + R"(","contacts":[
        {"name":"mail","channel":"log","to":")" +
           name + R"(@example.com"},
        {"name":"phone","channel":"log","to":"+1555)" +
           name + R"("}],
      "rules":[{"contact":"mail","delaySeconds":0},{"contact":"phone","delaySeconds":120}]})";
  };
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"log","type":"log"}],
    "users":[)" +
         user("alice") + "," + user("bob") + R"(],
    "schedules":[
      {"name":"primary","timeZone":"UTC","layers":[{"name":"days","users":["alice","bob"],
        "rotation":{"type":"daily","start":"2026-01-01T00:00"}}]},
      {"name":"later","timeZone":"UTC","layers":[{"name":"days","users":["alice"],
        "rotation":{"type":"daily","start":"2027-01-01T00:00"}}]}],
    "policies":[
      {"name":"primary","steps":[
        {"delaySeconds":0,"targets":[{"schedule":"primary"}]},
        {"delaySeconds":1200,"targets":[{"schedule":"primary"}]}]},
      {"name":"nobody","steps":[
        {"delaySeconds":0,"targets":[{"schedule":"later"},{"channel":"log","to":"#ops"}]}]}]}]})";
}

struct oncall_fixture {
  test::test_database db;
  int64_t org;
  oncall_fixture() {
    db.provision(people_org());
    org = db.org_id("acme");
  }
  // "<target> <status> <seconds after t0 it was sent, or was due>" of each delivery, in
  // order.
  std::vector<std::string> deliveries(int64_t id, micros t0) {
    auto r = db.sql().query(
        "SELECT target, status, belay_us(coalesce(sent_at, next_attempt_at)) "
        "FROM delivery "
        "WHERE incident_id = $1 ORDER BY id",
        id);
    std::vector<std::string> out;
    for (int i = 0; i < r.rows(); ++i)
      out.push_back(r.str(i, 0) + " " + r.str(i, 1) + " " +
                    (r.null(i, 2) ? "-" : std::to_string((r.int64(i, 2) - t0) / second)));
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(oncall_fixture,
                 "a schedule's person is paged through each rule at its delay, and an "
                 "ack between two rules cancels the second") {
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "disk-full", "primary").incident;
  // The mail went out at once; the text waits for its 120 s.
  CHECK(deliveries(inc.id, t0) ==
        std::vector<std::string>{"alice@example.com SENT 0", "+1555alice PENDING 120"});
  node.advance(60s);
  REQUIRE(node.ack(org, inc.id).code == reply_code::ok);
  node.advance(1h);
  CHECK(deliveries(inc.id, t0) ==
        std::vector<std::string>{"alice@example.com SENT 0", "+1555alice CANCELLED 120"});
  auto paged = db.sql().query("SELECT detail->'paged'->0->>'user', "
                              "detail->'paged'->0->>'schedule' FROM timeline "
                              "WHERE incident_id = $1 AND kind = 'step_fired'",
                              inc.id);
  REQUIRE(paged.rows() == 1);
  CHECK(paged.str(0, 0) == "alice");
  CHECK(paged.str(0, 1) == "primary");
}

TEST_CASE_METHOD(oncall_fixture, "a handoff between two steps pages the new person") {
  test::test_node node{db, test::simulated_epoch + 23 * 3600 * second + 50 * 60 * second};
  auto t0 = node.now(); // 2026-01-01T23:50Z: alice's day; bob's from midnight
  auto inc = node.trigger(org, "late-night", "primary").incident;
  node.advance(20min);
  node.advance(5min);
  auto all = deliveries(inc.id, t0);
  REQUIRE(all.size() == 4);
  CHECK(all[0] == "alice@example.com SENT 0");
  CHECK(all[2] == "bob@example.com SENT 1200");
  CHECK(all[3].rfind("+1555bob ", 0) == 0);
}

TEST_CASE_METHOD(oncall_fixture,
                 "a schedule with nobody on call is loud, and the ladder goes on") {
  auto before = metrics::value(metrics::name::steps_unrouted_total);
  test::test_node node{db};
  auto t0 = node.now();
  auto inc = node.trigger(org, "nobody-home", "nobody").incident;
  CHECK(deliveries(inc.id, t0) == std::vector<std::string>{"#ops SENT 0"});
  auto loud = db.sql().query("SELECT detail->>'schedule' FROM timeline "
                             "WHERE incident_id = $1 AND kind = 'no_one_on_call'",
                             inc.id);
  REQUIRE(loud.rows() == 1);
  CHECK(loud.str(0, 0) == "later");
  CHECK(metrics::value(metrics::name::steps_unrouted_total) == before + 1);
  // The inspector shows it on the incident's actor.
  auto holder = node.ask<incident_actor>(node.n.registry, atom::holder_v, inc.id);
  CHECK(node.ask<incident_view>(holder, atom::view_v).no_one_on_call ==
        std::vector<std::string>{"later"});
}
