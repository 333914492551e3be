// Configuration that lives (docs/operations.md#change-without-restart): a file applied
// with `belay provision` while two nodes serve reaches both within 10 s, whatever it
// changes (keys, integrations, channels, policies, users, schedules, heartbeats), and
// what it removes stops on both; a removed org stops paging and its incidents are
// resolved via provisioning (docs/guarantees.md#provisioning-fails-closed).
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;
using test::str;

namespace {

// Org "alpha" as two generations of one file. The first: key "alpha-key", integration
// "pd" ("alpha-routing"), heartbeat "nightly" ("alpha-hb"), alice and bob rotating
// daily in "primary" (alice on 2026-12-01 10:00 UTC), a log channel. The second: key
// "alpha-key-2", integration "pd2" ("alpha-routing-2"), heartbeat "hourly"
// ("alpha-hb-2"), a new user dave alone in "primary", and a webhook channel "hook" to
// `sink` that the policy pages.
std::string alpha(int generation, const std::string& sink_url) {
  bool next = generation == 2;
  std::string suffix = next ? "-2" : "";
  std::string channels = R"({"name":"log","type":"log"})";
  if (next)
    channels += R"(,{"name":"hook","type":"webhook","url":")" + sink_url + R"("})";
  std::string users =
      R"({"name":"alice","contacts":[{"name":"l","channel":"log","to":"alice"}],"rules":[{"contact":"l"}]},
         {"name":"bob","contacts":[{"name":"l","channel":"log","to":"bob"}],"rules":[{"contact":"l"}]})";
  if (next)
    users +=
        R"(,{"name":"dave","contacts":[{"name":"l","channel":"log","to":"dave"}],"rules":[{"contact":"l"}]})";
  return R"({"name":"alpha","apiKeys":["alpha-key)" + suffix + R"("],
    "channels":[)" +
         channels + R"(],"users":[)" + users + R"(],
    "schedules":[{"name":"primary","timeZone":"UTC","layers":[{"name":"main",
      "users":[)" +
         (next ? R"("dave")" : R"("alice","bob")") +
         R"(],"rotation":{"type":"daily","length":1,"start":"2026-01-01T09:00"}}]}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,"targets":[{"channel":")" +
         (next ? "hook" : "log") + R"(","to":"#ops"}]}]}],
    "heartbeats":[{"name":")" +
         (next ? "hourly" : "nightly") + R"(","key":"alpha-hb)" + suffix +
         R"(","periodSeconds":3600,"policy":"default"}],
    "integrations":[{"name":")" +
         (next ? "pd2" : "pd") + R"(","type":"events","key":"alpha-routing)" + suffix +
         R"(","policy":"default"}]})";
}

