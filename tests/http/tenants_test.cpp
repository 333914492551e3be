// docs/guarantees.md#rate-limits and #hostile-conditions through the running binary: rate
// limits answer 429 with Retry-After and write nothing; shadow never hides a live page;
// no key is at rest in clear; long lists come a page at a time.
#include "support/served_belay.hpp"

#include <catch2/catch.hpp>

using namespace belay;
using namespace std::chrono_literals;

namespace {

std::string am_firing(const std::string& fingerprint) {
  return test::alertmanager_body(R"({"status":"firing","labels":{"alertname":"A"},)"
                                 R"("fingerprint":")" +
                                 fingerprint + R"("})");
}

// Org "alpha" with an events integration limited to two requests a minute, an
// alertmanager one limited likewise, and a shadow events integration.
std::string limited_org() {
  return R"({"orgs":[{"name":"alpha","apiKeys":["alpha-key"],
    "channels":[{"name":"log","type":"log"}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"log","to":"#ops"}]},
      {"delaySeconds":86400,"targets":[{"channel":"log","to":"lead"}]}]}],
    "integrations":[
      {"name":"pd","type":"events","key":"alpha-routing","policy":"default",
       "rateLimitPerMinute":2},
      {"name":"prom","type":"alertmanager","key":"alpha-am","policy":"default",
       "rateLimitPerMinute":2},
      {"name":"canary","type":"events","key":"alpha-shadow","policy":"default",
       "shadow":true}]}]})";
}

std::string header(const httplib::Result& r, const char* name) {
  return r ? r->get_header_value(name) : "";
}

} // namespace

TEST_CASE("an integration key over its rate limit gets 429 with Retry-After and writes "
          "nothing") {
  test::served_belay belay{limited_org()};
  auto http = belay.client();
  for (int i = 0; i < 2; ++i)
    REQUIRE(belay
                .post("/v2/enqueue",
                      test::pd_trigger("alpha-routing", "pd-" + std::to_string(i)), "")
                .status == 202);
  auto before = belay.count("SELECT count(*) FROM incident");
  auto throttled = http.Post("/v2/enqueue", test::pd_trigger("alpha-routing", "pd-3"),
                             "application/json");
  REQUIRE(throttled);
  INFO(throttled->body);
  CHECK(throttled->status == 429);
  auto wait = std::stoi(header(throttled, "Retry-After"));
  CHECK(wait >= 1);
  CHECK(wait <= 30); // two a minute: a token every 30 s
  auto body = test::to_reply(throttled);
  REQUIRE(body.json.IsObject());
  CHECK(std::string{body.json["status"].GetString()} == "throttle event");
  CHECK(body.json.HasMember("message"));

  for (int i = 0; i < 2; ++i)
    REQUIRE(belay
                .post("/api/v1/integrations/alertmanager",
                      am_firing("am-" + std::to_string(i)), "alpha-am")
                .status == 200);
  httplib::Headers am_key{{"Authorization", "Bearer alpha-am"}};
  auto am = http.Post("/api/v1/integrations/alertmanager", am_key, am_firing("am-3"),
                      "application/json");
  REQUIRE(am);
  CHECK(am->status == 429);
  CHECK(!header(am, "Retry-After").empty());
  CHECK(test::error_code(test::to_reply(am)) == "rate_limited");
  // Two incidents from the two webhooks allowed, none from either refused request.
  CHECK(belay.count("SELECT count(*) FROM incident") == before + 2);
}

namespace {

// An Alertmanager post of `n` firing alerts, fingerprints <prefix>-0 …
std::string am_alerts(const std::string& prefix, int n) {
  std::string alerts;
  for (int i = 0; i < n; ++i)
    alerts += std::string{i ? "," : ""} +
              R"({"status":"firing","labels":{"alertname":"A"},"fingerprint":")" +
              prefix + "-" + std::to_string(i) + R"("})";
  return test::alertmanager_body(alerts);
}

} // namespace

