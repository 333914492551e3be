// The configuration API (docs/http.md#configuration-api): GET /api/v1/config answers
// the caller's org as a provisioning document with secrets shown as "<set>", and PUT
// /api/v1/config replaces the caller's org with one, through the real binary.
#include "protocol/hash.hpp"
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace belay;
using namespace std::chrono_literals;
using test::str;

namespace {

// The secrets of alpha's document, each replaced by "<set>" in what GET shows.
const std::vector<std::string> secrets = {
    "alpha-key",    "alpha-key-b", "hook-secret", "smtp-password", "slack-signing",
    "twilio-token", "alpha-hb",    "alpha-am",    "alpha-routing"};

// Org "alpha" with every kind of item, each field spelt out as GET writes it (items in
// name order): a webhook channel "hook" to `sink_url` that user alice is paged on by
// step 0 of "default", and email, slack, sms and log channels; users, a schedule, a
// heartbeat and two integrations.
std::string alpha(const std::string& sink_url) {
  const std::string defaults =
      R"("maxAttempts":4,"retryBaseSeconds":30,"retryCapSeconds":120,"timeoutSeconds":5,)";
  return R"({"name":"alpha","apiKeys":["alpha-key","alpha-key-b"],"channels":[
    {"name":"hook","type":"webhook","url":")" +
         sink_url + R"(","secret":"hook-secret",)" + defaults +
         R"("throttle":[],"statusThrottle":[],"bundle":false},
    {"name":"log","type":"log",)" +
         defaults + R"("throttle":[],"statusThrottle":[],"bundle":false},
    {"name":"mail","type":"email","url":"smtp://127.0.0.1:1","secret":"smtp-password",
     "account":"belay","from":"belay@example.com","maxAttempts":3,"retryBaseSeconds":10,
     "retryCapSeconds":60,"timeoutSeconds":5,"failoverTo":"log",
     "throttle":[{"count":5,"seconds":60}],"statusThrottle":[],"bundle":true},
    {"name":"slack","type":"slack","url":"http://127.0.0.1:1/slack",
     "signingSecret":"slack-signing",)" +
         defaults + R"("throttle":[],"statusThrottle":[],"bundle":false},
    {"name":"sms","type":"sms","url":"http://127.0.0.1:1/twilio","secret":"twilio-token",
     "account":"AC123","from":"+15550000000",)" +
         defaults + R"("throttle":[],"statusThrottle":[{"count":1,"seconds":600}],
     "bundle":false}],
  "users":[
    {"name":"alice","fullName":"Alice A","timeZone":"Europe/Berlin",
     "contacts":[{"name":"hook","channel":"hook","to":"alice","statusUpdates":true}],
     "rules":[{"contact":"hook","delaySeconds":0}]},
    {"name":"bob","fullName":"",
     "contacts":[{"name":"l","channel":"log","to":"bob","statusUpdates":false}],
     "rules":[{"contact":"l","delaySeconds":60}]}],
  "schedules":[{"name":"primary","timeZone":"UTC","layers":[{"name":"main",
     "users":["alice","bob"],
     "rotation":{"type":"daily","length":1,"start":"2026-01-01T09:00"}}]}],
  "policies":[{"name":"default","repeat":1,"repeatDelaySeconds":600,"graceSeconds":300,
     "steps":[{"delaySeconds":0,"targets":[{"user":"alice"}]},
              {"delaySeconds":86400,"targets":[{"schedule":"primary"},
                                               {"channel":"log","to":"#ops"}]}]}],
  "heartbeats":[{"name":"nightly","key":"alpha-hb","periodSeconds":86400,
     "graceSeconds":60,"policy":"default","alertIfNeverPinged":false}],
  "integrations":[
    {"name":"am","type":"alertmanager","key":"alpha-am","policy":"default","shadow":true,
     "rateLimitPerMinute":600,"heartbeat":"nightly",
     "grouping":{"by":["labels.alertname"]}},
    {"name":"pd","type":"events","key":"alpha-routing","policy":"default","shadow":false,
     "rateLimitPerMinute":100}]})";
}

