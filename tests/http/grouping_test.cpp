// Alerts inside incidents (docs/guarantees.md#alerts-and-grouping): the running binary
// over HTTP against PostgreSQL, with integrations that group their alerts and one that
// does not.
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <thread>

using namespace belay;
using namespace std::chrono_literals;
using test::id_of;

namespace {

// Org acme: a policy that pages a webhook at once (and a day later again); "prom" groups
// by alertname, "plain" does not group, "pd" groups PagerDuty events by their source.
// Each alert costs "prom" a token (docs/guarantees.md#rate-limits): its bucket holds the
// storms below, 1,000 alerts in seconds, where the default's 600 a minute would not.
std::string grouping_org(const test::http_sink& sink) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         sink.url("/hook") + R"("}],
    "policies":[{"name":"default","steps":[
      {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
      {"delaySeconds":86400,"targets":[{"channel":"hook","to":"lead"}]}]}],
    "integrations":[
      {"name":"prom","type":"alertmanager","key":"prom-key","policy":"default",
       "grouping":{"by":["labels.alertname"]},"rateLimitPerMinute":6000},
      {"name":"plain","type":"alertmanager","key":"plain-key","policy":"default"},
      {"name":"pd","type":"events","key":"pd-key","policy":"default",
       "grouping":{"by":["payload.source"]}}]}]})";
}

std::string alert(const std::string& status, const std::string& name,
                  const std::string& fingerprint,
                  const std::string& severity = "warning") {
  return R"({"status":")" + status + R"(","labels":{"alertname":")" + name +
         R"(","instance":")" + fingerprint + R"(","severity":")" + severity +
         R"("},"annotations":{"summary":")" + name + " on " + fingerprint +
         R"("},"startsAt":"2024-03-01T10:00:00.000Z","fingerprint":")" + fingerprint +
         R"("})";
}

// One webhook of the alerts `from` … `to - 1` of `name`, fingerprints "<name>-<n>".
std::string webhook(const std::string& status, const std::string& name, int from,
                    int to) {
  std::string body =
      R"({"version":"4","status":")" + status + R"(","receiver":"belay","alerts":[)";
  for (int n = from; n < to; ++n)
    body += (n > from ? "," : "") + alert(status, name, name + "-" + std::to_string(n));
  return body + "]}";
}

struct fixture {
  test::http_sink sink;
  test::served_belay belay{grouping_org(sink)};

  test::reply am(const std::string& body, const std::string& key = "prom-key") {
    return belay.post("/api/v1/integrations/alertmanager", body, key);
  }
  test::reply pd(const std::string& action, const std::string& dedup_key,
                 const std::string& source = "db1") {
    return belay.post("/v2/enqueue",
                      test::pd_event("pd-key", action, dedup_key,
                                     R"(,"payload":{"summary":"down: )" + dedup_key +
                                         R"(","source":")" + source +
                                         R"(","severity":"error"})"),
                      "");
  }
  test::reply incident(int64_t id) {
    return belay.get("/api/v1/incidents/" + std::to_string(id), "acme-key");
  }
  test::reply incidents() { return belay.get("/api/v1/incidents", "acme-key"); }
  std::string status(int64_t id) {
    return incident(id).json["incident"]["status"].GetString();
  }
  int firing(int64_t id) { return incident(id).json["incident"]["firingCount"].GetInt(); }
  std::string alert_status(const std::string& key) {
    auto r = belay.db.sql().query(
        "SELECT status FROM alert WHERE key = $1 ORDER BY id DESC LIMIT 1", key);
    return r.rows() ? r.str(0, 0) : "none";
  }
  // Pages: the deliveries of ladder steps, not status updates.
  int64_t pages() {
    return belay.count("SELECT count(*) FROM delivery WHERE update_of IS NULL");
  }
};

void check_counts(const test::reply& r, int created, int deduplicated, int grouped,
                  int resolved = 0) {
  INFO(r.body);
  REQUIRE(r.status == 200);
  CHECK(r.json["created"] == created);
  CHECK(r.json["deduplicated"] == deduplicated);
  CHECK(r.json["grouped"] == grouped);
  CHECK(r.json["resolved"] == resolved);
  CHECK(r.json["ignored"] == 0);
}

int64_t only_incident(fixture& f) {
  auto list = f.incidents();
  REQUIRE(list.json["incidents"].Size() == 1);
  return list.json["incidents"][0]["id"].GetInt64();
}

} // namespace