TEST_CASE("an alertmanager integration's bucket counts alerts, not posts") {
  auto doc = limited_org();
  const std::string two_a_minute = R"("rateLimitPerMinute":2},)";
  doc.replace(doc.find(two_a_minute, doc.find("alpha-am")), two_a_minute.size(),
              R"("rateLimitPerMinute":10},)");
  test::served_belay belay{doc};
  REQUIRE(belay.post("/api/v1/integrations/alertmanager", am_alerts("a", 6), "alpha-am")
              .status == 200);
  auto before = belay.count("SELECT count(*) FROM incident");
  // Four tokens left: five alerts are refused whole, and nothing is written.
  httplib::Headers am_key{{"Authorization", "Bearer alpha-am"}};
  auto refused = belay.client().Post("/api/v1/integrations/alertmanager", am_key,
                                     am_alerts("b", 5), "application/json");
  REQUIRE(refused);
  CHECK(refused->status == 429);
  CHECK(std::stoi(header(refused, "Retry-After")) >= 1);
  CHECK(belay.count("SELECT count(*) FROM incident") == before);
  // A post of more alerts than a whole bucket costs the whole bucket, never refused for
  // ever: the other integration's two-a-minute bucket takes a post of five.
  test::served_belay other{limited_org()};
  REQUIRE(other.post("/api/v1/integrations/alertmanager", am_alerts("c", 5), "alpha-am")
              .status == 200);
  CHECK(other.post("/api/v1/integrations/alertmanager", am_alerts("d", 1), "alpha-am")
            .status == 429);
}

TEST_CASE("an integration key sent as an API key leaves the integration answering") {
  test::served_belay belay;
  CHECK(belay.get("/api/v1/incidents", "alpha-routing").status == 401);
  auto enqueued = belay.enqueue(
      "trigger", "wrong-kind",
      R"(,"payload":{"summary":"Disk full","source":"db1","severity":"error"})");
  INFO(enqueued.body);
  CHECK(enqueued.status == 202); // not 400 "Invalid routing key" for 2 s
  CHECK(belay
            .post("/api/v1/integrations/alertmanager", test::alertmanager_body(""),
                  "alpha-key")
            .status == 401);
  CHECK(belay.trigger("right-kind").status == 201);
}

TEST_CASE("an API key over --api-rate-limit-per-minute gets 429 with Retry-After") {
  test::served_belay belay{test::two_orgs(), 1, {"--api-rate-limit-per-minute", "3"}};
  for (int i = 0; i < 3; ++i)
    REQUIRE(belay.get("/api/v1/incidents", "alpha-key").status == 200);
  auto before = belay.row_counts();
  auto http = belay.client();
  httplib::Headers key{{"Authorization", "Bearer alpha-key"}};
  auto r =
      http.Post("/api/v1/incidents", key, test::trigger_body("k"), "application/json");
  REQUIRE(r);
  CHECK(r->status == 429);
  CHECK(std::stoi(header(r, "Retry-After")) >= 1);
  CHECK(test::error_code(test::to_reply(r)) == "rate_limited");
  CHECK(belay.row_counts() == before);
  // Another key has its own bucket.
  CHECK(belay.get("/api/v1/incidents", "beta-key").status == 200);
}

namespace {

// Org "alpha" of two_orgs() with a shadow events integration besides its live one.
std::string with_canary() {
  auto orgs = test::two_orgs();
  auto at = orgs.find(R"({"name":"pd","type":"events")");
  return orgs.insert(at, R"({"name":"canary","type":"events","key":"alpha-shadow",)"
                         R"("policy":"default","shadow":true},)");
}

} // namespace

TEST_CASE("a live event for a key held by a shadow incident makes it page") {
  test::served_belay belay{with_canary()};
  REQUIRE(
      belay.post("/v2/enqueue", test::pd_trigger("alpha-shadow", "disk"), "").status ==
      202);
  auto id = belay.count("SELECT id FROM incident WHERE dedup_key = 'disk'");
  REQUIRE(test::eventually([&] {
    return belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                       std::to_string(id) + " AND status = 'SHADOWED'") == 1;
  }));
  // The same key through a live integration: deduplicated into the shadow incident,
  // which must page now.
  REQUIRE(
      belay.post("/v2/enqueue", test::pd_trigger("alpha-routing", "disk"), "").status ==
      202);
  CHECK(belay.count("SELECT count(*) FROM incident") == 1);
  CHECK(belay.count("SELECT count(*) FROM incident WHERE shadow") == 0);
  CHECK(test::eventually([&] {
    return belay.count("SELECT count(*) FROM delivery WHERE incident_id = " +
                       std::to_string(id) + " AND status = 'SENT'") == 1;
  }));
  CHECK(belay.count("SELECT count(*) FROM delivery WHERE status = 'SHADOWED'") == 0);
}