std::string beta() {
  return R"({"name":"beta","apiKeys":["beta-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[{"targets":[{"channel":"log","to":"#ops"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":"beta-routing","policy":"default"}]})";
}

std::string file(const std::string& sink_url) {
  return R"({"orgs":[)" + alpha(sink_url) + "," + beta() + "]}";
}

// alpha's document as GET should show it.
std::string shown(const std::string& sink_url) {
  std::string text = R"({"orgs":[)" + alpha(sink_url) + "]}";
  for (auto& secret : secrets)
    for (auto at = text.find('"' + secret + '"'); at != std::string::npos;
         at = text.find('"' + secret + '"'))
      text.replace(at, secret.size() + 2, "\"<set>\"");
  return text;
}

test::reply put(test::served_belay& belay, const std::string& body,
                const std::string& key, const std::string& query = "", int node = 0) {
  return test::to_reply(belay.client(node).Put(("/api/v1/config" + query).c_str(),
                                               {{"Authorization", test::bearer(key)}},
                                               body, "application/json"));
}

std::string config(test::served_belay& belay, const std::string& key = "alpha-key",
                   int node = 0) {
  auto r = belay.get("/api/v1/config", key, node);
  REQUIRE(r.status == 200);
  return r.body;
}

// What any configuration write would change: the configuration tables' rows.
int64_t config_checksum(test::served_belay& belay) {
  return belay.count(R"sql(
    SELECT ('x' || substr(md5(string_agg(t, '|' ORDER BY t)), 1, 15))::bit(60)::bigint
    FROM (SELECT c::text AS t FROM channel c UNION ALL SELECT u::text FROM app_user u
          UNION ALL SELECT s::text FROM schedule s UNION ALL SELECT p::text FROM policy p
          UNION ALL SELECT i::text FROM integration i UNION ALL SELECT k::text FROM api_key k
          UNION ALL SELECT concat_ws(',', name, key_hash, policy, period_seconds,
                                     grace_seconds) FROM heartbeat
          UNION ALL SELECT concat_ws(',', name, disabled_at) FROM org) rows)sql");
}

bool has_change(const test::reply& r, const std::string& line) {
  for (auto& change : r.json["changes"].GetArray())
    if (str(change) == line)
      return true;
  return false;
}

} // namespace

TEST_CASE("GET /api/v1/config answers the org as the file provisioned it, secrets as "
          "<set>, and PUT of that answer changes nothing") {
  test::http_sink sink;
  test::served_belay belay{file(sink.url("/hook"))};
  auto got = config(belay);
  INFO(got);
  CHECK((test::json(got) == test::json(shown(sink.url("/hook")))));
  for (auto& secret : secrets)
    CHECK(got.find(secret) == std::string::npos);

  auto before = config_checksum(belay);
  auto r = put(belay, got, "alpha-key");
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(r.json["changes"].Empty());
  CHECK(config_checksum(belay) == before);
  CHECK(config(belay) == got);
}

TEST_CASE("PUT /api/v1/config changes the org on every node within 10 s and lists the "
          "changes; dryRun changes nothing") {
  test::http_sink sink;
  test::served_belay belay{file(sink.url("/hook")), 2};
  auto oncall_at = [&](int node) {
    auto r = belay.get("/api/v1/oncall?at=2026-12-01T10:00:00Z", "alpha-key", node);
    return r.status == 200 && r.json["oncall"].Size() == 1
               ? str(r.json["oncall"][0]["user"])
               : std::string{};
  };
  REQUIRE(oncall_at(1) == "alice");
  auto changed = test::with_value(config(belay), "/orgs/0/schedules/0/layers/0/users",
                                  R"(["bob","alice"])");

  auto before = config_checksum(belay);
  auto dry = put(belay, changed, "alpha-key", "?dryRun=true");
  INFO(dry.body);
  REQUIRE(dry.status == 200);
  CHECK(dry.json["dryRun"].GetBool());
  CHECK(has_change(dry, "org 'alpha': update schedule 'primary'"));
  CHECK(config_checksum(belay) == before);

  auto applied = put(belay, changed, "alpha-key");
  INFO(applied.body);
  REQUIRE(applied.status == 200);
  CHECK_FALSE(applied.json["dryRun"].GetBool());
  CHECK(has_change(applied, "org 'alpha': update schedule 'primary'"));
  CHECK(applied.json["changes"].Size() == 1);
  CHECK(test::eventually([&] { return oncall_at(1) == "bob"; }, 10s));
}

TEST_CASE("PUT /api/v1/config: \"<set>\" keeps a channel's secret, a key in plain text "
          "replaces it, and apiKeys left out keeps the org's keys") {
  test::http_sink sink;
  test::served_belay belay{file(sink.url("/hook"))};
  // The stored secret is sealed (docs/guarantees.md#no-key-at-rest-in-clear): kept means
  // the very same stored value, and the signatures below show it still opens to the
  // file's secret.
  REQUIRE(belay.count("SELECT count(*) FROM channel WHERE secret = 'hook-secret'") == 0);
  auto secret_before =
      belay.count("SELECT hashtext(secret) FROM channel WHERE name = 'hook'");
  // The hook's URL changes; its secret stays "<set>".
  auto doc = test::with_value(config(belay), "/orgs/0/channels/0/url",
                              '"' + sink.url("/moved") + '"');
  doc = test::without(doc, "/orgs/0/apiKeys");
  doc = test::with_value(doc, "/orgs/0/integrations/1/key", R"("alpha-routing-2")");
  auto r = put(belay, doc, "alpha-key");
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(has_change(r, "org 'alpha': update channel 'hook'"));
  CHECK(has_change(r, "org 'alpha': update integration 'pd'"));
  CHECK(belay.get("/api/v1/config", "alpha-key-b").status == 200);

  CHECK(belay.count("SELECT hashtext(secret) FROM channel WHERE name = 'hook'") ==
        secret_before);
  // A page to alice goes to the hook's new URL once the dispatcher reloaded the channel
  // (every 5 s): new incidents until one does.
  auto moved = [&] {
    for (auto& request : sink.requests())
      if (request.path == "/moved")
        return true;
    return false;
  };
  for (int i = 0; i < 15 && !moved(); ++i) {
    belay.post("/v2/enqueue",
               test::pd_trigger("alpha-routing-2", "kept-" + std::to_string(i)), "");
    test::eventually(moved, 1s);
  }
  REQUIRE(moved());
  for (auto& request : sink.requests())
    if (request.path == "/moved")
      CHECK(request.header("X-Belay-Signature") ==
            "sha256=" + hmac_sha256_hex("hook-secret", request.body));
  // The replaced key stops within the key cache's 10 s.
  CHECK(test::eventually(
      [&] {
        return belay.post("/v2/enqueue", test::pd_trigger("alpha-routing", "old"), "")
                   .status != 202;
      },
      10s));
}

TEST_CASE("PUT /api/v1/config refuses a bad document with 400 naming the field, and "
          "writes nothing") {
  test::served_belay belay{file("http://127.0.0.1:1/hook")};
  auto got = config(belay);
  auto before = config_checksum(belay);
  auto r = put(belay, test::with_value(got, "/orgs/0/channels/0/url", R"("ftp://x")"),
               "alpha-key");
  CHECK(r.status == 400);
  CHECK(test::error_code(r) == "invalid_provisioning");
  CHECK(test::error_field(r) == "orgs[0].channels[0].url");
  // "<set>" for a new item has no stored value to keep.
  auto added = test::with_value(
      got, "/orgs/0/integrations/2",
      R"({"name":"new","type":"events","key":"<set>","policy":"default"})");
  r = put(belay, added, "alpha-key");
  CHECK(r.status == 400);
  CHECK(test::error_field(r) == "orgs[0].integrations[2].key");
  r = put(belay, "{not json", "alpha-key");
  CHECK(r.status == 400);
  CHECK(test::error_code(r) == "invalid_json");
  r = put(belay, got, "alpha-key", "?dryRun=maybe");
  CHECK(r.status == 400);
  CHECK(test::error_field(r) == "dryRun");
  CHECK(config(belay) == got);
  CHECK(config_checksum(belay) == before);
}

TEST_CASE("an org's API key neither reads nor changes another org's configuration") {
  test::served_belay belay{file("http://127.0.0.1:1/hook")};
  auto alpha_doc = config(belay);
  auto beta_doc = config(belay, "beta-key");
  CHECK(str(test::json(beta_doc)["orgs"][0]["name"]) == "beta");
  CHECK(beta_doc.find("alpha") == std::string::npos);
  auto before = config_checksum(belay);

  auto r = put(belay, alpha_doc, "beta-key");
  CHECK(r.status == 403);
  CHECK(test::error_code(r) == "forbidden");
  CHECK(test::error_field(r) == "orgs[0].name");
  auto both = R"({"orgs":[)" + test::text_of(test::json(beta_doc)["orgs"][0]) + "," +
              test::text_of(test::json(alpha_doc)["orgs"][0]) + "]}";
  r = put(belay, both, "beta-key");
  CHECK(r.status == 400);
  CHECK(test::error_field(r) == "orgs");
  CHECK(put(belay, alpha_doc, "").status == 401);
  CHECK(belay.get("/api/v1/config", "").status == 401);
  CHECK(config_checksum(belay) == before);
  CHECK(config(belay) == alpha_doc);
}