std::string beta(bool disabled = false) {
  return std::string{R"({"name":"beta",)"} + (disabled ? R"("disabled":true,)" : "") +
         R"("apiKeys":["beta-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
      {"delaySeconds":86400,"targets":[{"channel":"log","to":"lead"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":"beta-routing","policy":"default"}]})";
}

std::string file(const std::vector<std::string>& orgs) {
  std::string out = R"({"orgs":[)";
  for (size_t i = 0; i < orgs.size(); ++i)
    out += (i ? "," : "") + orgs[i];
  return out + "]}";
}

// `belay provision FILE` against the nodes' database; its output.
std::string provision(test::served_belay& belay, const std::string& text) {
  test::temp_file f{text};
  test::belay_process p{{"provision", f.path(), "--database-url", belay.db.url()}};
  REQUIRE(p.wait_exit() == 0);
  return p.log();
}

std::string oncall(test::served_belay& belay, const std::string& key, int node) {
  auto r = belay.get("/api/v1/oncall?at=2026-12-01T10:00:00Z", key, node);
  if (r.status != 200 || !r.json.HasMember("oncall") || r.json["oncall"].Size() != 1)
    return "";
  return str(r.json["oncall"][0]["user"]);
}

int ping(test::served_belay& belay, const std::string& key, int node) {
  auto r = belay.client(node).Get("/hb/" + key);
  return r ? r->status : 0;
}

int event(test::served_belay& belay, const std::string& routing_key, int node,
          const std::string& dedup) {
  return belay.post("/v2/enqueue", test::pd_trigger(routing_key, dedup), "", node).status;
}

} // namespace

TEST_CASE("a file applied with belay provision reaches both nodes within 10 s, every "
          "kind of change, and what it removes stops on both") {
  test::http_sink sink;
  test::served_belay belay{file({alpha(1, sink.url("/hook"))}), 2};
  // Every cache warm on both nodes: the worst case for a change.
  for (int node = 0; node < 2; ++node) {
    REQUIRE(oncall(belay, "alpha-key", node) == "alice");
    REQUIRE(ping(belay, "alpha-hb", node) == 200);
    REQUIRE(event(belay, "alpha-routing", node, "warm-" + std::to_string(node)) == 202);
  }

  auto out = provision(belay, file({alpha(2, sink.url("/hook"))}));
  auto applied = std::chrono::steady_clock::now();
  INFO(out);
  CHECK(out.find("org 'alpha': add channel 'hook'") != std::string::npos);
  CHECK(out.find("org 'alpha': add user 'dave'") != std::string::npos);
  CHECK(out.find("org 'alpha': update schedule 'primary'") != std::string::npos);
  CHECK(out.find("org 'alpha': remove integration 'pd'") != std::string::npos);
  CHECK(out.find("org 'alpha': remove heartbeat 'nightly'") != std::string::npos);

  int sent = 0;
  auto everything_seen = [&] {
    for (int node = 0; node < 2; ++node) {
      if (oncall(belay, "alpha-key-2", node) != "dave")
        return false;
      if (belay.get("/api/v1/oncall", "alpha-key", node).status != 401)
        return false;
      if (ping(belay, "alpha-hb", node) == 200 || ping(belay, "alpha-hb-2", node) != 200)
        return false;
      if (event(belay, "alpha-routing", node, "old") == 202)
        return false;
    }
    // The new integration pages through the new channel, from either node.
    for (int node = 0; node < 2; ++node)
      if (event(belay, "alpha-routing-2", node, "new-" + std::to_string(sent++)) != 202)
        return false;
    return true;
  };
  REQUIRE(test::eventually(everything_seen, 10s));
  auto seen_after =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - applied);
  WARN("every change seen on both nodes after " << seen_after.count() << " s");
  CHECK(test::eventually([&] { return sink.requests().size() >= 2; }, 10s));
}

TEST_CASE("an org disabled or left out stops paging on every node, and its open "
          "incidents are resolved via provisioning") {
  test::served_belay belay{file({alpha(1, ""), beta()}), 2};
  auto opened =
      belay.post("/api/v1/incidents", test::trigger_body("beta-open"), "beta-key", 1);
  REQUIRE(opened.status == 201);
  auto id = test::id_of(opened);
  belay.wait_settled(id);
  for (int node = 0; node < 2; ++node)
    REQUIRE(event(belay, "beta-routing", node, "warm") == 202);

  auto out = provision(belay, file({alpha(1, ""), beta(true)}));
  INFO(out);
  CHECK(out.find("org 'beta': disable org (\"disabled\": true)") != std::string::npos);
  CHECK(out.find("org 'beta': resolve incident " + std::to_string(id)) !=
        std::string::npos);
  CHECK(belay.db.incident_status(id) == "RESOLVED");
  CHECK(
      belay.count("SELECT count(*) FROM incident WHERE resolved_via = 'provisioning'") ==
      2); // with the one the warming events opened
  CHECK(belay.count("SELECT count(*) FROM delivery d JOIN org o ON o.id = d.org_id "
                    "WHERE o.name = 'beta' AND d.status = 'PENDING'") == 0);
  CHECK(test::eventually(
      [&] {
        for (int node = 0; node < 2; ++node)
          if (event(belay, "beta-routing", node, "after") == 202 ||
              belay.get("/api/v1/incidents", "beta-key", node).status != 401)
            return false;
        return true;
      },
      10s));
  // Named again without "disabled", it works again; then a file that leaves it out
  // disables it too.
  out = provision(belay, file({alpha(1, ""), beta()}));
  CHECK(out.find("org 'beta': enable org (it was disabled)") != std::string::npos);
  CHECK(belay.count("SELECT count(*) FROM org WHERE disabled_at IS NOT NULL") == 0);
  CHECK(test::eventually([&] { return event(belay, "beta-routing", 0, "again") == 202; },
                         10s));
  CHECK(test::eventually(
      [&] {
        return belay.count("SELECT count(*) FROM incident i JOIN org o ON o.id = "
                           "i.org_id WHERE o.name = 'beta' AND i.dedup_key = 'again' "
                           "AND i.status = 'OPEN'") == 1;
      },
      10s));
  out = provision(belay, file({alpha(1, "")}));
  CHECK(out.find("org 'beta': disable org (the file no longer names it)") !=
        std::string::npos);
  CHECK(belay.count("SELECT count(*) FROM incident i JOIN org o ON o.id = i.org_id "
                    "WHERE o.name = 'beta' AND i.status <> 'RESOLVED'") == 0);
}
