// The inspector reflects the live actor system exactly: asked of the actors, rendered
// as the snapshot the console and `belay inspect` show.
#include "protocol/inspector_json.hpp"
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/test_node.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>

using namespace belay;
using namespace std::chrono_literals;

namespace {

std::string org_doc(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"(",
                 "secret":"never-shown"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
      {"delaySeconds":600,"targets":[{"channel":"hook","to":"lead"}]}]}]},
    {"name":"other","apiKeys":["other-key"],"channels":[{"name":"log","type":"log"}],
     "policies":[{"name":"default","steps":[{"delaySeconds":60,
       "targets":[{"channel":"log","to":"x"}]}]}]}]})";
}

std::string snapshot_text(test::test_node& node, int64_t org) {
  inspector_snapshot s;
  s.registry = node.stats();
  s.incidents = node.ask<std::vector<incident_view>>(node.n.registry, atom::views_v, org);
  s.channels = node.ask<std::vector<channel_view>>(node.n.dispatcher, atom::views_v, org);
  return protocol::render_inspector(s);
}

} // namespace

TEST_CASE(
    "the inspector shows each incident's next timer and a failing channel's retries") {
  test::test_database db;
  test::http_sink sink;
  sink.set_default_status(503);
  db.provision(org_doc(sink));
  auto acme = db.org_id("acme");
  auto other = db.org_id("other");
  test::test_node node{db};
  auto first = node.trigger(acme, "first").incident;
  node.advance(10s);
  auto second = node.trigger(acme, "second").incident;
  node.trigger(other, "not-yours");
  node.trigger(acme, "first"); // a duplicate
  node.advance(5s);            // t = 15 s

  auto doc = test::json(snapshot_text(node, acme));
  CHECK(doc["registry"]["held"].GetUint64() == 3); // node-wide, both orgs
  CHECK(doc["registry"]["created"].GetUint64() == 3);
  CHECK(doc["registry"]["deduplicated"].GetUint64() == 1);

  auto& incidents = doc["incidents"];
  REQUIRE(incidents.Size() == 2); // only the caller's org
  std::map<int64_t, const rapidjson::Value*> by_id;
  for (auto& v : incidents.GetArray())
    by_id[v["incident"]["id"].GetInt64()] = &v;
  auto& f = *by_id.at(first.id);
  CHECK(std::string{f["nextTimerDue"].GetString()} == "2026-01-01T00:10:00.000Z");
  CHECK(f["incident"]["currentStep"].GetInt() == 1);
  CHECK(f["incident"]["eventCount"].GetInt() == 2);
  CHECK(f["incident"]["version"].GetInt() == 2);
  auto& s2 = *by_id.at(second.id);
  CHECK(std::string{s2["nextTimerDue"].GetString()} == "2026-01-01T00:10:10.000Z");

  auto& channels = doc["channels"];
  REQUIRE(channels.Size() == 1);
  auto& hook = channels[0];
  CHECK(std::string{hook["name"].GetString()} == "hook");
  CHECK(hook["failed"].GetUint64() == 2);
  CHECK(hook["sent"].GetUint64() == 0);
  // Both first attempts failed: retries are due 30 s after each.
  auto& retries = hook["retriesScheduled"];
  REQUIRE(retries.Size() == 2);
  std::set<std::string> due;
  for (auto& r : retries.GetArray()) {
    CHECK(r["attempt"].GetInt() == 2);
    due.insert(r["dueAt"].GetString());
  }
  CHECK(due ==
        std::set<std::string>{"2026-01-01T00:00:30.000Z", "2026-01-01T00:00:40.000Z"});
  auto text = snapshot_text(node, acme);
  CHECK(text.find("never-shown") == std::string::npos); // channel secrets stay inside
  CHECK(text.find(sink.url("/hook")) == std::string::npos);

  // Acknowledging stops the timer: the incident no longer shows one.
  node.ack(acme, first.id);
  auto after = test::json(snapshot_text(node, acme));
  for (auto& v : after["incidents"].GetArray())
    if (v["incident"]["id"].GetInt64() == first.id)
      CHECK(v["nextTimerDue"].IsNull());
}