TEST_CASE("a dump of the database after every ingest path holds no plaintext key") {
  test::served_belay belay;
  // Every ingest path, keys where callers put them, and secrets inside payloads.
  REQUIRE(
      belay
          .post("/api/v1/incidents",
                R"({"dedupKey":"n1","title":"t","policy":"default","details":)"
                R"({"Authorization":"Bearer alpha-key","nested":{"api_key":"alpha-key",)"
                R"("Password":"hunter2-secret-value"}}})",
                "alpha-key")
          .status == 201);
  REQUIRE(
      belay
          .post("/v2/enqueue",
                R"({"routing_key":"alpha-routing","event_action":"trigger",)"
                R"("dedup_key":"p1","payload":{"summary":"s","source":"x","severity":)"
                R"("error","custom_details":{"token":"alpha-routing"}}})",
                "")
          .status == 202);
  REQUIRE(belay.post("/v2/enqueue", test::pd_trigger("alpha-routing", "p1"), "").status ==
          202);
  REQUIRE(belay.enqueue("acknowledge", "p1").status == 202);
  REQUIRE(belay
              .post("/api/v1/integrations/alertmanager",
                    R"({"version":"4","status":"firing","alerts":[{"status":"firing",)"
                    R"("labels":{"alertname":"A"},"annotations":{"summary":"s",)"
                    R"("secret":"alpha-am"},"fingerprint":"f1"}]})",
                    "alpha-am")
              .status == 200);
  REQUIRE(
      belay.post("/api/v1/incidents/1/ack", R"({"by":"alice"})", "alpha-key").status ==
      200);
  REQUIRE(belay.post("/api/v1/incidents/1/resolve", "{}", "alpha-key").status == 200);
  auto dump = belay.db.dump();
  INFO(dump.substr(0, 2000));
  REQUIRE(dump.find("CREATE TABLE") != std::string::npos);
  REQUIRE(dump.find("\"nested\"") != std::string::npos); // the evidence is there
  for (auto key : {"alpha-key", "alpha-routing", "alpha-am", "beta-key", "beta-routing",
                   "beta-am", "hunter2-secret-value"})
    CHECK(dump.find(key) == std::string::npos);
}

TEST_CASE("timelines, deliveries and dead letters come a page at a time with a cursor") {
  test::served_belay belay;
  REQUIRE(belay.trigger("paged").status == 201);
  for (int i = 0; i < 4; ++i)
    REQUIRE(belay.trigger("paged").status == 200);
  auto detail = belay.get("/api/v1/incidents/1?limit=2", "alpha-key");
  REQUIRE(detail.status == 200);
  CHECK(detail.json["timeline"].Size() == 2);
  REQUIRE(detail.json["timelineNext"].IsString());
  CHECK(detail.json.HasMember("deliveries"));
  CHECK(detail.json.HasMember("deliveriesNext"));
  std::vector<std::string> kinds;
  std::string after;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = belay.get("/api/v1/incidents/1/timeline?limit=2" +
                              (after.empty() ? "" : "&after=" + after),
                          "alpha-key");
    REQUIRE(page.status == 200);
    for (auto& e : page.json["timeline"].GetArray())
      kinds.push_back(e["kind"].GetString());
    if (page.json["next"].IsNull())
      break;
    after = page.json["next"].GetString();
  }
  REQUIRE(kinds.size() >= 5);
  CHECK(kinds[0] == "created");
  CHECK(std::count(kinds.begin(), kinds.end(), "duplicate") == 4);
  auto deliveries = belay.get("/api/v1/incidents/1/deliveries?limit=1", "alpha-key");
  CHECK(deliveries.status == 200);
  CHECK(deliveries.json["deliveries"].Size() <= 1);
  CHECK(deliveries.json.HasMember("next"));
  auto letters = belay.get("/api/v1/dead-letters?limit=10", "alpha-key");
  REQUIRE(letters.status == 200);
  CHECK(letters.json["deadLetters"].IsArray());
  CHECK(letters.json["next"].IsNull());
  auto bad = belay.get("/api/v1/dead-letters?limit=0", "alpha-key");
  CHECK(bad.status == 400);
  CHECK(test::error_field(bad) == "limit");
  CHECK(belay.get("/api/v1/incidents/1/timeline", "beta-key").status == 404);
}