TEST_CASE("grouping by alertname makes 500 alerts in 5 posts one incident, paged once, "
          "resolved with its last alert") {
  fixture f;
  check_counts(f.am(webhook("firing", "NodeDown", 0, 100)), 1, 99, 99);
  for (int post = 1; post < 5; ++post)
    check_counts(f.am(webhook("firing", "NodeDown", post * 100, post * 100 + 100)), 0,
                 100, 100);
  auto id = only_incident(f);
  auto shown = f.incident(id);
  auto& inc = shown.json["incident"];
  CHECK(inc["dedupKey"] == "prom:NodeDown");
  CHECK(inc["title"] == "NodeDown on NodeDown-0");
  CHECK(inc["alertCount"] == 500);
  CHECK(inc["firingCount"] == 500);
  CHECK(inc["eventCount"] == 500);
  CHECK(shown.json["alerts"].Size() == 100);
  CHECK(shown.json["alerts"][0]["key"] == "NodeDown-499"); // newest first
  CHECK(shown.json["alerts"][0]["status"] == "FIRING");
  CHECK(shown.json["evidence"].Size() == 5);
  REQUIRE(shown.json["alertsNext"].IsString());
  CHECK(f.belay.count("SELECT count(*) FROM timeline WHERE kind = 'alert_added'") == 499);

  // …/alerts pages through all 500, each once.
  std::set<std::string> keys;
  std::string after;
  for (int guard = 0; guard < 10; ++guard) {
    auto page =
        f.belay.get("/api/v1/incidents/" + std::to_string(id) + "/alerts?limit=200" +
                        (after.empty() ? "" : "&after=" + after),
                    "acme-key");
    REQUIRE(page.status == 200);
    for (auto& a : page.json["alerts"].GetArray())
      keys.insert(a["key"].GetString());
    if (page.json["next"].IsNull())
      break;
    after = page.json["next"].GetString();
  }
  CHECK(keys.size() == 500);

  // One page, to the webhook, and no other.
  REQUIRE(test::eventually([&] { return f.sink.count() >= 1; }));
  std::this_thread::sleep_for(1s);
  CHECK(f.sink.count() == 1);
  CHECK(f.pages() == 1);

  for (int post = 0; post < 5; ++post)
    check_counts(f.am(webhook("resolved", "NodeDown", post * 100,
                              post * 100 + (post == 4 ? 99 : 100))),
                 0, 0, 0, post == 4 ? 99 : 100);
  CHECK(f.status(id) == "OPEN");
  CHECK(f.firing(id) == 1);
  CHECK(f.alert_status("NodeDown-0") == "RESOLVED");
  CHECK(f.alert_status("NodeDown-499") == "FIRING");

  check_counts(f.am(webhook("resolved", "NodeDown", 499, 500)), 0, 0, 0, 1);
  auto shown_resolved = f.incident(id);
  auto resolved = shown_resolved.json["incident"].GetObject();
  CHECK(resolved["status"] == "RESOLVED");
  CHECK(resolved["resolvedVia"] == "alertmanager");
  CHECK(resolved["firingCount"] == 0);
  CHECK(f.belay.count("SELECT count(*) FROM timeline WHERE kind = 'alert_resolved'") ==
        500);
}

TEST_CASE("resolving a grouped incident through the API resolves all its alerts, and "
          "the next alert opens a new incident") {
  fixture f;
  check_counts(f.am(webhook("firing", "DiskFull", 0, 3)), 1, 2, 2);
  auto id = only_incident(f);
  auto r = f.belay.post("/api/v1/incidents/" + std::to_string(id) + "/resolve",
                        R"({"by":"alice"})", "acme-key");
  REQUIRE(r.status == 200);
  CHECK(r.json["incident"]["firingCount"] == 0);
  CHECK(r.json["incident"]["alertCount"] == 3);
  CHECK(f.belay.count("SELECT count(*) FROM alert WHERE status = 'FIRING'") == 0);
  auto alerts =
      f.belay.get("/api/v1/incidents/" + std::to_string(id) + "/alerts", "acme-key");
  REQUIRE(alerts.json["alerts"].Size() == 3);
  for (auto& a : alerts.json["alerts"].GetArray())
    CHECK(a["status"] == "RESOLVED");

  check_counts(f.am(webhook("firing", "DiskFull", 1, 2)), 1, 0, 0);
  CHECK(f.incidents().json["incidents"].Size() == 2);
}

TEST_CASE("a PagerDuty resolve of one grouped dedup_key resolves only that alert") {
  fixture f;
  REQUIRE(f.pd("trigger", "k1").status == 202);
  REQUIRE(f.pd("trigger", "k2").status == 202);
  REQUIRE(f.pd("trigger", "k3", "db2").status == 202);
  CHECK(f.incidents().json["incidents"].Size() == 2);
  auto id = f.belay.db.sql()
                .query("SELECT id FROM incident WHERE dedup_key = 'pd:db1'")
                .int64(0, 0);
  CHECK(f.incident(id).json["incident"]["alertCount"] == 2);

  auto r = f.pd("resolve", "k1");
  CHECK(r.status == 202);
  CHECK(r.json["dedup_key"] == "k1");
  CHECK(f.alert_status("k1") == "RESOLVED");
  CHECK(f.alert_status("k2") == "FIRING");
  CHECK(f.alert_status("k3") == "FIRING");
  CHECK(f.status(id) == "OPEN");
  CHECK(f.firing(id) == 1);

  REQUIRE(f.pd("acknowledge", "k2").status == 202);
  CHECK(f.status(id) == "ACKNOWLEDGED");
  REQUIRE(f.pd("resolve", "k2").status == 202);
  auto shown_resolved = f.incident(id);
  auto resolved = shown_resolved.json["incident"].GetObject();
  CHECK(resolved["status"] == "RESOLVED");
  CHECK(resolved["resolvedVia"] == "pagerduty");
  CHECK(f.alert_status("k3") == "FIRING"); // the other group's incident is untouched
}

TEST_CASE("an integration that does not group answers and writes as before, its "
          "incidents shown as their one alert") {
  fixture f;
  auto r = f.am(webhook("firing", "Plain", 0, 2), "plain-key");
  REQUIRE(r.status == 200);
  CHECK(r.body == R"({"created":2,"deduplicated":0,"resolved":0,"ignored":0})");
  CHECK(f.belay.count("SELECT count(*) FROM alert") == 0);
  auto id = f.belay.db.sql()
                .query("SELECT id FROM incident WHERE dedup_key = 'Plain-0'")
                .int64(0, 0);
  auto shown = f.incident(id);
  CHECK(shown.json["incident"]["alertCount"] == 1);
  CHECK(shown.json["incident"]["firingCount"] == 1);
  REQUIRE(shown.json["alerts"].Size() == 1);
  CHECK(shown.json["alerts"][0]["key"] == "Plain-0");
  CHECK(shown.json["alerts"][0]["status"] == "FIRING");
  CHECK(shown.json["alertsNext"].IsNull());

  r = f.am(webhook("resolved", "Plain", 0, 1), "plain-key");
  CHECK(r.body == R"({"created":0,"deduplicated":0,"resolved":1,"ignored":0})");
  shown = f.incident(id);
  CHECK(shown.json["incident"]["firingCount"] == 0);
  CHECK(shown.json["alerts"][0]["status"] == "RESOLVED");
}

TEST_CASE("G1 for alerts: concurrent posts of one alert key make one firing alert") {
  test::http_sink sink;
  test::served_belay belay{grouping_org(sink), 2};
  std::vector<std::thread> posts;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    posts.emplace_back([&, i] {
      auto r = belay.post("/api/v1/integrations/alertmanager",
                          webhook("firing", "Race", 0, 1), "prom-key", i % 2);
      ok += r.status == 200;
    });
  for (auto& t : posts)
    t.join();
  CHECK(ok == 8);
  CHECK(belay.count("SELECT count(*) FROM alert WHERE key = 'Race-0'") == 1);
  CHECK(belay.count("SELECT event_count FROM alert WHERE key = 'Race-0'") == 8);
  CHECK(belay.count("SELECT count(*) FROM incident") == 1);
  CHECK(belay.count("SELECT alert_count FROM incident") == 1);
}

TEST_CASE("an alert that joins an acknowledged incident pages nobody") {
  fixture f;
  check_counts(f.am(webhook("firing", "CpuHot", 0, 1)), 1, 0, 0);
  auto id = only_incident(f);
  REQUIRE(test::eventually([&] { return f.pages() == 1 && f.sink.count() >= 1; }));
  auto acked = f.belay.post("/api/v1/incidents/" + std::to_string(id) + "/ack",
                            R"({"by":"alice"})", "acme-key");
  REQUIRE(acked.status == 200);

  check_counts(f.am(webhook("firing", "CpuHot", 1, 3)), 0, 2, 2);
  CHECK(f.status(id) == "ACKNOWLEDGED");
  CHECK(f.incident(id).json["incident"]["alertCount"] == 3);
  std::this_thread::sleep_for(1s);
  CHECK(f.pages() == 1);
}
